//===- DeformConv.cpp - 2-d deformable convolution (f32) ------------------===//
//
// ONNX DeformConv as torchvision and ONNX Runtime compute it: per image, the
// columns of an im2col whose every tap samples the input bilinearly at its
// own shifted point (zero outside the image, each of the four neighbours
// that lies outside contributing zero), scaled by the tap's mask, then one
// GEMM per group with the weight and the bias added.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

namespace strata::runtime::kernels {

namespace {

/// Where a bilinear sample reads: for each (tap, point) of an offset group,
/// the index of its top-left neighbour in a plane padded with zeros (a ring
/// around the image and one more row below: (h + 3) x (w + 2), so that a
/// neighbour just outside the image reads 0; the others are 1, `pitch` and
/// `pitch` + 1 further) and the four neighbours' weights with the tap's
/// mask folded in. A point that is not within (-1, h) x (-1, w) (NaN
/// included) samples 0: its weights are 0 (times the mask) on the bottom
/// rows' zeros. The same for every channel of the group, so found once and
/// then gathered per channel.
struct SamplePlan {
  int32_t pitch = 0, zeros = 0;
  std::vector<int32_t> index;
  std::vector<float> weight[4];

  SamplePlan(int64_t h, int64_t w, size_t n)
      : pitch(static_cast<int32_t>(w + 2)),
        zeros(static_cast<int32_t>((h + 1) * (w + 2))), index(n) {
    for (int q = 0; q < 4; ++q)
      weight[q].resize(n);
  }

