//===- WinogradCheck.cpp - a layer's Winograd error, measured -------------===//
#include "WinogradCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace strata::runtime::onednn {

namespace {

constexpr int64_t kSide = 10;            ///< Input crop: 10x10, no padding,
constexpr int64_t kOut = kSide - 2;      ///< giving 8x8 outputs: 4 tiles of
constexpr int64_t kPixels = kOut * kOut; ///< 4x4, 16 of 2x2.
/// Output channels compared, evenly spread: 64 x 64 outputs are plenty
/// for a rel-L2, and the float64 reference is the check's main cost.
constexpr int64_t kComparedChannels = 64;

/// splitmix64: a fixed sequence on every platform.
struct Generator {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// About N(0, 1): four uniforms summed (Irwin-Hall), no libm involved.
  double normal() {
    double s = uniform() + uniform() + uniform() + uniform();
    return (s - 2.0) * 1.7320508075688772;
  }
};

/// Where channel `c` of pixel `p` (of `pixels`) of a tensor with
/// `channels` lies in `layout`.
int64_t offsetOf(WinogradLayout layout, int64_t channels, int64_t pixels,
                 int64_t c, int64_t p) {
  switch (layout) {
  case WinogradLayout::ChannelsLast:
    return p * channels + c;
  case WinogradLayout::Blocked16:
    return ((c / 16) * pixels + p) * 16 + c % 16;
  case WinogradLayout::Blocked8:
    return ((c / 8) * pixels + p) * 8 + c % 8;
  }
  return 0;
}

double relL2(const std::vector<float> &got, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double d = static_cast<double>(got[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0);
}

} // namespace

WinogradErrors measureWinogradErrors(int64_t ic, int64_t oc, const float *oihw,
                                     WinogradTile tile, WinogradLayout layout) {
  const int64_t taps = ic * 9;
  // The output channels compared, and their weights as [tap][channel], so
  // that the direct sums below run over channels innermost (vectorised
  // without reordering any one sum).
  const int64_t n = std::min(oc, kComparedChannels);
  std::vector<int64_t> channels(n);
  for (int64_t j = 0; j < n; ++j)
    channels[j] = j * oc / n;
  std::vector<double> wd(static_cast<size_t>(taps * n));
  std::vector<float> wf(wd.size());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < taps; ++k) {
      wf[k * n + j] = oihw[channels[j] * taps + k];
      wd[k * n + j] = oihw[channels[j] * taps + k];
    }
  WinogradConv conv(ic, oc, kSide, kSide, layout, {}, /*threads=*/1,
                    /*padding=*/0, tile);
  std::vector<float> packed(conv.packedBytes() / sizeof(float));
  conv.packWeights(oihw, packed.data());
  std::vector<uint8_t> scratch(conv.scratchBytes());

  WinogradErrors worst;
  double worstRatio = -1;
  Generator gen{0x5eed0f3a3ull};
  for (bool halfNormal : {true, false}) {
    // The input, [c][y][x], and in the kernel's layout.
    std::vector<float> x(static_cast<size_t>(ic * kSide * kSide));
    for (float &v : x) {
      double n = gen.normal();
      v = static_cast<float>(halfNormal ? std::fabs(n) : n);
    }
    std::vector<float> src(x.size());
    for (int64_t c = 0; c < ic; ++c)
      for (int64_t p = 0; p < kSide * kSide; ++p)
        src[offsetOf(layout, ic, kSide * kSide, c, p)] =
            x[c * kSide * kSide + p];
    // Direct: float64 and float32, each sum over (c, ky, kx) in order.
    std::vector<double> ref(static_cast<size_t>(n * kPixels));
    std::vector<float> direct(ref.size());
    std::vector<double> accD(n);
    std::vector<float> accF(n);
    for (int64_t y = 0; y < kOut; ++y)
      for (int64_t xo = 0; xo < kOut; ++xo) {
        std::fill(accD.begin(), accD.end(), 0.0);
        std::fill(accF.begin(), accF.end(), 0.0f);
        for (int64_t c = 0; c < ic; ++c)
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              int64_t k = c * 9 + ky * 3 + kx;
              float v = x[(c * kSide + y + ky) * kSide + xo + kx];
              const double *rowD = &wd[k * n];
              const float *rowF = &wf[k * n];
              for (int64_t o = 0; o < n; ++o) {
                accD[o] += rowD[o] * static_cast<double>(v);
                accF[o] += rowF[o] * v;
              }
            }
        int64_t p = y * kOut + xo;
        for (int64_t o = 0; o < n; ++o) {
          ref[o * kPixels + p] = accD[o];
          direct[o * kPixels + p] = accF[o];
        }
      }
    std::vector<float> dst(conv.outputFloats()), wino(ref.size());
    conv.run(src.data(), packed.data(), nullptr, dst.data(), scratch.data());
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < kPixels; ++p)
        wino[j * kPixels + p] =
            dst[offsetOf(layout, oc, kPixels, channels[j], p)];
    WinogradErrors errors{relL2(direct, ref), relL2(wino, ref)};
    double ratio = errors.direct > 0 ? errors.winograd / errors.direct
                                     : (errors.winograd > 0 ? INFINITY : 0);
    if (ratio > worstRatio)
      worstRatio = ratio, worst = errors;
  }
  return worst;
}

std::string describeWinogradErrors(WinogradTile tile,
                                   const WinogradErrors &errors,
                                   double budget) {
  char text[160];
  std::snprintf(text, sizeof(text),
                "%s: rel-L2 %.2g against direct float32's %.2g (%.2fx, "
                "budget %gx)",
                tile == WinogradTile::F4x4 ? "F(4x4,3x3)" : "F(2x2,3x3)",
                errors.winograd, errors.direct,
                errors.direct > 0 ? errors.winograd / errors.direct : 0.0,
                budget);
  return text;
}

} // namespace strata::runtime::onednn
