//===- EdgeIndexingOps.cpp - gather, scatter, top-k, range, resize --------===//
//
// The result type is exactly the one the operands and attributes imply:
// ops whose result follows from them infer it (InferTypeOpInterface, whose
// verifier compares it with the actual one), the others' verifiers check
// it. Backends and the portable runtime rely on it and never re-derive
// shapes (EdgeOpUtils.h has the shared helpers).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"
#include "EdgeOpUtils.h"

#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

/// Checks that `axis` lies in [0, rank of `input`) and, for the *Elements
/// ops (`indices` given), that the indices have the input's rank.
static LogicalResult
verifyIndexedAxis(llvm::function_ref<InFlightDiagnostic()> emitError,
                  ArrayRef<int64_t> input, int64_t axis,
                  std::optional<ArrayRef<int64_t>> indices = std::nullopt) {
  int64_t rank = input.size();
  if (axis < 0 || axis >= rank)
    return emitError() << "'axis' " << axis << " is outside [0, " << rank
                       << ")";
  if (indices && static_cast<int64_t>(indices->size()) != rank)
    return emitError() << "indices have rank " << indices->size()
                       << ", input has " << rank;
  return success();
}

/// The result of gathering from `input` by `indices`: `shape` applied to
/// the two shapes after the axis checks, with the input's element type.
template <typename OpT>
static LogicalResult inferGathered(
    std::optional<Location> location, typename OpT::Adaptor adaptor,
    bool elementwise, SmallVectorImpl<Type> &inferred,
    llvm::function_ref<SmallVector<int64_t>(ArrayRef<int64_t>,
                                            ArrayRef<int64_t>, int64_t)>
        shape) {
  auto emitError = inferErrorFor<OpT>(location);
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!input || !indices)
    return emitError() << "needs ranked input and indices";
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(verifyIndexedAxis(emitError, input.getShape(), axis,
                               elementwise ? std::optional(indices.getShape())
                                           : std::nullopt)))
    return failure();
  return pushTensor(inferred, shape(input.getShape(), indices.getShape(), axis),
                    input.getElementType());
}

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGathered<GatherElementsOp>(
      location, adaptor, /*elementwise=*/true, inferred,
      [](ArrayRef<int64_t>, ArrayRef<int64_t> indices, int64_t) {
        return SmallVector<int64_t>(indices);
      });
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferGathered<GatherOp>(
      location, adaptor, /*elementwise=*/false, inferred,
      [](ArrayRef<int64_t> input, ArrayRef<int64_t> indices, int64_t axis) {
        SmallVector<int64_t> shape(input.take_front(axis));
        llvm::append_range(shape, indices);
        llvm::append_range(shape, input.drop_front(axis + 1));
        return shape;
      });
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (failed(verifyIndexedAxis([&] { return emitOpError(); }, input,
                               static_cast<int64_t>(getAxis()), indices)))
    return failure();
  if (shapeOf(getUpdates()) != indices)
    return emitOpError("updates and indices differ in shape");
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, getReduction()))
    return emitOpError("unknown reduction '") << getReduction() << "'";
  return success();
}

LogicalResult ScatterNDOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (indices.empty() || indices.back() < 1 ||
      indices.back() > static_cast<int64_t>(input.size()))
    return emitOpError("indices [..., k] need k in [1, input rank]");
  SmallVector<int64_t> expected(indices.drop_back());
  llvm::append_range(expected, input.drop_front(indices.back()));
  if (shapeOf(getUpdates()) != ArrayRef<int64_t>(expected))
    return emitOpError("updates must have shape [")
           << formatShape(expected) << "]";
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, getReduction()))
    return emitOpError("unknown reduction '") << getReduction() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// ArgTopKOp
//===----------------------------------------------------------------------===//

