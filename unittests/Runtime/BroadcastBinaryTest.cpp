//===- BroadcastBinaryTest.cpp - the oneDNN delegate's broadcasting binary ===//
//
// The kernel that takes the broadcasts oneDNN runs on its reference
// implementation, on small tensors whose results are written out by hand:
// row-major with a per-row scalar (a LayerNorm's mean), an 8-channel
// blocked layout with a per-channel scale (squeeze-excite), channels-last,
// fused post-ops, and the layouts it must refuse.
//
//===----------------------------------------------------------------------===//
#include "BroadcastBinary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

using strata::runtime::onednn::BroadcastBinary;
using Desc = dnnl::memory::desc;
using Tag = dnnl::memory::format_tag;
using Type = dnnl::memory::data_type;

namespace {

std::vector<float> iota(size_t n, float from = 0) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST(BroadcastBinaryTest, RowMajorPerRowScalar) {
  // x[1,2,3] - mean[1,2,1]: each row of three less its own value.
  Desc a({1, 2, 3}, Type::f32, Tag::abc);
  auto kernel = BroadcastBinary::plan(a, {1, 2, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Sub;
  std::vector<float> x = iota(6), mean = {1, 10}, y(6);
  kernel->run(x.data(), mean.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{-1, 0, 1, -7, -6, -5}));
  // One loop of two rows, three elements against one scalar each.
  EXPECT_EQ(kernel->extents, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(kernel->bStrides, (std::vector<int64_t>{1, 0}));
}

TEST(BroadcastBinaryTest, BlockedPerChannelScale) {
  // x[1,16,1,2] in nChw8c times s[1,16,1,1]: channel c of the physical
  // order [block][w][c % 8] is scaled by s[c] = c + 1.
  Desc a({1, 16, 1, 2}, Type::f32, Tag::nChw8c);
  auto kernel = BroadcastBinary::plan(a, {1, 16, 1, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Mul;
  std::vector<float> x(32, 2.0f), s = iota(16, 1), y(32);
  kernel->run(x.data(), s.data(), y.data());
  for (int block = 0; block < 2; ++block)
    for (int w = 0; w < 2; ++w)
      for (int c = 0; c < 8; ++c)
        EXPECT_EQ(y[block * 16 + w * 8 + c], 2.0f * (block * 8 + c + 1))
            << "block " << block << " w " << w << " c " << c;
}

TEST(BroadcastBinaryTest, ChannelsLastPerChannelWithRelu) {
  // x[1,3,2,2] in NHWC plus b[1,3,1,1] = {-5, 0, 5}, then relu: the
  // physical order is [h][w][c], so each pixel gets the same three biases.
  Desc a({1, 3, 2, 2}, Type::f32, Tag::nhwc);
  auto kernel = BroadcastBinary::plan(a, {1, 3, 1, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Add;
  kernel->post = BroadcastBinary::Post::Relu;
  std::vector<float> x = iota(12), b = {-5, 0, 5}, y(12);
  kernel->run(x.data(), b.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{0, 1, 7, 0, 4, 10, 1, 7, 13, 4, 10, 16}));
}

TEST(BroadcastBinaryTest, ClipAndScalarAndInPlace) {
  // min(x, 4) over a scalar second operand, clipped into [1, 3], in place.
  Desc a({2, 3}, Type::f32, Tag::ab);
  auto kernel = BroadcastBinary::plan(a, {1, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Min;
  kernel->post = BroadcastBinary::Post::Clip;
  kernel->alpha = 1;
  kernel->beta = 3;
  std::vector<float> x = iota(6), four = {4};
  kernel->run(x.data(), four.data(), x.data());
  EXPECT_EQ(x, (std::vector<float>{1, 1, 2, 3, 3, 3}));
}

TEST(BroadcastBinaryTest, MiddleAxisBroadcast) {
  // x[2,3,2] / d[2,1,2]: d broadcasts over the middle axis only.
  Desc a({2, 3, 2}, Type::f32, Tag::abc);
  auto kernel = BroadcastBinary::plan(a, {2, 1, 2});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Div;
  std::vector<float> x(12, 12.0f), d = {1, 2, 3, 4}, y(12);
  kernel->run(x.data(), d.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{12, 6, 12, 6, 12, 6, 4, 3, 4, 3, 4, 3}));
}

TEST(BroadcastBinaryTest, LargeRunsOnThreads) {
  // Enough rows to take the threaded path; every row checked.
  const int rows = 512, cols = 256;
  Desc a({rows, cols}, Type::f32, Tag::ab);
  auto kernel = BroadcastBinary::plan(a, {rows, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Max;
  std::vector<float> x(rows * cols, 1.0f), b = iota(rows), y(rows * cols);
  kernel->run(x.data(), b.data(), y.data());
  for (int r = 0; r < rows; ++r)
    ASSERT_EQ(y[r * cols + cols - 1], r > 1 ? static_cast<float>(r) : 1.0f)
        << "row " << r;
}

TEST(BroadcastBinaryTest, BlockedPerImageChannelScaleOnThreads) {
  // x[2,32,32,32] in nChw16c times s[2,32,1,1], a scale per image and
  // channel, then relu: each row of the kernel is one 16-channel block of
  // one image (1024 pixels x 16 values), enough rows and elements for the
  // threaded path. Element [n][c][h][w] sits at
  // ((n * 2 + c / 16) * 1024 + h * 32 + w) * 16 + c % 16.
  const int N = 2, C = 32, HW = 32 * 32;
  Desc a({N, C, 32, 32}, Type::f32, Tag::nChw16c);
  auto kernel = BroadcastBinary::plan(a, {N, C, 1, 1});
  ASSERT_TRUE(kernel);
  kernel->kind = BroadcastBinary::Kind::Mul;
  kernel->post = BroadcastBinary::Post::Relu;
  std::vector<float> x(N * C * HW), s(N * C), y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 7) - 3;
  for (int i = 0; i < N * C; ++i)
    s[i] = static_cast<float>(i) - 20;
  kernel->run(x.data(), s.data(), y.data());
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int p = 0; p < HW; ++p) {
        size_t at = ((n * (C / 16) + c / 16) * HW + p) * 16 + c % 16;
        float want = x[at] * s[n * C + c];
        ASSERT_EQ(y[at], want > 0 ? want : 0.0f)
            << "n " << n << " c " << c << " pixel " << p;
      }
}

TEST(BroadcastBinaryTest, BlockedEveryKindAndPostOp) {
  // Every op and post-op over nChw8c (7 pixels a block: four at once, then
  // three) and nChw16c, element by element against the scalar definitions
  // (std::max / std::min with NaNs and signed zeros among the inputs, a
  // leaky relu, a clip), on whichever loop the CPU gets.
  using Kind = BroadcastBinary::Kind;
  using Post = BroadcastBinary::Post;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Tag tag : {Tag::nChw8c, Tag::nChw16c})
    for (Kind kind : {Kind::Add, Kind::Sub, Kind::Mul, Kind::Div, Kind::Max,
                      Kind::Min})
      for (Post post : {Post::None, Post::Relu, Post::Clip}) {
        const int C = 32, P = 7, block = tag == Tag::nChw8c ? 8 : 16;
        auto kernel =
            BroadcastBinary::plan(Desc({1, C, 1, P}, Type::f32, tag),
                                  {1, C, 1, 1});
        ASSERT_TRUE(kernel);
        kernel->kind = kind;
        kernel->post = post;
        kernel->alpha = post == Post::Relu ? 0.25f : -1.5f;
        kernel->beta = 2.0f;
        std::vector<float> x(C * P), b(C), y(C * P);
        for (int i = 0; i < C * P; ++i)
          x[i] = i % 11 == 0 ? nan : i % 13 == 0 ? -0.0f : (i % 9) - 4.5f;
        for (int c = 0; c < C; ++c)
          b[c] = c % 10 == 0 ? nan : c % 7 == 0 ? 0.0f : (c % 5) - 1.75f;
        kernel->run(x.data(), b.data(), y.data());
        for (int c = 0; c < C; ++c)
          for (int p = 0; p < P; ++p) {
            size_t at = ((c / block) * P + p) * block + c % block;
            float u = x[at], v = b[c], r = 0;
            switch (kind) {
            case Kind::Add: r = u + v; break;
            case Kind::Sub: r = u - v; break;
            case Kind::Mul: r = u * v; break;
            case Kind::Div: r = u / v; break;
            case Kind::Max: r = std::max(u, v); break;
            case Kind::Min: r = std::min(u, v); break;
            }
            if (post == Post::Relu)
              r = r > 0 ? r : r * 0.25f;
            else if (post == Post::Clip)
              r = std::min(std::max(r, -1.5f), 2.0f);
            // The same float, NaN included, and the same sign of zero.
            ASSERT_EQ(std::isnan(y[at]), std::isnan(r))
                << "kind " << static_cast<int>(kind) << " post "
                << static_cast<int>(post) << " c " << c << " p " << p;
            if (!std::isnan(r)) {
              ASSERT_EQ(y[at], r) << "c " << c << " p " << p;
              ASSERT_EQ(std::signbit(y[at]), std::signbit(r))
                  << "c " << c << " p " << p;
            }
          }
      }
}

TEST(BroadcastBinaryTest, PaddedChannelsKeepTheirZeros) {
  // x[1,12,1,2] in nChw16c (12 channels padded to a block of 16; the
  // padding holds zeros, as oneDNN writes it) against s[1,12,1,1] =
  // c + 1. Channel c of pixel w sits at w * 16 + c. Every kind leaves the
  // four padded lanes of each pixel zero (a division by them would not:
  // 0 / 0).
  Desc a({1, 12, 1, 2}, Type::f32, Tag::nChw16c);
  std::vector<float> s = iota(12, 1), x(32, 0.0f);
  for (int w = 0; w < 2; ++w)
    for (int c = 0; c < 12; ++c)
      x[w * 16 + c] = 2.0f * (c + 1) + w;
  struct Case {
    BroadcastBinary::Kind kind;
    float (*expected)(float, float);
  };
  const Case cases[] = {
      {BroadcastBinary::Kind::Mul, [](float v, float t) { return v * t; }},
      {BroadcastBinary::Kind::Div, [](float v, float t) { return v / t; }},
      {BroadcastBinary::Kind::Add, [](float v, float t) { return v + t; }},
      {BroadcastBinary::Kind::Sub, [](float v, float t) { return v - t; }},
      {BroadcastBinary::Kind::Min,
       [](float v, float t) { return std::min(v, t); }}};
  for (const Case &c : cases) {
    auto kernel = BroadcastBinary::plan(a, {1, 12, 1, 1});
    ASSERT_TRUE(kernel);
    kernel->kind = c.kind;
    EXPECT_TRUE(kernel->padKeepsZero());
    std::vector<float> y(32, -1.0f);
    kernel->run(x.data(), s.data(), y.data());
    for (int w = 0; w < 2; ++w)
      for (int ch = 0; ch < 16; ++ch) {
        float expected = ch < 12 ? c.expected(x[w * 16 + ch], s[ch]) : 0.0f;
        EXPECT_EQ(y[w * 16 + ch], expected)
            << "kind " << int(c.kind) << " w " << w << " channel " << ch;
      }
  }
  // A clip post-op into [1, 2] would move the padding off zero: refused by
  // padKeepsZero, which the delegate checks.
  auto clipped = BroadcastBinary::plan(a, {1, 12, 1, 1});
  ASSERT_TRUE(clipped);
  clipped->post = BroadcastBinary::Post::Clip;
  clipped->alpha = 1, clipped->beta = 2;
  EXPECT_FALSE(clipped->padKeepsZero());
  // A scalar over the padded channels: a product keeps the padding zero
  // (and is computed there as 0), a sum would not.
  auto scalar = BroadcastBinary::plan(a, {1, 1, 1, 1});
  ASSERT_TRUE(scalar);
  scalar->kind = BroadcastBinary::Kind::Mul;
  EXPECT_TRUE(scalar->padKeepsZero());
  float three = 3.0f;
  std::vector<float> y(32, -1.0f);
  scalar->run(x.data(), &three, y.data());
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(y[i], 3.0f * x[i]) << "element " << i;
  scalar->kind = BroadcastBinary::Kind::Add;
  EXPECT_FALSE(scalar->padKeepsZero());
}

TEST(BroadcastBinaryTest, RefusesWhatItCannotWalk) {
  // A second operand varying along more than the padded channels (12 of
  // 16), a non-f32 tensor, and a second operand whose extent is neither 1
  // nor the first's.
  EXPECT_FALSE(BroadcastBinary::plan(
      Desc({1, 12, 2, 2}, Type::f32, Tag::nChw16c), {1, 12, 2, 1}));
  EXPECT_FALSE(
      BroadcastBinary::plan(Desc({2, 3}, Type::s8, Tag::ab), {2, 1}));
  EXPECT_FALSE(
      BroadcastBinary::plan(Desc({2, 4}, Type::f32, Tag::ab), {1, 2}));
}

} // namespace
