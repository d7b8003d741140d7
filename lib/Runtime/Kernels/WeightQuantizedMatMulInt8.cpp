//===- WeightQuantizedMatMulInt8.cpp - int8 activations x 4/8-bit weights -===//
//
// weight_quantized_matmul with activation_bits = 8 (8da4w): each row of the
// lhs is quantized per group of K to int8 (scale max|x| / 127, rounded to
// nearest even), and each group's product with the packed weight is an
// exact int32 sum of byte products: four per 32-bit lane, the weight's
// unsigned values times the activations' signed ones, which is one
// AVX-512 VNNI instruction (vpdpbusd) for 64 products. Where the CPU has no
// VNNI, the same sums are computed with 32-bit lanes of GCC's generic
// vectors (the same integers, so the same result).
//
// The activations are laid out per word of the weight: a 4-bit word holds
// rows 0-7 of a column as nibbles, whose even rows its low nibbles give as
// bytes and its odd rows its high nibbles; the row's bytes are stored
// [x0, x2, x4, x6, x1, x3, x5, x7] so that each half is one broadcast
// 32-bit lane. An 8-bit word holds rows 0-3 as bytes, matched by
// [x0, x1, x2, x3].
//
//===----------------------------------------------------------------------===//
#include "WeightQuantizedMatMul.h"

#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace strata::runtime::kernels {

