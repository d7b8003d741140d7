//===- Elementwise.cpp - unary and broadcasting binary f32 kernels --------===//
//
// Binary kernels follow the edge broadcasting contract: both operands have
// the result's rank and every extent equals the result's or is 1. The loops
// walk the result row by row, so the innermost loop is contiguous (or a
// broadcast scalar) and vectorises.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"
#include "VectorMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::runtime::kernels {

namespace {

enum class BinaryOp { Add, Sub, Mul, Div, Pow };

template <BinaryOp Op> inline float apply(float a, float b) {
  if constexpr (Op == BinaryOp::Add)
    return a + b;
  else if constexpr (Op == BinaryOp::Sub)
    return a - b;
  else if constexpr (Op == BinaryOp::Mul)
    return a * b;
  else if constexpr (Op == BinaryOp::Div)
    return a / b;
  else
    return std::pow(a, b);
}

/// out[i] = a[i * sa] op b[i * sb] for i < n (sa, sb are 0 or 1).
template <BinaryOp Op>
void row(const float *a, int64_t sa, const float *b, int64_t sb, float *out,
         int64_t n) {
  if (sa && sb)
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<Op>(a[i], b[i]);
  else if (sa)
    for (int64_t i = 0, bv = 0; i < n; ++i)
      out[i] = apply<Op>(a[i], b[bv]);
  else if (sb)
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<Op>(a[0], b[i]);
  else
    for (int64_t i = 0; i < n; ++i)
      out[i] = apply<Op>(a[0], b[0]);
}

template <BinaryOp Op> Error binary(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  // Other element types take the dtype-generic path (Math.cpp).
  if (!checkAllF32(ctx).ok())
    return genericArithmeticKernel(ctx, static_cast<int>(Op));
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  size_t rank = out.rank();
  if (a.rank() != rank || b.rank() != rank)
    return ctx.fail("operands " + a.typeString() + " and " + b.typeString() +
                    " must have the result's rank " + std::to_string(rank));
  for (size_t i = 0; i < rank; ++i)
    if ((a.shape[i] != out.shape[i] && a.shape[i] != 1) ||
        (b.shape[i] != out.shape[i] && b.shape[i] != 1))
      return ctx.fail("operands " + a.typeString() + " and " +
                      b.typeString() + " do not broadcast to " +
                      out.typeString());
  if (ctx.validateOnly)
    return Error::success();

  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *po = out.as<float>();
  int64_t total = out.numel();
  if (total == 0)
    return Error::success();
  if (a.shape == out.shape && b.shape == out.shape) {
    row<Op>(pa, 1, pb, 1, po, total);
    return Error::success();
  }
  if (rank == 0) {
    po[0] = apply<Op>(pa[0], pb[0]);
    return Error::success();
  }
  std::vector<int64_t> sa = broadcastStridesOf(a.shape);
  std::vector<int64_t> sb = broadcastStridesOf(b.shape);
  int64_t inner = out.shape[rank - 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t base = 0; base < total; base += inner) {
    int64_t offA = 0, offB = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      offA += index[d] * sa[d];
      offB += index[d] * sb[d];
    }
    row<Op>(pa + offA, sa[rank - 1] ? 1 : 0, pb + offB, sb[rank - 1] ? 1 : 0,
            po + base, inner);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
  return Error::success();
}

/// Validates a same-shape unary f32 kernel.
Error checkUnary(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  return checkSameShape(ctx, ctx.ins[0], ctx.outs[0], "input and result");
}

template <typename F> Error unary(KernelContext &ctx, F f) {
  STRATA_RETURN_IF_ERROR(checkUnary(ctx));
  if (ctx.validateOnly)
    return Error::success();
  const float *in = ctx.ins[0].as<float>();
  float *out = ctx.outs[0].as<float>();
  int64_t n = ctx.outs[0].numel();
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(in[i]);
  return Error::success();
}

} // namespace

Error addKernel(KernelContext &ctx) { return binary<BinaryOp::Add>(ctx); }
Error subKernel(KernelContext &ctx) { return binary<BinaryOp::Sub>(ctx); }
Error mulKernel(KernelContext &ctx) { return binary<BinaryOp::Mul>(ctx); }
Error divKernel(KernelContext &ctx) { return binary<BinaryOp::Div>(ctx); }
Error powKernel(KernelContext &ctx) { return binary<BinaryOp::Pow>(ctx); }

Error reluKernel(KernelContext &ctx) {
  return unary(ctx, [](float x) { return x > 0.0f ? x : 0.0f; });
}
Error sigmoidKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkUnary(ctx));
  if (ctx.validateOnly)
    return Error::success();
  const float *x = ctx.ins[0].as<const float>();
  float *y = ctx.outs[0].as<float>();
  // e = exp(-|x|) a block at a time through the vector exp, so exp never
  // overflows; then 1 / (1 + e) for x >= 0 and e / (1 + e) below.
  constexpr int64_t kBlock = 1024;
  float e[kBlock];
  for (int64_t start = 0, n = ctx.outs[0].numel(); start < n;
       start += kBlock) {
    int64_t count = std::min(kBlock, n - start);
    for (int64_t i = 0; i < count; ++i)
      e[i] = -std::fabs(x[start + i]);
    applyFloatFunction(FloatFunction::Exp, e, e, count);
    // One division with a selected numerator: branch-free, so it
    // vectorises (a division on either side of a branch would not).
    for (int64_t i = 0; i < count; ++i)
      y[start + i] = (x[start + i] >= 0 ? 1.0f : e[i]) / (1.0f + e[i]);
  }
  return Error::success();
}
Error tanhKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkUnary(ctx));
  if (!ctx.validateOnly)
    applyFloatFunction(FloatFunction::Tanh, ctx.ins[0].as<const float>(),
                       ctx.outs[0].as<float>(), ctx.outs[0].numel());
  return Error::success();
}
Error expKernel(KernelContext &ctx) {
  // f32 and f64 both go through the generic kernel (vector math for f32).
  return genericExpKernel(ctx);
}
Error sqrtKernel(KernelContext &ctx) {
  return unary(ctx, [](float x) { return std::sqrt(x); });
}
Error negKernel(KernelContext &ctx) {
  return unary(ctx, [](float x) { return -x; });
}
Error absKernel(KernelContext &ctx) {
  return unary(ctx, [](float x) { return std::fabs(x); });
}

Error clipKernel(KernelContext &ctx) {
  STRATA_KERNEL_ASSIGN(lo, ctx.params.getFloat("min", -INFINITY));
  STRATA_KERNEL_ASSIGN(hi, ctx.params.getFloat("max", INFINITY));
  // Clamp to float's range first: converting an out-of-range double is UB.
  auto toFloat = [](double v) {
    constexpr double big = std::numeric_limits<float>::max();
    return std::isnan(v) ? NAN
                         : static_cast<float>(std::min(std::max(v, -big), big));
  };
  float minV = std::isinf(lo) ? static_cast<float>(lo) : toFloat(lo);
  float maxV = std::isinf(hi) ? static_cast<float>(hi) : toFloat(hi);
  return unary(ctx, [minV, maxV](float x) {
    return std::min(std::max(x, minV), maxV);
  });
}

} // namespace strata::runtime::kernels
