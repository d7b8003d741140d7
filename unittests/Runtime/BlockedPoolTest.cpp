//===- BlockedPoolTest.cpp - the oneDNN delegate's own pooling ------------===//
//
// The kernel that replaces oneDNN's JIT pooling where it takes the layout:
// every case runs oneDNN's own pooling primitive on the same descriptors
// and compares result by result (max exactly; averages to rounding), in
// nChw8c, nChw16c and channels-last, with 256-bit and 128-bit vectors, on
// the windows the zoo's networks use (GoogLeNet's 3x3 stride 1 with
// padding, ResNet's 3x3 stride 2, ceil-mode windows that run past the
// input, Inception's average pooling), and at two threads. It must refuse
// what it does not take.
//
//===----------------------------------------------------------------------===//
#include "BlockedPool.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using strata::runtime::onednn::BlockedPool;
using dnnl::memory;
using Desc = memory::desc;
using Tag = memory::format_tag;
using Type = memory::data_type;

namespace {

struct Case {
  int64_t n, c, h, w;
  int64_t k, s, padBegin, padEnd; ///< Square windows, the same on H and W.
  const char *what;
};

const Case kCases[] = {
    {1, 64, 14, 14, 3, 1, 1, 1, "3x3 stride 1, padding 1 (GoogLeNet)"},
    {2, 32, 15, 15, 3, 2, 1, 1, "3x3 stride 2, padding 1 (ResNet), batch 2"},
    {1, 16, 14, 14, 3, 2, 0, 1, "ceil mode: the last window runs past"},
    {1, 48, 8, 8, 2, 2, 0, 0, "2x2 stride 2"},
    {1, 16, 5, 7, 5, 1, 2, 2, "5x5 windows, mostly padding"},
    {1, 32, 17, 17, 3, 1, 1, 1, "Inception's 3x3 average pooling"},
    {1, 16, 7, 7, 7, 1, 0, 0, "one window over the whole image"},
    // Channels-last rows fewer than four a thread go in channel shares.
    {1, 96, 28, 28, 28, 1, 0, 0, "global pooling, in channel shares"},
    {2, 40, 41, 41, 41, 1, 0, 0, "global pooling, uneven channel shares"},
};

Tag tagFor(int layout) {
  return layout == 0 ? Tag::aBcd8b : layout == 1 ? Tag::aBcd16b : Tag::acdb;
}

TEST(BlockedPoolTest, MatchesOneDNNPooling) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (int threads : {1, 2})
    for (const Case &c : kCases)
      for (int layout : {0, 1, 2})
        for (BlockedPool::Kind kind :
             {BlockedPool::Kind::Max, BlockedPool::Kind::AvgIncludePadding,
              BlockedPool::Kind::AvgExcludePadding}) {
          if (layout == 1 && c.c % 16)
            continue;
          SCOPED_TRACE(std::string(c.what) + ", layout " +
                       std::to_string(layout) + ", kind " +
                       std::to_string(int(kind)) + ", threads " +
                       std::to_string(threads));
          int64_t oh = (c.h + c.padBegin + c.padEnd - c.k) / c.s + 1;
          int64_t ow = (c.w + c.padBegin + c.padEnd - c.k) / c.s + 1;
          Desc src({c.n, c.c, c.h, c.w}, Type::f32, tagFor(layout));
          Desc dst({c.n, c.c, oh, ow}, Type::f32, tagFor(layout));
          memory::dims strides{c.s, c.s}, kernel{c.k, c.k}, dil{0, 0},
              begin{c.padBegin, c.padBegin}, end{c.padEnd, c.padEnd};
          std::optional<BlockedPool> own =
              BlockedPool::plan(kind, src, dst, strides, kernel, dil, begin);
          ASSERT_TRUE(own);

          memory x(src, engine), want(dst, engine);
          float *xs = static_cast<float *>(x.get_data_handle());
          for (size_t i = 0; i < src.get_size() / sizeof(float); ++i)
            xs[i] = normal(rng);
          dnnl::algorithm alg =
              kind == BlockedPool::Kind::Max ? dnnl::algorithm::pooling_max
              : kind == BlockedPool::Kind::AvgIncludePadding
                  ? dnnl::algorithm::pooling_avg_include_padding
                  : dnnl::algorithm::pooling_avg_exclude_padding;
          dnnl::pooling_v2_forward::primitive_desc pd(
              dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                             alg, src, dst, strides, kernel,
                                             dil, begin, end),
              engine);
          dnnl::pooling_v2_forward(pd).execute(
              stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, want}});
          stream.wait();
          const float *ws = static_cast<const float *>(want.get_data_handle());

          size_t count = dst.get_size() / sizeof(float);
          for (bool avx2 : {true, false}) {
            if (avx2 && !own->avx2)
              continue;
            BlockedPool k = *own;
            k.avx2 = avx2;
            std::vector<float> got(count, NAN);
            int before = omp_get_max_threads();
            omp_set_num_threads(threads);
            k.run(xs, got.data());
            omp_set_num_threads(before);
            for (size_t i = 0; i < count; ++i) {
              if (kind == BlockedPool::Kind::Max)
                ASSERT_EQ(got[i], ws[i]) << "at " << i << ", avx2 " << avx2;
              else
                ASSERT_NEAR(got[i], ws[i], 1e-6f * (1 + std::abs(ws[i])))
                    << "at " << i << ", avx2 " << avx2;
            }
          }
        }
}

TEST(BlockedPoolTest, RefusesWhatItDoesNotTake) {
  auto plan = [](const Desc &src, const Desc &dst, memory::dims dil,
                 memory::dims pads) {
    return BlockedPool::plan(BlockedPool::Kind::Max, src, dst, {1, 1}, {3, 3},
                             dil, pads);
  };
  Desc blocked({1, 16, 8, 8}, Type::f32, Tag::aBcd8b);
  EXPECT_TRUE(plan(blocked, blocked, {0, 0}, {1, 1}));
  // Row-major, mismatched layouts, channels-last of 12 channels, int8.
  Desc plain({1, 16, 8, 8}, Type::f32, Tag::abcd);
  EXPECT_FALSE(plan(plain, plain, {0, 0}, {1, 1}));
  Desc nhwc({1, 16, 8, 8}, Type::f32, Tag::acdb);
  EXPECT_FALSE(plan(blocked, nhwc, {0, 0}, {1, 1}));
  Desc odd({1, 12, 8, 8}, Type::f32, Tag::acdb);
  EXPECT_FALSE(plan(odd, odd, {0, 0}, {1, 1}));
  Desc s8({1, 16, 8, 8}, Type::s8, Tag::aBcd8b);
  EXPECT_FALSE(plan(s8, s8, {0, 0}, {1, 1}));
  // Dilated windows; a window of padding alone.
  EXPECT_FALSE(plan(blocked, blocked, {1, 1}, {1, 1}));
  Desc wide({1, 16, 12, 12}, Type::f32, Tag::aBcd8b);
  EXPECT_FALSE(plan(blocked, wide, {0, 0}, {3, 3}));
}

} // namespace