LogicalResult ArgTopKOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  int64_t rank = input.size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("'axis' ") << axis << " is outside [0, " << rank << ")";
  // A run-time k: its extent is value-dependent, bounded by the axis'.
  if (Value k = getK()) {
    auto kType = cast<RankedTensorType>(k.getType());
    if (!kType.hasStaticShape() || kType.getNumElements() != 1)
      return emitOpError("k must have one element, got ") << kType;
    if (static_cast<int64_t>(output.size()) != rank ||
        !ShapedType::isDynamic(output[axis]))
      return emitOpError("with a run-time k the result's extent along the "
                         "axis is value-dependent (?)");
  }
  if (static_cast<int64_t>(output.size()) != rank || output[axis] > input[axis])
    return emitOpError("result must have the input's rank and at most ")
           << input[axis] << " entries along the axis";
  SmallVector<int64_t> expected(input);
  expected[axis] = output[axis];
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// GatherNDOp
//===----------------------------------------------------------------------===//

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<GatherNDOp>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType indicesType = rankedType(adaptor.getIndices());
  if (!inputType || !indicesType)
    return emitError() << "needs ranked input and indices";
  ArrayRef<int64_t> input = inputType.getShape();
  ArrayRef<int64_t> indices = indicesType.getShape();
  int64_t batch = static_cast<int64_t>(adaptor.getBatchDims());
  int64_t rank = input.size(), indexRank = indices.size();
  if (indexRank < 1 || batch < 0 || batch >= indexRank || batch >= rank)
    return emitError() << "'batch_dims' " << batch
                       << " must be below both ranks and indices need rank "
                          ">= 1";
  int64_t tuple = indices.back();
  if (tuple < 1 || batch + tuple > rank)
    return emitError() << "index tuples of length " << tuple
                       << " do not fit the input's rank " << rank;
  SmallVector<int64_t> shape(indices.drop_back());
  llvm::append_range(shape, input.drop_front(batch + tuple));
  return pushTensor(inferred, shape, inputType.getElementType());
}

LogicalResult GatherNDOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  // Inference has checked the ranks and the tuple length.
  int64_t batch = static_cast<int64_t>(getBatchDims());
  if (shapeOf(getInput()).take_front(batch) !=
      shapeOf(getIndices()).take_front(batch))
    return emitOpError("batch dimensions of input and indices differ");
  return success();
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  auto type = cast<ShapedType>(getStart().getType());
  if (type.getNumElements() != 1)
    return emitOpError("start, limit and delta must hold one element, got ")
           << type;
  if (!isa<IntegerType, FloatType>(type.getElementType()) ||
      type.getElementType().isInteger(1))
    return emitOpError("needs a numeric element type, got ")
           << type.getElementType();
  if (shapeOf(getOutput()).size() != 1)
    return emitOpError("result must be 1-d, got ") << getOutput().getType();
  bool dynamic = ShapedType::isDynamic(shapeOf(getOutput()).front());
  if (!dynamic && (getLength() || getMaxExtent()))
    return emitOpError("a static result takes no length operand and no "
                       "'max_extent'");
  if (dynamic && !getLength() && !getMaxExtent())
    return emitOpError("a dynamic result takes its length as an index "
                       "operand, or a 'max_extent' when the length depends "
                       "on the data");
  if (getLength() && getMaxExtent())
    return emitOpError("takes a length operand or a 'max_extent', not both");
  if (getMaxExtent() && static_cast<int64_t>(*getMaxExtent()) < 0)
    return emitOpError("'max_extent' ")
           << static_cast<int64_t>(*getMaxExtent()) << " is negative";
  return success();
}

// A length read from the data (no length operand): bounded only by the
// user's 'max_extent'.
int64_t RangeOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>>) {
  return INT64_MAX;
}

bool RangeOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == 0 && !getLength() &&
         ShapedType::isDynamic(shapeOf(getOutput()).front());
}

LogicalResult RangeOp::reifyOtherExtents(OpBuilder &,
                                         ReifiedRankedShapedTypeDims &shapes) {
  shapes.push_back({OpFoldResult()});
  return success();
}

LogicalResult ShapeOfOp::verify() {
  if (shapeOf(getOutput()) !=
      ArrayRef<int64_t>{cast<ShapedType>(getInput().getType()).getRank()})
    return emitOpError("result must hold one extent per input dimension, "
                       "got ")
           << getOutput().getType();
  return success();
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  auto type = cast<ShapedType>(getInput().getType());
  if (!type.hasStaticShape())
    return {};
  return DenseIntElementsAttr::get(cast<ShapedType>(getOutput().getType()),
                                   type.getShape());
}

//===----------------------------------------------------------------------===//
// ResizeOp, GridSampleOp
//===----------------------------------------------------------------------===//

/// Checks that `value` is one of `allowed`, naming the attribute otherwise.
static LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                                 ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  return op->emitOpError("'")
         << name << "' must be one of " << llvm::join(allowed, ", ")
         << ", got '" << value << "'";
}

