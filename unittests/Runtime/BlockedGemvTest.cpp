//===- BlockedGemvTest.cpp - a few rows times oneDNN-packed weights -------===//
//
// The delegate's own product of 1 to 4 rows by constant f32 weights in the
// layout oneDNN's matmul packs them in (asked for with format `any`, and
// BA16a64b named), against a float64 sum of the plain matrices: extents
// that are not whole tiles (k 37, n 100 and 1000, the last panel padded),
// with and without a bias, at one thread and at two; and the layouts it
// must refuse (plain, a transposed tile, more than four rows).
//
//===----------------------------------------------------------------------===//
#include "BlockedGemv.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using dnnl::memory;
using strata::runtime::onednn::BlockedGemv;
using Tag = memory::format_tag;

namespace {

/// `plain` (k x n, row-major) reordered by oneDNN into `layout`.
std::vector<float> packed(const std::vector<float> &plain,
                          const memory::desc &layout, int64_t k, int64_t n) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  memory::desc from({k, n}, memory::data_type::f32, Tag::ab);
  std::vector<float> out(layout.get_size() / sizeof(float), 0.f);
  memory src(from, engine, const_cast<float *>(plain.data()));
  memory dst(layout, engine, out.data());
  dnnl::reorder(src, dst).execute(stream, src, dst);
  stream.wait();
  return out;
}

/// The layout oneDNN's f32 matmul of `m` rows picks for k x n weights.
memory::desc chosenLayout(int64_t m, int64_t k, int64_t n) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  memory::desc a({m, k}, memory::data_type::f32, Tag::ab),
      b({k, n}, memory::data_type::f32, Tag::any),
      c({m, n}, memory::data_type::f32, Tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), engine);
  return pd.weights_desc();
}

void check(int64_t m, int64_t k, int64_t n, const memory::desc &layout,
           bool withBias, int threads) {
  SCOPED_TRACE("m " + std::to_string(m) + " k " + std::to_string(k) + " n " +
               std::to_string(n) + (withBias ? " bias" : "") + ", " +
               std::to_string(threads) + " threads");
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  std::vector<float> a(m * k), w(k * n), bias(n);
  for (float &v : a)
    v = normal(rng);
  for (float &v : w)
    v = normal(rng);
  for (float &v : bias)
    v = normal(rng);
  std::optional<BlockedGemv> gemv = BlockedGemv::plan(m, layout);
  ASSERT_TRUE(gemv.has_value());
  std::vector<float> b = packed(w, layout, k, n);
  // Guards past the end of C: nothing beyond m x n is written.
  std::vector<float> c(m * n + 16, -7.f);
  omp_set_num_threads(threads);
  gemv->run(a.data(), b.data(), withBias ? bias.data() : nullptr, c.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = withBias ? bias[j] : 0.0, scale = std::fabs(want);
      for (int64_t p = 0; p < k; ++p) {
        want += double(a[i * k + p]) * w[p * n + j];
        scale += std::fabs(double(a[i * k + p]) * w[p * n + j]);
      }
      ASSERT_NEAR(c[i * n + j], want, 1e-6 * scale + 1e-6)
          << "row " << i << " column " << j;
    }
  for (int64_t x = m * n; x < m * n + 16; ++x)
    ASSERT_EQ(c[x], -7.f) << "written past C at " << x;
}

TEST(BlockedGemvTest, MatchesTheProductInTheLayoutOneDNNPicks) {
  for (int64_t m : {1, 2, 3, 4})
    for (auto [k, n] :
         {std::pair<int64_t, int64_t>{512, 1536}, {37, 100}, {300, 1000}}) {
      memory::desc layout = chosenLayout(m, k, n);
      if (!BlockedGemv::plan(m, layout))
        GTEST_SKIP() << "oneDNN picks a layout without tiles on this CPU";
      for (bool withBias : {false, true})
        for (int threads : {1, 2})
          check(m, k, n, layout, withBias, threads);
    }
}

TEST(BlockedGemvTest, MatchesTheProductInBA16a64b) {
  for (auto [k, n] : {std::pair<int64_t, int64_t>{512, 512}, {37, 100}}) {
    memory::desc layout({k, n}, memory::data_type::f32, Tag::BA16a64b);
    check(1, k, n, layout, true, 1);
    check(4, k, n, layout, false, 2);
  }
}

TEST(BlockedGemvTest, RefusesOtherLayoutsAndRows) {
  auto desc = [](Tag tag, memory::data_type type = memory::data_type::f32) {
    return memory::desc({64, 128}, type, tag);
  };
  EXPECT_TRUE(BlockedGemv::plan(1, desc(Tag::BA16a64b)));
  EXPECT_FALSE(BlockedGemv::plan(5, desc(Tag::BA16a64b)));
  EXPECT_FALSE(BlockedGemv::plan(0, desc(Tag::BA16a64b)));
  EXPECT_FALSE(BlockedGemv::plan(1, desc(Tag::ab)));
  EXPECT_FALSE(BlockedGemv::plan(1, desc(Tag::ba)));
  // A tile whose rows are the innermost (column-major tiles).
  EXPECT_FALSE(BlockedGemv::plan(1, desc(Tag::AB16b64a)));
  EXPECT_FALSE(
      BlockedGemv::plan(1, desc(Tag::BA16a64b, memory::data_type::s8)));
}

} // namespace
