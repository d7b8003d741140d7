//===- Observers.cpp - calibration observers ------------------------------===//
#include "strata/Quantization/Observers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::quantization {

std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view text) {
  if (text == "minmax")
    return CalibrationMethod::MinMax;
  if (text == "percentile")
    return CalibrationMethod::Percentile;
  if (text == "entropy")
    return CalibrationMethod::Entropy;
  if (text == "mse")
    return CalibrationMethod::MSE;
  return std::nullopt;
}

const char *stringifyCalibrationMethod(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Entropy:
    return "entropy";
  case CalibrationMethod::MSE:
    return "mse";
  }
  return "?";
}

int64_t QuantParams::quantize(float x) const {
  double q = std::nearbyint(x / scale) + zeroPoint;
  return static_cast<int64_t>(std::clamp<double>(q, qmin, qmax));
}

float QuantParams::fakeQuantize(float x) const {
  return static_cast<float>((quantize(x) - zeroPoint) * scale);
}

QuantParams symmetricParams(double amax) {
  QuantParams p;
  p.scale = amax > 0 && std::isfinite(amax) ? amax / 127.0 : 1.0;
  return p;
}

double powerOfTwoAtLeast(double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    return scale;
  int exponent = 0;
  double mantissa =
      std::frexp(scale, &exponent); // scale = m * 2^e, m in [0.5, 1)
  return mantissa == 0.5 ? scale : std::ldexp(1.0, exponent);
}

QuantParams withPowerOfTwoScale(QuantParams params) {
  double lo =
      static_cast<double>(params.qmin - params.zeroPoint) * params.scale;
  params.scale = powerOfTwoAtLeast(params.scale);
  if (params.zeroPoint != 0)
    params.zeroPoint = std::clamp<int64_t>(
        static_cast<int64_t>(std::nearbyint(params.qmin - lo / params.scale)),
        params.qmin, params.qmax);
  return params;
}

QuantParams asymmetricParams(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  QuantParams p;
  if (!(hi > lo) || !std::isfinite(hi - lo))
    return p;
  p.scale = (hi - lo) / 255.0;
  p.zeroPoint = std::clamp<int64_t>(
      static_cast<int64_t>(std::nearbyint(-128.0 - lo / p.scale)), -128, 127);
  return p;
}

Observer::Observer(CalibrationMethod method, bool symmetric, double percentile)
    : method(method), symmetric(symmetric), percentile(percentile) {}

void Observer::observeRange(const float *data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x = data[i];
    if (!std::isfinite(x))
      continue;
    if (seen == 0)
      lo = hi = x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    ++seen;
  }
}

void Observer::observeHistogram(const float *data, size_t n) {
  if (histogram.empty()) {
    histogram.assign(kBins, 0.0);
    double span = symmetric ? std::max(std::fabs(lo), std::fabs(hi))
                            : double(hi) - double(lo);
    binWidth = span > 0 ? span / kBins : 0;
  }
  if (binWidth <= 0)
    return;
  for (size_t i = 0; i < n; ++i) {
    float x = data[i];
    if (!std::isfinite(x))
      continue;
    double v = symmetric ? std::fabs(x) : double(x) - lo;
    int bin = static_cast<int>(v / binWidth);
    histogram[std::clamp(bin, 0, kBins - 1)] += 1;
  }
}

double Observer::clipSymmetric() const {
  double amax = std::max(std::fabs(lo), std::fabs(hi));
  if (histogram.empty() || binWidth <= 0)
    return amax;
  switch (method) {
  case CalibrationMethod::MinMax:
    return amax;
  case CalibrationMethod::Percentile: {
    double total = 0;
    for (double h : histogram)
      total += h;
    double target = total * percentile / 100.0, sum = 0;
    for (int b = 0; b < kBins; ++b) {
      sum += histogram[b];
      if (sum >= target)
        return (b + 1) * binWidth;
    }
    return amax;
  }
  case CalibrationMethod::Entropy:
    return entropyThreshold();
  case CalibrationMethod::MSE:
    return mseThreshold();
  }
  return amax;
}

