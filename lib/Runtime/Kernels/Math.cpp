//===- Math.cpp - float math, maximum/minimum and cast kernels ------------===//
//
// dtype-generic kernels: unary math on f32/f64, broadcasting maximum/minimum
// on every numeric type (f16 through float), integer modulo, shifts and
// bitwise ops, and cast between any two supported types.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"
#include "VectorMath.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace strata::runtime::kernels {

namespace {

/// Checks one input and one output of the same float (f32/f64) type and
/// shape.
Error checkFloatUnary(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if ((in.dtype != DType::F32 && in.dtype != DType::F64) ||
      out.dtype != in.dtype)
    return ctx.fail("takes and writes one f32 or f64 type, got " +
                    in.typeString() + " -> " + out.typeString());
  return checkSameShape(ctx, in, out, "input and result");
}

/// y[i] = f(x[i]) for i < n. Cloned per ISA: with SSE4.1 floor, ceil and
/// nearbyint are one instruction instead of a libm call.
template <typename T, typename F>
STRATA_GEMM_CLONES void unaryRow(const T *x, T *y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<T>(f(x[i]));
}

/// out[i] = f(in[i]) in the input's float type; `f` is generic.
template <typename F> Error floatUnary(KernelContext &ctx, F f) {
  STRATA_RETURN_IF_ERROR(checkFloatUnary(ctx));
  if (ctx.validateOnly)
    return Error::success();
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  dispatchFloat(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    unaryRow(in.as<const T>(), out.as<T>(), out.numel(), f);
  });
  return Error::success();
}

/// y[i] = f(a[SA ? i : 0], b[SB ? i : 0]) for i < n.
template <bool SA, bool SB, typename T, typename F>
STRATA_GEMM_CLONES void numericRow(const T *a, const T *b, T *y, int64_t n,
                                   F f) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = f(a[SA ? i : 0], b[SB ? i : 0]);
}

/// out = fn(in) through the vector math library for f32 and `f` (generic,
/// in double) element by element for f64.
template <typename F>
Error transcendental(KernelContext &ctx, FloatFunction fn, F f) {
  STRATA_RETURN_IF_ERROR(checkFloatUnary(ctx));
  if (ctx.validateOnly)
    return Error::success();
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (in.dtype == DType::F32) {
    applyFloatFunction(fn, in.as<const float>(), out.as<float>(), out.numel());
    return Error::success();
  }
  return floatUnary(ctx, f);
}

/// Broadcasting binary kernel over every numeric type (edge contract: equal
/// ranks, extents equal to the result's or 1).
/// Checks a broadcasting binary kernel over one numeric type.
Error checkNumericBinary(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  bool isHalf = out.dtype == DType::F16;
  if (a.dtype != out.dtype || b.dtype != out.dtype ||
      (!isHalf && !dispatchNumeric(out.dtype, [](auto) {})))
    return ctx.fail("operands " + a.typeString() + " and " + b.typeString() +
                    " must share the result's numeric type " +
                    out.typeString());
  size_t rank = out.rank();
  if (a.rank() != rank || b.rank() != rank)
    return ctx.fail("operands must have the result's rank " +
                    std::to_string(rank));
  for (size_t i = 0; i < rank; ++i)
    if ((a.shape[i] != out.shape[i] && a.shape[i] != 1) ||
        (b.shape[i] != out.shape[i] && b.shape[i] != 1))
      return ctx.fail("operands " + a.typeString() + " and " + b.typeString() +
                      " do not broadcast to " + out.typeString());
  return Error::success();
}

template <typename F> Error numericBinary(KernelContext &ctx, F f) {
  STRATA_RETURN_IF_ERROR(checkNumericBinary(ctx));
  if (ctx.validateOnly || ctx.outs[0].numel() == 0)
    return Error::success();
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  if (out.dtype == DType::F16) {
    // f16 computes in float and rounds back.
    const Half *pa = a.as<const Half>(), *pb = b.as<const Half>();
    Half *po = out.as<Half>();
    forEachBroadcastRow(ctx.ins, out,
                        [&](int64_t base, const int64_t *offsets, int64_t n,
                            const int64_t *steps) {
                          const Half *ra = pa + offsets[0],
                                     *rb = pb + offsets[1];
                          for (int64_t i = 0; i < n; ++i)
                            po[base + i] =
                                floatToHalf(f(halfToFloat(ra[steps[0] * i]),
                                              halfToFloat(rb[steps[1] * i])));
                        });
    return Error::success();
  }
  dispatchNumeric(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.as<T>(), *pb = b.as<T>();
    T *po = out.as<T>();
    forEachBroadcastRow(
        ctx.ins, out,
        [&](int64_t base, const int64_t *offsets, int64_t n,
            const int64_t *steps) {
          withSteps(steps, [&](auto sa, auto sb) {
            numericRow<decltype(sa)::value, decltype(sb)::value>(
                pa + offsets[0], pb + offsets[1], po + base, n, f);
          });
        });
  });
  return Error::success();
}

