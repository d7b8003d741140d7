//===- GroupedConv.cpp - grouped convolution of narrow groups, AVX2 -------===//
#include "GroupedConv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <omp.h>
#define STRATA_GROUPED_X86 1
#else
#define STRATA_GROUPED_X86 0
#endif

namespace strata::runtime::onednn {

bool GroupedConv::available() {
#if STRATA_GROUPED_X86
  static const bool yes = __builtin_cpu_supports("avx2") &&
                          __builtin_cpu_supports("fma") &&
                          dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx2;
  return yes;
#else
  return false;
#endif
}

bool GroupedConv::supports(const GroupedConvShape &s) {
  if (s.channels <= 0 || s.groups <= 1 || s.channels % 8 != 0 ||
      s.channels % s.groups != 0)
    return false;
  int64_t width = s.channels / s.groups;
  if (width != 4 && width != 8)
    return false;
  if (s.pixelChannels != 8 && s.pixelChannels != s.channels &&
      !(s.pixelChannels == 16 && s.channels % 16 == 0))
    return false;
  if (s.ih < 1 || s.iw < 1 || s.oh < 1 || s.ow < 1 || s.kh < 1 || s.kw < 1 ||
      s.strideH < 1 || s.strideW < 1 || s.padTop < 0 || s.padLeft < 0 ||
      s.padTop >= s.kh || s.padLeft >= s.kw)
    return false;
  // The last window starts inside the input.
  return (s.oh - 1) * s.strideH - s.padTop < s.ih &&
         (s.ow - 1) * s.strideW - s.padLeft < s.iw &&
         s.ih * s.iw <= (int64_t(1) << 26);
}

GroupedConv::GroupedConv(const GroupedConvShape &shape,
                         std::vector<GroupedPostOp> postOps, int threads)
    : s_(shape), postOps_(std::move(postOps)), threads_(std::max(threads, 1)) {}

/// Index of w[oc][j][ky][kx] in the packed layout [block][tap][j][lane].
static int64_t packedIndex(const GroupedConvShape &s, int64_t width, int64_t oc,
                           int64_t j, int64_t tap) {
  int64_t taps = s.kh * s.kw;
  return ((oc / 8 * taps + tap) * width + j) * 8 + oc % 8;
}

void GroupedConv::packWeights(const float *plain, float *packed) const {
  int64_t width = groupWidth(), taps = s_.kh * s_.kw;
  for (int64_t oc = 0; oc < s_.channels; ++oc)
    for (int64_t j = 0; j < width; ++j)
      for (int64_t tap = 0; tap < taps; ++tap)
        packed[packedIndex(s_, width, oc, j, tap)] =
            plain[(oc * width + j) * taps + tap];
}

void GroupedConv::unpackWeights(const float *packed, float *plain) const {
  int64_t width = groupWidth(), taps = s_.kh * s_.kw;
  for (int64_t oc = 0; oc < s_.channels; ++oc)
    for (int64_t j = 0; j < width; ++j)
      for (int64_t tap = 0; tap < taps; ++tap)
        plain[(oc * width + j) * taps + tap] =
            packed[packedIndex(s_, width, oc, j, tap)];
}

#if STRATA_GROUPED_X86
namespace {

#define STRATA_GROUPED_TARGET __attribute__((target("avx2,fma")))

/// Results ox0 .. ox0 + U - 1 of row `oy` of one channel block, W-channel
/// groups; with Checked, taps of windows past the input's left or right
/// edge, and pixels past the row's end, read zeros (and the latter are not
/// stored); without, none is. (A zero times an infinite weight would give
/// NaN where a skipped tap gives nothing: weights are finite.)
template <int W, int U, bool Checked>
STRATA_GROUPED_TARGET inline void
convRun(const GroupedConvShape &s, const float *in, const float *weights,
        __m256 bias, float *out, int64_t oy, int64_t ox0,
        const std::vector<GroupedPostOp> &postOps) {
  __m256 acc[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
    acc[u] = bias;
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    int64_t iy = oy * s.strideH - s.padTop + ky;
    if (iy < 0 || iy >= s.ih)
      continue;
    const float *row = in + iy * s.iw * s.pixelChannels;
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const float *w = weights + (ky * s.kw + kx) * W * 8;
      __m256 wv[W];
#pragma GCC unroll 8
      for (int j = 0; j < W; ++j)
        wv[j] = _mm256_loadu_ps(w + j * 8);
      int64_t ix0 = ox0 * s.strideW - s.padLeft + kx;
      // Pixel u's channels, or zeros where its window misses the input
      // (no branch in the loop below).
      static const float kZeros[8] = {};
      const float *px[U];
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u) {
        int64_t ix = ix0 + u * s.strideW;
        px[u] = Checked && (ox0 + u >= s.ow || ix < 0 || ix >= s.iw)
                    ? kZeros
                    : row + ix * s.pixelChannels;
      }
      if constexpr (W == 4) {
        // Lanes 0-3 are one group, 4-7 the other: channel j of each group
        // to all four of its lanes, by in-lane permutes of one load.
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) {
          __m256 v = _mm256_loadu_ps(px[u]);
          acc[u] = _mm256_fmadd_ps(_mm256_permute_ps(v, 0x00), wv[0], acc[u]);
          acc[u] = _mm256_fmadd_ps(_mm256_permute_ps(v, 0x55), wv[1], acc[u]);
          acc[u] = _mm256_fmadd_ps(_mm256_permute_ps(v, 0xAA), wv[2], acc[u]);
          acc[u] = _mm256_fmadd_ps(_mm256_permute_ps(v, 0xFF), wv[3], acc[u]);
        }
      } else {
        // Channel by channel, pixels innermost: U independent FMAs in a
        // row, each on a broadcast from memory.
#pragma GCC unroll 8
        for (int j = 0; j < W; ++j)
#pragma GCC unroll 8
          for (int u = 0; u < U; ++u)
            acc[u] =
                _mm256_fmadd_ps(_mm256_broadcast_ss(px[u] + j), wv[j], acc[u]);
      }
    }
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    if (Checked && ox0 + u >= s.ow)
      break;
    __m256 v = acc[u];
    for (const GroupedPostOp &p : postOps) {
      v = _mm256_max_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(p.slope)));
      v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(p.low)),
                        _mm256_set1_ps(p.high));
    }
    _mm256_storeu_ps(out + (oy * s.ow + ox0 + u) * s.pixelChannels, v);
  }
}

