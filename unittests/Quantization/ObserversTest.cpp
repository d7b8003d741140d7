//===- ObserversTest.cpp - calibration observers --------------------------===//
//
// Expected values come from the definitions (min/max, order statistics)
// and from quantization theory (the SQNR of a full-scale uniform signal),
// not from the observers themselves.
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Observers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace strata::quantization;

namespace {

Observer observe(CalibrationMethod method, bool symmetric,
                 const std::vector<float> &data, double percentile = 99.99) {
  Observer o(method, symmetric, percentile);
  // Two chunks, as two samples would arrive.
  size_t half = data.size() / 2;
  o.observeRange(data.data(), half);
  o.observeRange(data.data() + half, data.size() - half);
  if (o.needsHistogram()) {
    o.observeHistogram(data.data(), half);
    o.observeHistogram(data.data() + half, data.size() - half);
  }
  return o;
}

TEST(Observers, ParsesMethods) {
  EXPECT_EQ(parseCalibrationMethod("entropy"), CalibrationMethod::Entropy);
  EXPECT_EQ(parseCalibrationMethod("mse"), CalibrationMethod::MSE);
  EXPECT_FALSE(parseCalibrationMethod("kl").has_value());
}

TEST(Observers, MinMaxSymmetricCoversTheLargestMagnitude) {
  QuantParams p = observe(CalibrationMethod::MinMax, true, {-3, 1, 2}).params();
  EXPECT_DOUBLE_EQ(p.scale, 3.0 / 127);
  EXPECT_EQ(p.zeroPoint, 0);
  EXPECT_FLOAT_EQ(p.fakeQuantize(-3), -3.0f);
  EXPECT_FLOAT_EQ(p.fakeQuantize(100), 3.0f); // saturates
}

TEST(Observers, MinMaxAsymmetricContainsZero) {
  // [1, 5] widens to [0, 5]: 0 is exact, at the lowest level.
  QuantParams p = observe(CalibrationMethod::MinMax, false, {1, 5}).params();
  EXPECT_DOUBLE_EQ(p.scale, 5.0 / 255);
  EXPECT_EQ(p.zeroPoint, -128);
  EXPECT_FLOAT_EQ(p.fakeQuantize(0), 0.0f);
  EXPECT_NEAR(p.fakeQuantize(5), 5.0f, 1e-6);
}

TEST(Observers, AllZeroTensorGetsAUsableScale) {
  QuantParams p = observe(CalibrationMethod::MinMax, true, {0, 0, 0}).params();
  EXPECT_GT(p.scale, 0);
  EXPECT_FLOAT_EQ(p.fakeQuantize(0), 0.0f);
}

TEST(Observers, PercentileClipsAtTheOrderStatistic) {
  std::vector<float> data;
  for (int i = 0; i < 10000; ++i)
    data.push_back(static_cast<float>(i));
  QuantParams p =
      observe(CalibrationMethod::Percentile, true, data, 99.0).params();
  // The 99th percentile of 0..9999 is 9900, to one histogram bin (9999 /
  // 2048 wide).
  EXPECT_NEAR(p.scale * 127, 9900, 9999.0 / 2048 + 1);
}

TEST(Observers, HistogramMethodsClipASingleOutlier) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> data;
  for (int i = 0; i < 200000; ++i)
    data.push_back(normal(rng));
  data.push_back(30.0f); // a 30-sigma outlier
  for (CalibrationMethod method :
       {CalibrationMethod::Entropy, CalibrationMethod::MSE}) {
    QuantParams p = observe(method, true, data).params();
    double threshold = p.scale * 127;
    // Minmax keeps 30; a unit Gaussian's useful range is a few standard
    // deviations. (MSE: the outlier's clipping error (30 - t)^2 against
    // 200000 rounding errors of (t / 127)^2 / 12 balances near t = 15.)
    EXPECT_GT(threshold, 2.0) << stringifyCalibrationMethod(method);
    EXPECT_LT(threshold, 20.0) << stringifyCalibrationMethod(method);
  }
  QuantParams minmax = observe(CalibrationMethod::MinMax, true, data).params();
  EXPECT_NEAR(minmax.scale * 127, 30.0, 1e-4);
}

TEST(Observers, EntropyIgnoresTheZeroSpikeOfAReLU) {
  // ReLU of a unit Gaussian: half exact zeros, half |N(0, 1)|. The spike
  // at zero must not pull the threshold down towards the smallest
  // candidate (it did: 1.9); the Gaussian's useful range is a few standard
  // deviations.
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> data;
  for (int i = 0; i < 200000; ++i)
    data.push_back(std::max(0.0f, normal(rng)));
  QuantParams p = observe(CalibrationMethod::Entropy, true, data).params();
  EXPECT_GT(p.scale * 127, 3.0);
}

TEST(Observers, SQNROfAFullScaleUniformSignal) {
  // Uniform on [-A, A], step A/127: signal A^2/3, noise step^2/12, so
  // SQNR = 10 log10(4 * 127^2) = 48.1 dB.
  std::vector<float> data;
  for (int i = 0; i <= 200000; ++i)
    data.push_back(-1.0f + 2.0f * i / 200000);
  QuantParams p = symmetricParams(1.0);
  SQNRAccumulator acc;
  acc.add(data.data(), data.size(), p);
  EXPECT_NEAR(acc.decibels(), 10 * std::log10(4.0 * 127 * 127), 0.2);

  SQNRAccumulator exact;
  float ones[] = {1, -1, 1};
  exact.add(ones, 3, p);
  EXPECT_TRUE(std::isinf(exact.decibels()));
}

} // namespace

// Expected values by hand: 1/127 = 0.007874 lies between 2^-7 = 0.0078125
// and 2^-6 = 0.015625.
TEST(Observers, PowerOfTwoScalesRoundUp) {
  EXPECT_EQ(powerOfTwoAtLeast(1.0 / 127), 0.015625);
  EXPECT_EQ(powerOfTwoAtLeast(0.5), 0.5); // already one
  EXPECT_EQ(powerOfTwoAtLeast(3.0), 4.0);
  EXPECT_EQ(powerOfTwoAtLeast(0.0), 0.0); // left alone

  QuantParams symmetric = withPowerOfTwoScale(symmetricParams(1.0));
  EXPECT_EQ(symmetric.scale, 0.015625);
  EXPECT_EQ(symmetric.zeroPoint, 0);

  // [0, 6] (a ReLU6): scale 6/255 = 0.0235 -> 2^-5; the range still
  // starts at 0, level -128.
  QuantParams relu6 = withPowerOfTwoScale(asymmetricParams(0.0, 6.0));
  EXPECT_EQ(relu6.scale, 0.03125);
  EXPECT_EQ(relu6.zeroPoint, -128);

  // [-1, 3]: scale 4/255 = 0.015686 -> 2^-5, zero point -64 (the range
  // starts at (-128 + 64) * 4/255 = -1.0039) -> round(-128 + 1.0039 * 32)
  // = -96.
  QuantParams skewed = withPowerOfTwoScale(asymmetricParams(-1.0, 3.0));
  EXPECT_EQ(skewed.scale, 0.03125);
  EXPECT_EQ(skewed.zeroPoint, -96);
  EXPECT_EQ(skewed.quantize(-1.0f), -128);
  EXPECT_EQ(skewed.quantize(3.0f), 0);
}
