//===- HLMiscOps.cpp - verifiers of block, sort, scan and resize ops ------===//
//
// Also Resize's shape rule (InferShapedTypeOpInterface).
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"
#include "HL/IR/HLShapeInference.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

using Shape = SmallVector<int64_t>;

/// Shared checks of DepthToSpace/SpaceToDepth.
static LogicalResult verifyBlockOp(Operation *op, Value input,
                                   int64_t blocksize, bool depthToSpace) {
  if (blocksize < 1)
    return op->emitOpError("'blocksize' must be positive, got ") << blocksize;
  if (failed(verifyRank(op, input, 4, "input")))
    return failure();
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return success();
  int64_t channels = type.getDimSize(1);
  if (depthToSpace && !ShapedType::isDynamic(channels) &&
      channels % (blocksize * blocksize) != 0)
    return op->emitOpError("channels ")
           << channels << " are not divisible by blocksize^2";
  for (int64_t d : {2, 3})
    if (!depthToSpace && !type.isDynamicDim(d) &&
        type.getDimSize(d) % blocksize != 0)
      return op->emitOpError("spatial extent ")
             << type.getDimSize(d) << " is not divisible by blocksize";
  return success();
}

LogicalResult DepthToSpaceOp::verify() {
  if (getMode() != "DCR" && getMode() != "CRD")
    return emitOpError("'mode' must be DCR or CRD, got '") << getMode() << "'";
  return verifyBlockOp(*this, getInput(), static_cast<int64_t>(getBlocksize()),
                       true);
}

LogicalResult SpaceToDepthOp::verify() {
  return verifyBlockOp(*this, getInput(), static_cast<int64_t>(getBlocksize()),
                       false);
}

LogicalResult ReverseSequenceOp::verify() {
  uint64_t batch = getBatchAxis(), time = getTimeAxis();
  if (batch > 1 || time > 1 || batch == time)
    return emitOpError("'batch_axis' and 'time_axis' must be 0 and 1 in "
                       "some order");
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && *rank < 2)
    return emitOpError("input must have rank >= 2, got ") << *rank;
  return success();
}

LogicalResult TopKOp::verify() {
  if (failed(verifyRank(*this, getK(), 1, "k")))
    return failure();
  auto kType = dyn_cast<RankedTensorType>(getK().getType());
  if (kType && !kType.isDynamicDim(0) && kType.getDimSize(0) != 1)
    return emitOpError("'k' must hold one element");
  if (getLargest() > 1 || getSorted() > 1)
    return emitOpError("'largest' and 'sorted' must be 0 or 1");
  auto valuesType = dyn_cast<RankedTensorType>(getValues().getType());
  auto indicesType = dyn_cast<RankedTensorType>(getIndices().getType());
  if (valuesType && indicesType &&
      !isCompatibleShape(valuesType.getShape(), indicesType.getShape()))
    return emitOpError("values and indices must have one shape");
  return verifyAxis(*this, static_cast<int64_t>(getAxis()), rankOf(getInput()));
}

LogicalResult CumSumOp::verify() {
  auto axisType = dyn_cast<RankedTensorType>(getAxis().getType());
  if (axisType && axisType.hasStaticShape() && axisType.getNumElements() != 1)
    return emitOpError("'axis' must be a scalar");
  if (getExclusive() > 1 || getReverse() > 1)
    return emitOpError("'exclusive' and 'reverse' must be 0 or 1");
  if (auto axis = getConstantInts(getAxis()))
    return verifyAxis(*this, axis->front(), rankOf(getInput()));
  return success();
}

LogicalResult EinsumOp::verify() {
  StringRef equation = getEquation();
  StringRef lhs = equation.split("->").first;
  size_t terms = lhs.count(',') + 1;
  if (terms != getInputs().size())
    return emitOpError("equation '")
           << equation << "' has " << terms << " input terms for "
           << getInputs().size() << " operands";
  for (char c : equation)
    if (!llvm::isAlpha(c) && !llvm::is_contained(",->. ", c))
      return emitOpError("invalid character '")
             << c << "' in equation '" << equation << "'";
  return success();
}

