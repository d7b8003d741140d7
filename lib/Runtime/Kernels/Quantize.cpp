//===- Quantize.cpp - affine quantize_linear / dequantize_linear ----------===//
//
// ONNX QuantizeLinear / DequantizeLinear on f32 with i8, u8 or i16 storage,
// per tensor (scalar scale and zero point) or per axis (1-D along `axis`).
// Quantization divides in f32 as the ONNX reference does, rounds half to
// even independently of the floating-point environment and saturates to the
// storage range; NaN maps to the zero point.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::runtime::kernels {

double roundHalfToEven(double value) {
  double floor = std::floor(value);
  double fraction = value - floor;
  if (fraction > 0.5)
    return floor + 1.0;
  if (fraction < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0.0 ? floor : floor + 1.0;
}

namespace {

/// How scale index follows element index: channel = (i / inner) % channels.
struct AffineLayout {
  int64_t channels = 1, inner = 1;
};

/// Checks the operands of a (de)quantization between `real` (f32) and
/// `stored` (i8/u8/i16) and returns the per-axis layout.
Result<AffineLayout> checkAffineOperands(const KernelContext &ctx,
                                         const TensorView &real,
                                         const TensorView &stored) {
  const TensorView &scale = ctx.ins[1], &zeroPoint = ctx.ins[2];
  if (real.dtype != DType::F32 || scale.dtype != DType::F32)
    return Error(ErrorCode::InvalidArgument,
                 "takes f32 values and scale, got " + real.typeString() +
                     " and " + scale.typeString());
  if (stored.dtype != DType::I8 && stored.dtype != DType::U8 &&
      stored.dtype != DType::I16)
    return Error(ErrorCode::InvalidArgument,
                 "stores i8, u8 or i16, got " + stored.typeString());
  if (zeroPoint.dtype != stored.dtype || zeroPoint.shape != scale.shape)
    return Error(ErrorCode::InvalidArgument,
                 "zero point " + zeroPoint.typeString() +
                     " must have the scale's shape and the storage type " +
                     dtypeName(stored.dtype));
  if (real.shape != stored.shape)
    return Error(ErrorCode::InvalidArgument, "shapes of " + real.typeString() +
                                                 " and " + stored.typeString() +
                                                 " differ");
  AffineLayout layout;
  layout.inner = std::max<int64_t>(real.numel(), 1);
  if (scale.rank() == 0)
    return layout;
  STRATA_ASSIGN_OR_RETURN(int64_t axisParam, ctx.params.getInt("axis", 0));
  int64_t axis = axisParam;
  if (scale.rank() != 1 || axis < 0 ||
      axis >= static_cast<int64_t>(real.rank()) ||
      scale.shape[0] != real.shape[axis])
    return Error(ErrorCode::InvalidArgument,
                 "scale " + scale.typeString() + " is neither a scalar nor " +
                     "1-D along axis " + std::to_string(axis) + " of " +
                     real.typeString());
  layout.channels = scale.shape[0];
  layout.inner = 1;
  for (size_t d = axis + 1; d < real.rank(); ++d)
    layout.inner *= real.shape[d];
  return layout;
}

/// Calls `fn(T{})` with T the storage type of a quantized dtype.
template <typename Fn> void dispatchStorage(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::I8:
    fn(int8_t{});
    break;
  case DType::U8:
    fn(uint8_t{});
    break;
  default:
    fn(int16_t{});
    break;
  }
}

} // namespace

/// q[i] = clamp(round_half_to_even(x[i] / scale) + zeroPoint, lo, hi), NaN
/// giving the zero point. v = x / scale is clamped to [lo - zeroPoint,
/// hi - zeroPoint] first: rounding is monotone and the bounds are integers,
/// so this saturates as clamping the result would, and keeps |v| < 2^16 so
/// every later step is exact. The rounding takes floor(v) and compares the
/// exact remainder with one half, so it needs no rounding mode. floor comes
/// from a truncating conversion: std::floor is a libm call in the
/// STRATA_GEMM_CLONES clones, which would keep the loop scalar.
template <typename T>
STRATA_GEMM_CLONES static void quantizeRun(const float *x, int64_t count,
                                           float scale, int32_t zeroPoint,
                                           T *q) {
  const float lo =
      static_cast<float>(std::numeric_limits<T>::min() - zeroPoint);
  const float hi =
      static_cast<float>(std::numeric_limits<T>::max() - zeroPoint);
  for (int64_t i = 0; i < count; ++i) {
    float v = x[i] / scale; // f32 division, as ONNX's reference.
    v = v != v ? 0.0f : v;  // NaN: the zero point.
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    int32_t r = static_cast<int32_t>(v);
    r -= static_cast<float>(r) > v; // Truncation rounds negatives up.
    float fraction = v - static_cast<float>(r);
    // Both comparisons unconditional: under -ftrapping-math GCC will not
    // speculate a float comparison, and a branch keeps the loop scalar.
    int32_t up = fraction > 0.5f ? 1 : 0;
    int32_t tieUp = fraction == 0.5f ? r & 1 : 0; // Ties to even.
    r += up + tieUp;
    q[i] = static_cast<T>(r + zeroPoint);
  }
}

