//===- GroupedConvTest.cpp - the oneDNN delegate's grouped convolution ----===//
//
// The own kernel for 4- and 8-channel groups against a double-precision
// direct convolution computed here, on ResNeXt's and RegNet's windows (3x3
// stride 1 and 2 with padding), odd sizes whose rows end in a partial run
// of pixels, a 1x1 grouped convolution, bias, ReLU and clip, at one and
// two threads, in each of its layouts (nChw8c, nChw16c, nhwc); its weight
// packing round trip; and the geometries it must refuse.
//
//===----------------------------------------------------------------------===//
#include "GroupedConv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using strata::runtime::onednn::GroupedConv;
using strata::runtime::onednn::GroupedConvShape;
using strata::runtime::onednn::GroupedPostOp;

namespace {

GroupedConvShape shapeOf(int64_t channels, int64_t width, int64_t h, int64_t w,
                         int64_t k, int64_t stride, int64_t pad) {
  GroupedConvShape s;
  s.channels = channels, s.groups = channels / width;
  s.ih = h, s.iw = w, s.kh = k, s.kw = k;
  s.strideH = s.strideW = stride, s.padTop = s.padLeft = pad;
  s.oh = (h + 2 * pad - k) / stride + 1;
  s.ow = (w + 2 * pad - k) / stride + 1;
  return s;
}

struct Case {
  GroupedConvShape shape;
  std::vector<GroupedPostOp> postOps;
  const char *what;
};

TEST(GroupedConvTest, MatchesDirectConvolution) {
  if (!GroupedConv::available())
    GTEST_SKIP() << "this CPU lacks AVX2 with FMA";
  GroupedPostOp relu;
  GroupedPostOp clip;
  clip.slope = 1, clip.low = -0.25f, clip.high = 0.5f;
  std::vector<Case> cases = {
      {shapeOf(32, 4, 13, 11, 3, 1, 1), {relu}, "4-channel groups, stride 1"},
      {shapeOf(16, 4, 9, 10, 3, 2, 1), {}, "4-channel groups, stride 2"},
      {shapeOf(32, 8, 7, 15, 3, 1, 1), {clip}, "8-channel groups, stride 1"},
      {shapeOf(24, 8, 12, 9, 3, 2, 1), {relu}, "8-channel groups, stride 2"},
      {shapeOf(16, 4, 5, 5, 1, 1, 0), {}, "1x1 windows"},
      {shapeOf(8, 4, 6, 6, 3, 1, 0), {relu, clip}, "unpadded, two post-ops"},
  };
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (int threads : {1, 2})
    for (const Case &c : cases)
      for (int64_t run : {int64_t(8), int64_t(16), c.shape.channels}) {
        if (c.shape.channels % run != 0)
          continue;
        SCOPED_TRACE(std::string(c.what) + ", threads " +
                     std::to_string(threads) + ", " + std::to_string(run) +
                     " channels a pixel");
        GroupedConvShape s = c.shape;
        s.pixelChannels = run;
        // Channel ch of pixel p of an image of `pixels` pixels in that layout.
        auto at = [&](int64_t ch, int64_t p, int64_t pixels) {
          return ((ch / run) * pixels + p) * run + ch % run;
        };
        ASSERT_TRUE(GroupedConv::supports(s));
        GroupedConv conv(s, c.postOps, threads);
        int64_t width = conv.groupWidth(), taps = s.kh * s.kw;
        std::vector<float> x(conv.inputFloats()), w(conv.weightBytes() / 4),
            bias(s.channels), packed(w.size()), y(conv.outputFloats(), NAN);
        for (float &v : x)
          v = normal(rng);
        for (float &v : w)
          v = normal(rng) / std::sqrt(float(width * taps));
        for (float &v : bias)
          v = normal(rng) * 0.1f;
        // The input in the layout, from NCHW.
        std::vector<float> xb(x.size());
        for (int64_t ch = 0; ch < s.channels; ++ch)
          for (int64_t p = 0; p < s.ih * s.iw; ++p)
            xb[at(ch, p, s.ih * s.iw)] = x[ch * s.ih * s.iw + p];
        conv.packWeights(w.data(), packed.data());
        conv.run(xb.data(), packed.data(), bias.data(), y.data());

        double err = 0, norm = 0;
        for (int64_t oc = 0; oc < s.channels; ++oc) {
          int64_t group = oc / width;
          for (int64_t oy = 0; oy < s.oh; ++oy)
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              double v = bias[oc];
              for (int64_t j = 0; j < width; ++j)
                for (int64_t ky = 0; ky < s.kh; ++ky)
                  for (int64_t kx = 0; kx < s.kw; ++kx) {
                    int64_t iy = oy * s.strideH - s.padTop + ky;
                    int64_t ix = ox * s.strideW - s.padLeft + kx;
                    if (iy < 0 || iy >= s.ih || ix < 0 || ix >= s.iw)
                      continue;
                    v += double(w[((oc * width + j) * s.kh + ky) * s.kw + kx]) *
                         x[((group * width + j) * s.ih + iy) * s.iw + ix];
                  }
              for (const GroupedPostOp &p : c.postOps)
                v = std::min<double>(
                    std::max<double>(std::max(v, v * p.slope), p.low), p.high);
              double got = y[at(oc, oy * s.ow + ox, s.oh * s.ow)];
              ASSERT_NEAR(got, v, 1e-5 + 1e-5 * std::abs(v))
                  << "channel " << oc << " at (" << oy << ", " << ox << ")";
              err += (got - v) * (got - v);
              norm += v * v;
            }
        }
        EXPECT_LT(std::sqrt(err / norm), 1e-6);
      }
}