/// Sets the `axes` of `result` from `sizes` (one per axis): as given
/// (stretch), or the input's extents times one common ratio of them,
/// rounded half up (not_larger: the smallest ratio, not_smaller: the
/// largest).
static LogicalResult resizeToSizes(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> axes,
                                   ArrayRef<int64_t> sizes, StringRef policy,
                                   MutableArrayRef<int64_t> result) {
  if (policy == "stretch") {
    for (auto [i, axis] : llvm::enumerate(axes))
      result[axis] = sizes[i];
    return success();
  }
  bool notLarger = policy == "not_larger";
  double common = notLarger ? INFINITY : 0.0;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (input[axis] <= 0)
      return failure();
    double ratio = static_cast<double>(sizes[i]) / input[axis];
    common = notLarger ? std::min(common, ratio) : std::max(common, ratio);
  }
  for (int64_t axis : axes)
    result[axis] = static_cast<int64_t>(common * input[axis] + 0.5);
  return success();
}

LogicalResult ResizeOp::verify() {
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, getMode()))
    return emitOpError("'mode' must be nearest, linear or cubic, got '")
           << getMode() << "'";
  if (getScales() && getSizes())
    return emitOpError("only one of scales and sizes may be given");
  if (!getScales() && !getSizes())
    return emitOpError("one of scales and sizes must be given");
  std::optional<int64_t> rank = rankOf(getInput());
  Value given = getScales() ? getScales() : getSizes();
  if (failed(verifyRank(*this, given, 1, "scales/sizes")))
    return failure();
  if (!llvm::is_contained({"stretch", "not_larger", "not_smaller"},
                          getKeepAspectRatioPolicy()))
    return emitOpError("'keep_aspect_ratio_policy' must be stretch, "
                       "not_larger or not_smaller, got '")
           << getKeepAspectRatioPolicy() << "'";
  std::optional<int64_t> entries = rank;
  if (std::optional<ArrayRef<int64_t>> axes = getAxes()) {
    entries = axes->size();
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t axis : *axes)
      if (rank && (axis < -*rank || axis >= *rank ||
                   !seen.insert(axis < 0 ? axis + *rank : axis).second))
        return emitOpError("'axes' entry ")
               << axis << " is out of range or repeated for rank " << *rank;
  }
  auto type = dyn_cast<RankedTensorType>(given.getType());
  if (entries && type && !type.isDynamicDim(0) &&
      type.getDimSize(0) != *entries)
    return emitOpError("scales/sizes have ")
           << type.getDimSize(0) << " entries, expected " << *entries;
  return success();
}

LogicalResult ResizeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // The listed axes (all without `axes`) take constant `sizes`, or
  // floor(extent * scale) for constant `scales`; the other axes keep their
  // extent. tf_crop_and_resize with scales also depends on the roi and is
  // left open. A dynamic extent (a bounded batch) stays dynamic under
  // scales; sizes need a static input.
  std::optional<Shape> input = getRankedShape(operands, op.getInput());
  if (!input ||
      (op.getSizes() && ShapedType::isDynamicShape(ArrayRef<int64_t>(*input))))
    return unknownShape(shapes);
  int64_t rank = input->size();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> listed = op.getAxes()) {
    for (int64_t a : *listed) {
      FailureOr<int64_t> axis = normalizeAxis(a, rank);
      if (failed(axis))
        return misfit(location, "'axes' entry out of range");
      axes.push_back(*axis);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  Shape result = *input;
  if (Value sizesValue = op.getSizes()) {
    std::optional<Shape> sizes = getKnownInts(operands, sizesValue);
    if (!sizes)
      return unknownShape(shapes);
    if (sizes->size() != axes.size() ||
        failed(resizeToSizes(*input, axes, *sizes,
                             op.getKeepAspectRatioPolicy(), result)))
      return misfit(location, "'sizes' do not fit the input");
  } else if (Value scalesValue = op.getScales()) {
    std::optional<SmallVector<double>> scales =
        getConstantFloatValues(scalesValue);
    if (!scales || op.getCoordinateTransformationMode() == "tf_crop_and_resize")
      return unknownShape(shapes);
    if (scales->size() != axes.size())
      return misfit(location, "'scales' do not fit the input");
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (ShapedType::isDynamic((*input)[axis]))
        continue;
      double extent = std::floor((*input)[axis] * (*scales)[i]);
      if (!(extent >= 0 && extent < 9.0e18))
        return misfit(location, "scaled extent out of range");
      result[axis] = static_cast<int64_t>(extent);
    }
  } else {
    return misfit(location, "one of scales and sizes must be given");
  }
  if (llvm::any_of(result, [](int64_t d) { return d < 0; }))
    return misfit(location, "negative extent");
  return knownShape(shapes, result);
}
