//===- ConvTranspose.cpp - 2-d transposed convolution (f32) ---------------===//
//
// Scatter form: every input element adds its weighted kernel window into
// the output (the adjoint of conv2d). Output starts as the bias (or 0).
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>

namespace strata::runtime::kernels {

Error convTranspose2dKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 3, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[1], &out = ctx.outs[0];
  if (in.rank() != 4 || weight.rank() != 4 || out.rank() != 4)
    return ctx.fail("takes NCHW input, IOHW weight and NCHW result");
  STRATA_KERNEL_ASSIGN(strides, getPairParam(ctx.params, "strides", 1));
  STRATA_KERNEL_ASSIGN(dilations, getPairParam(ctx.params, "dilations", 1));
  STRATA_KERNEL_ASSIGN(pads, getPadsParam(ctx.params));
  STRATA_KERNEL_ASSIGN(outputPadding,
                       ctx.params.getInts("output_padding", {0, 0}));
  STRATA_KERNEL_ASSIGN(group, ctx.params.getInt("group", 1));
  int64_t n = in.shape[0], c = in.shape[1], h = in.shape[2], w = in.shape[3];
  int64_t kh = weight.shape[2], kw = weight.shape[3];
  if (group < 1 || c % group != 0 || weight.shape[0] != c ||
      outputPadding.size() != 2)
    return ctx.fail("group " + std::to_string(group) + " does not fit input " +
                    in.typeString() + " and weight " + weight.typeString());
  int64_t perGroupOut = weight.shape[1], m = perGroupOut * group;
  auto [sh, sw] = strides;
  auto [dh, dw] = dilations;
  int64_t oh =
      (h - 1) * sh + (kh - 1) * dh + 1 - pads[0] - pads[2] + outputPadding[0];
  int64_t ow =
      (w - 1) * sw + (kw - 1) * dw + 1 - pads[1] - pads[3] + outputPadding[1];
  if (out.shape != std::vector<int64_t>{n, m, oh, ow})
    return ctx.fail("result " + out.typeString() + " does not match input " +
                    in.typeString() + " and weight " + weight.typeString());
  if (ctx.ins.size() == 3 && ctx.ins[2].shape != std::vector<int64_t>{m})
    return ctx.fail("bias " + ctx.ins[2].typeString() + " must have shape [" +
                    std::to_string(m) + "]");
  if (ctx.validateOnly)
    return Error::success();
  const float *x = in.as<float>(), *wt = weight.as<float>();
  float *y = out.as<float>();
  const float *bias = ctx.ins.size() == 3 ? ctx.ins[2].as<float>() : nullptr;
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
              int64_t row = i * sh - pads[0] + p * dh;
              if (row < 0 || row >= oh)
                continue;
              for (int64_t q = 0; q < kw; ++q) {
                int64_t col = j * sw - pads[1] + q * dw;
                if (col >= 0 && col < ow)
                  target[row * ow + col] += v * kernel[p * kw + q];
              }
            }
          }
      }
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