/// One row of results of one channel block, in runs of U pixels: checked
/// at the row's ends, unchecked where every window of the run lies inside
/// the input's columns.
template <int W, int U>
STRATA_GROUPED_TARGET void convRow(const GroupedConvShape &s, const float *in,
                                   const float *weights, const float *bias,
                                   float *out, int64_t oy,
                                   const std::vector<GroupedPostOp> &postOps) {
  __m256 b = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
  // Results [first, last] read columns inside the input only.
  int64_t first = (s.padLeft + s.strideW - 1) / s.strideW;
  int64_t last = (s.iw - s.kw + s.padLeft) / s.strideW;
  last = std::min(last, s.ow - 1);
  int64_t ox0 = 0;
  for (; ox0 < first && ox0 < s.ow; ox0 += U)
    convRun<W, U, true>(s, in, weights, b, out, oy, ox0, postOps);
  for (; ox0 + U - 1 <= last; ox0 += U)
    convRun<W, U, false>(s, in, weights, b, out, oy, ox0, postOps);
  for (; ox0 < s.ow; ox0 += U)
    convRun<W, U, true>(s, in, weights, b, out, oy, ox0, postOps);
}
template <int W, int U>
STRATA_GROUPED_TARGET void
runAll(const GroupedConvShape &s, const float *src, const float *packed,
       const float *bias, float *dst, const std::vector<GroupedPostOp> &postOps,
       int threads) {
  int64_t blocks = s.channels / 8, rows = blocks * s.oh;
  int64_t taps = s.kh * s.kw;
  // Where 8-channel block b of an image of `pixels` pixels starts: in the
  // (b / perRun)-th run of pixelChannels, b % perRun blocks in.
  int64_t perRun = s.pixelChannels / 8;
  auto blockStart = [&](int64_t b, int64_t pixels) {
    return (b / perRun) * pixels * s.pixelChannels + (b % perRun) * 8;
  };
#pragma omp parallel num_threads(threads) if (threads > 1 && rows > 1)
  {
    int count = omp_get_num_threads(), me = omp_get_thread_num();
    int64_t begin = rows * me / count, end = rows * (me + 1) / count;
    for (int64_t r = begin; r < end; ++r) {
      int64_t block = r / s.oh, oy = r % s.oh;
      convRow<W, U>(s, src + blockStart(block, s.ih * s.iw),
                    packed + block * taps * W * 8,
                    bias ? bias + block * 8 : nullptr,
                    dst + blockStart(block, s.oh * s.ow), oy, postOps);
    }
  }
}

} // namespace
#endif

void GroupedConv::run(const float *src, const float *packed, const float *bias,
                      float *dst) const {
#if STRATA_GROUPED_X86
  // 8 accumulators, 4 weight vectors and a pixel; 6 accumulators, 8 weight
  // vectors and a broadcast: within AVX2's 16 registers.
  if (groupWidth() == 4)
    runAll<4, 8>(s_, src, packed, bias, dst, postOps_, threads_);
  else
    runAll<8, 6>(s_, src, packed, bias, dst, postOps_, threads_);
#else
  (void)src, (void)packed, (void)bias, (void)dst;
#endif
}

} // namespace strata::runtime::onednn
