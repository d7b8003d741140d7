//===- Winograd.h - F(2x2,3x3) and F(4x4,3x3), AVX-512/AVX2 ----*- C++ -*-===//
//
// The oneDNN delegate's own Winograd convolution for 3x3, stride 1,
// padding 1 or 0 convolutions, in 2x2 or 4x4 output tiles (16 or 36
// transform points): it transforms the input tile by tile, runs one
// register-blocked GEMM per transform point over the packed weights (read
// once, in order), and applies bias, residual sum and activations during
// the inverse transform; with many tiles and weights small enough to
// re-read per block, tile rows go in blocks that stay in L2, one thread a
// block. oneDNN 2.6's own Winograd
// streams its transformed weights at under half of one core's memory
// bandwidth, and its direct kernels do 2.25x the multiplications.
//
// Layouts: input and output both nChw16c (oneDNN's aBcd16b), both nChw8c
// (aBcd8b, what oneDNN computes in on AVX2), or both channels-last (acdb),
// channels a multiple of 16; weights packed at compile
// time by packWeights() and recoverable by unpackWeights(). Where it runs
// is the delegate's choice (Convolution.cpp: a rule by default, measured
// with --tune).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRAD_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRAD_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::runtime::onednn {

/// An element-wise step after the convolution, in order: an accumulation of
/// the destination's previous contents (scaled), max(x, slope * x) clipped
/// to [low, high], x * sigmoid(alpha * x) (SiLU at alpha 1), or
/// x * clip(x / 6 + 1 / 2, 0, 1) (hard swish).
struct WinogradPostOp {
  enum class Kind { Clip, Sum, Swish, HardSwish };
  Kind kind = Kind::Clip;
  float scale = 1.f; ///< Sum: the factor of the previous contents.
  float alpha = 1.f; ///< Swish: the factor inside the sigmoid.
  float slope = 0.f;
  float low = -3.4e38f, high = 3.4e38f;
};

/// The layout of the input and the output.
enum class WinogradLayout {
  Blocked16,    ///< nChw16c (oneDNN's aBcd16b)
  ChannelsLast, ///< nhwc (oneDNN's acdb)
  Blocked8,     ///< nChw8c (oneDNN's aBcd8b)
};

/// The output tile: F(2x2,3x3) does 16 products per 4 outputs, F(4x4,3x3)
/// 36 per 16 (2.25x and 4x fewer than a direct convolution) for weights
/// 16/9 and 36/9 times the plain ones and a less exact result.
enum class WinogradTile { F2x2, F4x4 };

/// The instruction set the kernel runs with on this CPU.
enum class WinogradIsa { None, Avx2, Avx512 };

class WinogradConv {
public:
  /// The instruction set this CPU runs the kernel with: AVX-512F, else AVX2
  /// with FMA, each only where oneDNN is not held below it
  /// (ONEDNN_MAX_CPU_ISA), so that the kernel follows the ISA limit a user
  /// sets for oneDNN. nChw8c always runs the 8-lane (AVX2) code.
  static WinogradIsa isa();
  /// Whether this CPU runs the kernel at all.
  static bool available();
  /// Whether a convolution of this geometry is supported (3x3, stride 1,
  /// dilation 1, no groups, channels multiples of 16, the same padding of
  /// 0 or 1 on every side; `height` and `width` are the input's).
  static bool supports(int64_t inChannels, int64_t outChannels, int64_t height,
                       int64_t width, int64_t padding = 1);

  WinogradConv(int64_t inChannels, int64_t outChannels, int64_t height,
               int64_t width, WinogradLayout layout,
               std::vector<WinogradPostOp> postOps, int threads = 1,
               int64_t padding = 1, WinogradTile tile = WinogradTile::F2x2);

  int64_t outputChannels() const { return oc_; }
  WinogradLayout layout() const { return layout_; }
  WinogradTile tile() const { return tile_; }
  /// The step's name in profiles: strata:winograd_f2x2 or _f4x4.
  const char *name() const;
  /// Floats of one image of the input and of the output.
  size_t inputFloats() const { return static_cast<size_t>(ic_ * h_ * w_); }
  size_t outputFloats() const { return static_cast<size_t>(oc_ * oh_ * ow_); }
  /// Bytes of the OIHW weights.
  size_t plainWeightBytes() const {
    return sizeof(float) * static_cast<size_t>(oc_ * ic_ * 9);
  }
  /// Bytes of the packed (transformed) weights.
  size_t packedBytes() const;
  /// Transforms OIHW f32 weights into `packed` (packedBytes() bytes).
  void packWeights(const float *oihw, float *packed) const;
  /// The OIHW weights back from packed ones: the transform keeps them
  /// exactly (k = L U L^T with L G = I; 2x2 tiles: rows 0, 1 - 2 and 3 of
  /// U; 4x4 tiles: 4 row 0, 3 (row 2 - row 1) and row 5), up to the
  /// rounding of the stored floats. Any CPU.
  void unpackWeights(const float *packed, float *oihw) const;
  /// Working memory run() needs.
  size_t scratchBytes() const;
  /// Output tile rows (of 2 or 4 pixels) run() takes through all three phases
  /// together; tileRows() when it runs each phase over the whole image.
  int64_t tileRowsPerBlock() const { return blockRows_; }
  int64_t tileRows() const { return tilesH_; }

  /// dst = post-ops(conv(src) + bias), for one image. `bias` may be null;
  /// with a sum post-op, dst holds the accumulated tensor on entry. Only
  /// where available().
  void run(const float *src, const float *packed, const float *bias, float *dst,
           void *scratch) const;

private:
  /// Output tile edge (2 or 4) and transform points per tile ((edge + 2)^2).
  int64_t edge_, points_;
  /// Input dims, padding, output dims (h + 2 pad - 2), output tiles.
  int64_t ic_, oc_, h_, w_, pad_, oh_, ow_, tilesH_, tilesW_;
  /// Tile rows transformed, multiplied and transformed back together; with
  /// more than one block, each thread runs whole blocks on its own slice
  /// of the working memory (`threads_` slices).
  int64_t blockRows_;
  int threads_;
  WinogradLayout layout_;
  WinogradTile tile_;
  std::vector<WinogradPostOp> postOps_;
};

/// Applies element-wise post-ops (Clip, Swish, HardSwish; not Sum) in
/// place to `count` floats with the kernel's vector code, on the OpenMP
/// threads where `count` is large. The delegate runs a convolution's
/// trailing SiLU with it where oneDNN's own is slow (Convolution.cpp).
/// Only where WinogradConv::available().
void applyPostOpsInPlace(float *data, size_t count,
                         const std::vector<WinogradPostOp> &postOps);

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRAD_H
