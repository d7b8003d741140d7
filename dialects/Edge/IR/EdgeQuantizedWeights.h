//===- EdgeQuantizedWeights.h - group-quantized matmul weights --*- C++ -*-===//
//
// The weights of edge.weight_quantized_matmul: quantizing an f32 [K, N]
// weight to 4 or 8 bits in groups of K (round to nearest on the group's
// range, zero included, as ONNX Runtime's MatMulNBits quantizer does), and
// packing quantized columns, wherever they come from (this quantizer or
// an imported MatMulNBits), into the op's tiled layout.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEQUANTIZEDWEIGHTS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEQUANTIZEDWEIGHTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::edge {

/// A [K, N] weight as unsigned `bits`-bit integers, column by column: the
/// value at row r of column c is `(q[c * K + r] - zeroPoints[c * groups +
/// g]) * scales[c * groups + g]` with `g = r / groupSize`.
struct GroupQuantizedWeight {
  int64_t k = 0, n = 0, bits = 0, groupSize = 0;
  std::vector<uint8_t> q;
  std::vector<float> scales;
  /// Empty: every zero point is 2^(bits - 1).
  std::vector<uint8_t> zeroPoints;

  int64_t groups() const { return k == 0 ? 0 : (k - 1) / groupSize + 1; }
};

/// Quantizes `weight` ([K, N], row-major) per column and per group of
/// `groupSize` rows: with `lo`/`hi` the group's minimum and maximum
/// widened to include 0, the scale is `float((hi - lo) / (2^bits - 1))`
/// (1 when that is 0), the zero point `clamp(rint(-lo / scale))` and each
/// value `clamp(rint(w / scale) + zero point)` into [0, 2^bits - 1], in
/// double. std::nullopt when a weight is not finite.
std::optional<GroupQuantizedWeight>
quantizeGroupwise(llvm::ArrayRef<float> weight, int64_t k, int64_t n,
                  int64_t bits, int64_t groupSize);

/// The f32 [K, N] weight (row-major) that `weight` stands for.
std::vector<float> dequantize(const GroupQuantizedWeight &weight);

/// An edge.weight_quantized_matmul of `lhs` ([..., M, K], f32) by `weight`
/// into `resultType` ([..., M, N]), its packed operands as constants,
/// with `bias` ([N] f32) when given; `activationBits` 8 quantizes the lhs
/// dynamically (0: f32).
mlir::Value buildWeightQuantizedMatMul(mlir::OpBuilder &builder,
                                       mlir::Location loc, mlir::Value lhs,
                                       const GroupQuantizedWeight &weight,
                                       mlir::Value bias, mlir::Type resultType,
                                       int64_t activationBits = 0);

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGEQUANTIZEDWEIGHTS_H
