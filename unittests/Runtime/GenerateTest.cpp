//===- GenerateTest.cpp - choosing the next token -------------------------===//
//
// sampleToken against what its options mean: greedy is the argmax (ties to
// the lower id), top-k and top-p keep only the tokens they name, and the
// sampled frequencies follow softmax(logits / temperature), worked out here
// from the probabilities the logits were made from.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/Generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

using namespace strata::runtime;

namespace {

TEST(Generate, GreedyIsTheArgmaxWithTiesToTheLowerId) {
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  uint64_t rng = 0;
  EXPECT_EQ(sampleToken(logits.data(), 4, SamplingOptions(), rng), 1);
  SamplingOptions topOne;
  topOne.temperature = 1;
  topOne.topK = 1;
  EXPECT_EQ(sampleToken(logits.data(), 4, topOne, rng), 1);
}

TEST(Generate, SampledFrequenciesFollowTheSoftmax) {
  // Probabilities 0.5, 0.3, 0.2 as logits (any offset).
  std::vector<float> logits = {std::log(0.5f) + 3, std::log(0.3f) + 3,
                               std::log(0.2f) + 3};
  SamplingOptions options;
  options.temperature = 1;
  options.seed = 7;
  uint64_t rng = options.seed;
  std::map<int64_t, int> counts;
  const int draws = 40000;
  for (int i = 0; i < draws; ++i)
    ++counts[sampleToken(logits.data(), 3, options, rng)];
  EXPECT_NEAR(counts[0] / double(draws), 0.5, 0.01);
  EXPECT_NEAR(counts[1] / double(draws), 0.3, 0.01);
  EXPECT_NEAR(counts[2] / double(draws), 0.2, 0.01);
  // Temperature 0.5 squares the odds: 25 : 9 : 4.
  options.temperature = 0.5;
  counts.clear();
  for (int i = 0; i < draws; ++i)
    ++counts[sampleToken(logits.data(), 3, options, rng)];
  EXPECT_NEAR(counts[0] / double(draws), 25.0 / 38, 0.01);
  EXPECT_NEAR(counts[2] / double(draws), 4.0 / 38, 0.01);
}

TEST(Generate, TopKAndTopPKeepOnlyTheirTokens) {
  std::vector<float> logits = {std::log(0.1f), std::log(0.4f), std::log(0.35f),
                               std::log(0.15f)};
  SamplingOptions options;
  options.temperature = 1;
  options.topK = 2;
  uint64_t rng = 1;
  std::map<int64_t, int> counts;
  for (int i = 0; i < 20000; ++i)
    ++counts[sampleToken(logits.data(), 4, options, rng)];
  EXPECT_EQ(counts.count(0) + counts.count(3), 0u);
  // Among 0.4 and 0.35, renormalized.
  EXPECT_NEAR(counts[1] / 20000.0, 0.4 / 0.75, 0.015);
  // top_p 0.7: 0.4 + 0.35 reaches it, 0.4 alone does not.
  options.topK = 0;
  options.topP = 0.7;
  counts.clear();
  for (int i = 0; i < 20000; ++i)
    ++counts[sampleToken(logits.data(), 4, options, rng)];
  EXPECT_EQ(counts.count(0) + counts.count(3), 0u);
  EXPECT_GT(counts[2], 0);
  // top_p below the largest probability keeps that token alone.
  options.topP = 0.3;
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(sampleToken(logits.data(), 4, options, rng), 1);
}

TEST(Generate, TheSameSeedGivesTheSameTokens) {
  std::vector<float> logits(50);
  for (size_t i = 0; i < logits.size(); ++i)
    logits[i] = std::sin(float(i));
  SamplingOptions options;
  options.temperature = 1.5;
  std::vector<int64_t> first, second;
  for (int run = 0; run < 2; ++run) {
    uint64_t rng = 42;
    for (int i = 0; i < 64; ++i)
      (run ? second : first)
          .push_back(sampleToken(logits.data(), 50, options, rng));
  }
  EXPECT_EQ(first, second);
}

} // namespace