/// True for a signed integer -1 (whose quotient can overflow).
template <typename T> bool isMinusOne(T value) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return value == T(-1);
  else
    return false;
}

/// `base` to the integer power `exponent`, wrapping like Mul (a double
/// `pow` converted back would be undefined once out of range). A negative
/// exponent truncates 1 / base^-exponent: 1 for base 1, +-1 for base -1, and
/// 0 otherwise (0 for base 0, as integer Div by zero yields).
template <typename T> T integerPower(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == T(1))
        return T(1);
      if (isMinusOne(base))
        return (exponent % 2 == 0) ? T(1) : T(-1);
      return T(0);
    }
  }
  using U = std::make_unsigned_t<decltype(base + exponent)>;
  U result = 1, factor = static_cast<U>(base);
  for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
    if (e & 1)
      result = static_cast<U>(result * factor);
    factor = static_cast<U>(factor * factor);
  }
  return static_cast<T>(result);
}

template <typename T> bool isNaN(T value) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(value);
  else
    return false;
}

/// Calls `fn(T{})` for every type a cast reads or writes.
template <typename Fn> bool dispatchCastType(DType dtype, Fn &&fn) {
  if (dtype == DType::Bool) {
    fn(bool{});
    return true;
  }
  if (dtype == DType::F16) {
    fn(Half{});
    return true;
  }
  if (dtype == DType::BF16) {
    fn(BFloat16{});
    return true;
  }
  return dispatchNumeric(dtype, fn);
}

/// Converts one element; f16 and bf16 go through float, bool tests
/// non-zero.
template <typename To, typename From> To convertElement(From value) {
  if constexpr (std::is_same_v<From, Half>)
    return convertElement<To>(halfToFloat(value));
  else if constexpr (std::is_same_v<From, BFloat16>)
    return convertElement<To>(bfloat16ToFloat(value));
  else if constexpr (std::is_same_v<To, Half>)
    return floatToHalf(static_cast<float>(value));
  else if constexpr (std::is_same_v<To, BFloat16>)
    return floatToBFloat16(static_cast<float>(value));
  else if constexpr (std::is_same_v<To, bool>)
    return value != From{};
  else
    return static_cast<To>(value);
}

/// Whether fmodQuotient's result is exact: |a / b| below 2^23 (rounded
/// quotient), b finite and non-zero, neither operand NaN.
inline bool fmodFast(double quotient, double b) {
  return std::fabs(quotient) < 8388608.0 &&
         std::fabs(b) < std::numeric_limits<double>::infinity();
}

/// fmod(a, b) for f32 without a libm call where the quotient is small:
/// with A, B the integer significands (a = A 2^s, b = B 2^t, |A|, |B| <
/// 2^24), a non-integer a / b is at least min(2^-24, 2^(s-t-24)) from an
/// integer while the double quotient is within 2^-53 |a / b| (below
/// 2^-30, or 2^(s-t-52) when s < t), so its truncation is the exact one;
/// trunc(a / b) * b has at most 47 bits and fmod's result is a float, so
/// a - trunc(a / b) * b is exact in double. A zero takes a's sign, as
/// fmod's. Other elements (see fmodFast) call std::fmod.
template <bool SA, bool SB>
STRATA_GEMM_CLONES bool fmodRow(const float *a, const float *b, float *y,
                                int64_t n) {
  bool slow = false;
  for (int64_t i = 0; i < n; ++i) {
    double x = a[SA ? i : 0], d = b[SB ? i : 0];
    double q = x / d;
    bool fast = fmodFast(q, d);
    slow |= !fast;
    double whole = static_cast<double>(static_cast<int32_t>(fast ? q : 0.0));
    float r = static_cast<float>(x - whole * d);
    y[i] = r == 0.0f ? std::copysign(0.0f, static_cast<float>(x)) : r;
  }
  return slow;
}

