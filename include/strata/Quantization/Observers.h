//===- Observers.h - calibration observers ----------------------*- C++ -*-===//
//
// An observer watches one tensor over the calibration data and picks the
// range its int8 quantization clips to. Pass 1 records the min and max;
// the histogram methods (percentile, entropy, mse) then build a histogram
// over that range in a second pass. Memory is constant in the number of
// samples: each pass streams the data once.
//
// No MLIR here: the observers are plain C++ (and unit tested as such).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_QUANTIZATION_OBSERVERS_H
#define STRATA_QUANTIZATION_OBSERVERS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::quantization {

/// How an observer turns what it saw into a clipping range.
enum class CalibrationMethod {
  /// The whole observed range.
  MinMax,
  /// The given percentile of |x| (symmetric) or both tails (asymmetric).
  Percentile,
  /// The threshold minimising the KL divergence between the histogram and
  /// its int8 quantization (TensorRT's entropy calibration).
  Entropy,
  /// The threshold minimising the expected squared quantization error
  /// (clipping plus rounding) over the histogram.
  MSE,
};

/// Parses "minmax", "percentile", "entropy" or "mse".
std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view text);
const char *stringifyCalibrationMethod(CalibrationMethod method);

/// An int8 affine quantization: q = clamp(round(x / scale) + zeroPoint).
struct QuantParams {
  double scale = 1.0;
  int64_t zeroPoint = 0;
  int64_t qmin = -128, qmax = 127;

  /// The integer level of `x`: round half to even, then saturate.
  int64_t quantize(float x) const;
  float fakeQuantize(float x) const;
};

/// Symmetric int8 for |x| <= amax: scale amax / 127, zero point 0 (an
/// all-zero tensor gets scale 1).
QuantParams symmetricParams(double amax);
/// Asymmetric int8 covering [lo, hi] (widened to contain 0).
QuantParams asymmetricParams(double lo, double hi);

/// The smallest power of two >= `scale` (scale > 0; others unchanged).
double powerOfTwoAtLeast(double scale);
/// `params` with its scale rounded up to a power of two; an asymmetric
/// zero point moves so that the range still starts where it started.
QuantParams withPowerOfTwoScale(QuantParams params);

class Observer {
public:
  static constexpr int kBins = 2048;

  Observer(CalibrationMethod method, bool symmetric, double percentile = 99.99);

  /// Whether a histogram pass follows the min/max pass.
  bool needsHistogram() const { return method != CalibrationMethod::MinMax; }

  /// Pass 1.
  void observeRange(const float *data, size_t n);
  /// Pass 2 (after every sample went through pass 1).
  void observeHistogram(const float *data, size_t n);

  /// The chosen quantization (after the passes its method needs).
  QuantParams params() const;

  float min() const { return lo; }
  float max() const { return hi; }
  uint64_t count() const { return seen; }

private:
  double clipSymmetric() const;
  double entropyThreshold() const;
  double mseThreshold() const;

  CalibrationMethod method;
  bool symmetric;
  double percentile;
  float lo = 0, hi = 0;
  uint64_t seen = 0;
  /// Symmetric: |x| over [0, max|x|]; asymmetric: x over [lo, hi].
  std::vector<double> histogram;
  double binWidth = 0;
};

/// Accumulates ||x||^2 and ||x - q(x)||^2 for an SQNR figure.
struct SQNRAccumulator {
  double signal = 0, noise = 0;
  void add(const float *data, size_t n, const QuantParams &params);
  /// 20 log10(||x|| / ||x - q(x)||) in dB (infinity when exact).
  double decibels() const;
};

} // namespace strata::quantization

#endif // STRATA_QUANTIZATION_OBSERVERS_H
