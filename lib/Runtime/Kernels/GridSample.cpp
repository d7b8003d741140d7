//===- GridSample.cpp - sample an image at grid coordinates ---------------===//
//
// ONNX GridSample on [N, C, H, W] f32 images with an [N, H_out, W_out, 2]
// grid of normalised (x, y), computed as ONNX Runtime's CPU kernel does:
// each grid point is denormalised (x = ((g + 1) * W - 1) / 2, or
// (g + 1) / 2 * (W - 1) with align_corners), then
//   nearest:  the tap at round-half-to-even (x, y);
//   bilinear: the four taps around (x, y), weighted by the distances;
//   bicubic:  the 4x4 taps from floor - 1, Keys' cubic weights (A = -0.75);
// and each tap outside the image reads 0 (zeros), the nearest edge pixel
// (border) or the pixel reflected about the image's edges (reflection: at
// the corner pixels' centres with align_corners, at the image's edges, half
// a pixel further out, without), per tap. A NaN coordinate samples NaN.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::runtime::kernels {

namespace {

enum class Mode { Bilinear, Nearest, Bicubic };
enum class Padding { Zeros, Border, Reflection };

/// `x` reflected about [low, high] until it lies within.
float reflect(float x, float low, float high) {
  float range = high - low;
  if (range <= 0)
    return low;
  if (x < low) {
    float d = low - x;
    float n = std::floor(d / range), r = d - n * range;
    return std::fmod(n, 2.0f) == 0 ? low + r : high - r;
  }
  if (x > high) {
    float d = x - high;
    float n = std::floor(d / range), r = d - n * range;
    return std::fmod(n, 2.0f) == 0 ? high - r : low + r;
  }
  return x;
}

/// One image plane and how its out-of-range taps read.
struct Plane {
  const float *data;
  int64_t height, width;
  Padding padding;
  float bounds[4]; ///< x low, y low, x high, y high (reflection)

  float at(int64_t y, int64_t x) const {
    int64_t i = index(y, x);
    return i < 0 ? 0.0f : data[i];
  }

