//===- GroupedConv.h - grouped convolution of narrow groups, AVX2 -*- C++
//-*-===//
//
// The oneDNN delegate's own kernel for grouped convolutions whose groups
// have 4 or 8 channels in and out (ResNeXt's 32x4d: 4 then 8; RegNetY-400MF:
// 8). oneDNN 2.6 has no JIT kernel for 4-channel groups in its AVX2
// layouts and runs them as a GEMM on NCHW (ResNeXt-50's first stage: 6
// GFLOP/s, 14 of 115 ms on Zen 3), and its AVX2 kernel for 8-channel
// groups reaches 20-33 GFLOP/s.
//
// The kernel works on 8-channel blocks: each holds two 4-channel groups or
// one 8-channel group, and its results depend on that block of the input
// alone. Input and output are in the layout of the convolution's
// neighbours, so that none is reordered for it: nChw8c, nChw16c (two
// blocks a pixel) or nhwc (all of them), where oneDNN with AVX-512 keeps
// the tensors around it. Per block, output pixel and tap, the 8 results gain
// w[tap][j] * x[j] for each of the group's input channels j: with 4-channel
// groups, x[j] for all four lanes of each group is an in-lane permute of
// the pixel's 8 channels; with 8-channel groups, a broadcast from memory.
// Row of results by row, 8 (or 6) pixels at a time held in registers.
// Weights are packed at compile time: [block][tap][j][8 lanes].
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_GROUPEDCONV_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_GROUPEDCONV_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::runtime::onednn {

/// The geometry of a grouped convolution, in oneDNN's terms (pads at the
/// start; the output dims say where the windows end), and the layout of
/// input and output: `pixelChannels` channels of a pixel lie together, 8
/// (nChw8c), 16 (nChw16c) or all of them (nhwc).
struct GroupedConvShape {
  int64_t channels = 0, groups = 1;
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, strideH = 1, strideW = 1, padTop = 0, padLeft = 0;
  int64_t pixelChannels = 8;
};

/// After bias: max(x, slope * x) clipped to [low, high] (ReLU, leaky ReLU,
/// clip), in order.
struct GroupedPostOp {
  float slope = 0.f;
  float low = -3.4e38f, high = 3.4e38f;
};

class GroupedConv {
public:
  /// Whether this CPU runs the kernel: AVX2 with FMA, where oneDNN is not
  /// held below AVX2 (ONEDNN_MAX_CPU_ISA).
  static bool available();
  /// Whether the kernel takes this geometry: as many output as input
  /// channels, a multiple of 8, in groups of 4 or 8; undilated windows,
  /// each holding an input pixel; 8, 16 (a divisor of the channels) or all
  /// channels together.
  static bool supports(const GroupedConvShape &shape);

  GroupedConv(const GroupedConvShape &shape, std::vector<GroupedPostOp> postOps,
              int threads = 1);

  const GroupedConvShape &shape() const { return s_; }
  int64_t groupWidth() const { return s_.channels / s_.groups; }
  /// Floats of one image of the input and of the output.
  size_t inputFloats() const {
    return static_cast<size_t>(s_.channels * s_.ih * s_.iw);
  }
  size_t outputFloats() const {
    return static_cast<size_t>(s_.channels * s_.oh * s_.ow);
  }
  /// Bytes of the weights, plain ([channels][group width][kh][kw]) and
  /// packed (the same count).
  size_t weightBytes() const {
    return sizeof(float) *
           static_cast<size_t>(s_.channels * groupWidth() * s_.kh * s_.kw);
  }
  void packWeights(const float *plain, float *packed) const;
  void unpackWeights(const float *packed, float *plain) const;

  /// dst = post-ops(conv(src) + bias) for one image, both in the shape's
  /// layout; `bias` may be null. Only where available().
  void run(const float *src, const float *packed, const float *bias,
           float *dst) const;

private:
  GroupedConvShape s_;
  std::vector<GroupedPostOp> postOps_;
  int threads_;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_GROUPEDCONV_H
