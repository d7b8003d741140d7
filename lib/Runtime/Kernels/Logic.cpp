//===- Logic.cpp - comparison, logical and select kernels -----------------===//
//
// Comparisons read any numeric or bool type and write bool (one byte per
// element); logical ops read and write bool; select picks per element
// between two tensors of any type. All broadcast by the edge contract.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <cstring>

namespace strata::runtime::kernels {

namespace {

/// Calls `fn(T{})` for numeric types and bool.
template <typename Fn> bool dispatchComparable(DType dtype, Fn &&fn) {
  if (dtype == DType::Bool) {
    fn(bool{});
    return true;
  }
  return dispatchNumeric(dtype, fn);
}

template <typename F> Error compare(KernelContext &ctx, F f) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  if (a.dtype != b.dtype || out.dtype != DType::Bool ||
      !dispatchComparable(a.dtype, [](auto) {}))
    return ctx.fail("compares two operands of one numeric type into bool, "
                    "got " +
                    a.typeString() + ", " + b.typeString() + " -> " +
                    out.typeString());
  if (!broadcastsTo(ctx.ins, out))
    return ctx.fail("operands do not broadcast to " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  bool *y = out.as<bool>();
  dispatchComparable(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.as<T>(), *pb = b.as<T>();
    forEachBroadcast(ctx.ins, out, [&](int64_t i, const int64_t *offsets) {
      y[i] = f(pa[offsets[0]], pb[offsets[1]]);
    });
  });
  return Error::success();
}

template <typename F> Error logical(KernelContext &ctx, F f) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  if (a.dtype != DType::Bool || b.dtype != DType::Bool ||
      out.dtype != DType::Bool)
    return ctx.fail("takes and writes bool, got " + a.typeString() + ", " +
                    b.typeString() + " -> " + out.typeString());
  if (!broadcastsTo(ctx.ins, out))
    return ctx.fail("operands do not broadcast to " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  const bool *pa = a.as<bool>(), *pb = b.as<bool>();
  bool *y = out.as<bool>();
  forEachBroadcast(ctx.ins, out, [&](int64_t i, const int64_t *offsets) {
    y[i] = f(pa[offsets[0]], pb[offsets[1]]);
  });
  return Error::success();
}

} // namespace

Error equalKernel(KernelContext &ctx) {
  return compare(ctx, [](auto a, auto b) { return a == b; });
}
Error lessKernel(KernelContext &ctx) {
  return compare(ctx, [](auto a, auto b) { return a < b; });
}
Error lessEqualKernel(KernelContext &ctx) {
  return compare(ctx, [](auto a, auto b) { return a <= b; });
}
Error logicalAndKernel(KernelContext &ctx) {
  return logical(ctx, [](bool a, bool b) { return a && b; });
}
Error logicalOrKernel(KernelContext &ctx) {
  return logical(ctx, [](bool a, bool b) { return a || b; });
}
Error logicalXorKernel(KernelContext &ctx) {
  return logical(ctx, [](bool a, bool b) { return a != b; });
}

Error logicalNotKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (in.dtype != DType::Bool || out.dtype != DType::Bool)
    return ctx.fail("takes and writes bool, got " + in.typeString() + " -> " +
                    out.typeString());
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  if (ctx.validateOnly)
    return Error::success();
  const bool *x = in.as<bool>();
  bool *y = out.as<bool>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    y[i] = !x[i];
  return Error::success();
}

Error selectKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &c = ctx.ins[0], &a = ctx.ins[1], &b = ctx.ins[2];
  const TensorView &out = ctx.outs[0];
  if (c.dtype != DType::Bool || a.dtype != out.dtype || b.dtype != out.dtype)
    return ctx.fail("takes a bool condition and two operands of the result's "
                    "type, got " +
                    c.typeString() + ", " + a.typeString() + ", " +
                    b.typeString() + " -> " + out.typeString());
  if (!broadcastsTo(ctx.ins, out))
    return ctx.fail("operands do not broadcast to " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  // Copy whole elements by size: select never interprets the values.
  size_t size = dtypeSize(out.dtype);
  const bool *pc = c.as<bool>();
  const char *pa = a.as<const char>(), *pb = b.as<const char>();
  char *y = out.as<char>();
  forEachBroadcast(ctx.ins, out, [&](int64_t i, const int64_t *offsets) {
    const char *from =
        pc[offsets[0]] ? pa + offsets[1] * size : pb + offsets[2] * size;
    std::memcpy(y + i * size, from, size);
  });
  return Error::success();
}

} // namespace strata::runtime::kernels
