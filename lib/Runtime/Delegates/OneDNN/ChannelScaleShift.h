//===- ChannelScaleShift.h - per-channel x * s + t in blocked layouts -*- C++ -*-===//
//
// A BatchNormalization left unfolded (DenseNet's pre-activation ones,
// before their ReLU) is a per-channel scale and shift of x. oneDNN 2.6
// has only its reference kernel for that binary (with the shift as a
// post-op) on an nChw8c x, so the delegate used to move x to
// channels-last and back around it: two reorders per dense layer,
// 117 steps and 6 of 78 ms of densenet121 on Zen 3. This kernel computes
// y = post(x * s[c] + t[c]) in x's own layout, where each pixel's
// channels come in contiguous groups of 8 or 16: nChw8c, nChw16c, or
// channels-last with channels a multiple of 8. The product and the sum
// round separately, as oneDNN's binary kernels do.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELSCALESHIFT_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELSCALESHIFT_H

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>

namespace strata::runtime::onednn {

struct ChannelScaleShift {
  int64_t batch = 1, channels = 1, pixels = 1;
  /// Channels per group (8 or 16); floats from one group of a pixel to the
  /// next, and from one pixel to the next.
  int block = 8;
  int64_t groupStride = 0, pixelStride = 0;
  /// After the shift: max(y, slope * y) clipped to [low, high] (ReLU,
  /// leaky ReLU, clip), or nothing.
  bool post = false;
  float slope = 0.f, low = -3.4e38f, high = 3.4e38f;

  /// The kernel for a 4-D f32 x (and y) in `layout`, or none when the
  /// layout is not one of the above.
  static std::optional<ChannelScaleShift> plan(const dnnl::memory::desc &layout);

  /// y = post(x * scale[c] + shift[c]); y may be x. OpenMP threads over
  /// channel groups (over pixels, channels-last) where the tensor is large.
  void run(const float *x, const float *scale, const float *shift,
           float *y) const;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELSCALESHIFT_H