  /// Where the tap at (`y`, `x`) reads, or -1 where it reads 0.
  int64_t index(int64_t y, int64_t x) const {
    switch (padding) {
    case Padding::Zeros:
      if (x < 0 || y < 0 || x >= width || y >= height)
        return -1;
      break;
    case Padding::Border:
      x = std::clamp<int64_t>(x, 0, width - 1);
      y = std::clamp<int64_t>(y, 0, height - 1);
      break;
    case Padding::Reflection:
      x = static_cast<int64_t>(
          reflect(static_cast<float>(x), bounds[0], bounds[2]));
      y = static_cast<int64_t>(
          reflect(static_cast<float>(y), bounds[1], bounds[3]));
      // Reflection about the edges half a pixel out can land on -0.x.
      x = std::clamp<int64_t>(x, 0, width - 1);
      y = std::clamp<int64_t>(y, 0, height - 1);
      break;
    }
    return y * width + x;
  }
};

/// Keys' cubic convolution weights for the taps at -1, 0, 1, 2 from the
/// floor, `t` the fraction past it.
void cubicWeights(float t, float w[4]) {
  const float a = -0.75f;
  float x = t + 1;
  w[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  x = t;
  w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  x = 1 - t;
  w[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
  x = 2 - t;
  w[3] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

/// `x` moved to where every tap of every mode reads what it reads at `x`,
/// within a few pixels of the image, so that far coordinates (an infinite
/// one included) give integer tap indices and exact tap weights: for zeros
/// and border, held at 4 pixels outside (every tap is outside, or at the
/// edge, from there on); for reflection, shifted by whole periods of the
/// reflection (2 * (high - low), an integer: a tap reflects alike there).
float nearImage(const Plane &p, float x, int64_t extent, float low,
                float high) {
  if (p.padding != Padding::Reflection)
    return std::clamp(x, -4.0f, static_cast<float>(extent + 3));
  double period = 2.0 * (static_cast<double>(high) - low);
  if (!(period > 0) || !std::isfinite(x))
    return low;
  double shifted = std::fmod(static_cast<double>(x) - low, period);
  if (shifted < 0)
    shifted += period;
  return static_cast<float>(shifted + low);
}

/// A bilinear sample's four taps (where they read in the plane, -1 for 0)
/// and its distances to them: the same for every channel of an image, so
/// found once per grid point.
struct BilinearTaps {
  int64_t at[4]; ///< (y1, x1), (y1, x1 + 1), (y1 + 1, x1), (y1 + 1, x1 + 1)
  float dx1, dx2, dy1, dy2;
  bool nan;

  /// The taps at (`x`, `y`), a point that nearImage has moved.
  static BilinearTaps near(const Plane &p, float x, float y) {
    BilinearTaps t{};
    float x1 = std::floor(x), y1 = std::floor(y);
    float x2 = x1 + 1, y2 = y1 + 1;
    auto ix1 = static_cast<int64_t>(x1), iy1 = static_cast<int64_t>(y1);
    t.at[0] = p.index(iy1, ix1);
    t.at[1] = p.index(iy1, ix1 + 1);
    t.at[2] = p.index(iy1 + 1, ix1);
    t.at[3] = p.index(iy1 + 1, ix1 + 1);
    t.dx2 = x2 - x;
    t.dx1 = x - x1;
    t.dy2 = y2 - y;
    t.dy1 = y - y1;
    return t;
  }

  /// The sample of `data`.
  float sample(const float *data) const {
    if (nan)
      return std::numeric_limits<float>::quiet_NaN();
    auto tap = [&](int k) { return at[k] < 0 ? 0.0f : data[at[k]]; };
    float p11 = tap(0), p12 = tap(1), p21 = tap(2), p22 = tap(3);
    return dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22);
  }
};

float sample(const Plane &p, Mode mode, float x, float y) {
  // A NaN coordinate samples NaN.
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<float>::quiet_NaN();
  x = nearImage(p, x, p.width, p.bounds[0], p.bounds[2]);
  y = nearImage(p, y, p.height, p.bounds[1], p.bounds[3]);
  switch (mode) {
  case Mode::Nearest:
    return p.at(static_cast<int64_t>(std::nearbyint(y)),
                static_cast<int64_t>(std::nearbyint(x)));
  case Mode::Bilinear:
    return BilinearTaps::near(p, x, y).sample(p.data);
  case Mode::Bicubic: {
    float x0 = std::floor(x), y0 = std::floor(y);
    auto ix = static_cast<int64_t>(x0) - 1, iy = static_cast<int64_t>(y0) - 1;
    float wx[4], wy[4];
    cubicWeights(x - x0, wx);
    cubicWeights(y - y0, wy);
    float sum = 0;
    for (int i = 0; i < 4; ++i) {
      float row = 0;
      for (int j = 0; j < 4; ++j)
        row += p.at(iy + i, ix + j) * wx[j];
      sum += row * wy[i];
    }
    return sum;
  }
  }
  return 0;
}

/// The bilinear taps at (`x`, `y`) as sample() finds them.
BilinearTaps bilinearTaps(const Plane &p, float x, float y) {
  if (std::isnan(x) || std::isnan(y)) {
    BilinearTaps t{};
    t.nan = true;
    return t;
  }
  return BilinearTaps::near(
      p, nearImage(p, x, p.width, p.bounds[0], p.bounds[2]),
      nearImage(p, y, p.height, p.bounds[1], p.bounds[3]));
}

} // namespace

Error gridSampleKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &grid = ctx.ins[1], &out = ctx.outs[0];
  if (in.dtype != DType::F32 || grid.dtype != DType::F32 ||
      out.dtype != DType::F32 || in.rank() != 4 || grid.rank() != 4 ||
      grid.shape[3] != 2 || grid.shape[0] != in.shape[0] ||
      out.shape != std::vector<int64_t>{in.shape[0], in.shape[1], grid.shape[1],
                                        grid.shape[2]})
    return ctx.fail("takes f32 [N, C, H, W] and [N, H_out, W_out, 2] to "
                    "[N, C, H_out, W_out], got " +
                    in.typeString() + ", " + grid.typeString() + " -> " +
                    out.typeString());
  STRATA_KERNEL_ASSIGN(modeName, ctx.params.getString("mode", "bilinear"));
  STRATA_KERNEL_ASSIGN(paddingName,
                       ctx.params.getString("padding_mode", "zeros"));
  STRATA_KERNEL_ASSIGN(alignCorners,
                       ctx.params.getBool("align_corners", false));
  Mode mode = modeName == "bilinear"  ? Mode::Bilinear
              : modeName == "nearest" ? Mode::Nearest
              : modeName == "bicubic" ? Mode::Bicubic
                                      : static_cast<Mode>(-1);
  Padding padding = paddingName == "zeros"        ? Padding::Zeros
                    : paddingName == "border"     ? Padding::Border
                    : paddingName == "reflection" ? Padding::Reflection
                                                  : static_cast<Padding>(-1);
  if (static_cast<int>(mode) < 0)
    return ctx.fail("unknown mode '" + modeName + "'");
  if (static_cast<int>(padding) < 0)
    return ctx.fail("unknown padding_mode '" + paddingName + "'");
  if (in.shape[2] < 1 || in.shape[3] < 1)
    return ctx.fail("an empty image " + in.typeString() +
                    " has nothing "
                    "to sample");
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();

  int64_t n = in.shape[0], c = in.shape[1], h = in.shape[2], w = in.shape[3];
  int64_t points = grid.shape[1] * grid.shape[2];
  auto denormalize = [&](float g, int64_t length) {
    return alignCorners ? (g + 1) / 2.0f * static_cast<float>(length - 1)
                        : ((g + 1) * static_cast<float>(length) - 1) / 2.0f;
  };
  Plane plane{nullptr, h, w, padding, {}};
  if (alignCorners) {
    plane.bounds[0] = plane.bounds[1] = 0;
    plane.bounds[2] = static_cast<float>(w - 1);
    plane.bounds[3] = static_cast<float>(h - 1);
  } else {
    plane.bounds[0] = plane.bounds[1] = -0.5f;
    plane.bounds[2] = static_cast<float>(w) - 0.5f;
    plane.bounds[3] = static_cast<float>(h) - 0.5f;
  }
  const float *src = in.as<const float>(), *g = grid.as<const float>();
  float *dst = out.as<float>();
  if (mode == Mode::Bilinear) {
    // The taps and weights of a chunk of grid points (kept in L1), then
    // every channel's samples of that chunk.
    constexpr int64_t kChunk = 256;
    BilinearTaps taps[kChunk];
    for (int64_t b = 0; b < n; ++b)
      for (int64_t p0 = 0; p0 < points; p0 += kChunk) {
        int64_t count = std::min(kChunk, points - p0);
        const float *coords = g + (b * points + p0) * 2;
        for (int64_t i = 0; i < count; ++i)
          taps[i] = bilinearTaps(plane, denormalize(coords[2 * i], w),
                                 denormalize(coords[2 * i + 1], h));
        for (int64_t ch = 0; ch < c; ++ch) {
          const float *data = src + (b * c + ch) * h * w;
          float *row = dst + (b * c + ch) * points + p0;
          for (int64_t i = 0; i < count; ++i)
            row[i] = taps[i].sample(data);
        }
      }
    return Error::success();
  }
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      plane.data = src + (b * c + ch) * h * w;
      const float *coords = g + b * points * 2;
      float *row = dst + (b * c + ch) * points;
      for (int64_t i = 0; i < points; ++i)
        row[i] = sample(plane, mode, denormalize(coords[2 * i], w),
                        denormalize(coords[2 * i + 1], h));
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