/// y[i] = (q[i] - zeroPoint) * scale; the difference of two 16-bit
/// integers is exact in f32.
template <typename T>
STRATA_GEMM_CLONES static void dequantizeRun(const T *q, int64_t count,
                                             float scale, T zeroPoint,
                                             float *y) {
  const float zero = static_cast<float>(zeroPoint);
  for (int64_t i = 0; i < count; ++i)
    y[i] = (static_cast<float>(q[i]) - zero) * scale;
}

Error quantizeLinearKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(layout, checkAffineOperands(ctx, in, out));
  if (ctx.validateOnly)
    return Error::success();
  const float *x = in.as<const float>(), *scale = ctx.ins[1].as<const float>();
  dispatchStorage(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T *zeroPoint = ctx.ins[2].as<const T>();
    T *y = out.as<T>();
    // Runs of one channel (the whole tensor per tensor).
    for (int64_t start = 0, n = in.numel(); start < n; start += layout.inner) {
      int64_t c = (start / layout.inner) % layout.channels;
      int64_t count = std::min(n - start, layout.inner);
      quantizeRun(x + start, count, scale[c], zeroPoint[c], y + start);
    }
  });
  return Error::success();
}

Error dynamicQuantizeLinearKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 3));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  const TensorView &scaleOut = ctx.outs[1], &zeroOut = ctx.outs[2];
  if (in.dtype != DType::F32 || out.dtype != DType::U8 ||
      scaleOut.dtype != DType::F32 || zeroOut.dtype != DType::U8 ||
      scaleOut.numel() != 1 || zeroOut.numel() != 1)
    return ctx.fail("takes f32 and writes u8, an f32 scale and a u8 zero "
                    "point, got " +
                    in.typeString() + " -> " + out.typeString() + ", " +
                    scaleOut.typeString() + ", " + zeroOut.typeString());
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  if (ctx.validateOnly)
    return Error::success();
  const float *x = in.as<const float>();
  int64_t n = in.numel();
  // ONNX's definition in f32, as ONNX Runtime computes it: the range
  // extended to 0; a scale of 1 where it is empty (ONNX's formula would
  // divide by a zero scale, its reference implementation uses 1/255); the
  // zero point clamped to [0, 255] (a NaN one, from a NaN input, to 255)
  // and rounded half to even.
  float lo = reduceMinF32(x, n), hi = reduceMaxF32(x, n);
  lo = lo != lo ? lo : std::min(lo, 0.0f);
  hi = hi != hi ? hi : std::max(hi, 0.0f);
  float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  float zero = 0.0f - lo / scale;
  zero = std::max(0.0f, std::min(255.0f, zero));
  auto zeroPoint = static_cast<uint8_t>(std::nearbyint(zero));
  *scaleOut.as<float>() = scale;
  *zeroOut.as<uint8_t>() = zeroPoint;
  quantizeRun(x, n, scale, zeroPoint, out.as<uint8_t>());
  return Error::success();
}

Error dequantizeLinearKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(layout, checkAffineOperands(ctx, out, in));
  if (ctx.validateOnly)
    return Error::success();
  const float *scale = ctx.ins[1].as<const float>();
  float *y = out.as<float>();
  dispatchStorage(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T *q = in.as<const T>(), *zeroPoint = ctx.ins[2].as<const T>();
    // Runs of one channel (the whole tensor per tensor).
    for (int64_t start = 0, n = in.numel(); start < n; start += layout.inner) {
      int64_t c = (start / layout.inner) % layout.channels;
      int64_t count = std::min(n - start, layout.inner);
      dequantizeRun(q + start, count, scale[c], zeroPoint[c], y + start);
    }
  });
  return Error::success();
}

} // namespace strata::runtime::kernels
