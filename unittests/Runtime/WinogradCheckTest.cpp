//===- WinogradCheckTest.cpp - the Winograd accuracy check ----------------===//
//
// The check that decides, per layer, whether the delegate's Winograd kernel
// may replace a direct convolution. Expected behaviour, from a float64 /
// float32 simulation of both algorithms (numpy, the transforms of
// Winograd.cpp, 10x10 crops of half-normal inputs): on an ordinary layer
// (weights N(0, 1 / (9 ic))) a float32 direct convolution is off by a few
// 1e-7 (rel-L2; summing 9 ic products in order), F(2x2,3x3) by about half
// that, F(4x4,3x3) by 2.5x (64 channels) to 4.7x (256 channels) that.
//
//===----------------------------------------------------------------------===//
#include "WinogradCheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

using strata::runtime::onednn::measureWinogradErrors;
using strata::runtime::onednn::WinogradConv;
using strata::runtime::onednn::WinogradErrors;
using strata::runtime::onednn::WinogradIsa;
using strata::runtime::onednn::WinogradLayout;
using strata::runtime::onednn::WinogradTile;

namespace {

std::vector<float> ordinaryWeights(int64_t ic, int64_t oc, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.f, 1.f / std::sqrt(9.f * ic));
  std::vector<float> w(static_cast<size_t>(oc * ic * 9));
  for (float &v : w)
    v = normal(gen);
  return w;
}

WinogradLayout layoutHere() {
  return WinogradConv::isa() == WinogradIsa::Avx512
             ? WinogradLayout::ChannelsLast
             : WinogradLayout::Blocked8;
}

TEST(WinogradCheck, AcceptsTwoByTwoTilesOnAnOrdinaryLayer) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "the kernel needs AVX2 or AVX-512";
  std::vector<float> w = ordinaryWeights(64, 64, 1);
  WinogradErrors e =
      measureWinogradErrors(64, 64, w.data(), WinogradTile::F2x2, layoutHere());
  // A float32 sum of 576 products: within a few float32 epsilons.
  EXPECT_GT(e.direct, 1e-8);
  EXPECT_LT(e.direct, 2e-6);
  EXPECT_LT(e.winograd, e.direct);
  EXPECT_TRUE(e.within(2.0));
  // Deterministic: the same weights give the same figures.
  WinogradErrors again =
      measureWinogradErrors(64, 64, w.data(), WinogradTile::F2x2, layoutHere());
  EXPECT_EQ(e.direct, again.direct);
  EXPECT_EQ(e.winograd, again.winograd);
}

TEST(WinogradCheck, RejectsFourByFourTilesOnAWideLayer) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "the kernel needs AVX2 or AVX-512";
  std::vector<float> w = ordinaryWeights(256, 64, 2);
  WinogradErrors f4 = measureWinogradErrors(256, 64, w.data(),
                                            WinogradTile::F4x4, layoutHere());
  WinogradErrors f2 = measureWinogradErrors(256, 64, w.data(),
                                            WinogradTile::F2x2, layoutHere());
  EXPECT_GT(f4.winograd, 3 * f4.direct);
  EXPECT_FALSE(f4.within(2.0));
  EXPECT_TRUE(f2.within(2.0));
  // The direct error is measured on the same inputs either way.
  EXPECT_EQ(f4.direct, f2.direct);
}

TEST(WinogradCheck, RejectsFourByFourTilesWhereInputChannelsDifferInScale) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "the kernel needs AVX2 or AVX-512";
  // Every other input channel's weights 1000 times larger (an unfolded
  // normalization): the simulation gives F(4x4,3x3) 2.6x the direct error,
  // F(2x2,3x3) half of it.
  std::vector<float> w = ordinaryWeights(64, 64, 3);
  for (int64_t o = 0; o < 64; ++o)
    for (int64_t i = 0; i < 64; i += 2)
      for (int t = 0; t < 9; ++t)
        w[(o * 64 + i) * 9 + t] *= 1000.f;
  WinogradErrors f2 =
      measureWinogradErrors(64, 64, w.data(), WinogradTile::F2x2, layoutHere());
  WinogradErrors f4 =
      measureWinogradErrors(64, 64, w.data(), WinogradTile::F4x4, layoutHere());
  EXPECT_FALSE(f4.within(2.0));
  EXPECT_TRUE(f2.within(2.0));
}

} // namespace

namespace {

// Not a check: the cost of transforming weights at init instead of storing
// them transformed (docs/delegation.md). Run with
// --gtest_also_run_disabled_tests --gtest_filter='*PackingCost*'.
TEST(WinogradCheck, DISABLED_PackingCost) {
  for (WinogradTile tile : {WinogradTile::F2x2, WinogradTile::F4x4})
    for (int64_t c : {64, 256, 512}) {
      std::vector<float> w = ordinaryWeights(c, c, 4);
      WinogradConv conv(c, c, 14, 14, WinogradLayout::ChannelsLast, {}, 1, 1,
                        tile);
      std::vector<float> packed(conv.packedBytes() / sizeof(float));
      double best = 1e30;
      for (int i = 0; i < 3; ++i) {
        auto start = std::chrono::steady_clock::now();
        conv.packWeights(w.data(), packed.data());
        std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count());
      }
      double mb = conv.plainWeightBytes() / 1e6;
      std::printf("%s %lldx%lld: %.2f MB plain, %.2f ms, %.0f MB/s\n",
                  tile == WinogradTile::F4x4 ? "F4x4" : "F2x2",
                  static_cast<long long>(c), static_cast<long long>(c), mb,
                  best, mb / best * 1e3);
    }
}

} // namespace