Error fmodF32(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkNumericBinary(ctx));
  if (ctx.validateOnly)
    return Error::success();
  const float *pa = ctx.ins[0].as<const float>();
  const float *pb = ctx.ins[1].as<const float>();
  float *po = ctx.outs[0].as<float>();
  forEachBroadcastRow(
      ctx.ins, ctx.outs[0],
      [&](int64_t base, const int64_t *offsets, int64_t n,
          const int64_t *steps) {
        const float *a = pa + offsets[0], *b = pb + offsets[1];
        float *y = po + base;
        bool slow = false;
        withSteps(steps, [&](auto sa, auto sb) {
          slow = fmodRow<decltype(sa)::value, decltype(sb)::value>(a, b, y, n);
        });
        if (!slow)
          return;
        for (int64_t i = 0; i < n; ++i) {
          float x = a[steps[0] * i], d = b[steps[1] * i];
          if (!fmodFast(static_cast<double>(x) / d, d))
            y[i] = std::fmod(x, d);
        }
      });
  return Error::success();
}

} // namespace

Error logKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Log,
                        [](auto x) { return std::log(x); });
}
Error sinKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Sin,
                        [](auto x) { return std::sin(x); });
}
Error cosKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Cos,
                        [](auto x) { return std::cos(x); });
}
Error tanKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Tan,
                        [](auto x) { return std::tan(x); });
}
Error asinKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Asin,
                        [](auto x) { return std::asin(x); });
}
Error acosKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Acos,
                        [](auto x) { return std::acos(x); });
}
Error atanKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Atan,
                        [](auto x) { return std::atan(x); });
}
Error sinhKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::sinh(x); });
}
Error coshKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::cosh(x); });
}
Error asinhKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::asinh(x); });
}
Error acoshKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::acosh(x); });
}
Error atanhKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::atanh(x); });
}
Error floorKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::floor(x); });
}
Error ceilKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) { return std::ceil(x); });
}
Error roundKernel(KernelContext &ctx) {
  // The default floating-point environment rounds half to even.
  return floatUnary(ctx, [](auto x) { return std::nearbyint(x); });
}
Error erfKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Erf,
                        [](auto x) { return std::erf(x); });
}
Error signKernel(KernelContext &ctx) {
  return floatUnary(ctx, [](auto x) {
    using T = decltype(x);
    return std::isnan(x) ? x : static_cast<T>((x > T(0)) - (x < T(0)));
  });
}

Error maximumKernel(KernelContext &ctx) {
  return numericBinary(ctx, [](auto a, auto b) {
    return isNaN(a) ? a : isNaN(b) ? b : (a < b ? b : a);
  });
}
Error minimumKernel(KernelContext &ctx) {
  return numericBinary(ctx, [](auto a, auto b) {
    return isNaN(a) ? a : isNaN(b) ? b : (b < a ? b : a);
  });
}

Error modKernel(KernelContext &ctx) {
  STRATA_KERNEL_ASSIGN(fmod, ctx.params.getBool("fmod", false));
  if (fmod && ctx.ins.size() == 2 && ctx.outs.size() == 1 &&
      ctx.ins[0].dtype == DType::F32 && ctx.ins[1].dtype == DType::F32 &&
      ctx.outs[0].dtype == DType::F32)
    return fmodF32(ctx);
  if (fmod)
    return numericBinary(ctx, [](auto a, auto b) {
      using T = decltype(a);
      if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(std::fmod(a, b));
      else
        // x % -1 is 0; computing it traps for the most negative x.
        return b == 0 || isMinusOne(b) ? T(0) : static_cast<T>(a % b);
    });
  if (!ctx.ins.empty() &&
      (ctx.ins[0].dtype == DType::F32 || ctx.ins[0].dtype == DType::F64 ||
       ctx.ins[0].dtype == DType::F16))
    return ctx.fail("float remainders need 'fmod'");
  return numericBinary(ctx, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_floating_point_v<T>) {
      return a; // Rejected above.
    } else {
      if (b == 0 || isMinusOne(b))
        return T(0);
      T r = static_cast<T>(a % b);
      // The remainder takes the divisor's sign (Python's %).
      if constexpr (std::is_signed_v<T>)
        if (r != 0 && ((r < 0) != (b < 0)))
          r = static_cast<T>(r + b);
      return r;
    }
  });
}

Error bitShiftKernel(KernelContext &ctx) {
  const Param *directionParam = ctx.params.find("direction");
  std::string direction = directionParam ? directionParam->stringValue : "";
  if (direction != "left" && direction != "right")
    return ctx.fail("direction must be 'left' or 'right', got '" + direction +
                    "'");
  DType dtype = ctx.outs.empty() ? DType::F32 : ctx.outs[0].dtype;
  if (dtype != DType::U8 && dtype != DType::U16 && dtype != DType::U32 &&
      dtype != DType::U64)
    return ctx.fail("shifts u8, u16, u32 or u64, got " +
                    std::string(dtypeName(dtype)));
  bool left = direction == "left";
  // A shift by the bit width or more gives 0 (numpy's rule); in C++ it
  // would be undefined.
  return numericBinary(ctx, [left](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
      if (b >= sizeof(T) * 8)
        return T(0);
      // Shift in (at least) unsigned int: T may promote to signed int.
      using U = std::common_type_t<T, unsigned>;
      return static_cast<T>(left ? static_cast<U>(a) << b
                                 : static_cast<U>(a) >> b);
    } else {
      return a; // Rejected above.
    }
  });
}

