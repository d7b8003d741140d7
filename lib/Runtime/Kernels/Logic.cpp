//===- Logic.cpp - comparison, logical and select kernels -----------------===//
//
// Comparisons read any numeric or bool type and write bool (one byte per
// element); logical ops read and write bool; select picks per element
// between two tensors of any type. All broadcast by the edge contract.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <cstdint>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

/// y[i] = f(a[SA ? i : 0], b[SB ? i : 0]) for i < n, as a byte.
template <bool SA, bool SB, typename T, typename F>
STRATA_GEMM_CLONES void binaryRow(const T *a, const T *b, uint8_t *y,
                                  int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<uint8_t>(f(a[SA ? i : 0], b[SB ? i : 0]));
}

/// y[i] = c[i] ? a[i] : b[i] over elements of one size (an unsigned
/// integer of that size), each operand walking the row or repeating
/// element 0. Branch-free, so it vectorises.
template <bool SC, bool SA, bool SB, typename U>
STRATA_GEMM_CLONES void selectRow(const uint8_t *c, const U *a, const U *b,
                                  U *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    U mask = static_cast<U>(0) - static_cast<U>(c[SC ? i : 0] != 0);
    y[i] = static_cast<U>((a[SA ? i : 0] & mask) | (b[SB ? i : 0] & ~mask));
  }
}

/// y[i] = !x[i] over bytes (any non-zero byte is true).
STRATA_GEMM_CLONES void notRow(const uint8_t *x, uint8_t *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] == 0 ? 1 : 0;
}

/// Select over `U`-sized elements by rows of the broadcast.
template <typename U>
void selectRows(const std::vector<TensorView> &ins, const TensorView &out) {
  const uint8_t *pc = ins[0].as<uint8_t>();
  const U *pa = ins[1].as<U>(), *pb = ins[2].as<U>();
  U *y = out.as<U>();
  forEachBroadcastRow(ins, out,
                      [&](int64_t base, const int64_t *offsets, int64_t n,
                          const int64_t *steps) {
                        const uint8_t *c = pc + offsets[0];
                        const U *a = pa + offsets[1], *b = pb + offsets[2];
                        withSteps(steps + 1, [&](auto sa, auto sb) {
                          constexpr bool A = decltype(sa)::value;
                          constexpr bool B = decltype(sb)::value;
                          if (steps[0])
                            selectRow<true, A, B>(c, a, b, y + base, n);
                          else
                            selectRow<false, A, B>(c, a, b, y + base, n);
                        });
                      });
}

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
  uint8_t *y = out.as<uint8_t>();
  dispatchComparable(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.as<T>(), *pb = b.as<T>();
    forEachBroadcastRow(
        ctx.ins, out,
        [&](int64_t base, const int64_t *offsets, int64_t n,
            const int64_t *steps) {
          withSteps(steps, [&](auto sa, auto sb) {
            binaryRow<decltype(sa)::value, decltype(sb)::value>(
                pa + offsets[0], pb + offsets[1], y + base, n, f);
          });
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
  // Bytes, read as non-zero: a stored bool is one byte.
  const uint8_t *pa = a.as<uint8_t>(), *pb = b.as<uint8_t>();
  uint8_t *y = out.as<uint8_t>();
  auto g = [f](uint8_t x, uint8_t z) { return f(x != 0, z != 0); };
  forEachBroadcastRow(ctx.ins, out,
                      [&](int64_t base, const int64_t *offsets, int64_t n,
                          const int64_t *steps) {
                        withSteps(steps, [&](auto sa, auto sb) {
                          binaryRow<decltype(sa)::value, decltype(sb)::value>(
                              pa + offsets[0], pb + offsets[1], y + base, n, g);
                        });
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
  notRow(in.as<const uint8_t>(), out.as<uint8_t>(), out.numel());
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
  if (out.numel() == 0)
    return Error::success();
  switch (size) {
  case 1:
    selectRows<uint8_t>(ctx.ins, out);
    return Error::success();
  case 2:
    selectRows<uint16_t>(ctx.ins, out);
    return Error::success();
  case 4:
    selectRows<uint32_t>(ctx.ins, out);
    return Error::success();
  case 8:
    selectRows<uint64_t>(ctx.ins, out);
    return Error::success();
  default:
    break;
  }
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
