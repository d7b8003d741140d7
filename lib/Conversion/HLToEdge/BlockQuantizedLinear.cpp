//===- BlockQuantizedLinear.cpp - MatMulNBits to edge ---------------------===//
//
// hl.matmul_nbits (ONNX Runtime's MatMulNBits) becomes an
// edge.weight_quantized_matmul: its constant weight, scales and zero points
// are unpacked from the operator's layout and repacked into the edge op's
// (EdgeQuantizedWeights.h), value for value, so the program computes with
// the model's own quantized weights.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeQuantizedWeights.h"
#include "HL/IR/HLOps.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// The bytes of a constant u8 tensor of `count` elements, or std::nullopt.
std::optional<std::vector<uint8_t>> constantBytes(Value value, int64_t count) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != count)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return std::vector<uint8_t>(count, dense.getSplatValue<uint8_t>());
  std::optional<ArrayRef<char>> raw = edge::getRawConstantData(attr);
  if (!raw || static_cast<int64_t>(raw->size()) != count)
    return std::nullopt;
  return std::vector<uint8_t>(raw->begin(), raw->end());
}

struct MatMulNBitsLowering : OpConversionPattern<hl::MatMulNBitsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MatMulNBitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t k = op.getK(), n = op.getN(), bits = op.getBits();
    int64_t block = op.getBlockSize();
    auto fail = [&](const Twine &why) {
      op.emitOpError(why);
      return failure();
    };
    if (bits != 4 && bits != 8)
      return fail("has " + Twine(bits) + "-bit weights; 4 and 8 are supported");
    RankedTensorType aType = getRankedType(adaptor.getA());
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!aType || !resultType || !aType.getElementType().isF32() ||
        aType.getShape().back() != k)
      return fail("needs an f32 input whose last extent is K");
    int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
    std::optional<std::vector<uint8_t>> packed =
        constantBytes(adaptor.getB(), n * blocks * blob);
    ElementsAttr scalesAttr;
    std::optional<std::vector<float>> scales;
    if (matchPattern(adaptor.getScales(), m_Constant(&scalesAttr)))
      scales = edge::readF32Constant(scalesAttr);
    if (!packed || !scales ||
        static_cast<int64_t>(scales->size()) != n * blocks)
      return fail("needs constant weights and scales");
    edge::GroupQuantizedWeight weight;
    weight.k = k, weight.n = n, weight.bits = bits, weight.groupSize = block;
    weight.q.resize(k * n);
    weight.scales = *scales;
    uint8_t mask = static_cast<uint8_t>((1 << bits) - 1);
    for (int64_t col = 0; col < n; ++col)
      for (int64_t row = 0; row < k; ++row) {
        int64_t bit = (row % block) * bits;
        uint8_t byte = (*packed)[(col * blocks + row / block) * blob + bit / 8];
        weight.q[col * k + row] = (byte >> (bit % 8)) & mask;
      }
    if (Value zeroPoints = adaptor.getZeroPoints()) {
      weight.zeroPoints.resize(n * blocks);
      auto zpType = cast<RankedTensorType>(zeroPoints.getType());
      if (zpType.getElementType().isUnsignedInteger(8) ||
          zpType.getElementType().isInteger(8)) {
        // Packed like the weight, per column: ceil(blocks * bits / 8) bytes.
        int64_t perColumn = (blocks * bits + 7) / 8;
        std::optional<std::vector<uint8_t>> zp =
            constantBytes(zeroPoints, n * perColumn);
        if (!zp)
          return fail("needs constant zero points of N * " + Twine(perColumn) +
                      " bytes");
        for (int64_t col = 0; col < n; ++col)
          for (int64_t g = 0; g < blocks; ++g) {
            int64_t bit = g * bits;
            weight.zeroPoints[col * blocks + g] =
                ((*zp)[col * perColumn + bit / 8] >> (bit % 8)) & mask;
          }
      } else {
        // Float zero points: whole numbers within the weights' range.
        ElementsAttr zpAttr;
        std::optional<std::vector<float>> zp;
        if (matchPattern(zeroPoints, m_Constant(&zpAttr)))
          zp = edge::readF32Constant(zpAttr);
        if (!zp || static_cast<int64_t>(zp->size()) != n * blocks)
          return fail("needs constant zero points, one per scale");
        for (int64_t i = 0; i < n * blocks; ++i) {
          float z = (*zp)[i];
          if (!(z >= 0 && z <= mask) || z != std::floor(z))
            return fail("has a zero point (" + Twine(std::to_string(z)) +
                        ") that is not a whole number in [0, " +
                        Twine(static_cast<int>(mask)) + "]");
          weight.zeroPoints[i] = static_cast<uint8_t>(z);
        }
      }
    }
    Value bias = adaptor.getBias();
    if (bias) {
      RankedTensorType biasType = getRankedType(bias);
      if (!biasType || !biasType.getElementType().isF32() ||
          biasType.getNumElements() != n)
        return fail("needs an f32 bias of N elements");
      if (biasType.getRank() != 1)
        bias = reshapeTo(rewriter, loc, bias, {n});
    }
    // The edge op takes [..., M, K]: a vector input is one row.
    Value a = adaptor.getA();
    RankedTensorType productType = resultType;
    if (aType.getRank() == 1) {
      a = reshapeTo(rewriter, loc, a, {1, k});
      productType = RankedTensorType::get({1, n}, rewriter.getF32Type());
    }
    // accuracy_level 4 is ONNX Runtime's int8 compute: the activations
    // quantized per row and block, as the edge op's activation_bits = 8.
    int64_t activationBits =
        op.getAccuracyLevel() == 4 && block <= 32768 ? 8 : 0;
    Value product = edge::buildWeightQuantizedMatMul(
        rewriter, loc, a, weight, bias, productType, activationBits);
    if (productType != resultType)
      product = reshapeTo(rewriter, loc, product, resultType.getShape());
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateBlockQuantizedLinearPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatMulNBitsLowering>(converter, patterns.getContext());
}
