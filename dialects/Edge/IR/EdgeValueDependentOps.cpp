//===- EdgeValueDependentOps.cpp - results sized by the data --------------===//
//
// Verifiers and ValueDependentExtentOpInterface of the ops whose results
// have one value-dependent extent (EdgeValueDependent.td): the results are
// the shapes the operands imply with `?` at that extent, the bound is the
// most the operands give at their bounds, and the other result extents
// are the operands' (static, or tensor.dim of them).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "EdgeOpUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

/// "2, ?" for a shape with a dynamic extent.
static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  for (int64_t extent : shape)
    text += (text.empty() ? "" : ", ") + (ShapedType::isDynamic(extent)
                                              ? std::string("?")
                                              : std::to_string(extent));
  return text;
}

/// Checks that result `index` of `op` is `expected` with `?` at `dim`.
static LogicalResult verifyResult(Operation *op, unsigned index,
                                  ArrayRef<int64_t> expected, int64_t dim) {
  SmallVector<int64_t> shape(expected);
  if (dim >= 0)
    shape[dim] = ShapedType::kDynamic;
  ArrayRef<int64_t> actual = shapeOf(op->getResult(index));
  if (actual != ArrayRef<int64_t>(shape))
    return op->emitOpError("result ")
           << index << " must have shape [" << shapeText(shape)
           << "] (? at the value-dependent extent), got [" << shapeText(actual)
           << "]";
  return success();
}

/// Checks a given bound: not negative.
static LogicalResult verifyGivenBound(Operation *op,
                                      std::optional<uint64_t> bound) {
  if (bound && static_cast<int64_t>(*bound) < 0)
    return op->emitOpError("'max_extent' ")
           << static_cast<int64_t>(*bound) << " is negative";
  return success();
}

/// The axis attribute normalised against `rank`, or -1 without one.
static FailureOr<int64_t> axisIn(Operation *op, std::optional<uint64_t> axis,
                                 int64_t rank) {
  if (!axis)
    return -1;
  auto value = static_cast<int64_t>(*axis);
  if (value < 0 || value >= rank)
    return op->emitOpError("'axis' ")
           << value << " is outside [0, " << rank << ")";
  return value;
}

/// The product of `shape`'s extents, saturating at INT64_MAX.
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t result = 1;
  for (int64_t extent : shape)
    if (__builtin_mul_overflow(result, extent, &result))
      return INT64_MAX;
  return result;
}

/// Extent `dim` of `value`: an attribute when static, else tensor.dim.
static OpFoldResult extentOf(OpBuilder &builder, Value value, int64_t dim) {
  return tensor::getMixedSize(builder, value.getLoc(), value, dim);
}

/// A result's extents: `source`'s at each dimension but `skip` (left null,
/// the value-dependent one), or the static `shape` where given.
static SmallVector<OpFoldResult> extentsLike(OpBuilder &builder, Value source,
                                             int64_t rank, int64_t skip) {
  SmallVector<OpFoldResult> extents;
  for (int64_t d = 0; d < rank; ++d)
    extents.push_back(d == skip ? OpFoldResult()
                                : extentOf(builder, source, d));
  return extents;
}

/// Static extents as index attributes, `?` left null.
static SmallVector<OpFoldResult> staticExtents(OpBuilder &builder,
                                               ArrayRef<int64_t> shape) {
  SmallVector<OpFoldResult> extents;
  for (int64_t extent : shape)
    extents.push_back(ShapedType::isDynamic(extent)
                          ? OpFoldResult()
                          : OpFoldResult(builder.getIndexAttr(extent)));
  return extents;
}

//===----------------------------------------------------------------------===//
// NonZeroOp
//===----------------------------------------------------------------------===//

LogicalResult NonZeroOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyGivenBound(*this, getMaxExtent())))
    return failure();
  return verifyResult(*this, 0, {input.getRank(), 0}, 1);
}

int64_t NonZeroOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>> bounds) {
  return product(bounds[0]);
}

bool NonZeroOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == 1;
}