TEST(GroupedConvTest, UnpacksWhatItPacked) {
  GroupedConv conv(shapeOf(16, 8, 5, 5, 3, 1, 1), {});
  std::vector<float> w(conv.weightBytes() / 4), packed(w.size()),
      back(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float(i);
  conv.packWeights(w.data(), packed.data());
  EXPECT_NE(packed, w);
  conv.unpackWeights(packed.data(), back.data());
  EXPECT_EQ(back, w);
}

TEST(GroupedConvTest, RefusesWhatItCannotRun) {
  EXPECT_TRUE(GroupedConv::supports(shapeOf(32, 4, 8, 8, 3, 1, 1)));
  // 16-channel groups, 2-channel groups, channels not a multiple of 8,
  // no groups, padding as wide as the window.
  EXPECT_FALSE(GroupedConv::supports(shapeOf(32, 16, 8, 8, 3, 1, 1)));
  EXPECT_FALSE(GroupedConv::supports(shapeOf(32, 2, 8, 8, 3, 1, 1)));
  EXPECT_FALSE(GroupedConv::supports(shapeOf(12, 4, 8, 8, 3, 1, 1)));
  EXPECT_FALSE(GroupedConv::supports(shapeOf(8, 8, 8, 8, 3, 1, 1)));
  EXPECT_FALSE(GroupedConv::supports(shapeOf(32, 4, 8, 8, 3, 1, 3)));
  // Channels a pixel: 16 needs a multiple of 16 channels; neither 4 nor a
  // part of the channels other than 8 or 16 is a layout.
  GroupedConvShape layout = shapeOf(24, 8, 8, 8, 3, 1, 1);
  layout.pixelChannels = 24;
  EXPECT_TRUE(GroupedConv::supports(layout));
  layout.pixelChannels = 16;
  EXPECT_FALSE(GroupedConv::supports(layout));
  layout.pixelChannels = 4;
  EXPECT_FALSE(GroupedConv::supports(layout));
  layout = shapeOf(64, 8, 8, 8, 3, 1, 1);
  layout.pixelChannels = 32;
  EXPECT_FALSE(GroupedConv::supports(layout));
}

} // namespace
