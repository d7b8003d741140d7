//===- Int8Gemm.h - SIMD int8 GEMMs of the portable kernels ------*- C++
//-*-===//
//
// The integer GEMMs behind quantized_conv2d and quantized_matmul, chosen at
// run time from what the CPU has:
//
// - AVX512-VNNI: u8 x s8 -> s32 with vpdpbusd (64 products per
//   instruction); the weights are the s8 A operand, read four bytes of K at
//   a time and broadcast, the activations the u8 B operand.
// - AVX2: s16 x s16 -> s32 with vpmaddwd on pairs of K (zero points
//   already subtracted, so any 8-bit operands fit).
// - Default: the blocked int16 GEMM of KernelUtils.h (any CPU).
//
// Both SIMD GEMMs read B packed: K in groups of G rows (G = 4 bytes for
// VNNI, 2 int16 for AVX2), the columns in tiles of kTileColumns, the last
// tile rounded up to kVectorColumns; within a tile, group p holds the
// tile's columns one after the other, each column's G values adjacent.
// Element (k, j) of the tile starting at column j0 (width w) is at
// j0 * groups * G + (k / G) * w * G + (j - j0) * G + k % G. The GEMMs
// write every column of the rounded-up last tile, so C rows need that many
// columns.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_INT8GEMM_H
#define STRATA_LIB_RUNTIME_KERNELS_INT8GEMM_H

#include <cstdint>

namespace strata::runtime::kernels {

/// The instruction sets of the int8 GEMMs, in increasing order.
enum class Int8Isa { Default = 0, Avx2 = 1, Avx512Vnni = 2 };

/// The name of `isa` as STRATA_PORTABLE_ISA spells it: "default", "avx2",
/// "avx512-vnni".
const char *int8IsaName(Int8Isa isa);

/// The best ISA this CPU (and OS) supports.
Int8Isa bestInt8Isa();

/// The ISA the int8 kernels use: bestInt8Isa(), lowered by the environment
/// variable STRATA_PORTABLE_ISA (read once) or by setInt8Isa.
Int8Isa int8Isa();

/// Makes the int8 kernels use `isa` (tests and benchmarks compare the
/// paths with it). Returns false, changing nothing, when the CPU lacks it.
bool setInt8Isa(Int8Isa isa);

/// Column tiles and vector widths of the packed B operands.
struct Int8GemmLayout {
  int64_t groupRows;     ///< G: rows of K per group.
  int64_t tileColumns;   ///< Columns of a full tile.
  int64_t vectorColumns; ///< The last tile is rounded up to this.
};
constexpr Int8GemmLayout kVnniLayout{4, 64, 16};
constexpr Int8GemmLayout kAvx2Layout{2, 24, 8};

/// C[i, j] = rowBias[i] + sum_k A[i, k] * B[k, j] for i < m and j < n
/// (rounded up to the vector width), A s8 row-major with `groups` * 4
/// columns, B u8 packed per kVnniLayout. Sums wrap modulo 2^32. Only
/// when int8Isa() is Avx512Vnni.
void gemmU8S8Vnni(int64_t m, int64_t n, int64_t groups, const int8_t *a,
                  int64_t lda, const uint8_t *b, const int32_t *rowBias,
                  int32_t *c, int64_t ldc);

/// C[i, j] = sum_k A[i, k] * B[k, j], A int16 row-major with `groups` * 2
/// columns, B int16 packed per kAvx2Layout; every |value| <= 255. Only
/// when int8Isa() is at least Avx2.
void gemmS16PairsAvx2(int64_t m, int64_t n, int64_t groups, const int16_t *a,
                      int64_t lda, const int16_t *b, int32_t *c, int64_t ldc);

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_INT8GEMM_H