LogicalResult
NonZeroOp::reifyOtherExtents(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &shapes) {
  shapes.push_back(staticExtents(builder, shapeOf(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// CompressOp
//===----------------------------------------------------------------------===//

LogicalResult CompressOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto condition = cast<RankedTensorType>(getCondition().getType());
  if (condition.getRank() != 1)
    return emitOpError("condition must be 1-d, got ") << condition;
  FailureOr<int64_t> axis = axisIn(*this, getAxis(), input.getRank());
  if (failed(axis) || failed(verifyGivenBound(*this, getMaxExtent())))
    return failure();
  int64_t slices = *axis < 0 ? (input.hasStaticShape() ? input.getNumElements()
                                                       : ShapedType::kDynamic)
                             : input.getDimSize(*axis);
  if (!ShapedType::isDynamic(slices) && !condition.isDynamicDim(0) &&
      condition.getDimSize(0) > slices)
    return emitOpError("condition of ")
           << condition.getDimSize(0) << " entries is longer than the "
           << slices << " slices";
  if (*axis < 0)
    return verifyResult(*this, 0, {0}, 0);
  return verifyResult(*this, 0, input.getShape(), *axis);
}

int64_t CompressOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>> bounds) {
  // At most the condition's length, and the slices it selects from.
  int64_t slices = getAxis() ? bounds[0][*getAxis()] : product(bounds[0]);
  return std::min(bounds[1][0], slices);
}

bool CompressOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == (getAxis() ? *getAxis() : 0);
}

LogicalResult
CompressOp::reifyOtherExtents(OpBuilder &builder,
                              ReifiedRankedShapedTypeDims &shapes) {
  if (!getAxis())
    shapes.push_back({OpFoldResult()});
  else
    shapes.push_back(extentsLike(builder, getInput(),
                                 shapeOf(getOutput()).size(), *getAxis()));
  return success();
}

//===----------------------------------------------------------------------===//
// UniqueOp
//===----------------------------------------------------------------------===//

LogicalResult UniqueOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (!input.hasStaticShape())
    return emitOpError("needs a static input, got ") << input;
  FailureOr<int64_t> axis = axisIn(*this, getAxis(), input.getRank());
  if (failed(axis) || failed(verifyGivenBound(*this, getMaxExtent())))
    return failure();
  int64_t slices = *axis < 0 ? input.getNumElements() : input.getDimSize(*axis);
  if (failed(*axis < 0 ? verifyResult(*this, 0, {0}, 0)
                       : verifyResult(*this, 0, input.getShape(), *axis)) ||
      failed(verifyResult(*this, 1, {0}, 0)) ||
      failed(verifyResult(*this, 2, {slices}, -1)) ||
      failed(verifyResult(*this, 3, {0}, 0)))
    return failure();
  return success();
}

int64_t UniqueOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>> bounds) {
  return getAxis() ? bounds[0][*getAxis()] : product(bounds[0]);
}

bool UniqueOp::isValueDependentDim(unsigned result, unsigned dim) {
  if (result == 0)
    return dim == (getAxis() ? *getAxis() : 0);
  return (result == 1 || result == 3) && dim == 0;
}

LogicalResult UniqueOp::reifyOtherExtents(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  for (Value result : getResults())
    shapes.push_back(staticExtents(builder, shapeOf(result)));
  return success();
}

//===----------------------------------------------------------------------===//
// NonMaxSuppressionOp
//===----------------------------------------------------------------------===//

LogicalResult NonMaxSuppressionOp::verify() {
  ArrayRef<int64_t> boxes = shapeOf(getBoxes()), scores = shapeOf(getScores());
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (boxes.size() != 3 || !agree(boxes[2], 4) || scores.size() != 3 ||
      !agree(scores[0], boxes[0]) || !agree(scores[2], boxes[1]))
    return emitOpError("takes boxes [batch, boxes, 4] and scores [batch, "
                       "classes, boxes], got ")
           << getBoxes().getType() << " and " << getScores().getType();
  for (Value scalar :
       {getMaxOutputBoxesPerClass(), getIouThreshold(), getScoreThreshold()}) {
    auto type = scalar ? cast<RankedTensorType>(scalar.getType()) : nullptr;
    if (type && (!type.hasStaticShape() || type.getNumElements() != 1))
      return emitOpError("takes one-element thresholds and box counts, got ")
             << type;
  }
  if (failed(verifyGivenBound(*this, getMaxExtent())))
    return failure();
  return verifyResult(*this, 0, {0, 3}, 0);
}

int64_t
NonMaxSuppressionOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>> bounds) {
  // At most min(max_output_boxes_per_class, boxes) per batch and class;
  // the count is read at run time unless it is a constant.
  int64_t perClass = bounds[0][1];
  DenseIntElementsAttr given;
  if (matchPattern(getMaxOutputBoxesPerClass(), m_Constant(&given)) &&
      given.getNumElements() == 1)
    perClass = std::clamp<int64_t>((*given.value_begin<APInt>()).getSExtValue(),
                                   0, perClass);
  return product({bounds[1][0], bounds[1][1], perClass});
}

bool NonMaxSuppressionOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == 0;
}

LogicalResult
NonMaxSuppressionOp::reifyOtherExtents(OpBuilder &builder,
                                       ReifiedRankedShapedTypeDims &shapes) {
  shapes.push_back(staticExtents(builder, shapeOf(getSelectedIndices())));
  return success();
}

//===----------------------------------------------------------------------===//
// ArgTopKOp with a run-time k
//===----------------------------------------------------------------------===//

int64_t ArgTopKOp::deriveExtentBound(ArrayRef<SmallVector<int64_t>> bounds) {
  return bounds[0][getAxis()];
}

std::optional<int64_t> ArgTopKOp::getGivenBound() { return std::nullopt; }

bool ArgTopKOp::isValueDependentDim(unsigned result, unsigned dim) {
  return getK() && result == 0 && dim == getAxis();
}

LogicalResult
ArgTopKOp::reifyOtherExtents(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &shapes) {
  shapes.push_back(extentsLike(builder, getInput(), shapeOf(getInput()).size(),
                               static_cast<int64_t>(getAxis())));
  return success();
}
