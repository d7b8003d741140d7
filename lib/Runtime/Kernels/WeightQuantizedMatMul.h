//===- WeightQuantizedMatMul.h - group-quantized weight matmuls -*- C++ -*-===//
//
// What the f32-activation kernel (WeightQuantizedMatMul.cpp) and the
// dynamic int8-activation one (WeightQuantizedMatMulInt8.cpp) share: the
// extents of one call.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_WEIGHTQUANTIZEDMATMUL_H
#define STRATA_LIB_RUNTIME_KERNELS_WEIGHTQUANTIZEDMATMUL_H

#include <cstddef>
#include <cstdint>

namespace strata::runtime::kernels {

/// Columns per tile of the packed weight.
constexpr int64_t kWeightTile = 32;

/// The extents of one call, checked against the operands.
struct WeightQuantizedMatmulState {
  int64_t rows = 0, k = 0, n = 0, tiles = 0, groups = 0, groupSize = 0;
  int64_t bits = 0, blocks = 0;
  /// 8: the lhs is quantized to int8 per row and group (0: f32).
  int64_t activationBits = 0;
  /// Inputs 3 and 4 by dtype: zero points (u8) and bias (f32); -1: absent.
  int zeroPoints = -1, bias = -1;
};

/// Floats of scratch weightQuantizedMatmulF32 needs for `st`.
size_t f32ActivationScratchFloats(const WeightQuantizedMatmulState &st);

/// y = x * W (+ bias) with f32 x (edge.weight_quantized_matmul without
/// activation_bits). `scratch` holds f32ActivationScratchFloats(st)
/// floats: a dequantized tile for many rows; for a few, each row's sums
/// per group. A few rows by 4 bits look each nibble up (AVX-512) where
/// the CPU has it and `allowLookup` (tests compare both paths).
void weightQuantizedMatmulF32(const WeightQuantizedMatmulState &st,
                              const float *x, const uint8_t *weight,
                              const float *scales, const uint8_t *zeroPoints,
                              const float *bias, float *scratch, float *y,
                              bool allowLookup = true);

/// Whether this CPU runs the 4-bit lookup path.
bool hasNibbleLookup();

/// Bytes of scratch weightQuantizedMatmulInt8 needs for `st`.
size_t int8ActivationScratchBytes(const WeightQuantizedMatmulState &st);

/// y = x * W (+ bias) with x quantized to int8 per row and group of K and
/// exact int32 sums per group (edge.weight_quantized_matmul with
/// activation_bits = 8 gives the formula). `scratch` holds
/// int8ActivationScratchBytes(st) bytes, 4-byte aligned. Uses AVX-512 VNNI
/// where the CPU has it and `allowVnni` (tests compare both paths).
void weightQuantizedMatmulInt8(const WeightQuantizedMatmulState &st,
                               const float *x, const uint8_t *weight,
                               const float *scales, const uint8_t *zeroPoints,
                               const float *bias, uint8_t *scratch, float *y,
                               bool allowVnni = true);

/// Whether this CPU runs the VNNI path.
bool hasVnni();

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_WEIGHTQUANTIZEDMATMUL_H