/// Checks a run-time vector operand: rank 1 with `entries` elements.
static LogicalResult verifyVectorOperand(Operation *op, Value value,
                                         StringRef name, int64_t entries) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() == 1 && shape[0] == entries &&
      getElementTypeOrSelf(value).isF32())
    return success();
  return op->emitOpError("'") << name << "' operand must be tensor<" << entries
                              << "xf32>, got " << value.getType();
}

/// Checks per-axis scales against the input and result extents.
static LogicalResult verifyStaticScales(Operation *op, ArrayRef<double> scales,
                                        ArrayRef<int64_t> input,
                                        ArrayRef<int64_t> output) {
  int64_t rank = input.size();
  if (static_cast<int64_t>(scales.size()) != rank)
    return op->emitOpError("'scales' has ")
           << scales.size() << " entries, expected " << rank;
  for (int64_t d = 0; d < rank; ++d) {
    if (!(scales[d] > 0) || !std::isfinite(scales[d]))
      return op->emitOpError("scale ")
             << scales[d] << " of axis " << d << " must be positive and finite";
    // A dynamic extent (a bounded batch) is not resampled: the result's is
    // the input's.
    if (ShapedType::isDynamic(input[d]) || ShapedType::isDynamic(output[d])) {
      if (scales[d] != 1.0 || input[d] != output[d])
        return op->emitOpError("dynamic axis ")
               << d << " needs scale 1 and the same extent in the result";
      continue;
    }
    // floor(scale * in) per the ONNX shape rule; keep_aspect_ratio_policy
    // rounds instead, so allow anything within one.
    if (std::abs(static_cast<double>(output[d]) - scales[d] * input[d]) >=
        1.0 + 1e-6)
      return op->emitOpError("result extent ")
             << output[d] << " of axis " << d << " does not match scale "
             << scales[d] << " times input extent " << input[d];
  }
  return success();
}

LogicalResult GridSampleOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  Operation *op = getOperation();
  if (failed(verifyOneOf(op, "mode", getMode(),
                         {"bilinear", "nearest", "bicubic"})) ||
      failed(verifyOneOf(op, "padding_mode", getPaddingMode(),
                         {"zeros", "border", "reflection"})))
    return failure();
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType gridType = rankedType(adaptor.getGrid());
  if (!inputType || !gridType || inputType.getRank() != 4 ||
      gridType.getRank() != 4 || gridType.getDimSize(3) != 2 ||
      gridType.getDimSize(0) != inputType.getDimSize(0))
    return inferError(location, getOperationName())
           << "needs an [N, C, H, W] input and an [N, H_out, W_out, 2] grid";
  ArrayRef<int64_t> input = inputType.getShape(), grid = gridType.getShape();
  return pushTensor(inferred, {input[0], input[1], grid[1], grid[2]},
                    inputType.getElementType());
}

LogicalResult ResizeOp::verify() {
  Operation *op = getOperation();
  if (failed(
          verifyOneOf(op, "mode", getMode(), {"nearest", "linear", "cubic"})) ||
      failed(verifyOneOf(op, "coordinate_transformation_mode",
                         getCoordinateTransformationMode(),
                         {"half_pixel", "half_pixel_symmetric",
                          "pytorch_half_pixel", "align_corners", "asymmetric",
                          "tf_half_pixel_for_nn", "tf_crop_and_resize"})) ||
      failed(verifyOneOf(
          op, "nearest_mode", getNearestMode(),
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})))
    return failure();
  if (getAntialias() && getMode() == "nearest")
    return emitOpError("'antialias' needs linear or cubic mode");
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  int64_t rank = input.size();
  if (static_cast<int64_t>(output.size()) != rank)
    return emitOpError("result rank ")
           << output.size() << " differs from the input rank " << rank;

  if (getScales().has_value() == (getDynamicScales() != nullptr))
    return emitOpError("needs exactly one of the 'scales' attribute and the "
                       "'scales' operand");
  if (Value scales = getDynamicScales()) {
    if (ShapedType::isDynamicShape(input) || ShapedType::isDynamicShape(output))
      return emitOpError("run-time scales need static shapes");
    if (failed(verifyVectorOperand(op, scales, "scales", rank)))
      return failure();
  } else if (failed(verifyStaticScales(op, *getScales(), input, output))) {
    return failure();
  }

  bool crop = getCoordinateTransformationMode() == "tf_crop_and_resize";
  bool hasRoi = getRoi().has_value() || getDynamicRoi();
  if (!crop && hasRoi)
    return emitOpError("a region of interest needs 'tf_crop_and_resize'");
  if (crop && getRoi().has_value() == (getDynamicRoi() != nullptr))
    return emitOpError("'tf_crop_and_resize' needs exactly one of the 'roi' "
                       "attribute and the 'roi' operand");
  if (Value roi = getDynamicRoi())
    return verifyVectorOperand(op, roi, "roi", 2 * rank);
  if (crop && static_cast<int64_t>(getRoi()->size()) != 2 * rank)
    return emitOpError("'roi' has ")
           << getRoi()->size() << " entries, expected " << 2 * rank;
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequenceOp, RoiAlignOp, DetOp
//===----------------------------------------------------------------------===//

LogicalResult ReverseSequenceOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  int64_t batchAxis = static_cast<int64_t>(getBatchAxis());
  int64_t timeAxis = static_cast<int64_t>(getTimeAxis());
  if (input.size() < 2)
    return emitOpError("needs an input of rank 2 or more, got rank ")
           << input.size();
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return emitOpError("'batch_axis' and 'time_axis' must be 0 and 1, got ")
           << batchAxis << " and " << timeAxis;
  ArrayRef<int64_t> lengths = shapeOf(getSequenceLens());
  if (lengths.size() != 1 || lengths[0] != input[batchAxis])
    return emitOpError("'sequence_lens' must have one entry per batch entry (")
           << input[batchAxis] << ")";
  return success();
}

LogicalResult RoiAlignOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  return verifyOneOf(getOperation(), "mode", getMode(), {"avg", "max"});
}

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType roisType = rankedType(adaptor.getRois());
  RankedTensorType indicesType = rankedType(adaptor.getBatchIndices());
  if (!inputType || !roisType || !indicesType || inputType.getRank() != 4 ||
      roisType.getRank() != 2 || roisType.getDimSize(1) != 4 ||
      indicesType.getRank() != 1 ||
      indicesType.getDimSize(0) != roisType.getDimSize(0))
    return inferError(location, getOperationName())
           << "needs an [N, C, H, W] input, [R, 4] rois and [R] batch "
              "indices";
  int64_t height = static_cast<int64_t>(adaptor.getOutputHeight());
  int64_t width = static_cast<int64_t>(adaptor.getOutputWidth());
  int64_t ratio = static_cast<int64_t>(adaptor.getSamplingRatio());
  if (height < 1 || width < 1 || ratio < 0)
    return inferError(location, getOperationName())
           << "needs output extents >= 1 and a sampling_ratio >= 0";
  return pushTensor(
      inferred,
      {roisType.getDimSize(0), inputType.getDimSize(1), height, width},
      inputType.getElementType());
}

LogicalResult DetOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  RankedTensorType inputType = rankedType(adaptor.getInput());
  if (!inputType || inputType.getRank() < 2 ||
      inputType.getDimSize(inputType.getRank() - 1) !=
          inputType.getDimSize(inputType.getRank() - 2))
    return inferError(location, getOperationName())
           << "needs square matrices [*, M, M]";
  return pushTensor(inferred, inputType.getShape().drop_back(2),
                    inputType.getElementType());
}

LogicalResult STFTOp::verify() {
  ArrayRef<int64_t> signal = shapeOf(getSignal()),
                    result = shapeOf(getOutput());
  if (signal.size() != 3 || (signal[2] != 1 && signal[2] != 2))
    return emitOpError("needs a signal [batch, samples, 1 or 2]");
  if (getOnesided() && signal[2] != 1)
    return emitOpError("'onesided' needs a real signal");
  if (shapeOf(getFrameStep()) != ArrayRef<int64_t>{1} ||
      shapeOf(getFrameLength()) != ArrayRef<int64_t>{1})
    return emitOpError("needs a frame step and a frame length of one entry");
  if (Value window = getWindow())
    if (shapeOf(window).size() != 1)
      return emitOpError("needs a 1-d window");
  if (result.size() != 4 || result[0] != signal[0] || result[3] != 2)
    return emitOpError("result must be [batch, frames, bins, 2]");
  return success();
}
