//===- ConvTranspose.cpp - 2-d transposed convolution (f32) ---------------===//
//
// Scatter form: every input element adds its weighted kernel window into
// the output (the adjoint of conv2d). Output starts as the bias (or 0).
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include "strata/Support/WindowExtent.h"

#include <algorithm>

namespace strata::runtime::kernels {

namespace {

/// A transposed convolution's geometry, checked against its operands.
struct ConvTransposeState {
  int64_t n, c, h, w, kh, kw, m, perGroupOut, group, oh, ow;
  WindowParams p;
};

Result<ConvTransposeState> prepareConvTranspose(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 3, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[1], &out = ctx.outs[0];
  if (in.rank() != 4 || weight.rank() != 4 || out.rank() != 4)
    return ctx.fail("takes NCHW input, IOHW weight and NCHW result");
  STRATA_KERNEL_ASSIGN(p, readWindowParams(ctx.params));
  STRATA_KERNEL_ASSIGN(outputPadding, ctx.params.requireInts("output_padding"));
  STRATA_KERNEL_ASSIGN(group, ctx.params.requireInt("group"));
  ConvTransposeState st;
  st.p = p;
  st.n = in.shape[0], st.c = in.shape[1], st.h = in.shape[2],
  st.w = in.shape[3];
  st.kh = weight.shape[2], st.kw = weight.shape[3];
  if (group < 1 || st.c % group != 0 || weight.shape[0] != st.c ||
      outputPadding.size() != 2)
    return ctx.fail("group " + std::to_string(group) + " does not fit input " +
                    in.typeString() + " and weight " + weight.typeString());
  st.group = group;
  st.perGroupOut = weight.shape[1], st.m = st.perGroupOut * group;
  std::optional<int64_t> oh = transposedWindowExtent(
      st.h, st.kh, p.strideH, p.dilH, p.padT, p.padB, outputPadding[0]);
  std::optional<int64_t> ow = transposedWindowExtent(
      st.w, st.kw, p.strideW, p.dilW, p.padL, p.padR, outputPadding[1]);
  if (!oh || !ow || out.shape != std::vector<int64_t>{st.n, st.m, *oh, *ow})
    return ctx.fail("result " + out.typeString() + " does not match input " +
                    in.typeString() + " and weight " + weight.typeString());
  st.oh = *oh, st.ow = *ow;
  if (ctx.ins.size() == 3 && ctx.ins[2].shape != std::vector<int64_t>{st.m})
    return ctx.fail("bias " + ctx.ins[2].typeString() + " must have shape [" +
                    std::to_string(st.m) + "]");
  return st;
}

Error executeConvTranspose(const ConvTransposeState &st, KernelIO &io) {
  const TensorView &in = io.ins[0], &weight = io.ins[1], &out = io.outs[0];
  int64_t n = st.n, c = st.c, h = st.h, w = st.w, kh = st.kh, kw = st.kw;
  int64_t m = st.m, perGroupOut = st.perGroupOut, group = st.group;
  int64_t oh = st.oh, ow = st.ow, sh = st.p.strideH, sw = st.p.strideW;
  int64_t dh = st.p.dilH, dw = st.p.dilW, padT = st.p.padT, padL = st.p.padL;
  const float *x = in.as<float>(), *wt = weight.as<float>();
  float *y = out.as<float>();
  const float *bias = io.ins.size() == 3 ? io.ins[2].as<float>() : nullptr;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      std::fill_n(y + (b * m + o) * oh * ow, oh * ow, bias ? bias[o] : 0.0f);
  int64_t perGroupIn = c / group;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ic = 0; ic < c; ++ic) {
      int64_t g = ic / perGroupIn;
      const float *plane = x + (b * c + ic) * h * w;
      for (int64_t oc = 0; oc < perGroupOut; ++oc) {
        const float *kernel = wt + (ic * perGroupOut + oc) * kh * kw;
        float *target = y + (b * m + g * perGroupOut + oc) * oh * ow;
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j) {
            float v = plane[i * w + j];
            for (int64_t p = 0; p < kh; ++p) {
              int64_t row = i * sh - padT + p * dh;
              if (row < 0 || row >= oh)
                continue;
              for (int64_t q = 0; q < kw; ++q) {
                int64_t col = j * sw - padL + q * dw;
                if (col >= 0 && col < ow)
                  target[row * ow + col] += v * kernel[p * kw + q];
              }
            }
          }
      }
    }
  return Error::success();
}

} // namespace

KernelEntry convTranspose2dKernel() {
  return typedKernel<ConvTransposeState, prepareConvTranspose,
                     executeConvTranspose>();
}

} // namespace strata::runtime::kernels
