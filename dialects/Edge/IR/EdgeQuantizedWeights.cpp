//===- EdgeQuantizedWeights.cpp - group-quantized matmul weights ----------===//
#include "Edge/IR/EdgeQuantizedWeights.h"

#include "Edge/IR/EdgeOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace strata::edge {

std::optional<GroupQuantizedWeight> quantizeGroupwise(ArrayRef<float> weight,
                                                      int64_t k, int64_t n,
                                                      int64_t bits,
                                                      int64_t groupSize) {
  GroupQuantizedWeight out;
  out.k = k, out.n = n, out.bits = bits, out.groupSize = groupSize;
  int64_t groups = out.groups();
  double levels = double((int64_t(1) << bits) - 1);
  out.q.resize(k * n);
  out.scales.resize(n * groups);
  out.zeroPoints.resize(n * groups);
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t g = 0; g < groups; ++g) {
      int64_t k0 = g * groupSize, k1 = std::min(k, k0 + groupSize);
      double lo = 0.0, hi = 0.0;
      for (int64_t row = k0; row < k1; ++row) {
        float w = weight[row * n + col];
        if (!std::isfinite(w))
          return std::nullopt;
        lo = std::min(lo, double(w));
        hi = std::max(hi, double(w));
      }
      float scale = static_cast<float>((hi - lo) / levels);
      if (!(scale > 0.0f) || !std::isfinite(scale))
        scale = 1.0f;
      double zero = std::clamp(std::rint(-lo / double(scale)), 0.0, levels);
      out.scales[col * groups + g] = scale;
      out.zeroPoints[col * groups + g] = static_cast<uint8_t>(zero);
      for (int64_t row = k0; row < k1; ++row) {
        double q =
            std::rint(double(weight[row * n + col]) / double(scale)) + zero;
        out.q[col * k + row] = static_cast<uint8_t>(std::clamp(q, 0.0, levels));
      }
    }
  }
  return out;
}

std::vector<float> dequantize(const GroupQuantizedWeight &weight) {
  int64_t k = weight.k, n = weight.n, groups = weight.groups();
  std::vector<float> out(k * n);
  for (int64_t col = 0; col < n; ++col)
    for (int64_t row = 0; row < k; ++row) {
      int64_t at = col * groups + row / weight.groupSize;
      int zero = weight.zeroPoints.empty() ? 1 << (weight.bits - 1)
                                           : weight.zeroPoints[at];
      out[row * n + col] =
          float(int(weight.q[col * k + row]) - zero) * weight.scales[at];
    }
  return out;
}

Value buildWeightQuantizedMatMul(OpBuilder &builder, Location loc, Value lhs,
                                 const GroupQuantizedWeight &weight, Value bias,
                                 Type resultType, int64_t activationBits) {
  constexpr int64_t tile = WeightQuantizedMatMulOp::kTileColumns;
  int64_t k = weight.k, n = weight.n, groups = weight.groups();
  int64_t perWord = 32 / weight.bits;
  int64_t tiles = (n + tile - 1) / tile, blocks = (k + perWord - 1) / perWord;
  // Packed as EdgeQuant.td lays it out: word (t, b, c) holds rows
  // b * perWord.. of column t * 32 + c, little-endian, the first row in the
  // lowest bits; padded rows and columns are 0, padded scales 0.
  std::vector<uint8_t> packed(tiles * blocks * tile * 4, 0);
  std::vector<float> scales(tiles * groups * tile, 0.0f);
  std::vector<uint8_t> zeros(weight.zeroPoints.empty() ? 0 : scales.size(), 0);
  for (int64_t col = 0; col < n; ++col) {
    int64_t t = col / tile, c = col % tile;
    for (int64_t row = 0; row < k; ++row) {
      int64_t b = row / perWord, i = row % perWord;
      uint32_t bit = static_cast<uint32_t>(weight.bits * i);
      uint8_t &byte = packed[((t * blocks + b) * tile + c) * 4 + bit / 8];
      byte |= static_cast<uint8_t>(weight.q[col * k + row] << (bit % 8));
    }
    for (int64_t g = 0; g < groups; ++g) {
      scales[(t * groups + g) * tile + c] = weight.scales[col * groups + g];
      if (!zeros.empty())
        zeros[(t * groups + g) * tile + c] =
            weight.zeroPoints[col * groups + g];
    }
  }
  MLIRContext *context = builder.getContext();
  auto u8 = IntegerType::get(context, 8, IntegerType::Unsigned);
  auto bytesConstant = [&](ArrayRef<int64_t> shape, ArrayRef<uint8_t> data) {
    auto type = RankedTensorType::get(shape, u8);
    return builder.create<ConstantOp>(
        loc,
        DenseElementsAttr::getFromRawBuffer(
            type, ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                                 data.size())));
  };
  Value packedValue = bytesConstant({tiles, blocks, tile * 4}, packed);
  Value scalesValue = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({tiles, groups, tile},
                                                        builder.getF32Type()),
                                  ArrayRef<float>(scales)));
  Value zerosValue =
      zeros.empty() ? Value() : bytesConstant({tiles, groups, tile}, zeros);
  return builder.create<WeightQuantizedMatMulOp>(
      loc, resultType, lhs, packedValue, scalesValue, zerosValue, bias,
      builder.getI64IntegerAttr(weight.bits),
      builder.getI64IntegerAttr(weight.groupSize),
      activationBits ? builder.getI64IntegerAttr(activationBits)
                     : IntegerAttr());
}

} // namespace strata::edge
