//===- RoiAlign.cpp - region-of-interest align pooling --------------------===//
//
// ONNX RoiAlign on f32 [N, C, H, W] with [R, 4] rois (x1, y1, x2, y2) and
// [R] batch indices, computed as ONNX Runtime's CPU kernel does. Per roi:
//   start = roi * spatial_scale - offset (offset 0.5 with half_pixel, else
//   0; without half_pixel the roi is at least 1 x 1), bin = extent / output,
//   grid = sampling_ratio, or ceil(extent / output) when it is 0,
// and every output bin samples grid_h x grid_w points at the centres of its
// sub-bins. A point more than one pixel outside the image reads 0; one
// inside is clamped to the image and interpolated bilinearly. `avg` averages
// the samples, `max` keeps the largest of the four weighted taps of every
// sample. The taps and weights are computed once per roi and reused for
// every channel.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <cmath>

namespace strata::runtime::kernels {

namespace {

/// The four taps of one sample: offsets into a plane and their weights.
struct Taps {
  int64_t pos[4];
  float w[4];
};

/// The taps of every sample of one roi, bin by bin.
void precomputeTaps(int64_t height, int64_t width, int64_t outH, int64_t outW,
                    int64_t gridH, int64_t gridW, float startH, float startW,
                    float binH, float binW, std::vector<Taps> &taps) {
  taps.clear();
  for (int64_t ph = 0; ph < outH; ++ph)
    for (int64_t pw = 0; pw < outW; ++pw)
      for (int64_t iy = 0; iy < gridH; ++iy) {
        float y =
            startH + static_cast<float>(ph) * binH +
            static_cast<float>(iy + .5f) * binH / static_cast<float>(gridH);
        for (int64_t ix = 0; ix < gridW; ++ix) {
          float x =
              startW + static_cast<float>(pw) * binW +
              static_cast<float>(ix + .5f) * binW / static_cast<float>(gridW);
          Taps t{};
          // (Written so that a NaN coordinate counts as outside.)
          if (!(y >= -1.0f && y <= static_cast<float>(height) &&
                x >= -1.0f && x <= static_cast<float>(width))) {
            taps.push_back(t);
            continue;
          }
          float yy = y <= 0 ? 0 : y, xx = x <= 0 ? 0 : x;
          auto yLow = static_cast<int64_t>(yy), xLow = static_cast<int64_t>(xx);
          int64_t yHigh, xHigh;
          if (yLow >= height - 1) {
            yHigh = yLow = height - 1;
            yy = static_cast<float>(yLow);
          } else {
            yHigh = yLow + 1;
          }
          if (xLow >= width - 1) {
            xHigh = xLow = width - 1;
            xx = static_cast<float>(xLow);
          } else {
            xHigh = xLow + 1;
          }
          float ly = yy - static_cast<float>(yLow);
          float lx = xx - static_cast<float>(xLow);
          float hy = 1.0f - ly, hx = 1.0f - lx;
          t.pos[0] = yLow * width + xLow;
          t.pos[1] = yLow * width + xHigh;
          t.pos[2] = yHigh * width + xLow;
          t.pos[3] = yHigh * width + xHigh;
          t.w[0] = hy * hx;
          t.w[1] = hy * lx;
          t.w[2] = ly * hx;
          t.w[3] = ly * lx;
          taps.push_back(t);
        }
      }
}

} // namespace

Error roiAlignKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &in = ctx.ins[0], &rois = ctx.ins[1], &indices = ctx.ins[2],
                   &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(modeName, ctx.params.getString("mode", ""));
  STRATA_KERNEL_ASSIGN(halfPixel, ctx.params.getBool("half_pixel", true));
  STRATA_KERNEL_ASSIGN(outH, ctx.params.getInt("output_height", 0));
  STRATA_KERNEL_ASSIGN(outW, ctx.params.getInt("output_width", 0));
  STRATA_KERNEL_ASSIGN(ratio, ctx.params.getInt("sampling_ratio", -1));
  STRATA_KERNEL_ASSIGN(scaleParam, ctx.params.getFloat("spatial_scale", 1.0));
  if (modeName != "avg" && modeName != "max")
    return ctx.fail("'mode' must be avg or max, got '" + modeName + "'");
  if (outH < 1 || outW < 1 || outH > kMaxWindowParam ||
      outW > kMaxWindowParam || ratio < 0 || ratio > kMaxWindowParam)
    return ctx.fail("needs output extents in [1, 2^20] and a sampling_ratio "
                    "in [0, 2^20]");
  if (in.dtype != DType::F32 || rois.dtype != DType::F32 ||
      out.dtype != DType::F32 || indices.dtype != DType::I64 ||
      in.rank() != 4 || rois.rank() != 2 || rois.shape[1] != 4 ||
      indices.rank() != 1 || indices.shape[0] != rois.shape[0] ||
      out.shape != std::vector<int64_t>{rois.shape[0], in.shape[1], outH, outW})
    return ctx.fail("takes f32 [N, C, H, W], f32 [R, 4] and i64 [R] to "
                    "[R, C, output_height, output_width], got " +
                    in.typeString() + ", " + rois.typeString() + ", " +
                    indices.typeString() + " -> " + out.typeString());
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();
  if (in.shape[2] < 1 || in.shape[3] < 1)
    return ctx.fail("samples an empty image " + in.typeString());

