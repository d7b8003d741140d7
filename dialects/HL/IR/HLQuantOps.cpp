//===- HLQuantOps.cpp - verifiers of quantisation and integer ops ---------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"
#include "HL/IR/HLShapeInference.h"

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

//===----------------------------------------------------------------------===//
// MatMulNBitsOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulNBitsOp::verify() {
  int64_t k = getK(), n = getN(), bits = getBits(), block = getBlockSize();
  if (k < 1 || n < 1)
    return emitOpError("K and N must be positive, got ") << k << " and " << n;
  if (bits < 1 || bits > 8)
    return emitOpError("bits must be in [1, 8], got ") << bits;
  if (block < 16 || (block & (block - 1)) != 0)
    return emitOpError("block_size must be a power of 2 of at least 16, got ")
           << block;
  int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  auto bType = dyn_cast<RankedTensorType>(getB().getType());
  if (bType && bType.hasStaticShape() &&
      bType.getShape() != ArrayRef<int64_t>({n, blocks, blob}))
    return emitOpError("b must have shape [")
           << n << ", " << blocks << ", " << blob << "], got " << bType;
  auto scalesType = dyn_cast<RankedTensorType>(getScales().getType());
  if (scalesType && scalesType.hasStaticShape() &&
      scalesType.getNumElements() != n * blocks)
    return emitOpError("scales must have N * ceil(K / block_size) = ")
           << n * blocks << " elements, got " << scalesType;
  auto aType = dyn_cast<RankedTensorType>(getA().getType());
  if (aType &&
      (aType.getRank() < 1 || (!aType.isDynamicDim(aType.getRank() - 1) &&
                               aType.getShape().back() != k)))
    return emitOpError("a's last dimension must be K = ") << k;
  return success();
}

LogicalResult MatMulNBitsOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<SmallVector<int64_t>> a = getRankedShape(operands, op.getA());
  if (!a)
    return unknownShape(shapes);
  if (a->empty())
    return misfit(location, "a must have rank 1 or more");
  SmallVector<int64_t> result(*a);
  result.back() = static_cast<int64_t>(op.getN());
  shapes.emplace_back(result);
  return success();
}
