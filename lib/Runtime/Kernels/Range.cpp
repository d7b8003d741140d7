//===- Range.cpp - arithmetic sequences of a compiled length --------------===//
//
// `range` computes start + i * delta for a result whose length was fixed at
// compile time. Its operands are run-time scalars, so the kernel checks on
// every call that they describe exactly that many elements
// (max(ceil((limit - start) / delta), 0), as ONNX Range) and fails the call
// otherwise: a program never writes a sequence of the wrong length. With a
// `max_extent` parameter the length depends on the data (a value-dependent
// extent): the result comes at that bound, at most that many elements are
// written, and the result's shape gets the actual length.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

namespace strata::runtime::kernels {

namespace {

/// The ONNX Range element count; std::nullopt when delta is 0 or the count
/// does not fit an int64.
template <typename T>
std::optional<int64_t> rangeCount(T start, T limit, T delta) {
  if (delta == T(0))
    return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    double count =
        std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                  static_cast<double>(delta));
    if (!(count < 9.2e18)) // Also rejects NaN.
      return std::nullopt;
    return count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    // Exact integer ceil division of (limit - start) by delta, in 128 bits
    // (the span of two 64-bit values does not fit 64; a count that does
    // not fit is no valid range).
    __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
    __int128 step = static_cast<__int128>(delta);
    __int128 quotient = span / step;
    if (span % step != 0 && ((span < 0) == (step < 0)))
      ++quotient;
    if (quotient > INT64_MAX)
      return std::nullopt;
    return quotient > 0 ? static_cast<int64_t>(quotient) : 0;
  }
}

template <typename T> std::string scalarText(T value) {
  if constexpr (std::is_floating_point_v<T>)
    return std::to_string(static_cast<double>(value));
  else
    return std::to_string(static_cast<int64_t>(value));
}

} // namespace

Error rangeKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  TensorView &out = ctx.outs[0];
  for (const TensorView &v : ctx.ins)
    if (v.dtype != out.dtype || v.numel() != 1)
      return ctx.fail("takes one-element start, limit and delta of the "
                      "result's type, got " +
                      v.typeString() + " -> " + out.typeString());
  if (out.rank() != 1)
    return ctx.fail("writes a 1-d result, got " + out.typeString());
  // With 'max_extent' the length depends on the data (a limit read at run
  // time): the result comes at that bound and gets the actual length.
  STRATA_KERNEL_ASSIGN(maxExtent, ctx.params.getInt("max_extent", -1));
  bool valueDependent = maxExtent >= 0;
  if (ctx.validateOnly)
    return Error::success();
  Error error = Error::success();
  bool supported = dispatchNumeric(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T start = ctx.ins[0].as<const T>()[0], limit = ctx.ins[1].as<const T>()[0],
      delta = ctx.ins[2].as<const T>()[0];
    std::optional<int64_t> count = rangeCount(start, limit, delta);
    if (!count) {
      error = ctx.fail("delta " + scalarText(delta) + " gives no valid range");
      return;
    }
    // A value-dependent length: at most the bound the result is passed at.
    if (valueDependent) {
      if (*count > out.shape[0]) {
        error = ctx.fail(std::to_string(*count) +
                         " elements exceed the "
                         "bound of " +
                         std::to_string(out.shape[0]) +
                         " the program was compiled for (raise it with "
                         "strata-compile --max-extent NODE=N)");
        return;
      }
      out.shape[0] = *count;
    } else if (*count != out.shape[0]) {
      error = ctx.fail("start " + scalarText(start) + ", limit " +
                       scalarText(limit) + ", delta " + scalarText(delta) +
                       " give " + std::to_string(*count) +
                       " elements, but the program was compiled for " +
                       std::to_string(out.shape[0]));
      return;
    }
    T *y = out.as<T>();
    // start + i * delta stays between start and limit, but i * delta alone
    // may not fit: integers wrap (two's complement) as they do in ONNX
    // Runtime, never overflow.
    for (int64_t i = 0; i < *count; ++i)
      y[i] = wrapping(start,
                      wrapping(static_cast<T>(i), delta,
                               [](auto a, auto b) { return a * b; }),
                      [](auto a, auto b) { return a + b; });
  });
  if (!supported)
    return ctx.fail("does not support " + out.typeString());
  return error;
}

} // namespace strata::runtime::kernels
