//===- HLQuantOps.cpp - verifiers of quantisation and integer ops ---------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Checks scale and zero point of a (de)quantize op: scalar or 1-D along
/// `axis`, one shape, and the zero point's element type matching `intType`.
static LogicalResult verifyQuantParams(Operation *op, Value input, Value scale,
                                       Value zeroPoint, int64_t axis,
                                       Type intType) {
  auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
  if (scaleType && scaleType.getRank() > 1)
    return op->emitOpError("scale must be a scalar or 1-D, got rank ")
           << scaleType.getRank();
  if (zeroPoint) {
    auto zpType = cast<ShapedType>(zeroPoint.getType());
    if (zpType.getElementType() != getElementTypeOrSelf(intType))
      return op->emitOpError("zero point element type ")
             << zpType.getElementType()
             << " differs from the quantized element type "
             << getElementTypeOrSelf(intType);
    if (scaleType && zpType.hasRank() &&
        !isCompatibleShape(zpType.getShape(), scaleType.getShape()))
      return op->emitOpError("zero point and scale shapes differ");
  }
  if (scaleType && scaleType.getRank() == 1 &&
      failed(verifyAxis(op, axis, rankOf(input))))
    return failure();
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           static_cast<int64_t>(getAxis()),
                           getOutput().getType());
}

LogicalResult DequantizeLinearOp::verify() {
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           static_cast<int64_t>(getAxis()),
                           getInput().getType());
}

/// Checks that an optional zero point matches its tensor's element type and
/// is a scalar or 1-D.
static LogicalResult verifyZeroPoint(Operation *op, Value zeroPoint,
                                     Value tensor, StringRef name) {
  if (!zeroPoint)
    return success();
  if (getElementTypeOrSelf(zeroPoint) != getElementTypeOrSelf(tensor))
    return op->emitOpError("'")
           << name << "' element type " << getElementTypeOrSelf(zeroPoint)
           << " differs from its operand's " << getElementTypeOrSelf(tensor);
  std::optional<int64_t> rank = rankOf(zeroPoint);
  if (rank && *rank > 1)
    return op->emitOpError("'") << name << "' must be a scalar or 1-D";
  return success();
}

LogicalResult MatMulIntegerOp::verify() {
  if (failed(verifyZeroPoint(*this, getAZeroPoint(), getA(), "a_zero_point")) ||
      failed(verifyZeroPoint(*this, getBZeroPoint(), getB(), "b_zero_point")))
    return failure();
  auto lhsType = dyn_cast<RankedTensorType>(getA().getType());
  auto rhsType = dyn_cast<RankedTensorType>(getB().getType());
  if (!lhsType || !rhsType || lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return success();
  int64_t k = lhsType.getShape().back();
  int64_t kRhs = rhsType.getRank() == 1 ? rhsType.getDimSize(0)
                                        : rhsType.getShape().end()[-2];
  if (!isCompatibleShape({k}, {kRhs}))
    return emitOpError("inner dimensions differ: ") << k << " vs " << kRhs;
  return success();
}

LogicalResult ConvIntegerOp::verify() {
  // WindowOpInterface checked the window attributes and the group.
  if (failed(
          verifyZeroPoint(*this, getXZeroPoint(), getInput(), "x_zero_point")))
    return failure();
  return verifyZeroPoint(*this, getWZeroPoint(), getWeight(), "w_zero_point");
}

LogicalResult QLinearMatMulOp::verify() {
  if (failed(verifyZeroPoint(*this, getAZeroPoint(), getA(), "a_zero_point")) ||
      failed(verifyZeroPoint(*this, getBZeroPoint(), getB(), "b_zero_point")) ||
      failed(
          verifyZeroPoint(*this, getYZeroPoint(), getOutput(), "y_zero_point")))
    return failure();
  return success();
}

LogicalResult QLinearConvOp::verify() {
  // WindowOpInterface checked the window attributes and the group.
  if (failed(verifyZeroPoint(*this, getXZeroPoint(), getInput(),
                             "x_zero_point")) ||
      failed(verifyZeroPoint(*this, getWZeroPoint(), getWeight(),
                             "w_zero_point")) ||
      failed(
          verifyZeroPoint(*this, getYZeroPoint(), getOutput(), "y_zero_point")))
    return failure();
  return success();
}
