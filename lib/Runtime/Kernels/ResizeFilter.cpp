//===- ResizeFilter.cpp - ONNX Resize's per-axis filters ------------------===//
//
// The taps and weights of one axis, as the ONNX reference implementation
// computes them (see ResizeFilter.h).
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/ResizeFilter.h"

#include "KernelUtils.h"

#include <algorithm>
#include <cmath>

namespace strata::runtime {

namespace {

/// Looks `value` up in `names` (parallel to the enum's values).
template <typename E, size_t N>
bool parseEnum(const std::string &value, const char *const (&names)[N],
               E &result) {
  for (size_t i = 0; i < N; ++i)
    if (value == names[i]) {
      result = static_cast<E>(i);
      return true;
    }
  return false;
}

/// The cubic convolution kernel with coefficient `a` (zero beyond |x| = 2).
double cubicWeight(double x, double a) {
  x = std::abs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/// The input coordinate of output index `x` on an axis of `inN` inputs
/// scaled by `scale` to `outN` outputs; `roi` is (start, end) for
/// tf_crop_and_resize. Sets `outside` where that mode extrapolates.
double sourceCoordinate(const ResizeConfig &config, int64_t x, int64_t inN,
                        int64_t outN, double scale, const double *roi,
                        bool &outside) {
  // ONNX uses the unrounded output length scale * in, not outN.
  double outW = scale * static_cast<double>(inN);
  double xd = static_cast<double>(x), in = static_cast<double>(inN);
  outside = false;
  switch (config.transform) {
  case ResizeTransform::HalfPixel:
    return (xd + 0.5) / scale - 0.5;
  case ResizeTransform::HalfPixelSymmetric: {
    double adjustment = static_cast<double>(outN) / outW;
    double offset = in / 2 * (1 - adjustment);
    return offset + (xd + 0.5) / scale - 0.5;
  }
  case ResizeTransform::PytorchHalfPixel:
    return outW == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
  case ResizeTransform::AlignCorners:
    return outW == 1 ? 0.0 : xd * (in - 1) / (outW - 1);
  case ResizeTransform::Asymmetric:
    return xd / scale;
  case ResizeTransform::TfHalfPixelForNN:
    return (xd + 0.5) / scale;
  case ResizeTransform::TfCropAndResize: {
    double span = (roi[1] - roi[0]) * (in - 1);
    double xOri = outW == 1 ? span / 2 : xd * span / (outW - 1);
    xOri += roi[0] * (in - 1);
    outside = !(xOri >= 0 && xOri <= in - 1);
    return xOri;
  }
  }
  return 0;
}

} // namespace

bool buildResizeFilter(const ResizeConfig &config, int64_t inN, int64_t outN,
                       double scale, const double *roi,
                       ResizeAxisFilter &filter, std::string &message) {
  // Filter support: taps at left + i for i in [start, start + taps), where
  // left is the input index just below x_ori. Antialias stretches linear
  // and cubic filters by 1/scale when downsampling.
  double stretch = config.antialias ? std::min(scale, 1.0) : 1.0;
  double radius = config.mode == ResizeMode::Cubic ? 2.0 : 1.0;
  double startD =
      config.mode == ResizeMode::Nearest ? 0.0 : std::floor(-radius / stretch) + 1;
  if (!(startD > -static_cast<double>(kernels::kMaxWindowParam))) {
    message = "scale " + std::to_string(scale) + " is too small to antialias";
    return false;
  }
  int64_t start = static_cast<int64_t>(startD);
  int64_t taps = 2 - 2 * start;
  if (static_cast<double>(outN) * static_cast<double>(taps) >
      static_cast<double>(kernels::kMaxScratchFloats)) {
    message = "the filter table would be too large";
    return false;
  }
  filter.taps = taps;
  filter.index.assign(outN * taps, 0);
  filter.weight.assign(outN * taps, 0.0);
  filter.outside.assign(outN, 0);
  // Coordinates far outside the axis behave like the edge; clamp them so
  // that the index arithmetic stays small.
  double limit = static_cast<double>(inN + taps + 2);
  for (int64_t x = 0; x < outN; ++x) {
    bool outside = false;
    double xOri = sourceCoordinate(config, x, inN, outN, scale, roi, outside);
    if (outside) {
      filter.outside[x] = 1;
      continue;
    }
    xOri = std::isnan(xOri) ? 0.0 : std::min(std::max(xOri, -limit), limit);
    double floorX = std::floor(xOri);
    // The ratio lies in (0, 1]: an integral x_ori counts as 1 past the
    // index below it.
    bool integral = floorX == xOri;
    double ratio = integral ? 1.0 : xOri - floorX;
    int64_t left = static_cast<int64_t>(floorX) - (integral ? 1 : 0);
    int64_t *index = &filter.index[x * taps];
    double *weight = &filter.weight[x * taps];
    double sum = 0;
    for (int64_t t = 0; t < taps; ++t) {
      int64_t i = start + t;
      double w = 0;
      switch (config.mode) {
      case ResizeMode::Nearest: {
        bool up = false; // whether the nearest input is left + 1
        switch (config.rounding) {
        case ResizeRounding::PreferFloor:
          up = ratio > 0.5;
          break;
        case ResizeRounding::PreferCeil:
          up = ratio >= 0.5;
          break;
        case ResizeRounding::Floor:
          up = false;
          break;
        case ResizeRounding::Ceil:
          up = true;
          break;
        }
        if (integral)
          up = true;
        w = (i == 1) == up ? 1.0 : 0.0;
        break;
      }
      case ResizeMode::Linear:
        w = std::max(0.0, 1 - std::abs((i - ratio) * stretch));
        break;
      case ResizeMode::Cubic:
        w = cubicWeight((i - ratio) * stretch, config.cubicA);
        break;
      }
      int64_t source = left + i;
      if (config.excludeOutside && (source < 0 || source >= inN))
        w = 0;
      index[t] = std::min(std::max<int64_t>(source, 0), inN - 1);
      weight[t] = w;
      sum += w;
    }
    if ((config.antialias || config.excludeOutside) && sum != 0)
      for (int64_t t = 0; t < taps; ++t)
        weight[t] /= sum;
  }
  return true;
}


bool parseResizeNames(const std::string &mode, const std::string &transform,
                      const std::string &rounding, ResizeConfig &config,
                      std::string &message) {
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  static const char *const transforms[] = {
      "half_pixel",        "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners",     "asymmetric",           "tf_half_pixel_for_nn",
      "tf_crop_and_resize"};
  static const char *const roundings[] = {"round_prefer_floor",
                                          "round_prefer_ceil", "floor", "ceil"};
  if (!parseEnum(mode, modes, config.mode))
    message = "unknown mode '" + mode + "'";
  else if (!parseEnum(transform, transforms, config.transform))
    message = "unknown coordinate_transformation_mode '" + transform + "'";
  else if (!parseEnum(rounding, roundings, config.rounding))
    message = "unknown nearest_mode '" + rounding + "'";
  else
    return true;
  return false;
}

bool ResizeAxisFilter::isIdentity(int64_t inN, int64_t outN) const {
  if (inN != outN)
    return false;
  for (int64_t x = 0; x < outN; ++x) {
    if (outside[x])
      return false;
    for (int64_t t = 0; t < taps; ++t) {
      double w = weight[x * taps + t];
      if (w != 0 && !(w == 1 && index[x * taps + t] == x))
        return false;
    }
  }
  return true;
}

} // namespace strata::runtime
