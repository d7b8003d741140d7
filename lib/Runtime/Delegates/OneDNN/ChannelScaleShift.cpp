//===- ChannelScaleShift.cpp - per-channel x * s + t in blocked layouts ---===//
#include "ChannelScaleShift.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STRATA_SCALE_SHIFT_AVX2 1
#else
#define STRATA_SCALE_SHIFT_AVX2 0
#endif

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

/// Four floats (one SSE register), where the CPU lacks AVX2.
typedef float Vec4 __attribute__((vector_size(16)));

Vec4 load4(const float *p) {
  Vec4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
void store4(float *p, Vec4 v) { std::memcpy(p, &v, sizeof(v)); }

/// One row (B channels of every pixel): in = x's row, out = y's, scale and
/// shift from the row's first channel.
using RowFn = void (*)(const ChannelScaleShift &, const float *in,
                       const float *scale, const float *shift, float *out);

/// A row four floats at a time.
template <int B, bool Post>
void scaleShiftRow4(const ChannelScaleShift &k, const float *in,
                    const float *scale, const float *shift, float *out) {
  constexpr int kVecs = B / 4;
  Vec4 s[kVecs], t[kVecs];
  for (int v = 0; v < kVecs; ++v)
    s[v] = load4(scale + 4 * v), t[v] = load4(shift + 4 * v);
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

/// Every row of B channels, on the OpenMP threads when the tensor is large.
/// (The OpenMP region stays outside the rows' functions: clang outlines
/// its body without an AVX2 target attribute.)
template <int B>
void runGroups(const ChannelScaleShift &k, const float *x, const float *scale,
               const float *shift, float *y, RowFn rowFn) {
  int64_t groups = k.channels / B, rows = k.batch * groups;
  // An image's floats from the first group's start.
  int64_t image = k.channels * k.pixels;
  bool parallel = rows > 1 && rows * k.pixels * B >= (1 << 16);
#pragma omp parallel for if (parallel)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t n = row / groups, g = row % groups;
    rowFn(k, x + n * image + g * k.groupStride, scale + g * B, shift + g * B,
          y + n * image + g * k.groupStride);
  }
}

/// Pixels of a channels-last tensor, every channel of each: in and out at
/// the first pixel's first channel.
using PixelsFn = void (*)(const ChannelScaleShift &, const float *in,
                          const float *scale, const float *shift, float *out,
                          int64_t count);

/// Pixels four floats at a time.
template <bool Post>
void scaleShiftPixels4(const ChannelScaleShift &k, const float *in,
                       const float *scale, const float *shift, float *out,
                       int64_t count) {
  Vec4 slope = Vec4{} + k.slope, low = Vec4{} + k.low, high = Vec4{} + k.high;
  for (int64_t i = 0; i < count * k.channels; i += k.channels)
    for (int64_t c = 0; c < k.channels; c += 4) {
      Vec4 r = load4(in + i + c) * load4(scale + c);
      r = r + load4(shift + c);
      if constexpr (Post) {
        Vec4 sloped = r * slope;
        r = r > sloped ? r : sloped;
        r = r < low ? low : r;
        r = r > high ? high : r;
      }
      store4(out + i + c, r);
    }
}

/// A channels-last tensor in equal shares of pixels, one a thread when it
/// is large. A task per group of 8 channels (runGroups) reads 32 bytes of
/// every pixel, half a cache line, and sweeps the image once per group:
/// densenet121's 62 scale-shifts took 4.4 ms on Zen 5 at 1 and at 2
/// threads.
void runPixels(const ChannelScaleShift &k, const float *x, const float *scale,
               const float *shift, float *y, PixelsFn pixelsFn) {
  int64_t count = k.batch * k.pixels;
  bool parallel = count > 1 && count * k.channels >= (1 << 16);
#pragma omp parallel if (parallel)
  {
    int64_t threads = omp_get_num_threads(), me = omp_get_thread_num();
    int64_t begin = count * me / threads, end = count * (me + 1) / threads;
    pixelsFn(k, x + begin * k.channels, scale, shift, y + begin * k.channels,
             end - begin);
  }
}

#if STRATA_SCALE_SHIFT_AVX2
/// One row of runGroups (B channels of every pixel) in AVX2 registers, the
/// same operations in the same order (a product, then a sum: no FMA, so
/// both loops give the same floats). The four-float loop ran at 15 GB/s on
/// Zen 3 with the post-op's compares, this one at 41-46 in isolation
/// (densenet121's 224 x 56 x 56 scale-shift + relu: 0.39 -> 0.13 ms; its
/// 62 in the model, reading the block's concatenation from further away:
/// 6.9 -> 5.1 ms).
template <int B, bool Post>
__attribute__((target("avx2"))) void
scaleShiftRowAvx2(const ChannelScaleShift &k, const float *in,
                  const float *scale, const float *shift, float *out) {
  constexpr int kVecs = B / 8;
  __m256 s[kVecs], t[kVecs];
  for (int v = 0; v < kVecs; ++v) {
    s[v] = _mm256_loadu_ps(scale + 8 * v);
    t[v] = _mm256_loadu_ps(shift + 8 * v);
  }
  __m256 slope = _mm256_set1_ps(k.slope), low = _mm256_set1_ps(k.low),
         high = _mm256_set1_ps(k.high);
  for (int64_t p = 0; p < k.pixels; ++p) {
    for (int v = 0; v < kVecs; ++v) {
      __m256 r = _mm256_add_ps(
          _mm256_mul_ps(_mm256_loadu_ps(in + p * k.pixelStride + 8 * v), s[v]),
          t[v]);
      if constexpr (Post) {
        // As the four-float loop: r > r * slope ? r : r * slope, then
        // r < low ? low : r, then r > high ? high : r.
        r = _mm256_max_ps(r, _mm256_mul_ps(r, slope));
        r = _mm256_max_ps(low, r);
        r = _mm256_min_ps(high, r);
      }
      _mm256_storeu_ps(out + p * k.pixelStride + 8 * v, r);
    }
  }
}

/// scaleShiftPixels4 in AVX2 registers, the same operations in the same
/// order.
template <bool Post>
__attribute__((target("avx2"))) void
scaleShiftPixelsAvx2(const ChannelScaleShift &k, const float *in,
                     const float *scale, const float *shift, float *out,
                     int64_t count) {
  __m256 slope = _mm256_set1_ps(k.slope), low = _mm256_set1_ps(k.low),
         high = _mm256_set1_ps(k.high);
  for (int64_t i = 0; i < count * k.channels; i += k.channels)
    for (int64_t c = 0; c < k.channels; c += 8) {
      __m256 r = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(in + i + c),
                                             _mm256_loadu_ps(scale + c)),
                               _mm256_loadu_ps(shift + c));
      if constexpr (Post) {
        r = _mm256_max_ps(r, _mm256_mul_ps(r, slope));
        r = _mm256_max_ps(low, r);
        r = _mm256_min_ps(high, r);
      }
      _mm256_storeu_ps(out + i + c, r);
    }
}

