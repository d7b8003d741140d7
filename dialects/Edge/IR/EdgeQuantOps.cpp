//===- EdgeQuantOps.cpp - quantize_linear / dequantize_linear verifiers ---===//
//
// The affine quantization contract shared by both ops: f32 on the float
// side, scale f32 and zero point of the storage type with one shape (scalar
// per tensor, 1-D per axis), and, when the integer side carries a
// `!quant.uniform` type, agreement between that type and the operands.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "EdgeOpUtils.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

/// The plain integer type holding the values of `type`: `i8` for a signed
/// 8-bit storage, `ui8` for an unsigned one (ONNX's int8/uint8).
static IntegerType plainStorageType(quant::QuantizedType type) {
  return IntegerType::get(type.getContext(), type.getStorageTypeIntegralWidth(),
                          type.isSigned() ? IntegerType::Signless
                                          : IntegerType::Unsigned);
}

/// Checks that constant scale / zero-point operands hold the values a
/// `!quant.uniform` type states (run-time operands are not checked).
static LogicalResult verifyConstantParams(Operation *op, Value scale,
                                          Value zeroPoint,
                                          ArrayRef<double> scales,
                                          ArrayRef<int64_t> zeroPoints) {
  DenseElementsAttr scaleAttr, zeroPointAttr;
  if (matchPattern(scale, m_Constant(&scaleAttr)))
    for (auto [i, value] : llvm::enumerate(scaleAttr.getValues<APFloat>()))
      if (value.convertToFloat() != static_cast<float>(scales[i]))
        return op->emitOpError("constant scale ")
               << value.convertToFloat() << " at " << i
               << " differs from the quantized type's " << scales[i];
  if (matchPattern(zeroPoint, m_Constant(&zeroPointAttr))) {
    bool isUnsigned = zeroPointAttr.getElementType().isUnsignedInteger();
    for (auto [i, value] : llvm::enumerate(zeroPointAttr.getValues<APInt>())) {
      int64_t v = isUnsigned ? static_cast<int64_t>(value.getZExtValue())
                             : value.getSExtValue();
      if (v != zeroPoints[i])
        return op->emitOpError("constant zero point ")
               << v << " at " << i << " differs from the quantized type's "
               << zeroPoints[i];
    }
  }
  return success();
}

/// Checks a `!quant.uniform` integer side against the operands.
static LogicalResult verifyQuantizedType(Operation *op,
                                         quant::QuantizedType type,
                                         RankedTensorType scaleType,
                                         Value scale, Value zeroPoint,
                                         int64_t axis) {
  if (!type.getExpressedType().isF32())
    return op->emitOpError("quantized type ")
           << type << " must express f32 values";
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type)) {
    if (scaleType.getRank() != 0)
      return op->emitOpError("per-tensor quantized type ")
             << type << " needs scalar scale and zero point";
    return verifyConstantParams(op, scale, zeroPoint, uniform.getScale(),
                                uniform.getZeroPoint());
  }
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    if (scaleType.getRank() != 1 || perAxis.getQuantizedDimension() != axis ||
        static_cast<int64_t>(perAxis.getScales().size()) !=
            scaleType.getDimSize(0))
      return op->emitOpError("per-axis quantized type ")
             << type << " disagrees with 'axis' " << axis << " and scale "
             << scaleType;
    return verifyConstantParams(op, scale, zeroPoint, perAxis.getScales(),
                                perAxis.getZeroPoints());
  }
  return op->emitOpError("only uniform quantized types are supported, got ")
         << type;
}

/// The invariants of an affine (de)quantization between `floatValue` and
/// `intValue` with `scale`, `zeroPoint` and `axis`.
static LogicalResult verifyAffineQuantization(Operation *op, Value floatValue,
                                              Value intValue, Value scale,
                                              Value zeroPoint, int64_t axis) {
  auto floatType = cast<RankedTensorType>(floatValue.getType());
  auto scaleType = cast<RankedTensorType>(scale.getType());
  auto zeroPointType = cast<RankedTensorType>(zeroPoint.getType());
  if (!floatType.getElementType().isF32() ||
      !scaleType.getElementType().isF32())
    return op->emitOpError("float values and scale must be f32, got ")
           << floatType << " and " << scaleType;
  if (scaleType.getShape() != zeroPointType.getShape())
    return op->emitOpError("scale shape [")
           << formatShape(scaleType.getShape()) << "] and zero point shape ["
           << formatShape(zeroPointType.getShape()) << "] differ";
  Type element = cast<ShapedType>(intValue.getType()).getElementType();
  auto quantType = dyn_cast<quant::QuantizedType>(element);
  Type storage = quantType ? plainStorageType(quantType) : element;
  if (zeroPointType.getElementType() != storage)
    return op->emitOpError("zero point element type ")
           << zeroPointType.getElementType()
           << " differs from the storage type " << storage;
  if (scaleType.getRank() == 0) {
    if (axis != 0)
      return op->emitOpError("per-tensor quantization takes 'axis' 0, got ")
             << axis;
  } else if (scaleType.getRank() == 1) {
    if (axis < 0 || axis >= floatType.getRank())
      return op->emitOpError("'axis' ")
             << axis << " is outside [0, " << floatType.getRank() << ")";
    if (scaleType.getDimSize(0) != floatType.getDimSize(axis))
      return op->emitOpError("per-axis scale has ")
             << scaleType.getDimSize(0) << " elements but axis " << axis
             << " has extent " << floatType.getDimSize(axis);
  } else {
    return op->emitOpError("scale and zero point must be scalars or 1-D, got "
                           "rank ")
           << scaleType.getRank();
  }
  if (quantType)
    return verifyQuantizedType(op, quantType, scaleType, scale, zeroPoint,
                               axis);
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  return verifyAffineQuantization(*this, getInput(), getOutput(), getScale(),
                                  getZeroPoint(),
                                  static_cast<int64_t>(getAxis()));
}

LogicalResult DequantizeLinearOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  return verifyAffineQuantization(*this, getOutput(), getInput(), getScale(),
                                  getZeroPoint(),
                                  static_cast<int64_t>(getAxis()));
}

LogicalResult DequantizeLinearOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || !adaptor.getScale())
    return inferError(location, getOperationName())
           << "needs a ranked input and a scale";
  return pushTensor(inferred, input.getShape(),
                    getElementTypeOrSelf(adaptor.getScale()));
}

LogicalResult DynamicQuantizeLinearOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input)
    return inferError(location, getOperationName()) << "needs a ranked input";
  auto u8 = IntegerType::get(context, 8, IntegerType::Unsigned);
  inferred.push_back(RankedTensorType::get(input.getShape(), u8));
  inferred.push_back(RankedTensorType::get({}, Float32Type::get(context)));
  return pushTensor(inferred, {}, u8);
}

LogicalResult DynamicQuantizeLinearOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  if (cast<ShapedType>(getScale().getType()).getRank() != 0 ||
      cast<ShapedType>(getZeroPoint().getType()).getRank() != 0)
    return emitOpError("scale and zero point must be scalars");
  return success();
}
