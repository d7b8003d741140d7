//===- Pooling.cpp - max_pool2d (numeric types) and avg_pool2d (f32), NCHW ===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::runtime::kernels {

namespace {

/// A pooling window and its extents, decoded and checked at load.
struct PoolState {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, dh, dw, padT, padL, padB,
      padR;
  /// avg_pool2d's count_include_pad.
  bool countIncludePad = false;
};

/// Checks the operands (f32 unless `anyNumeric`, which admits every type
/// dispatchNumeric knows, input and result alike) and reads the window.
Result<PoolState> preparePool(const KernelContext &ctx, bool anyNumeric) {
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
  STRATA_KERNEL_ASSIGN(kernel, getPairParam(ctx.params, "kernel"));
  STRATA_KERNEL_ASSIGN(window, readWindowParams(ctx.params));
  STRATA_KERNEL_ASSIGN(ceilMode, ctx.params.requireBool("ceil_mode"));
  PoolState g;
  g.planes = in.shape[0] * in.shape[1];
  g.h = in.shape[2], g.w = in.shape[3], g.oh = out.shape[2],
  g.ow = out.shape[3];
  std::tie(g.kh, g.kw) = kernel;
  g.sh = window.strideH, g.sw = window.strideW;
  g.dh = window.dilH, g.dw = window.dilW;
  g.padT = window.padT, g.padL = window.padL, g.padB = window.padB,
  g.padR = window.padR;
  if (windowOutExtent(g.h, g.kh, g.sh, g.dh, g.padT, g.padB, ceilMode) !=
          g.oh ||
      windowOutExtent(g.w, g.kw, g.sw, g.dw, g.padL, g.padR, ceilMode) != g.ow)
    return ctx.fail("result " + out.typeString() +
                    " does not match pooling " + in.typeString() +
                    (ceilMode ? " (ceil mode)" : " (floor mode)"));
  return g;
}

Result<PoolState> prepareMaxPool(const KernelContext &ctx) {
  return preparePool(ctx, /*anyNumeric=*/true);
}

Result<PoolState> prepareAvgPool(const KernelContext &ctx) {
  Result<PoolState> g = preparePool(ctx, /*anyNumeric=*/false);
  if (!g.ok())
    return g;
  STRATA_KERNEL_ASSIGN(includePad, ctx.params.requireBool("count_include_pad"));
  g->countIncludePad = includePad;
  return g;
}

Error executeMaxPool(const PoolState &g, KernelIO &io) {
  dispatchNumeric(io.ins[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    // A window entirely in the padding yields the type's lowest value.
    constexpr T lowest = std::numeric_limits<T>::has_infinity
                             ? -std::numeric_limits<T>::infinity()
                             : std::numeric_limits<T>::lowest();
    const T *x = io.ins[0].as<const T>();
    T *y = io.outs[0].as<T>();
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

Error executeAvgPool(const PoolState &g, KernelIO &io) {
  const float *x = io.ins[0].as<float>();
  float *y = io.outs[0].as<float>();
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
        int64_t divisor = g.countIncludePad ? padded : count;
        yp[oy * g.ow + ox] = divisor ? sum / static_cast<float>(divisor) : 0.0f;
      }
  }
  return Error::success();
}

} // namespace

KernelEntry maxPool2dKernel() {
  return typedKernel<PoolState, prepareMaxPool, executeMaxPool>();
}

KernelEntry avgPool2dKernel() {
  return typedKernel<PoolState, prepareAvgPool, executeAvgPool>();
}

} // namespace strata::runtime::kernels