double Observer::entropyThreshold() const {
  // TensorRT's entropy calibration: for each candidate threshold (a bin
  // edge from 128 bins up), the reference distribution P is the histogram
  // clipped there (outliers added to the last bin), Q is the same bins
  // without the outliers merged into the 128 positive int8 levels and
  // spread back over the non-empty bins; keep the threshold with the
  // smallest KL(P || Q), the largest on ties.
  // As NVIDIA's reference implementation does, the zero bin takes its
  // neighbour's count: after a ReLU half of all values are exactly zero,
  // and that spike, smeared over a merged level in Q, would otherwise
  // dominate the divergence and drive the threshold to the smallest
  // candidate.
  constexpr int levels = 128;
  std::vector<double> hist(histogram.begin(), histogram.end());
  if (hist.size() > 1)
    hist[0] = hist[1];
  double bestKL = std::numeric_limits<double>::infinity();
  int bestBins = kBins;
  std::vector<double> p(kBins), q(kBins);
  double tail = 0;
  for (int b = levels; b < kBins; ++b)
    tail += hist[b];
  for (int bins = levels; bins <= kBins; ++bins) {
    if (bins > levels)
      tail -= hist[bins - 1];
    std::copy(hist.begin(), hist.begin() + bins, p.begin());
    p[bins - 1] += tail;
    double merged = double(bins) / levels;
    std::fill(q.begin(), q.begin() + bins, 0.0);
    for (int j = 0; j < levels; ++j) {
      int start = static_cast<int>(j * merged);
      int stop = j == levels - 1 ? bins : static_cast<int>((j + 1) * merged);
      double total = 0;
      int nonzero = 0;
      for (int b = start; b < stop; ++b) {
        total += hist[b];
        nonzero += hist[b] != 0;
      }
      if (nonzero == 0)
        continue;
      for (int b = start; b < stop; ++b)
        if (hist[b] != 0)
          q[b] = total / nonzero;
    }
    double pSum = 0, qSum = 0;
    for (int b = 0; b < bins; ++b)
      pSum += p[b], qSum += q[b];
    if (pSum <= 0 || qSum <= 0)
      continue;
    double kl = 0;
    for (int b = 0; b < bins; ++b) {
      if (p[b] <= 0)
        continue;
      double pb = p[b] / pSum;
      double qb = q[b] > 0 ? q[b] / qSum : 1e-12;
      kl += pb * std::log(pb / qb);
    }
    if (kl <= bestKL) // ties: the larger threshold
      bestKL = kl, bestBins = bins;
  }
  return bestBins * binWidth;
}

double Observer::mseThreshold() const {
  // Expected squared error of symmetric int8 with threshold t: values past
  // t are clipped to it, values inside carry uniform rounding noise
  // (scale^2 / 12), scale = t / 127. Each bin stands at its centre.
  double best = std::numeric_limits<double>::infinity();
  int bestBins = kBins;
  for (int bins = 1; bins <= kBins; ++bins) {
    double t = bins * binWidth, scale = t / 127.0;
    double rounding = scale * scale / 12.0, err = 0;
    for (int b = 0; b < kBins; ++b) {
      if (histogram[b] == 0)
        continue;
      double centre = (b + 0.5) * binWidth;
      double e = centre > t ? (centre - t) * (centre - t) : rounding;
      err += histogram[b] * e;
    }
    if (err < best)
      best = err, bestBins = bins;
  }
  return bestBins * binWidth;
}

QuantParams Observer::params() const {
  if (symmetric)
    return symmetricParams(clipSymmetric());
  if (method == CalibrationMethod::Percentile && !histogram.empty() &&
      binWidth > 0) {
    double total = 0;
    for (double h : histogram)
      total += h;
    double low = total * (100.0 - percentile) / 100.0;
    double high = total * percentile / 100.0, sum = 0;
    double from = lo, to = hi;
    bool fromSet = false;
    for (int b = 0; b < kBins; ++b) {
      sum += histogram[b];
      if (!fromSet && sum > low)
        from = lo + b * binWidth, fromSet = true;
      if (sum >= high) {
        to = lo + (b + 1) * binWidth;
        break;
      }
    }
    return asymmetricParams(from, to);
  }
  return asymmetricParams(lo, hi);
}

void SQNRAccumulator::add(const float *data, size_t n,
                          const QuantParams &params) {
  for (size_t i = 0; i < n; ++i) {
    double x = data[i];
    if (!std::isfinite(x))
      continue;
    double e = x - params.fakeQuantize(data[i]);
    signal += x * x;
    noise += e * e;
  }
}

double SQNRAccumulator::decibels() const {
  if (noise <= 0)
    return std::numeric_limits<double>::infinity();
  if (signal <= 0)
    return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

} // namespace strata::quantization
