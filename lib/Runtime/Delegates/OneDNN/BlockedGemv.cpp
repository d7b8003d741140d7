//===- BlockedGemv.cpp - a few rows times oneDNN-packed f32 weights -------===//
#include "BlockedGemv.h"

#include "../../Kernels/KernelUtils.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace strata::runtime::onednn {

std::optional<BlockedGemv> BlockedGemv::plan(int64_t m,
                                             const dnnl::memory::desc &packed) {
  const dnnl_memory_desc_t &d = packed.data;
  if (m < 1 || m > kMaxRows || d.ndims != 2 || d.data_type != dnnl_f32 ||
      d.format_kind != dnnl_blocked || d.offset0 != 0)
    return std::nullopt;
  const dnnl_blocking_desc_t &blocking = d.format_desc.blocking;
  // Inner blocks: rows then columns, the columns innermost (a row-major
  // tile), the columns' block whole vectors.
  if (blocking.inner_nblks != 2 || blocking.inner_idxs[0] != 0 ||
      blocking.inner_idxs[1] != 1 || blocking.inner_blks[1] % 16 != 0)
    return std::nullopt;
  BlockedGemv g;
  g.m = m;
  g.k = d.dims[0];
  g.n = d.dims[1];
  g.tileRows = blocking.inner_blks[0];
  g.tileCols = blocking.inner_blks[1];
  g.strideI = blocking.strides[0];
  g.strideJ = blocking.strides[1];
  if (g.k < 1 || g.n < 1 || g.strideI < g.tileRows * g.tileCols ||
      g.strideJ < g.tileRows * g.tileCols)
    return std::nullopt;
  return g;
}

namespace {
typedef float V16 __attribute__((vector_size(64), aligned(4)));

/// Columns [j0, j0 + 16 * Vecs) of `Rows` rows of C: the panel's tiles in
/// K's order, each tile row's vectors times each row's a[p].
template <int Rows, int Vecs>
[[gnu::always_inline]] inline void
panel(const BlockedGemv &g, const float *a, const float *b, int64_t j,
      const float *bias, float *out /* Rows x 16 * Vecs */) {
  V16 acc[Rows][Vecs];
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < Vecs; ++v)
      acc[r][v] = bias ? *reinterpret_cast<const V16 *>(bias + 16 * v) : V16{};
  int64_t tiles = (g.k + g.tileRows - 1) / g.tileRows;
  for (int64_t t = 0; t < tiles; ++t) {
    const float *tile = b + t * g.strideI + j * g.strideJ;
    int64_t p0 = t * g.tileRows, rows = std::min(g.tileRows, g.k - p0);
    for (int64_t p = 0; p < rows; ++p) {
      const float *row = tile + p * g.tileCols;
      for (int v = 0; v < Vecs; ++v) {
        V16 w = *reinterpret_cast<const V16 *>(row + 16 * v);
        for (int r = 0; r < Rows; ++r)
          acc[r][v] += a[r * g.k + p0 + p] * w;
      }
    }
  }
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < Vecs; ++v)
      *reinterpret_cast<V16 *>(out + r * 16 * Vecs + 16 * v) = acc[r][v];
}

/// One column panel (index j) of every row: 64 columns four vectors at a
/// time in registers, other widths a vector at a time.
template <int Rows>
[[gnu::always_inline]] inline void
panelRows(const BlockedGemv &g, const float *a, const float *b, int64_t j,
          const float *bias, float *c) {
  int64_t col0 = j * g.tileCols, width = std::min(g.tileCols, g.n - col0);
  alignas(64) float part[BlockedGemv::kMaxRows * 64];
  // The bias of the columns past n (a padded last panel) reads as zero.
  alignas(64) float biasPad[64];
  for (int64_t v0 = 0; v0 < g.tileCols; v0 += 64) {
    int64_t vecs = std::min<int64_t>(64, g.tileCols - v0) / 16;
    int64_t valid = std::clamp<int64_t>(width - v0, 0, 16 * vecs);
    if (valid == 0)
      break;
    // A whole panel reads its bias in place.
    const float *biasHere = bias ? bias + col0 + v0 : nullptr;
    if (bias && valid < 16 * vecs) {
      std::memset(biasPad, 0, sizeof(biasPad));
      std::memcpy(biasPad, bias + col0 + v0, sizeof(float) * valid);
      biasHere = biasPad;
    }
    const float *bv = b + v0;
    if (vecs == 4)
      panel<Rows, 4>(g, a, bv, j, biasHere, part);
    else
      for (int64_t v = 0; v < vecs; ++v)
        panel<Rows, 1>(g, a, bv + 16 * v, j,
                       biasHere ? biasHere + 16 * v : nullptr,
                       part + 16 * v * Rows);
    for (int r = 0; r < Rows; ++r)
      for (int64_t x = 0; x < valid; ++x)
        c[r * g.n + col0 + v0 + x] =
            vecs == 4 ? part[r * 64 + x]
                      : part[(x / 16) * 16 * Rows + r * 16 + x % 16];
  }
}

/// Panels [j0, j1) of every row, one clone per target (the loops over
/// the panels' rows inside it).
STRATA_GEMM_CLONES
void panels(const BlockedGemv &g, const float *a, const float *b,
            const float *bias, float *c, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j)
    switch (g.m) {
    case 1:
      panelRows<1>(g, a, b, j, bias, c);
      break;
    case 2:
      panelRows<2>(g, a, b, j, bias, c);
      break;
    case 3:
      panelRows<3>(g, a, b, j, bias, c);
      break;
    default:
      panelRows<4>(g, a, b, j, bias, c);
      break;
    }
}
} // namespace

void BlockedGemv::run(const float *a, const float *b, const float *bias,
                      float *c) const {
  int64_t count = (n + tileCols - 1) / tileCols;
  // Threads pay for themselves from a few hundred KiB of weights on.
  bool parallel = count > 1 && k * n >= (1 << 16);
#pragma omp parallel if (parallel)
  {
    int64_t threads = omp_get_num_threads(), me = omp_get_thread_num();
    panels(*this, a, b, bias, c, count * me / threads,
           count * (me + 1) / threads);
  }
}

} // namespace strata::runtime::onednn
