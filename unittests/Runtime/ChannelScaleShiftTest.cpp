//===- ChannelScaleShiftTest.cpp - the delegate's per-channel scale-shift -===//
//
// y = post(x * s[c] + t[c]) in nChw8c, nChw16c and channels-last, against
// the same formula computed here element by element from NCHW indices:
// without a post-op, with ReLU, leaky ReLU and clip, in place, batch 2, at
// one thread and (on a tensor large enough for them) two; and the layouts
// it must refuse.
//
//===----------------------------------------------------------------------===//
#include "ChannelScaleShift.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using strata::runtime::onednn::ChannelScaleShift;
using dnnl::memory;
using Tag = memory::format_tag;

namespace {

/// Where element (n, c, h, w) of an N x C x H x W tensor lies in `tag`.
int64_t offsetIn(Tag tag, int64_t n, int64_t c, int64_t h, int64_t w,
                 int64_t channels, int64_t height, int64_t width) {
  int64_t pixel = h * width + w, pixels = height * width;
  int64_t image = n * channels * pixels;
  if (tag == Tag::acdb)
    return image + pixel * channels + c;
  int64_t block = tag == Tag::aBcd8b ? 8 : 16;
  return image + (c / block * pixels + pixel) * block + c % block;
}

/// Checks every layout and post-op on an n x c x h x w tensor with
/// `threads` OpenMP threads.
void checkShape(int64_t n, int64_t c, int64_t h, int64_t w, int threads) {
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  std::vector<float> x(n * c * h * w), scale(c), shift(c);
  for (float &v : x)
    v = normal(rng);
  for (int64_t i = 0; i < c; ++i)
    scale[i] = normal(rng), shift[i] = normal(rng);
  struct Post {
    bool on;
    float slope, low, high;
    const char *what;
  };
  const Post posts[] = {{false, 0, -3.4e38f, 3.4e38f, "none"},
                        {true, 0, -3.4e38f, 3.4e38f, "relu"},
                        {true, 0.1f, -3.4e38f, 3.4e38f, "leaky relu"},
                        {true, 1, -0.5f, 0.75f, "clip"}};
  for (Tag tag : {Tag::aBcd8b, Tag::aBcd16b, Tag::acdb})
    for (const Post &post : posts)
      for (bool inPlace : {false, true}) {
        SCOPED_TRACE(std::string(post.what) + ", layout " +
                     std::to_string(int(tag)) + (inPlace ? ", in place" : ""));
        std::optional<ChannelScaleShift> k = ChannelScaleShift::plan(
            memory::desc({n, c, h, w}, memory::data_type::f32, tag));
        ASSERT_TRUE(k);
        k->post = post.on, k->slope = post.slope;
        k->low = post.low, k->high = post.high;
        std::vector<float> y = x, out(x.size(), NAN);
        int before = omp_get_max_threads();
        omp_set_num_threads(threads);
        k->run(y.data(), scale.data(), shift.data(),
               inPlace ? y.data() : out.data());
        omp_set_num_threads(before);
        const std::vector<float> &got = inPlace ? y : out;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t yy = 0; yy < h; ++yy)
              for (int64_t xx = 0; xx < w; ++xx) {
                int64_t at = offsetIn(tag, i, ch, yy, xx, c, h, w);
                float v = x[at] * scale[ch];
                v = v + shift[ch];
                if (post.on)
                  v = std::min(std::max(std::max(v, v * post.slope), post.low),
                               post.high);
                ASSERT_NEAR(got[at], v, 1e-6f * (1 + std::abs(v)))
                    << "at " << i << ", " << ch << ", " << yy << ", " << xx;
              }
      }
}

TEST(ChannelScaleShiftTest, MatchesTheFormula) { checkShape(2, 32, 5, 7, 1); }

// Large enough for threads (at least 65536 floats): the channel groups,
// or (channels-last) the pixels of both images in one share a thread, the
// second share starting inside the first image.
TEST(ChannelScaleShiftTest, MatchesTheFormulaOnTwoThreads) {
  checkShape(2, 48, 27, 29, 2);
}

TEST(ChannelScaleShiftTest, RefusesWhatItDoesNotTake) {
  auto plan = [](memory::dims dims, memory::data_type type, Tag tag) {
    return ChannelScaleShift::plan(memory::desc(dims, type, tag));
  };
  EXPECT_TRUE(plan({1, 16, 4, 4}, memory::data_type::f32, Tag::aBcd8b));
  EXPECT_FALSE(plan({1, 16, 4, 4}, memory::data_type::f32, Tag::abcd));
  EXPECT_FALSE(plan({1, 12, 4, 4}, memory::data_type::f32, Tag::acdb));
  EXPECT_FALSE(plan({1, 16, 4, 4}, memory::data_type::s8, Tag::aBcd8b));
  EXPECT_FALSE(plan({1, 16, 16}, memory::data_type::f32, Tag::abc));
}

} // namespace
