//===- Int8Gemm.cpp - SIMD int8 GEMMs and their run-time choice ----------===//
//
// The microkernels keep an R x V block of C in registers (R rows of A, V
// vectors of columns) for the whole of K: per group of K rows they load V
// vectors of the packed B tile, broadcast one 32-bit word of each of the R
// rows of A, and multiply-accumulate every pair. The B tile is contiguous,
// so the loads stream; A rows are read four (VNNI) or two (AVX2) values at
// a time. Each function carries its own target attribute, so the file
// builds for baseline x86-64 (and the ISA is checked before any call), and
// the x86 code is left out elsewhere.
//
//===----------------------------------------------------------------------===//
#include "Int8Gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#define STRATA_INT8_X86 1
#include <immintrin.h>
#endif

namespace strata::runtime::kernels {

const char *int8IsaName(Int8Isa isa) {
  switch (isa) {
  case Int8Isa::Avx512Vnni:
    return "avx512-vnni";
  case Int8Isa::Avx2:
    return "avx2";
  case Int8Isa::Default:
    break;
  }
  return "default";
}

Int8Isa bestInt8Isa() {
#ifdef STRATA_INT8_X86
  // libgcc and compiler-rt also check that the OS saves the wide registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vnni"))
    return Int8Isa::Avx512Vnni;
  if (__builtin_cpu_supports("avx2"))
    return Int8Isa::Avx2;
#endif
  return Int8Isa::Default;
}

namespace {

/// The CPU's best ISA, lowered to STRATA_PORTABLE_ISA when that names one
/// (an unknown name or one the CPU lacks is ignored).
Int8Isa initialInt8Isa() {
  Int8Isa best = bestInt8Isa();
  const char *name = std::getenv("STRATA_PORTABLE_ISA");
  if (!name)
    return best;
  for (Int8Isa isa : {Int8Isa::Default, Int8Isa::Avx2, Int8Isa::Avx512Vnni})
    if (std::strcmp(name, int8IsaName(isa)) == 0 && isa <= best)
      return isa;
  return best;
}

std::atomic<int> &selectedInt8Isa() {
  static std::atomic<int> isa{static_cast<int>(initialInt8Isa())};
  return isa;
}

} // namespace

Int8Isa int8Isa() {
  return static_cast<Int8Isa>(
      selectedInt8Isa().load(std::memory_order_relaxed));
}

bool setInt8Isa(Int8Isa isa) {
  if (isa > bestInt8Isa())
    return false;
  selectedInt8Isa().store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

#ifdef STRATA_INT8_X86

#define STRATA_TARGET_VNNI                                                     \
  __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define STRATA_TARGET_AVX2 __attribute__((target("avx2")))

namespace {

/// Rows of A and column vectors of one register block.
constexpr int kVnniRows = 6, kAvx2Rows = 4;

inline int32_t load32(const void *p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/// One R x (16 V) block of C from a B tile of 16 V columns.
template <int R, int V>
STRATA_TARGET_VNNI void vnniBlock(int64_t groups, const int8_t *a, int64_t lda,
                                  const uint8_t *b, const int32_t *rowBias,
                                  int32_t *c, int64_t ldc) {
  __m512i acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      acc[r][v] = _mm512_setzero_si512();
  for (int64_t p = 0; p < groups; ++p) {
    const uint8_t *bp = b + p * V * 64;
    __m512i bv[V];
    for (int v = 0; v < V; ++v)
      bv[v] = _mm512_loadu_si512(bp + v * 64);
    for (int r = 0; r < R; ++r) {
      __m512i av = _mm512_set1_epi32(load32(a + r * lda + 4 * p));
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], bv[v], av);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m512i bias = _mm512_set1_epi32(rowBias[r]);
    for (int v = 0; v < V; ++v)
      _mm512_storeu_si512(c + r * ldc + v * 16,
                          _mm512_add_epi32(acc[r][v], bias));
  }
}

template <int R>
STRATA_TARGET_VNNI void
vnniRows(int vectors, int64_t groups, const int8_t *a, int64_t lda,
         const uint8_t *b, const int32_t *rowBias, int32_t *c, int64_t ldc) {
  switch (vectors) {
  case 4:
    return vnniBlock<R, 4>(groups, a, lda, b, rowBias, c, ldc);
  case 3:
    return vnniBlock<R, 3>(groups, a, lda, b, rowBias, c, ldc);
  case 2:
    return vnniBlock<R, 2>(groups, a, lda, b, rowBias, c, ldc);
  default:
    return vnniBlock<R, 1>(groups, a, lda, b, rowBias, c, ldc);
  }
}

/// One R x (8 V) block of C from a B tile of 8 V columns.
template <int R, int V>
STRATA_TARGET_AVX2 void avx2Block(int64_t groups, const int16_t *a, int64_t lda,
                                  const int16_t *b, int32_t *c, int64_t ldc) {
  __m256i acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      acc[r][v] = _mm256_setzero_si256();
  for (int64_t p = 0; p < groups; ++p) {
    const int16_t *bp = b + p * V * 16;
    __m256i bv[V];
    for (int v = 0; v < V; ++v)
      bv[v] =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(bp + v * 16));
    for (int r = 0; r < R; ++r) {
      __m256i av = _mm256_set1_epi32(load32(a + r * lda + 2 * p));
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(bv[v], av));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(c + r * ldc + v * 8),
                          acc[r][v]);
}

template <int R>
STRATA_TARGET_AVX2 void avx2Rows(int vectors, int64_t groups, const int16_t *a,
                                 int64_t lda, const int16_t *b, int32_t *c,
                                 int64_t ldc) {
  switch (vectors) {
  case 3:
    return avx2Block<R, 3>(groups, a, lda, b, c, ldc);
  case 2:
    return avx2Block<R, 2>(groups, a, lda, b, c, ldc);
  default:
    return avx2Block<R, 1>(groups, a, lda, b, c, ldc);
  }
}

} // namespace

STRATA_TARGET_VNNI
void gemmU8S8Vnni(int64_t m, int64_t n, int64_t groups, const int8_t *a,
                  int64_t lda, const uint8_t *b, const int32_t *rowBias,
                  int32_t *c, int64_t ldc) {
  constexpr int64_t tile = kVnniLayout.tileColumns;
  constexpr int64_t vec = kVnniLayout.vectorColumns;
  static_assert(tile == 4 * vec, "vnniRows handles up to four vectors");
  for (int64_t j0 = 0; j0 < n; j0 += tile) {
    int64_t width = std::min(tile, (n - j0 + vec - 1) / vec * vec);
    int vectors = static_cast<int>(width / vec);
    const uint8_t *bt = b + j0 * groups * 4;
    int64_t i = 0;
    for (; i + kVnniRows <= m; i += kVnniRows)
      vnniRows<kVnniRows>(vectors, groups, a + i * lda, lda, bt, rowBias + i,
                          c + i * ldc + j0, ldc);
    const int8_t *ai = a + i * lda;
    int32_t *ci = c + i * ldc + j0;
    switch (m - i) {
    case 5:
      vnniRows<5>(vectors, groups, ai, lda, bt, rowBias + i, ci, ldc);
      break;
    case 4:
      vnniRows<4>(vectors, groups, ai, lda, bt, rowBias + i, ci, ldc);
      break;
    case 3:
      vnniRows<3>(vectors, groups, ai, lda, bt, rowBias + i, ci, ldc);
      break;
    case 2:
      vnniRows<2>(vectors, groups, ai, lda, bt, rowBias + i, ci, ldc);
      break;
    case 1:
      vnniRows<1>(vectors, groups, ai, lda, bt, rowBias + i, ci, ldc);
      break;
    default:
      break;
    }
  }
}

STRATA_TARGET_AVX2
void gemmS16PairsAvx2(int64_t m, int64_t n, int64_t groups, const int16_t *a,
                      int64_t lda, const int16_t *b, int32_t *c, int64_t ldc) {
  constexpr int64_t tile = kAvx2Layout.tileColumns;
  constexpr int64_t vec = kAvx2Layout.vectorColumns;
  static_assert(tile == 3 * vec, "avx2Rows handles up to three vectors");
  for (int64_t j0 = 0; j0 < n; j0 += tile) {
    int64_t width = std::min(tile, (n - j0 + vec - 1) / vec * vec);
    int vectors = static_cast<int>(width / vec);
    const int16_t *bt = b + j0 * groups * 2;
    int64_t i = 0;
    for (; i + kAvx2Rows <= m; i += kAvx2Rows)
      avx2Rows<kAvx2Rows>(vectors, groups, a + i * lda, lda, bt,
                          c + i * ldc + j0, ldc);
    const int16_t *ai = a + i * lda;
    int32_t *ci = c + i * ldc + j0;
    switch (m - i) {
    case 3:
      avx2Rows<3>(vectors, groups, ai, lda, bt, ci, ldc);
      break;
    case 2:
      avx2Rows<2>(vectors, groups, ai, lda, bt, ci, ldc);
      break;
    case 1:
      avx2Rows<1>(vectors, groups, ai, lda, bt, ci, ldc);
      break;
    default:
      break;
    }
  }
}

#else // !STRATA_INT8_X86

// Never called: int8Isa() is Default off x86.
void gemmU8S8Vnni(int64_t, int64_t, int64_t, const int8_t *, int64_t,
                  const uint8_t *, const int32_t *, int32_t *, int64_t) {
  std::abort();
}
void gemmS16PairsAvx2(int64_t, int64_t, int64_t, const int16_t *, int64_t,
                      const int16_t *, int32_t *, int64_t) {
  std::abort();
}

#endif // STRATA_INT8_X86

} // namespace strata::runtime::kernels
