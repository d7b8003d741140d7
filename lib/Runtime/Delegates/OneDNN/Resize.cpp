//===- Resize.cpp - ONNX Resize over H and W, in the layout it has --------===//
//
// oneDNN's resampling has one coordinate rule per algorithm (half-pixel
// linear, its own nearest rounding), where ONNX exporters write any of
// seven transformation modes and four roundings; a segmentation or line
// detection decoder upsamples between convolutions that keep their
// activations blocked. The delegate's own kernel resizes a 4-d tensor's H
// and W with the portable kernel's per-axis filters (ResizeFilter.h:
// every mode, transform and rounding), reading and writing the layout the
// tensor already has (nChw16c, nChw8c, nhwc or nchw), so that no reorder
// and no partition boundary surrounds it. Each result pixel is the
// weighted sum of its taps' channel vectors, accumulated in f32.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "strata/Runtime/ResizeFilter.h"

#include <cmath>
#include <memory>

namespace strata::runtime::onednn {

using dnnl::memory;

namespace {

/// One axis' nonzero taps: output x reads count[x] (index, weight) pairs
/// from position x * width. Zero weights are dropped so that a nearest
/// resize copies exactly (0 * inf would be NaN).
struct AxisTaps {
  int64_t width = 0;
  std::vector<int64_t> count, index;
  std::vector<float> weight;
};

AxisTaps compact(const ResizeAxisFilter &filter, int64_t outN) {
  AxisTaps taps;
  taps.width = filter.taps;
  taps.count.assign(outN, 0);
  taps.index.assign(outN * filter.taps, 0);
  taps.weight.assign(outN * filter.taps, 0.f);
  for (int64_t x = 0; x < outN; ++x) {
    int64_t n = 0;
    for (int64_t t = 0; t < filter.taps; ++t) {
      double w = filter.weight[x * filter.taps + t];
      if (w == 0)
        continue;
      taps.index[x * taps.width + n] = filter.index[x * filter.taps + t];
      taps.weight[x * taps.width + n] = static_cast<float>(w);
      ++n;
    }
    taps.count[x] = n;
  }
  return taps;
}

/// A resize of `planes` planes of [H, W] pixels of `lanes` contiguous
/// channels each (nChw16c: a block of 16 channels; nhwc: all of them;
/// nchw: one).
struct ResizePlan {
  int64_t planes = 0, lanes = 0, inH = 0, inW = 0, outH = 0, outW = 0;
  AxisTaps rows, cols;
};

template <int64_t kLanes>
void resizeRow(const ResizePlan &p, const float *in, float *out, int64_t oy,
               int64_t lanesAtRun) {
  const int64_t lanes = kLanes ? kLanes : lanesAtRun;
  const int64_t *yIndex = &p.rows.index[oy * p.rows.width];
  const float *yWeight = &p.rows.weight[oy * p.rows.width];
  int64_t yCount = p.rows.count[oy];
  float *dst = out + oy * p.outW * lanes;
  for (int64_t ox = 0; ox < p.outW; ++ox) {
    const int64_t *xIndex = &p.cols.index[ox * p.cols.width];
    const float *xWeight = &p.cols.weight[ox * p.cols.width];
    int64_t xCount = p.cols.count[ox];
    float *y = dst + ox * lanes;
    for (int64_t v = 0; v < lanes; ++v)
      y[v] = 0.f;
    for (int64_t t = 0; t < yCount; ++t) {
      const float *row = in + yIndex[t] * p.inW * lanes;
      for (int64_t s = 0; s < xCount; ++s) {
        const float *x = row + xIndex[s] * lanes;
        float w = yWeight[t] * xWeight[s];
        for (int64_t v = 0; v < lanes; ++v)
          y[v] += w * x[v];
      }
    }
  }
}

void runResize(const ResizePlan &p, const float *in, float *out) {
  int64_t rows = p.planes * p.outH;
  bool parallel = rows > 1 && rows * p.outW * p.lanes >= (1 << 16);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t plane = r / p.outH, oy = r % p.outH;
    const float *src = in + plane * p.inH * p.inW * p.lanes;
    float *dst = out + plane * p.outH * p.outW * p.lanes;
    if (p.lanes == 16)
      resizeRow<16>(p, src, dst, oy, 16);
    else if (p.lanes == 8)
      resizeRow<8>(p, src, dst, oy, 8);
    else
      resizeRow<0>(p, src, dst, oy, p.lanes);
  }
}

} // namespace

