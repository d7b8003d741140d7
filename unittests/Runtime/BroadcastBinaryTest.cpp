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

TEST(BroadcastBinaryTest, RefusesWhatItCannotWalk) {
  // Channels padded to the block (12 of 16), a non-f32 tensor, and a second
  // operand whose extent is neither 1 nor the first's.
  EXPECT_FALSE(BroadcastBinary::plan(Desc({1, 12, 2, 2}, Type::f32,
                                          Tag::nChw16c),
                                     {1, 12, 1, 1}));
  EXPECT_FALSE(
      BroadcastBinary::plan(Desc({2, 3}, Type::s8, Tag::ab), {2, 1}));
  EXPECT_FALSE(
      BroadcastBinary::plan(Desc({2, 4}, Type::f32, Tag::ab), {1, 2}));
}

} // namespace
