//===- Resize.cpp - N-d separable interpolation (ONNX Resize) -------------===//
//
// Like the ONNX reference implementation, every axis is resampled on its
// own: output coordinate x maps to an input coordinate x_ori by the
// coordinate transformation, and the axis' 1-d filter (nearest, linear or
// cubic, widened by 1/scale with antialias) gives weights on the inputs
// around x_ori. Inputs beyond the edges repeat the edge value, unless
// exclude_outside drops them and renormalises. The kernel builds each
// axis' weight table once, then applies the axes innermost first, each
// pass writing an intermediate with that axis resized.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"
#include "strata/Runtime/ResizeFilter.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

Error parseConfig(KernelContext &ctx, ResizeConfig &config) {
  STRATA_KERNEL_ASSIGN(mode, ctx.params.getString("mode", "nearest"));
  STRATA_KERNEL_ASSIGN(
      transform,
      ctx.params.getString("coordinate_transformation_mode", "half_pixel"));
  STRATA_KERNEL_ASSIGN(
      rounding, ctx.params.getString("nearest_mode", "round_prefer_floor"));
  std::string message;
  if (!parseResizeNames(mode, transform, rounding, config, message))
    return ctx.fail(message);
  STRATA_KERNEL_ASSIGN(a, ctx.params.getFloat("cubic_coeff_a", -0.75));
  STRATA_KERNEL_ASSIGN(exclude, ctx.params.getBool("exclude_outside", false));
  STRATA_KERNEL_ASSIGN(antialias, ctx.params.getBool("antialias", false));
  STRATA_KERNEL_ASSIGN(extrapolation,
                       ctx.params.getFloat("extrapolation_value", 0.0));
  if (!std::isfinite(a))
    return ctx.fail("cubic_coeff_a must be finite");
  if (antialias && config.mode == ResizeMode::Nearest)
    return ctx.fail("antialias needs linear or cubic mode");
  config.cubicA = a;
  config.excludeOutside = exclude;
  config.antialias = antialias;
  config.extrapolation = static_cast<float>(extrapolation);
  return Error::success();
}

/// Resizes axis `axis` of `src` (shape `shape`) into `dst` with `filter`.
void applyFilter(const float *src, float *dst,
                 const std::vector<int64_t> &shape, size_t axis, int64_t outN,
                 const ResizeAxisFilter &filter, float extrapolation) {
  AxisSplit split = splitAtAxis(shape, axis);
  int64_t outer = split.outer, inner = split.inner, inN = split.extent;
  for (int64_t o = 0; o < outer; ++o) {
    const float *plane = src + o * inN * inner;
    for (int64_t x = 0; x < outN; ++x) {
      float *y = dst + (o * outN + x) * inner;
      if (filter.outside[x]) {
        std::fill(y, y + inner, extrapolation);
        continue;
      }
      const int64_t *index = &filter.index[x * filter.taps];
      const double *weight = &filter.weight[x * filter.taps];
      if (inner == 1) {
        double acc = 0;
        for (int64_t t = 0; t < filter.taps; ++t)
          if (weight[t] != 0)
            acc += weight[t] * plane[index[t]];
        *y = static_cast<float>(acc);
        continue;
      }
      // A chunk of the row at a time, tap by tap: the sums of the
      // element-wise loop above, in the same order (bit for bit the same
      // result), but the loops over k vectorize; about 5x faster on the
      // rows of a 28x28 -> 224x224 map (a segmentation head's last resize).
      constexpr int64_t kChunk = 64;
      for (int64_t k0 = 0; k0 < inner; k0 += kChunk) {
        int64_t n = std::min(kChunk, inner - k0);
        double acc[kChunk];
        std::fill(acc, acc + n, 0.0);
        for (int64_t t = 0; t < filter.taps; ++t) {
          if (weight[t] == 0)
            continue;
          double w = weight[t];
          const float *row = plane + index[t] * inner + k0;
          for (int64_t k = 0; k < n; ++k)
            acc[k] += w * row[k];
        }
        for (int64_t k = 0; k < n; ++k)
          y[k0 + k] = static_cast<float>(acc[k]);
      }
    }
  }
}

/// Reads a float vector of `count` entries from the parameter `name` or,
/// when absent, from the f32 input `operand`.
Error readVector(KernelContext &ctx, const char *name,
                 const TensorView *operand, size_t count,
                 std::vector<double> &values) {
  if (operand) {
    if (operand->dtype != DType::F32 || operand->rank() != 1 ||
        static_cast<size_t>(operand->numel()) != count)
      return ctx.fail(std::string(name) + " operand must be tensor<" +
                      std::to_string(count) + "xf32>, got " +
                      operand->typeString());
    if (!ctx.validateOnly) {
      const float *data = operand->as<const float>();
      values.assign(data, data + count);
    }
    return Error::success();
  }
  STRATA_KERNEL_ASSIGN(list, ctx.params.getFloats(name, {}));
  if (list.size() != count)
    return ctx.fail(std::string(name) + " has " + std::to_string(list.size()) +
                    " entries, expected " + std::to_string(count));
  values = std::move(list);
  return Error::success();
}