namespace {

typedef float V16 __attribute__((vector_size(64), aligned(4)));
typedef uint32_t U32x16 __attribute__((vector_size(64), aligned(4)));
typedef int32_t I32x16 __attribute__((vector_size(64), aligned(4)));

/// Where the scratch memory holds each row's quantized activations, and
/// the zero points of the tile being multiplied (as int32, shared by every
/// row).
struct Layout {
  int64_t perWord = 0, paddedK = 0;
  float *scales = nullptr;  // [rows, groups]
  int32_t *sums = nullptr;  // [rows, groups]
  int32_t *zeros = nullptr; // [groups, 32]
  int8_t *values = nullptr; // [rows, paddedK], in the words' order
};

Layout layoutOf(const WeightQuantizedMatmulState &st, uint8_t *scratch) {
  Layout l;
  l.perWord = 32 / st.bits;
  l.paddedK = st.blocks * l.perWord;
  l.scales = reinterpret_cast<float *>(scratch);
  l.sums = reinterpret_cast<int32_t *>(scratch) + st.rows * st.groups;
  l.zeros = l.sums + st.rows * st.groups;
  l.values = reinterpret_cast<int8_t *>(l.zeros + st.groups * kWeightTile);
  return l;
}

/// The position of row `k` of K among the activation bytes.
int64_t positionOf(int64_t k, int bits) {
  if (bits == 8)
    return k;
  int64_t i = k % 8;
  return k - i + (i % 2) * 4 + i / 2;
}

/// Quantizes every row of `x` per group. A group holding a NaN or an
/// infinity gets a NaN scale (the row's outputs are NaN, as in f32) and
/// zero values.
void quantizeRows(const WeightQuantizedMatmulState &st, const float *x,
                  const Layout &l) {
  int bits = static_cast<int>(st.bits);
  for (int64_t m = 0; m < st.rows; ++m) {
    const float *row = x + m * st.k;
    int8_t *values = l.values + m * l.paddedK;
    std::memset(values, 0, static_cast<size_t>(l.paddedK));
    for (int64_t g = 0; g < st.groups; ++g) {
      int64_t k0 = g * st.groupSize, k1 = std::min(st.k, k0 + st.groupSize);
      float amax = 0;
      bool finite = true;
      for (int64_t k = k0; k < k1; ++k) {
        finite = finite && std::isfinite(row[k]);
        amax = std::max(amax, std::fabs(row[k]));
      }
      float scale =
          finite ? amax / 127.0f : std::numeric_limits<float>::quiet_NaN();
      int32_t sum = 0;
      if (finite && scale > 0)
        for (int64_t k = k0; k < k1; ++k) {
          float q = std::nearbyint(row[k] / scale);
          int32_t v = static_cast<int32_t>(std::clamp(q, -127.0f, 127.0f));
          values[positionOf(k, bits)] = static_cast<int8_t>(v);
          sum += v;
        }
      l.scales[m * st.groups + g] = scale;
      l.sums[m * st.groups + g] = sum;
    }
  }
}

/// The zero points of every group of tile `t` (or 2^(bits-1)) into
/// `l.zeros`, once per tile for all its rows.
void tileZeroPoints(const WeightQuantizedMatmulState &st,
                    const uint8_t *zeroPoints, int64_t t, const Layout &l) {
  const uint8_t *tile =
      zeroPoints ? zeroPoints + t * st.groups * kWeightTile : nullptr;
  for (int64_t j = 0; j < st.groups * kWeightTile; ++j)
    l.zeros[j] = tile ? int32_t(tile[j]) : 1 << (st.bits - 1);
}

/// The packed words [first, end) that group `g` spans in each column.
int64_t firstWord(const WeightQuantizedMatmulState &st, int64_t g,
                  int64_t perWord) {
  return g * st.groupSize / perWord;
}
int64_t endWord(const WeightQuantizedMatmulState &st, int64_t g,
                int64_t perWord) {
  int64_t k1 = std::min(st.k, (g + 1) * st.groupSize);
  return (k1 + perWord - 1) / perWord;
}

/// Four byte products per lane, the weight's unsigned, `x`'s signed.
[[gnu::always_inline]] inline void dot4(I32x16 &acc, U32x16 w, int32_t x) {
  for (int j = 0; j < 4; ++j) {
    I32x16 wj = (I32x16)((w >> uint32_t(8 * j)) & 0xFFu);
    acc += wj * int32_t(int8_t(uint32_t(x) >> (8 * j)));
  }
}

STRATA_GEMM_CLONES void int8Generic(const WeightQuantizedMatmulState &st,
                                    const Layout &l, const uint8_t *weight,
                                    const float *scales,
                                    const uint8_t *zeroPoints,
                                    const float *bias, float *y) {
  int64_t perWord = l.perWord;
  for (int64_t t = 0; t < st.tiles; ++t) {
    const uint8_t *tileWeight = weight + t * st.blocks * kWeightTile * 4;
    int64_t c0 = t * kWeightTile, width = std::min(kWeightTile, st.n - c0);
    tileZeroPoints(st, zeroPoints, t, l);
    for (int64_t m = 0; m < st.rows; ++m) {
      const int8_t *values = l.values + m * l.paddedK;
      V16 out[2] = {V16{}, V16{}};
      for (int64_t g = 0; g < st.groups; ++g) {
        I32x16 acc[2] = {I32x16{}, I32x16{}};
        for (int64_t b = firstWord(st, g, perWord), e = endWord(st, g, perWord);
             b < e; ++b)
          for (int h = 0; h < 2; ++h) {
            U32x16 w;
            std::memcpy(&w, tileWeight + (b * kWeightTile + 16 * h) * 4,
                        sizeof w);
            int32_t x0, x1;
            if (st.bits == 4) {
              std::memcpy(&x0, values + 8 * b, 4);
              std::memcpy(&x1, values + 8 * b + 4, 4);
              dot4(acc[h], w & 0x0F0F0F0Fu, x0);
              dot4(acc[h], (w >> 4u) & 0x0F0F0F0Fu, x1);
            } else {
              std::memcpy(&x0, values + 4 * b, 4);
              dot4(acc[h], w, x0);
            }
          }
        float a = l.scales[m * st.groups + g];
        int32_t sum = l.sums[m * st.groups + g];
        for (int h = 0; h < 2; ++h) {
          I32x16 z;
          std::memcpy(&z, l.zeros + g * kWeightTile + 16 * h, sizeof z);
          V16 s;
          std::memcpy(&s, scales + (t * st.groups + g) * kWeightTile + 16 * h,
                      sizeof s);
          out[h] += (a * s) * __builtin_convertvector(acc[h] - z * sum, V16);
        }
      }
      float *row = y + m * st.n + c0;
      for (int64_t j = 0; j < width; ++j)
        row[j] = out[j / 16][j % 16] + (bias ? bias[c0 + j] : 0.0f);
    }
  }
}

#if defined(__x86_64__)
// GCC 12 warns of the _mm512_undefined_* operands inside the intrinsics.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512vnni"))) void
int8Vnni(const WeightQuantizedMatmulState &st, const Layout &l,
         const uint8_t *weight, const float *scales, const uint8_t *zeroPoints,
         const float *bias, float *y) {
  int64_t perWord = l.perWord;
  alignas(64) float result[kWeightTile];
  const __m512i nibbles = _mm512_set1_epi32(0x0F0F0F0F);
  for (int64_t t = 0; t < st.tiles; ++t) {
    const uint8_t *tileWeight = weight + t * st.blocks * kWeightTile * 4;
    int64_t c0 = t * kWeightTile, width = std::min(kWeightTile, st.n - c0);
    tileZeroPoints(st, zeroPoints, t, l);
    for (int64_t m = 0; m < st.rows; ++m) {
      const int8_t *values = l.values + m * l.paddedK;
      __m512 out0 = _mm512_setzero_ps(), out1 = _mm512_setzero_ps();
      for (int64_t g = 0; g < st.groups; ++g) {
        __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
        int64_t b = firstWord(st, g, perWord), e = endWord(st, g, perWord);
        if (st.bits == 4) {
          for (; b < e; ++b) {
            const uint8_t *at = tileWeight + b * kWeightTile * 4;
            __m512i w0 = _mm512_loadu_si512(at),
                    w1 = _mm512_loadu_si512(at + 64);
            int32_t x0, x1;
            std::memcpy(&x0, values + 8 * b, 4);
            std::memcpy(&x1, values + 8 * b + 4, 4);
            __m512i even = _mm512_set1_epi32(x0), odd = _mm512_set1_epi32(x1);
            acc0 =
                _mm512_dpbusd_epi32(acc0, _mm512_and_si512(w0, nibbles), even);
            acc1 =
                _mm512_dpbusd_epi32(acc1, _mm512_and_si512(w1, nibbles), even);
            acc0 = _mm512_dpbusd_epi32(
                acc0, _mm512_and_si512(_mm512_srli_epi32(w0, 4), nibbles), odd);
            acc1 = _mm512_dpbusd_epi32(
                acc1, _mm512_and_si512(_mm512_srli_epi32(w1, 4), nibbles), odd);
          }
        } else {
          for (; b < e; ++b) {
            const uint8_t *at = tileWeight + b * kWeightTile * 4;
            int32_t x0;
            std::memcpy(&x0, values + 4 * b, 4);
            __m512i xs = _mm512_set1_epi32(x0);
            acc0 = _mm512_dpbusd_epi32(acc0, _mm512_loadu_si512(at), xs);
            acc1 = _mm512_dpbusd_epi32(acc1, _mm512_loadu_si512(at + 64), xs);
          }
        }
        const int32_t *zero = l.zeros + g * kWeightTile;
        __m512i sum = _mm512_set1_epi32(l.sums[m * st.groups + g]);
        __m512 a = _mm512_set1_ps(l.scales[m * st.groups + g]);
        const float *s = scales + (t * st.groups + g) * kWeightTile;
        acc0 = _mm512_sub_epi32(
            acc0, _mm512_mullo_epi32(_mm512_loadu_si512(zero), sum));
        acc1 = _mm512_sub_epi32(
            acc1, _mm512_mullo_epi32(_mm512_loadu_si512(zero + 16), sum));
        out0 = _mm512_fmadd_ps(_mm512_mul_ps(a, _mm512_loadu_ps(s)),
                               _mm512_cvtepi32_ps(acc0), out0);
        out1 = _mm512_fmadd_ps(_mm512_mul_ps(a, _mm512_loadu_ps(s + 16)),
                               _mm512_cvtepi32_ps(acc1), out1);
      }
      _mm512_store_ps(result, out0);
      _mm512_store_ps(result + 16, out1);
      float *row = y + m * st.n + c0;
      for (int64_t j = 0; j < width; ++j)
        row[j] = result[j] + (bias ? bias[c0 + j] : 0.0f);
    }
  }
}
#pragma GCC diagnostic pop
#endif

} // namespace

size_t int8ActivationScratchBytes(const WeightQuantizedMatmulState &st) {
  int64_t perWord = 32 / st.bits;
  return static_cast<size_t>(st.rows * st.groups * 8 +
                             st.groups * kWeightTile * 4 +
                             st.rows * st.blocks * perWord);
}

void weightQuantizedMatmulInt8(const WeightQuantizedMatmulState &st,
                               const float *x, const uint8_t *weight,
                               const float *scales, const uint8_t *zeroPoints,
                               const float *bias, uint8_t *scratch, float *y,
                               bool allowVnni) {
  Layout l = layoutOf(st, scratch);
  quantizeRows(st, x, l);
#if defined(__x86_64__)
  if (allowVnni && hasVnni()) {
    int8Vnni(st, l, weight, scales, zeroPoints, bias, y);
    return;
  }
#endif
  (void)allowVnni;
  int8Generic(st, l, weight, scales, zeroPoints, bias, y);
}

bool hasVnni() {
#if defined(__x86_64__)
  static const bool vnni = __builtin_cpu_supports("avx512vnni");
  return vnni;
#else
  return false;
#endif
}

} // namespace strata::runtime::kernels
