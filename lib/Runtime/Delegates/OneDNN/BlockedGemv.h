//===- BlockedGemv.h - a few rows times oneDNN-packed f32 weights -*- C++
//-*-===//
//
// A decoder's step multiplies one token's row (a few rows at most) by each
// constant weight matrix: the product reads every weight once and is bound
// by memory's bandwidth. oneDNN 2.6's brgemm matmul reads the weights it
// packed (BA16a64b: panels of 64 columns, 16 rows per tile) at about 16
// GB/s on one Zen 4 core whose plain read runs at 22-26 GB/s. This kernel
// reads the same packed bytes (the program stores nothing else) panel by
// panel, each a contiguous stream, with the rows' 64 sums of a panel in
// registers across the whole K: C = A * B (+ bias), products summed in
// K's order.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDGEMV_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDGEMV_H

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>

namespace strata::runtime::onednn {

struct BlockedGemv {
  /// Rows of A (at most kMaxRows), columns of B, the shared extent.
  int64_t m = 1, n = 1, k = 1;
  /// B's tiles: `tileRows` x `tileCols` floats, row-major; tile (I, J)
  /// (rows I * tileRows.., columns J * tileCols..) starts at
  /// I * strideI + J * strideJ floats.
  int64_t tileRows = 1, tileCols = 16, strideI = 0, strideJ = 0;

  static constexpr int64_t kMaxRows = 4;

  /// The kernel for A[m, k] * B[k, n] with f32 B in `packed` (a 2-D layout
  /// blocked on both dimensions, the columns' block a multiple of 16, as
  /// oneDNN's BA16a64b), or none for any other layout or m.
  static std::optional<BlockedGemv> plan(int64_t m,
                                         const dnnl::memory::desc &packed);

  /// c[m, n] = a[m, k] * b (+ bias[n] where bias is not null); a and c
  /// row-major. OpenMP threads over the column panels when the product is
  /// large enough to pay for them.
  void run(const float *a, const float *b, const float *bias, float *c) const;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDGEMV_H