namespace {

bool isIntegerDType(DType dtype) {
  switch (dtype) {
  case DType::I8:
  case DType::U8:
  case DType::I16:
  case DType::U16:
  case DType::I32:
  case DType::U32:
  case DType::I64:
  case DType::U64:
    return true;
  default:
    return false;
  }
}

/// A broadcasting bitwise kernel: `f` on integers of one type.
template <typename F> Error bitwiseBinary(KernelContext &ctx, F f) {
  DType dtype = ctx.outs.empty() ? DType::F32 : ctx.outs[0].dtype;
  if (!isIntegerDType(dtype))
    return ctx.fail("takes 8- to 64-bit integers, got " +
                    std::string(dtypeName(dtype)));
  return numericBinary(ctx, [f](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(f(a, b));
    else
      return a; // Rejected above.
  });
}

} // namespace

Error bitwiseAndKernel(KernelContext &ctx) {
  return bitwiseBinary(ctx, [](auto a, auto b) { return a & b; });
}
Error bitwiseOrKernel(KernelContext &ctx) {
  return bitwiseBinary(ctx, [](auto a, auto b) { return a | b; });
}
Error bitwiseXorKernel(KernelContext &ctx) {
  return bitwiseBinary(ctx, [](auto a, auto b) { return a ^ b; });
}

Error bitwiseNotKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (in.dtype != out.dtype || !isIntegerDType(out.dtype))
    return ctx.fail("takes and writes one 8- to 64-bit integer type, got " +
                    in.typeString() + " -> " + out.typeString());
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  if (ctx.validateOnly)
    return Error::success();
  dispatchNumeric(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      const T *x = in.as<const T>();
      T *y = out.as<T>();
      for (int64_t i = 0, n = out.numel(); i < n; ++i)
        y[i] = static_cast<T>(~x[i]);
    }
  });
  return Error::success();
}

Error genericArithmeticKernel(KernelContext &ctx, int op) {
  switch (op) {
  case 0:
    return numericBinary(ctx, [](auto a, auto b) {
      return wrapping(a, b, [](auto x, auto y) { return x + y; });
    });
  case 1:
    return numericBinary(ctx, [](auto a, auto b) {
      return wrapping(a, b, [](auto x, auto y) { return x - y; });
    });
  case 2:
    return numericBinary(ctx, [](auto a, auto b) {
      return wrapping(a, b, [](auto x, auto y) { return x * y; });
    });
  case 3:
    return numericBinary(ctx, [](auto a, auto b) {
      using T = decltype(a);
      if constexpr (std::is_floating_point_v<T>)
        return a / b;
      else if (b == 0) // Truncating; x / 0 yields 0 rather than trapping.
        return T(0);
      else if (isMinusOne(b)) // Wraps for the most negative x.
        return wrapping(T(0), a, [](auto x, auto y) { return x - y; });
      else
        return static_cast<T>(a / b);
    });
  default:
    return numericBinary(ctx, [](auto a, auto b) {
      using T = decltype(a);
      if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(
            std::pow(static_cast<double>(a), static_cast<double>(b)));
      else
        return integerPower(a, b);
    });
  }
}

Error genericExpKernel(KernelContext &ctx) {
  return transcendental(ctx, FloatFunction::Exp,
                        [](auto x) { return std::exp(x); });
}

Error castKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  if (!dispatchCastType(in.dtype, [](auto) {}) ||
      !dispatchCastType(out.dtype, [](auto) {}))
    return ctx.fail("cannot cast " + in.typeString() + " to " +
                    out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  int64_t n = out.numel();
  dispatchCastType(in.dtype, [&](auto fromTag) {
    using From = decltype(fromTag);
    dispatchCastType(out.dtype, [&](auto toTag) {
      using To = decltype(toTag);
      const From *x = in.as<From>();
      To *y = out.as<To>();
      if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>) {
        static_assert(sizeof(Half) == sizeof(uint16_t));
        // (The casts keep the call well-formed in every instantiation:
        // clang instantiates this branch for other types as well.)
        floatsToHalves(reinterpret_cast<const float *>(x),
                       reinterpret_cast<uint16_t *>(y), n);
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        y[i] = convertElement<To>(x[i]);
    });
  });
  return Error::success();
}

} // namespace strata::runtime::kernels
