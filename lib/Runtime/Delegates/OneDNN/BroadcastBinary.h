//===- BroadcastBinary.h - the delegate's own broadcasting binary -*- C++ -*-===//
//
// oneDNN 2.6 runs a binary op whose second operand broadcasts in a way its
// JIT kernels do not know (a LayerNorm's mean over the last axis, a
// squeeze-excite scale over an 8-channel blocked layout) on its reference
// implementation, 100-400x slower than a memory pass. This kernel takes
// those: the first operand and the result share one dense layout, plain or
// blocked, and the second operand is row-major with numpy broadcasting.
//
// The layout is read into a loop nest over the physical order of the
// first operand's bytes; each loop level carries the stride of the second
// operand's index (0 where it broadcasts). Adjacent levels merge where
// they walk the second operand contiguously, so the innermost loop is a
// run of the first operand against one scalar or one contiguous vector;
// a vector repeated over the level above (a per-channel operand over a
// channel-blocked layout) makes that level's whole run one row, in AVX2
// registers for 8- and 16-channel blocks where the CPU has AVX2.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_BROADCASTBINARY_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_BROADCASTBINARY_H

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::runtime::onednn {

struct BroadcastBinary {
  enum class Kind { Add, Sub, Mul, Div, Max, Min };
  /// An element-wise function applied to the result (a fused post-op).
  enum class Post { None, Relu, Clip };

  Kind kind = Kind::Add;
  Post post = Post::None;
  float alpha = 0, beta = 0; ///< Relu: negative slope; Clip: bounds.
  /// The loop nest, outermost first: extents and the second operand's
  /// stride per level (the first operand and the result are dense).
  std::vector<int64_t> extents, bStrides;
  /// A second operand along a padded dimension (a per-channel vector over
  /// nChw16c of 72 channels): its count and the padded one, which run()
  /// extends it to. Equal (0) otherwise.
  int64_t bCount = 0, bPaddedCount = 0;
  /// The first operand pads a dimension along which the second operand
  /// broadcasts (a scalar over nChw16c of 72 channels).
  bool broadcastOverPadding = false;

  /// Whether the padding of the first operand (zeros) stays zero in the
  /// result: always without padding; with a second operand extended over
  /// it, unless a clip post-op's bounds exclude 0; with one broadcast over
  /// it, only for a product (0 * b), under the same condition.
  bool padKeepsZero() const {
    bool postKeepsZero = post != Post::Clip || (alpha <= 0 && beta >= 0);
    if (broadcastOverPadding)
      return kind == Kind::Mul && postKeepsZero;
    return bPaddedCount == bCount || postKeepsZero;
  }

  /// The kernel for first operand/result layout `a` and a row-major second
  /// operand of `bDims` (padded to a's rank; 1 where it broadcasts); none
  /// when the layout is not dense f32 or blocks a dimension twice, or pads
  /// one along which the second operand is not the only one to vary.
  static std::optional<BroadcastBinary> plan(const dnnl::memory::desc &a,
                                             const dnnl::memory::dims &bDims);

  /// dst = a (op) b, then the post-op; dst may be a.
  void run(const float *a, const float *b, float *dst) const;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_BROADCASTBINARY_H