/// Checks one scale per axis against the input and result extents.
Error checkScales(KernelContext &ctx, const std::vector<double> &scales,
                  const TensorView &in, const TensorView &out) {
  for (size_t d = 0; d < scales.size(); ++d) {
    double s = scales[d];
    // floor(scale * in) is the ONNX shape rule; keep_aspect_ratio_policy
    // rounds instead, so anything within one is accepted.
    if (!(s > 0) || !std::isfinite(s) ||
        std::abs(static_cast<double>(out.shape[d]) -
                 s * static_cast<double>(in.shape[d])) >= 1.0 + 1e-6)
      return ctx.fail("scale " + std::to_string(s) + " of axis " +
                      std::to_string(d) + " does not map " + in.typeString() +
                      " to " + out.typeString());
    if (in.shape[d] == 0 && out.shape[d] != 0)
      return ctx.fail("cannot resize the empty axis " + std::to_string(d));
  }
  return Error::success();
}

} // namespace

Error resizeKernel(KernelContext &ctx) {
  ResizeConfig config;
  STRATA_RETURN_IF_ERROR(parseConfig(ctx, config));
  bool crop = config.transform == ResizeTransform::TfCropAndResize;
  bool dynamicRoi = crop && !ctx.params.has("roi");
  bool dynamicScales = !ctx.params.has("scales");
  size_t ins = 1 + (dynamicRoi ? 1 : 0) + (dynamicScales ? 1 : 0);
  STRATA_RETURN_IF_ERROR(checkArity(ctx, ins, ins, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (in.dtype != DType::F32 || out.dtype != DType::F32)
    return ctx.fail("takes and returns f32, got " + in.typeString() + " -> " +
                    out.typeString());
  size_t rank = in.rank();
  if (out.rank() != rank)
    return ctx.fail("result " + out.typeString() + " has another rank than " +
                    in.typeString());

  std::vector<double> scales, roi;
  STRATA_RETURN_IF_ERROR(readVector(
      ctx, "scales", dynamicScales ? &ctx.ins.back() : nullptr, rank, scales));
  if (crop)
    STRATA_RETURN_IF_ERROR(readVector(
        ctx, "roi", dynamicRoi ? &ctx.ins[1] : nullptr, 2 * rank, roi));
  // Run-time scales are only known at execution.
  if (!(ctx.validateOnly && dynamicScales))
    STRATA_RETURN_IF_ERROR(checkScales(ctx, scales, in, out));
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();

  // Filters first (they may fail), innermost axis first like the reference.
  std::vector<ResizeAxisFilter> filters(rank);
  std::vector<size_t> passes;
  for (size_t k = rank; k-- > 0;) {
    double axisRoi[2] = {crop ? roi[k] : 0.0, crop ? roi[rank + k] : 1.0};
    std::string message;
    if (!buildResizeFilter(config, in.shape[k], out.shape[k], scales[k], axisRoi,
                     filters[k], message))
      return ctx.fail(message);
    if (!filters[k].isIdentity(in.shape[k], out.shape[k]))
      passes.push_back(k);
  }
  if (passes.empty()) {
    std::memcpy(out.data, in.data, out.nbytes());
    return Error::success();
  }

  // Ping-pong between two scratch halves; the last pass writes the result.
  std::vector<int64_t> shape = in.shape;
  double largest = 0;
  for (size_t p = 0; p + 1 < passes.size(); ++p) {
    shape[passes[p]] = out.shape[passes[p]];
    double elements = 1;
    for (int64_t extent : shape)
      elements *= static_cast<double>(extent);
    largest = std::max(largest, elements);
  }
  if (2 * largest > static_cast<double>(kMaxScratchFloats))
    return ctx.fail("intermediate results would exceed the scratch limit");
  size_t half = static_cast<size_t>(largest);
  float *scratch = passes.size() > 1 ? ctx.scratchFloats(2 * half) : nullptr;
  shape = in.shape;
  const float *src = in.as<const float>();
  for (size_t p = 0; p < passes.size(); ++p) {
    size_t axis = passes[p];
    bool last = p + 1 == passes.size();
    float *dst = last ? out.as<float>() : scratch + (p % 2) * half;
    applyFilter(src, dst, shape, axis, out.shape[axis], filters[axis],
                config.extrapolation);
    shape[axis] = out.shape[axis];
    src = dst;
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