Error GraphBuilder::buildResize(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  const fbs::ResizeParams *params = op.resize();
  if (!params || !params->mode() || !params->coordinate_transformation_mode() ||
      !params->nearest_mode() || !params->scales() ||
      params->scales()->size() != 2)
    return fail("resize needs its mode, transformation, rounding and the "
                "scales of H and W");
  Dims in = dimsOf(src), res = dimsOf(dst);
  if (in.size() != 4 || res.size() != 4 || in[0] != res[0] ||
      in[1] != res[1] || typeOf(src) != memory::data_type::f32 ||
      typeOf(dst) != memory::data_type::f32)
    return fail("resize takes a 4-d f32 tensor and resizes only H and W");
  ResizeConfig config;
  std::string message;
  if (!parseResizeNames(params->mode()->str(),
                        params->coordinate_transformation_mode()->str(),
                        params->nearest_mode()->str(), config, message))
    return fail("resize: " + message);
  if (config.transform == ResizeTransform::TfCropAndResize)
    return fail("resize: tf_crop_and_resize is not supported");
  config.cubicA = params->cubic_coeff_a();
  config.excludeOutside = params->exclude_outside();
  auto plan = std::make_shared<ResizePlan>();
  plan->inH = in[2];
  plan->inW = in[3];
  plan->outH = res[2];
  plan->outW = res[3];
  for (int axis = 0; axis < 2; ++axis) {
    double scale = params->scales()->Get(axis);
    int64_t from = in[2 + axis], to = res[2 + axis];
    if (!(scale > 0) || !std::isfinite(scale) ||
        std::abs(static_cast<double>(to) - scale * static_cast<double>(from)) >=
            1.0 + 1e-6)
      return fail("resize: scale " + std::to_string(scale) +
                  " does not map extent " + std::to_string(from) + " to " +
                  std::to_string(to));
    ResizeAxisFilter filter;
    if (from == 0 || !buildResizeFilter(config, from, to, scale, nullptr,
                                        filter, message))
      return fail("resize: " + (from == 0 ? "empty axis" : message));
    (axis == 0 ? plan->rows : plan->cols) = compact(filter, to);
  }
  // The layout the tensor has, if the kernel reads it; else channels-last.
  STRATA_ASSIGN_OR_RETURN(Placement placed, placement(src));
  memory::format_tag tag = memory::format_tag::nhwc;
  for (memory::format_tag t :
       {memory::format_tag::nChw16c, memory::format_tag::nChw8c,
        memory::format_tag::nhwc, memory::format_tag::nchw})
    if (placed.desc == Desc(in, memory::data_type::f32, t)) {
      tag = t;
      break;
    }
  Desc srcDesc(in, memory::data_type::f32, tag),
      dstDesc(res, memory::data_type::f32, tag);
  STRATA_ASSIGN_OR_RETURN(Placement from, as(src, srcDesc));
  int64_t block = tag == memory::format_tag::nChw16c  ? 16
                  : tag == memory::format_tag::nChw8c ? 8
                                                      : 0;
  if (block) {
    plan->lanes = block;
    plan->planes = in[0] * ((in[1] + block - 1) / block);
  } else if (tag == memory::format_tag::nhwc) {
    plan->lanes = in[1];
    plan->planes = in[0];
  } else {
    plan->lanes = 1;
    plan->planes = in[0] * in[1];
  }
  Placement o = define(dst, dstDesc);
  addKernelStep(
      "strata:resize",
      [plan](const std::unordered_map<int, memory> &args) {
        runResize(*plan, floatsOf(args, DNNL_ARG_SRC),
                  floatsOf(args, DNNL_ARG_DST));
      },
      {{DNNL_ARG_SRC, addMem(from.desc, from.buffer)},
       {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
      0);
  return Error::success();
}

} // namespace strata::runtime::onednn