  void set(size_t at, int64_t h, int64_t w, float y, float x, float mask) {
    if (!(y > -1.0f && y < static_cast<float>(h) && x > -1.0f &&
          x < static_cast<float>(w))) {
      index[at] = zeros;
      for (int q = 0; q < 4; ++q)
        weight[q][at] = 0.0f * mask;
      return;
    }
    float fy = std::floor(y), fx = std::floor(x);
    int64_t y0 = static_cast<int64_t>(fy) + 1,
            x0 = static_cast<int64_t>(fx) + 1;
    float ly = y - fy, lx = x - fx, hy = 1.0f - ly, hx = 1.0f - lx;
    index[at] = static_cast<int32_t>(y0 * pitch + x0);
    weight[0][at] = hy * hx * mask;
    weight[1][at] = hy * lx * mask;
    weight[2][at] = ly * hx * mask;
    weight[3][at] = ly * lx * mask;
  }
};

/// col[i] = the plan's sample of `padded` at entries [from, from + n).
/// Restrict pointers, so that GCC vectorises the loop with gathers.
STRATA_GEMM_CLONES void gatherSamples(const SamplePlan &plan, size_t from,
                                      int64_t n, const float *padded,
                                      float *col) {
  const int32_t *__restrict at = plan.index.data() + from;
  const float *__restrict w0 = plan.weight[0].data() + from;
  const float *__restrict w1 = plan.weight[1].data() + from;
  const float *__restrict w2 = plan.weight[2].data() + from;
  const float *__restrict w3 = plan.weight[3].data() + from;
  const float *__restrict top = padded;
  const float *__restrict below = padded + plan.pitch;
  float *__restrict out = col;
  for (int64_t p = 0; p < n; ++p) {
    int32_t i = at[p];
    out[p] = w0[p] * top[i] + w1[p] * top[i + 1] + w2[p] * below[i] +
             w3[p] * below[i + 1];
  }
}

/// A deformable convolution's geometry, checked against its operands.
struct DeformConvState {
  int64_t n, c, h, w, m, kh, kw, oh, ow, group, offsetGroup;
  WindowParams p;
};

Result<DeformConvState> prepareDeformConv(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 4, 5, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[1];
  const TensorView &biasView = ctx.ins[2], &offsetView = ctx.ins[3];
  const TensorView &out = ctx.outs[0];
  if (in.rank() != 4 || weight.rank() != 4 || out.rank() != 4)
    return ctx.fail("takes NCHW input, OIHW weight and NCHW result");
  STRATA_KERNEL_ASSIGN(p, readWindowParams(ctx.params));
  STRATA_KERNEL_ASSIGN(group, ctx.params.requireInt("group"));
  STRATA_KERNEL_ASSIGN(offsetGroup, ctx.params.requireInt("offset_group"));
  DeformConvState st{in.shape[0],
                     in.shape[1],
                     in.shape[2],
                     in.shape[3],
                     weight.shape[0],
                     weight.shape[2],
                     weight.shape[3],
                     0,
                     0,
                     group,
                     offsetGroup,
                     p};
  int64_t c = st.c, m = st.m, n = st.n;
  if (group < 1 || offsetGroup < 1 || c % group != 0 || m % group != 0 ||
      c % offsetGroup != 0 || weight.shape[1] * group != c)
    return ctx.fail("group " + std::to_string(group) + " and offset_group " +
                    std::to_string(offsetGroup) + " do not fit input " +
                    in.typeString() + " and weight " + weight.typeString());
  st.oh = windowOutExtent(st.h, st.kh, p.strideH, p.dilH, p.padT, p.padB);
  st.ow = windowOutExtent(st.w, st.kw, p.strideW, p.dilW, p.padL, p.padR);
  int64_t taps = st.kh * st.kw, oh = st.oh, ow = st.ow;
  if (oh < 0 || ow < 0 || out.shape != std::vector<int64_t>{n, m, oh, ow} ||
      biasView.shape != std::vector<int64_t>{m} ||
      offsetView.shape !=
          std::vector<int64_t>{n, offsetGroup * 2 * taps, oh, ow} ||
      (ctx.ins.size() == 5 &&
       ctx.ins[4].shape != std::vector<int64_t>{n, offsetGroup * taps, oh, ow}))
    return ctx.fail("result " + out.typeString() + ", bias " +
                    biasView.typeString() + " or offset " +
                    offsetView.typeString() + " do not match input " +
                    in.typeString() + " and weight " + weight.typeString());
  // The sampling plan's 32-bit indices into a padded input plane.
  if (static_cast<double>(st.h + 3) * static_cast<double>(st.w + 2) >
      static_cast<double>(INT32_MAX))
    return ctx.fail("an input plane of " + in.typeString() +
                    " is over 2^31 elements");
  // The sampled columns: (C * KH * KW) x (oH * oW) floats per image.
  double columnFloats = static_cast<double>(c) * static_cast<double>(taps) *
                        static_cast<double>(oh * ow);
  if (columnFloats > static_cast<double>(kMaxScratchFloats))
    return ctx.fail("the sampled columns of " + out.typeString() +
                    " would exceed 2^32 floats");
  return st;
}

Error executeDeformConv(const DeformConvState &st, KernelIO &io) {
  const TensorView &in = io.ins[0], &weight = io.ins[1];
  const TensorView &biasView = io.ins[2], &offsetView = io.ins[3];
  const TensorView &out = io.outs[0];
  if (out.numel() == 0)
    return Error::success();
  int64_t n = st.n, c = st.c, h = st.h, w = st.w, m = st.m, kh = st.kh,
          kw = st.kw, oh = st.oh, ow = st.ow, group = st.group,
          offsetGroup = st.offsetGroup;
  int64_t sh = st.p.strideH, sw = st.p.strideW, dh = st.p.dilH, dw = st.p.dilW,
          padT = st.p.padT, padL = st.p.padL;
  int64_t taps = kh * kw, points = oh * ow;
  const float *x = in.as<float>(), *wt = weight.as<float>();
  const float *bias = biasView.as<float>(), *offsets = offsetView.as<float>();
  const float *mask = io.ins.size() == 5 ? io.ins[4].as<float>() : nullptr;
  float *y = out.as<float>();
  int64_t channelsPerOffsetGroup = c / offsetGroup;
  int64_t cg = c / group, mg = m / group, rows = cg * taps;
  float *columns = io.scratchFloats(static_cast<size_t>(c * taps) * points);
  SamplePlan plan(h, w, static_cast<size_t>(taps * points));
  std::vector<float> padded(static_cast<size_t>((h + 3) * (w + 2)), 0.0f);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t og = 0; og < offsetGroup; ++og) {
      const float *off = offsets + (b * offsetGroup + og) * 2 * taps * points;
      const float *mk =
          mask ? mask + (b * offsetGroup + og) * taps * points : nullptr;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          int64_t k = i * kw + j;
          const float *dy = off + 2 * k * points, *dx = dy + points;
          for (int64_t py = 0; py < oh; ++py)
            for (int64_t px = 0; px < ow; ++px) {
              int64_t p = py * ow + px;
              float sy = static_cast<float>(py * sh - padT + i * dh) + dy[p];
              float sx = static_cast<float>(px * sw - padL + j * dw) + dx[p];
              plan.set(static_cast<size_t>(k * points + p), h, w, sy, sx,
                       mk ? mk[k * points + p] : 1.0f);
            }
        }
      for (int64_t ch = og * channelsPerOffsetGroup;
           ch < (og + 1) * channelsPerOffsetGroup; ++ch) {
        const float *plane = x + (b * c + ch) * h * w;
        for (int64_t r = 0; r < h; ++r)
          std::copy(plane + r * w, plane + (r + 1) * w,
                    padded.data() + (r + 1) * (w + 2) + 1);
        gatherSamples(plan, 0, taps * points, padded.data(),
                      columns + ch * taps * points);
      }
    }
    for (int64_t gi = 0; gi < group; ++gi) {
      float *yg = y + (b * m + gi * mg) * points;
      tiledGemm(mg, points, rows, wt + gi * mg * rows, rows,
                columns + gi * rows * points, points, yg, points);
      addChannelBias(yg, bias + gi * mg, mg, points);
    }
  }
  return Error::success();
}

} // namespace

KernelEntry deformConv2dKernel() {
  return typedKernel<DeformConvState, prepareDeformConv, executeDeformConv>();
}

} // namespace strata::runtime::kernels
