//===- Pooling.cpp - max_pool2d (numeric types) and avg_pool2d (f32), NCHW ===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::runtime::kernels {

namespace {

struct PoolGeometry {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, dh, dw, padT, padL, padB,
      padR;
};

/// Output extent of one spatial dimension, floor or ceil mode (ceil mode
/// drops a last window that would start in the trailing padding, as ONNX
/// and PyTorch do).
int64_t pooledExtent(int64_t in, int64_t padBegin, int64_t padEnd,
                     int64_t eff, int64_t stride, bool ceilMode) {
  int64_t span = in + padBegin + padEnd - eff;
  if (span < 0)
    return -1;
  if (!ceilMode)
    return span / stride + 1;
  int64_t out = (span + stride - 1) / stride + 1;
  if ((out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

/// Checks the operands (f32 unless `anyNumeric`, which admits every type
/// dispatchNumeric knows, input and result alike) and reads the window.
Error poolGeometry(KernelContext &ctx, PoolGeometry &g, bool anyNumeric) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (!anyNumeric)
    STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  else if (in.dtype != out.dtype || !dispatchNumeric(in.dtype, [](auto) {}))
    return ctx.fail("takes and writes one numeric type, got " +
                    in.typeString() + " -> " + out.typeString());
  if (in.rank() != 4 || out.rank() != 4 || in.shape[0] != out.shape[0] ||
      in.shape[1] != out.shape[1])
    return ctx.fail("input " + in.typeString() + " and result " +
                    out.typeString() + " must be NCHW with equal N and C");
  if (!ctx.params.has("kernel"))
    return ctx.fail("parameter 'kernel' is missing");
  STRATA_KERNEL_ASSIGN(kernel, getPairParam(ctx.params, "kernel", 1));
  STRATA_KERNEL_ASSIGN(strides, getPairParam(ctx.params, "strides", 1));
  STRATA_KERNEL_ASSIGN(dilations, getPairParam(ctx.params, "dilations", 1));
  STRATA_KERNEL_ASSIGN(pads, getPadsParam(ctx.params));
  STRATA_KERNEL_ASSIGN(ceilMode, ctx.params.getBool("ceil_mode", false));
  g.planes = in.shape[0] * in.shape[1];
  g.h = in.shape[2], g.w = in.shape[3], g.oh = out.shape[2],
  g.ow = out.shape[3];
  std::tie(g.kh, g.kw) = kernel;
  std::tie(g.sh, g.sw) = strides;
  std::tie(g.dh, g.dw) = dilations;
  g.padT = pads[0], g.padL = pads[1], g.padB = pads[2], g.padR = pads[3];
  int64_t eh = g.dh * (g.kh - 1) + 1, ew = g.dw * (g.kw - 1) + 1;
  if (pooledExtent(g.h, g.padT, g.padB, eh, g.sh, ceilMode) != g.oh ||
      pooledExtent(g.w, g.padL, g.padR, ew, g.sw, ceilMode) != g.ow)
    return ctx.fail("result " + out.typeString() +
                    " does not match pooling " + in.typeString() +
                    (ceilMode ? " (ceil mode)" : " (floor mode)"));
  return Error::success();
}

} // namespace

Error maxPool2dKernel(KernelContext &ctx) {
  PoolGeometry g;
  STRATA_RETURN_IF_ERROR(poolGeometry(ctx, g, /*anyNumeric=*/true));
  if (ctx.validateOnly)
    return Error::success();
  dispatchNumeric(ctx.ins[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    // A window entirely in the padding yields the type's lowest value.
    constexpr T lowest = std::numeric_limits<T>::has_infinity
                             ? -std::numeric_limits<T>::infinity()
                             : std::numeric_limits<T>::lowest();
    const T *x = ctx.ins[0].as<const T>();
    T *y = ctx.outs[0].as<T>();
    for (int64_t p = 0; p < g.planes; ++p) {
      const T *xp = x + p * g.h * g.w;
      T *yp = y + p * g.oh * g.ow;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          T best = lowest;
          int64_t iy0 = oy * g.sh - g.padT, ix0 = ox * g.sw - g.padL;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            int64_t iy = iy0 + ky * g.dh;
            if (iy < 0 || iy >= g.h)
              continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t ix = ix0 + kx * g.dw;
              if (ix >= 0 && ix < g.w)
                best = std::max(best, xp[iy * g.w + ix]);
            }
          }
          yp[oy * g.ow + ox] = best;
        }
    }
  });
  return Error::success();
}

Error avgPool2dKernel(KernelContext &ctx) {
  PoolGeometry g;
  STRATA_RETURN_IF_ERROR(poolGeometry(ctx, g, /*anyNumeric=*/false));
  STRATA_KERNEL_ASSIGN(includePad,
                       ctx.params.getBool("count_include_pad", false));
  if (ctx.validateOnly)
    return Error::success();
  const float *x = ctx.ins[0].as<float>();
  float *y = ctx.outs[0].as<float>();
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *xp = x + p * g.h * g.w;
    float *yp = y + p * g.oh * g.ow;
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        float sum = 0.0f;
        int64_t count = 0, padded = 0;
        int64_t iy0 = oy * g.sh - g.padT, ix0 = ox * g.sw - g.padL;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          int64_t iy = iy0 + ky * g.dh;
          bool rowInPad = iy >= -g.padT && iy < g.h + g.padB;
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            int64_t ix = ix0 + kx * g.dw;
            // Positions in the explicit padding count when
            // count_include_pad; positions past it (ceil mode) never do.
            if (rowInPad && ix >= -g.padL && ix < g.w + g.padR)
              ++padded;
            if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) {
              sum += xp[iy * g.w + ix];
              ++count;
            }
          }
        }
        int64_t divisor = includePad ? padded : count;
        yp[oy * g.ow + ox] = divisor ? sum / static_cast<float>(divisor) : 0.0f;
      }
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
