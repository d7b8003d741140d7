//===- ResizeFilter.h - ONNX Resize's per-axis filters ------------*- C++ -*-===//
//
// ONNX Resize is separable: every axis is resampled by its own 1-d filter.
// Output coordinate x maps to an input coordinate by the coordinate
// transformation mode, and the mode's filter (nearest, linear or cubic,
// widened by 1/scale with antialias) gives weights on the inputs around
// it. These tables are shared by the portable resize kernel and by the
// delegates that run a resize in their own layouts, so that both compute
// the same taps and weights.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_RESIZEFILTER_H
#define STRATA_RUNTIME_RESIZEFILTER_H

#include <cstdint>
#include <string>
#include <vector>

namespace strata::runtime {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class ResizeTransform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNN,
  TfCropAndResize
};
enum class ResizeRounding { PreferFloor, PreferCeil, Floor, Ceil };

/// The filter's parameters (ONNX Resize's attributes).
struct ResizeConfig {
  ResizeMode mode = ResizeMode::Nearest;
  ResizeTransform transform = ResizeTransform::HalfPixel;
  ResizeRounding rounding = ResizeRounding::PreferFloor;
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
  float extrapolation = 0;
};

/// Sets `config`'s mode, transform and rounding from ONNX's names
/// ("linear", "half_pixel", "round_prefer_floor", ...); on an unknown name
/// returns false with `message` naming it.
bool parseResizeNames(const std::string &mode, const std::string &transform,
                      const std::string &rounding, ResizeConfig &config,
                      std::string &message);

/// One axis' filter: for every output index either `outside` (the
/// extrapolation value) or `taps` (input index, weight) pairs; input
/// indices are clamped into the axis (edges repeat).
struct ResizeAxisFilter {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;

  /// Whether it maps every output index to the same input index.
  bool isIdentity(int64_t inN, int64_t outN) const;
};

/// Builds the filter of an axis of `inN` inputs scaled by `scale` to
/// `outN` outputs; `roi` is the axis' (start, end) for tf_crop_and_resize
/// (else unread). Fails (with `message`) when antialiasing a tiny scale
/// would need an unreasonably wide filter or the table would be too large.
bool buildResizeFilter(const ResizeConfig &config, int64_t inN, int64_t outN,
                       double scale, const double *roi,
                       ResizeAxisFilter &filter, std::string &message);

} // namespace strata::runtime

#endif // STRATA_RUNTIME_RESIZEFILTER_H
