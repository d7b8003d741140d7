//===- ChannelScaleShift.cpp - per-channel x * s + t in blocked layouts ---===//
#include "ChannelScaleShift.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace strata::runtime::onednn {

using dnnl::memory;

std::optional<ChannelScaleShift>
ChannelScaleShift::plan(const memory::desc &layout) {
  memory::dims d = layout.dims();
  if (d.size() != 4 || layout.data_type() != memory::data_type::f32)
    return std::nullopt;
  auto is = [&](memory::format_tag tag) {
    return layout == memory::desc(d, memory::data_type::f32, tag);
  };
  ChannelScaleShift k;
  k.batch = d[0], k.channels = d[1], k.pixels = d[2] * d[3];
  if (is(memory::format_tag::aBcd8b) && k.channels % 8 == 0) {
    k.block = 8, k.groupStride = 8 * k.pixels, k.pixelStride = 8;
  } else if (is(memory::format_tag::aBcd16b) && k.channels % 16 == 0) {
    k.block = 16, k.groupStride = 16 * k.pixels, k.pixelStride = 16;
  } else if (is(memory::format_tag::acdb) && k.channels % 8 == 0) {
    k.block = 8, k.groupStride = 8, k.pixelStride = k.channels;
  } else {
    return std::nullopt;
  }
  return k;
}

namespace {

/// Four floats (one SSE register): the loop is bound by memory, not by
/// the width of the arithmetic.
typedef float Vec4 __attribute__((vector_size(16)));

Vec4 load4(const float *p) {
  Vec4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
void store4(float *p, Vec4 v) { std::memcpy(p, &v, sizeof(v)); }

template <int B, bool Post>
void runGroups(const ChannelScaleShift &k, const float *x, const float *scale,
               const float *shift, float *y) {
  constexpr int kVecs = B / 4;
  int64_t groups = k.channels / B, rows = k.batch * groups;
  // An image's floats from the first group's start.
  int64_t image = k.channels * k.pixels;
  bool parallel = rows > 1 && rows * k.pixels * B >= (1 << 16);
#pragma omp parallel for if (parallel)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t n = row / groups, g = row % groups;
    const float *in = x + n * image + g * k.groupStride;
    float *out = y + n * image + g * k.groupStride;
    Vec4 s[kVecs], t[kVecs];
    for (int v = 0; v < kVecs; ++v)
      s[v] = load4(scale + g * B + 4 * v), t[v] = load4(shift + g * B + 4 * v);
    Vec4 slope = Vec4{} + k.slope, low = Vec4{} + k.low, high = Vec4{} + k.high;
    for (int64_t p = 0; p < k.pixels; ++p) {
      for (int v = 0; v < kVecs; ++v) {
        Vec4 r = load4(in + p * k.pixelStride + 4 * v) * s[v];
        r = r + t[v];
        if constexpr (Post) {
          Vec4 sloped = r * slope;
          r = r > sloped ? r : sloped;
          r = r < low ? low : r;
          r = r > high ? high : r;
        }
        store4(out + p * k.pixelStride + 4 * v, r);
      }
    }
  }
}

} // namespace

void ChannelScaleShift::run(const float *x, const float *scale,
                            const float *shift, float *y) const {
  if (block == 16)
    post ? runGroups<16, true>(*this, x, scale, shift, y)
         : runGroups<16, false>(*this, x, scale, shift, y);
  else
    post ? runGroups<8, true>(*this, x, scale, shift, y)
         : runGroups<8, false>(*this, x, scale, shift, y);
}

} // namespace strata::runtime::onednn
