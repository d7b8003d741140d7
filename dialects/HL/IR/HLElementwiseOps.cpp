//===- HLElementwiseOps.cpp - hl elementwise verifiers and folders --------===//
//
// Broadcasting is checked by the ResultsBroadcastableShape trait; what is
// left here are the attribute and operand invariants ONNX states per op.
//
//===----------------------------------------------------------------------===//
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
// Unary
//===----------------------------------------------------------------------===//

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

LogicalResult ShrinkOp::verify() {
  if (getLambd().isNegative())
    return emitOpError("'lambd' must not be negative");
  return success();
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

LogicalResult ModOp::verify() {
  if (getFmod() > 1)
    return emitOpError("'fmod' must be 0 or 1");
  if (getFmod() == 0 && isa<FloatType>(getElementTypeOrSelf(getLhs())))
    return emitOpError("'fmod' must be 1 for floating-point operands");
  return success();
}

LogicalResult BitShiftOp::verify() {
  if (getDirection() != "LEFT" && getDirection() != "RIGHT")
    return emitOpError("'direction' must be LEFT or RIGHT, got '")
           << getDirection() << "'";
  return success();
}

LogicalResult PReluOp::verify() {
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  auto slopeType = dyn_cast<RankedTensorType>(getSlope().getType());
  if (!inputType || !slopeType)
    return success();
  auto shape = broadcastShapes(slopeType.getShape(), inputType.getShape());
  if (slopeType.getRank() > inputType.getRank() || failed(shape) ||
      !isCompatibleShape(*shape, inputType.getShape()))
    return emitOpError("slope of shape [")
           << formatShape(slopeType.getShape())
           << "] does not broadcast to the input shape ["
           << formatShape(inputType.getShape()) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ClipOp
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  Type elementType = getElementTypeOrSelf(getInput());
  for (Value bound : {getMin(), getMax()}) {
    if (!bound)
      continue;
    auto type = cast<ShapedType>(bound.getType());
    if (type.getElementType() != elementType)
      return emitOpError("bound element type ")
             << type.getElementType() << " differs from the input's "
             << elementType;
    if (type.hasRank() && type.getRank() != 0 &&
        !(type.getRank() == 1 && type.getDimSize(0) == 1))
      return emitOpError("bounds must be scalars, got shape [")
             << formatShape(type.getShape()) << "]";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!resultType || !resultType.hasStaticShape())
    return {};
  if (isa_and_nonnull<DenseFPElementsAttr>(adaptor.getInput()))
    return detail::foldFloatCast(resultType, adaptor.getInput());
  auto input = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  if (!input)
    return {};
  if (isa<FloatType>(resultType.getElementType()))
    return detail::foldIntToFloatCast(resultType, input);
  auto intType = dyn_cast<IntegerType>(resultType.getElementType());
  if (!intType)
    return {};
  // Booleans (i1) are 0 and 1: zero-extended, never sign-extended to -1.
  bool isSigned = !input.getElementType().isUnsignedInteger() &&
                  !input.getElementType().isInteger(1);
  SmallVector<APInt> values;
  for (const APInt &v : input.getValues<APInt>())
    values.push_back(isSigned ? v.sextOrTrunc(intType.getWidth())
                              : v.zextOrTrunc(intType.getWidth()));
  if (intType.getWidth() == 1)
    for (auto [i, v] : llvm::enumerate(input.getValues<APInt>()))
      values[i] = APInt(1, !v.isZero());
  return DenseElementsAttr::get(resultType, values);
}
