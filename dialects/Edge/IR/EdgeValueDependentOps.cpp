//===- EdgeValueDependentOps.cpp - results sized by the data --------------===//
//
// Verifiers of the ops whose results have one value-dependent extent
// (EdgeValueDependent.td): the operands are static, the results are the
// shapes the operands imply with `?` at that extent, and the bound lies
// between 0 and the most the operands could give.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "EdgeOpUtils.h"

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

/// Checks that `op`'s operands are static, and that its value-dependent
/// bound lies in [0, `most`].
static LogicalResult verifyValueDependent(Operation *op, int64_t bound,
                                          int64_t most) {
  for (Value operand : op->getOperands())
    if (!cast<RankedTensorType>(operand.getType()).hasStaticShape())
      return op->emitOpError("needs static operands, got ")
             << operand.getType();
  if (bound < 0 || bound > most)
    return op->emitOpError("'max_extent' ")
           << bound << " is outside [0, " << most << "]";
  return success();
}

/// "2x?" for a shape with a dynamic extent.
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
           << "] (? is the value-dependent extent), got [" << shapeText(actual)
           << "]";
  return success();
}

/// The axis attribute normalised against `rank`, or -1 without one.
static FailureOr<int64_t> axisIn(Operation *op, std::optional<int64_t> axis,
                                 int64_t rank) {
  if (!axis)
    return -1;
  if (*axis < 0 || *axis >= rank)
    return op->emitOpError("'axis' ")
           << *axis << " is outside [0, " << rank << ")";
  return *axis;
}

//===----------------------------------------------------------------------===//
// NonZeroOp
//===----------------------------------------------------------------------===//

LogicalResult NonZeroOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyValueDependent(
          *this, getMaxExtent(),
          input.hasStaticShape() ? input.getNumElements() : 0)))
    return failure();
  return verifyResult(*this, 0, {input.getRank(), 0}, 1);
}

bool NonZeroOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == 1;
}

//===----------------------------------------------------------------------===//
// CompressOp
//===----------------------------------------------------------------------===//

LogicalResult CompressOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto condition = cast<RankedTensorType>(getCondition().getType());
  if (condition.getRank() != 1)
    return emitOpError("condition must be 1-d, got ") << condition;
  if (!input.hasStaticShape())
    return emitOpError("needs a static input, got ") << input;
  FailureOr<int64_t> axis = axisIn(*this, getAxis(), input.getRank());
  if (failed(axis))
    return failure();
  int64_t slices = *axis < 0 ? input.getNumElements() : input.getDimSize(*axis);
  if (condition.getDimSize(0) > slices)
    return emitOpError("condition of ")
           << condition.getDimSize(0) << " entries is longer than the "
           << slices << " slices";
  if (failed(
          verifyValueDependent(*this, getMaxExtent(), condition.getDimSize(0))))
    return failure();
  if (*axis < 0)
    return verifyResult(*this, 0, {0}, 0);
  return verifyResult(*this, 0, input.getShape(), *axis);
}

bool CompressOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == (getAxis() ? *getAxis() : 0);
}

//===----------------------------------------------------------------------===//
// UniqueOp
//===----------------------------------------------------------------------===//

LogicalResult UniqueOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (!input.hasStaticShape())
    return emitOpError("needs a static input, got ") << input;
  FailureOr<int64_t> axis = axisIn(*this, getAxis(), input.getRank());
  if (failed(axis))
    return failure();
  int64_t slices = *axis < 0 ? input.getNumElements() : input.getDimSize(*axis);
  if (failed(verifyValueDependent(*this, getMaxExtent(), slices)))
    return failure();
  if (failed(*axis < 0 ? verifyResult(*this, 0, {0}, 0)
                       : verifyResult(*this, 0, input.getShape(), *axis)) ||
      failed(verifyResult(*this, 1, {0}, 0)) ||
      failed(verifyResult(*this, 2, {slices}, -1)) ||
      failed(verifyResult(*this, 3, {0}, 0)))
    return failure();
  return success();
}

bool UniqueOp::isValueDependentDim(unsigned result, unsigned dim) {
  if (result == 0)
    return dim == (getAxis() ? *getAxis() : 0);
  return (result == 1 || result == 3) && dim == 0;
}

//===----------------------------------------------------------------------===//
// NonMaxSuppressionOp
//===----------------------------------------------------------------------===//

LogicalResult NonMaxSuppressionOp::verify() {
  ArrayRef<int64_t> boxes = shapeOf(getBoxes()), scores = shapeOf(getScores());
  if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 ||
      scores[0] != boxes[0] || scores[2] != boxes[1])
    return emitOpError("takes boxes [batch, boxes, 4] and scores [batch, "
                       "classes, boxes], got ")
           << getBoxes().getType() << " and " << getScores().getType();
  for (Value scalar :
       {getMaxOutputBoxesPerClass(), getIouThreshold(), getScoreThreshold()})
    if (scalar &&
        cast<RankedTensorType>(scalar.getType()).getNumElements() != 1)
      return emitOpError("takes one-element thresholds and box counts, got ")
             << scalar.getType();
  if (failed(verifyValueDependent(*this, getMaxExtent(),
                                  scores[0] * scores[1] * scores[2])))
    return failure();
  return verifyResult(*this, 0, {0, 3}, 0);
}

bool NonMaxSuppressionOp::isValueDependentDim(unsigned result, unsigned dim) {
  return result == 0 && dim == 0;
}

//===----------------------------------------------------------------------===//
// ArgTopKOp with a run-time k
//===----------------------------------------------------------------------===//

int64_t ArgTopKOp::getExtentBound() { return shapeOf(getInput())[getAxis()]; }

bool ArgTopKOp::isValueDependentDim(unsigned result, unsigned dim) {
  return getK() && result == 0 && dim == getAxis();
}