  bool isMax = modeName == "max";
  int64_t batch = in.shape[0], channels = in.shape[1];
  int64_t height = in.shape[2], width = in.shape[3];
  int64_t plane = height * width, bins = outH * outW;
  auto scale = static_cast<float>(scaleParam);
  float offset = halfPixel ? 0.5f : 0.0f;
  const float *box = rois.as<float>();
  const int64_t *batchIndex = indices.as<int64_t>();
  float *dst = out.as<float>();
  std::vector<Taps> taps;
  for (int64_t r = 0; r < rois.shape[0]; ++r, box += 4) {
    int64_t b = batchIndex[r];
    if (b < 0 || b >= batch)
      return ctx.fail("batch index " + std::to_string(b) + " of roi " +
                      std::to_string(r) + " is outside [0, " +
                      std::to_string(batch) + ")");
    float startW = box[0] * scale - offset, startH = box[1] * scale - offset;
    float roiW = box[2] * scale - offset - startW;
    float roiH = box[3] * scale - offset - startH;
    if (!halfPixel) {
      roiW = std::max(roiW, 1.0f);
      roiH = std::max(roiH, 1.0f);
    }
    float binH = roiH / static_cast<float>(outH);
    float binW = roiW / static_cast<float>(outW);
    // An adaptive grid of a huge or non-finite roi is refused rather than
    // sampled for ever.
    double adaptiveH = std::ceil(static_cast<double>(roiH) / outH);
    double adaptiveW = std::ceil(static_cast<double>(roiW) / outW);
    if (ratio == 0 && !(adaptiveH <= 1024 && adaptiveW <= 1024))
      return ctx.fail("roi " + std::to_string(r) +
                      " needs more than 1024 samples per bin and axis");
    // A roi that runs backwards (half_pixel does not widen it) has no
    // samples: its bins are 0, as in ONNX Runtime.
    int64_t gridH = std::max<int64_t>(
        ratio > 0 ? ratio : static_cast<int64_t>(adaptiveH), 0);
    int64_t gridW = std::max<int64_t>(
        ratio > 0 ? ratio : static_cast<int64_t>(adaptiveW), 0);
    int64_t samples = gridH * gridW;
    if (samples > (int64_t{1} << 22) / bins)
      return ctx.fail("roi " + std::to_string(r) + " needs " +
                      std::to_string(samples) + " samples in each of " +
                      std::to_string(bins) + " bins (at most 2^22 in all)");
    float count = static_cast<float>(std::max<int64_t>(samples, 1));
    precomputeTaps(height, width, outH, outW, gridH, gridW, startH, startW,
                   binH, binW, taps);
    for (int64_t c = 0; c < channels; ++c) {
      const float *data = in.as<float>() + (b * channels + c) * plane;
      float *o = dst + (r * channels + c) * bins;
      const Taps *t = taps.data();
      for (int64_t bin = 0; bin < bins; ++bin) {
        float value = 0.0f;
        if (isMax) {
          for (int64_t s = 0; s < samples; ++s, ++t) {
            float v = std::max(std::max(std::max(t->w[0] * data[t->pos[0]],
                                                 t->w[1] * data[t->pos[1]]),
                                        t->w[2] * data[t->pos[2]]),
                               t->w[3] * data[t->pos[3]]);
            value = s == 0 ? v : std::max(value, v);
          }
        } else {
          for (int64_t s = 0; s < samples; ++s, ++t)
            value += t->w[0] * data[t->pos[0]] + t->w[1] * data[t->pos[1]] +
                     t->w[2] * data[t->pos[2]] + t->w[3] * data[t->pos[3]];
          value /= count;
        }
        o[bin] = value;
      }
    }
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
