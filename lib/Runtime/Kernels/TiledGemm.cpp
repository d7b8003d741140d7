//===- TiledGemm.cpp - register-tiled f32 GEMM ----------------------------===//
//
// C = A * B (f32, row-major, C overwritten) with a 6 x 32 tile of C held in
// registers while it runs over a block of K: each element of B loaded is
// used by six rows and each of A by 32 columns, where blockedGemm's AXPY
// loads and stores C once per product. Blocked over K (128 rows of B, a
// 16 KiB panel of 32 columns, packed, that stays in L1 across the row
// tiles).
// Compiled per target like gemm: 16-float vectors are one AVX-512
// register, two AVX2 ones, four SSE ones.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

typedef float V16 __attribute__((vector_size(64), aligned(4)));

constexpr int64_t kTileRows = 6, kTileCols = 32, kBlockK = 128;

/// The `rows` x 32 tile of C at `c` plus (or, with `first`, set to) the
/// product of A's rows [., kc) and B's panel.
template <int Rows>
[[gnu::always_inline]] inline void tile(int64_t kc, const float *a, int64_t lda,
                                        const float *b, int64_t ldb, float *c,
                                        int64_t ldc, bool first) {
  V16 acc[Rows][2];
  for (int r = 0; r < Rows; ++r)
    for (int h = 0; h < 2; ++h)
      acc[r][h] =
          first ? V16{} : *reinterpret_cast<const V16 *>(c + r * ldc + 16 * h);
  for (int64_t p = 0; p < kc; ++p) {
    V16 b0 = *reinterpret_cast<const V16 *>(b + p * ldb);
    V16 b1 = *reinterpret_cast<const V16 *>(b + p * ldb + 16);
    for (int r = 0; r < Rows; ++r) {
      float av = a[r * lda + p];
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<V16 *>(c + r * ldc + 16 * h) = acc[r][h];
}

template <int Rows>
[[gnu::always_inline]] inline void
tileRows(int64_t rows, int64_t kc, const float *a, int64_t lda, const float *b,
         int64_t ldb, float *c, int64_t ldc, bool first) {
  if constexpr (Rows > 0) {
    if (rows == Rows)
      return tile<Rows>(kc, a, lda, b, ldb, c, ldc, first);
    return tileRows<Rows - 1>(rows, kc, a, lda, b, ldb, c, ldc, first);
  }
}

} // namespace

STRATA_GEMM_CLONES
void tiledGemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
               const float *b, int64_t ldb, float *c, int64_t ldc) {
  int64_t nTiled = n / kTileCols * kTileCols;
  for (int64_t i = 0; i < m; ++i)
    std::memset(c + i * ldc + nTiled, 0, sizeof(float) * (n - nTiled));
  // The panel of B the row tiles share, packed contiguously: read from B
  // itself, its rows a whole row of B apart, the loads miss L1.
  alignas(64) float panel[kBlockK * kTileCols];
  for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
    int64_t kc = std::min(kBlockK, k - k0);
    bool first = k0 == 0;
    for (int64_t j = 0; j < nTiled; j += kTileCols) {
      for (int64_t p = 0; p < kc; ++p)
        std::memcpy(panel + p * kTileCols, b + (k0 + p) * ldb + j,
                    sizeof(float) * kTileCols);
      for (int64_t i = 0; i < m; i += kTileRows)
        tileRows<kTileRows>(std::min(kTileRows, m - i), kc, a + i * lda + k0,
                            lda, panel, kTileCols, c + i * ldc + j, ldc, first);
    }
    // The last n % 32 columns: a row of C at a time.
    if (nTiled < n)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = k0; p < k0 + kc; ++p) {
          float av = a[i * lda + p];
          const float *bp = b + p * ldb;
          float *ci = c + i * ldc;
          for (int64_t j = nTiled; j < n; ++j)
            ci[j] += av * bp[j];
        }
  }
  if (k == 0)
    for (int64_t i = 0; i < m; ++i)
      std::memset(c + i * ldc, 0, sizeof(float) * nTiled);
}

} // namespace strata::runtime::kernels