#endif

} // namespace

void ChannelScaleShift::run(const float *x, const float *scale,
                            const float *shift, float *y) const {
#if STRATA_SCALE_SHIFT_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
#endif
  if (pixelStride == channels) {
    PixelsFn pixelsFn =
        post ? scaleShiftPixels4<true> : scaleShiftPixels4<false>;
#if STRATA_SCALE_SHIFT_AVX2
    if (avx2)
      pixelsFn =
          post ? scaleShiftPixelsAvx2<true> : scaleShiftPixelsAvx2<false>;
#endif
    return runPixels(*this, x, scale, shift, y, pixelsFn);
  }
  RowFn row = block == 16 ? (post ? scaleShiftRow4<16, true>
                                  : scaleShiftRow4<16, false>)
                          : (post ? scaleShiftRow4<8, true>
                                  : scaleShiftRow4<8, false>);
#if STRATA_SCALE_SHIFT_AVX2
  if (avx2)
    row = block == 16 ? (post ? scaleShiftRowAvx2<16, true>
                              : scaleShiftRowAvx2<16, false>)
                      : (post ? scaleShiftRowAvx2<8, true>
                              : scaleShiftRowAvx2<8, false>);
#endif
  if (block == 16)
    runGroups<16>(*this, x, scale, shift, y, row);
  else
    runGroups<8>(*this, x, scale, shift, y, row);
}

} // namespace strata::runtime::onednn
