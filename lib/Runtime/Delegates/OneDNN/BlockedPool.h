//===- BlockedPool.h - the delegate's own max and average pooling -*- C++ -*-===//
//
// oneDNN 2.6's JIT pooling on AVX2 spends about 100 cycles per vector of
// results on 3x3 windows (GoogLeNet's stride-1 max poolings in its
// inception blocks: 0.6 ms for 192 channels of 28x28 on Zen 3, where
// reading the input nine times takes a twentieth of that). This kernel
// takes 2-D max and average pooling of f32 tensors whose channels lie in
// contiguous groups of 8 or 16 per pixel: nChw8c, nChw16c, or
// channels-last with channels a multiple of 8 (read a pixel row at a
// time, all its channels). Each
// result vector is the maximum or sum of its window's in-bounds input
// vectors; average pooling divides by the window's area
// (include-padding, as oneDNN's pooling_avg_include_padding does) or by
// its in-bounds count (exclude-padding).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDPOOL_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDPOOL_H

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>

namespace strata::runtime::onednn {

struct BlockedPool {
  enum class Kind { Max, AvgIncludePadding, AvgExcludePadding };

  Kind kind = Kind::Max;
  int64_t batch = 1, channels = 1, ih = 1, iw = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, padTop = 0, padLeft = 0;
  /// Channels per group (8 or 16); floats from one group to the next of
  /// the same pixel, and from one pixel to the next, in input and output.
  int block = 8;
  int64_t inGroupStride = 0, inPixelStride = 0;
  int64_t outGroupStride = 0, outPixelStride = 0;
  /// Whether run() uses 256-bit vectors (AVX2, where the CPU has it) or
  /// 128-bit ones; the results are the same.
  bool avx2 = false;

  /// The kernel for a pooling from `src` into `dst` (oneDNN's descs of
  /// the same layout) with this window (oneDNN's convention: dilations
  /// 0-based), or none when the layout is not one of the above, the window
  /// is dilated, or a window would hold no input pixel.
  static std::optional<BlockedPool>
  plan(Kind kind, const dnnl::memory::desc &src, const dnnl::memory::desc &dst,
       const dnnl::memory::dims &strides, const dnnl::memory::dims &kernel,
       const dnnl::memory::dims &dilations,
       const dnnl::memory::dims &padsBegin);

  /// dst = pool(src), over all images; threads (OpenMP) over rows of
  /// results (of a channel group, or channels-last of all channels) where
  /// the work pays for them.
  void run(const float *src, float *dst) const;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_BLOCKEDPOOL_H
