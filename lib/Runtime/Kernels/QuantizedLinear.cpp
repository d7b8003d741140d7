//===- QuantizedLinear.cpp - int8 conv2d and matmul -----------------------===//
//
// edge.quantized_conv2d / edge.quantized_matmul: 8-bit operands (i8 or
// u8), zero points subtracted into int16, products accumulated exactly in
// int32, then the float epilogue (per-channel scale, f32 bias, residual,
// clamp, activation) and, for an 8-bit result, the requantization of
// QuantizeLinear (f32 division, round half to even, saturation).
//
// The convolution is im2col + an int16 x int16 -> int32 GEMM (direct for
// depthwise), blocked like the float GEMM and built with the same AVX2 /
// AVX-512 clones, so its inner loop is a vectorised widening AXPY.
//
// Operands, in the op's order: values, scale, zero point of the input and
// of the weight, bias; then output scale and zero point when the result is
// 8-bit; then residual values, scale and zero point when present.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace strata::runtime::kernels {

/// C[M,N] = A[M,K] * B[K,N] on int16 operands with int32 accumulation
/// (exact: |a|, |b| <= 255, so K < 2^15 products cannot overflow).
STRATA_GEMM_CLONES
static void gemmInt16(int64_t m, int64_t n, int64_t k, const int16_t *a,
                      int64_t lda, const int16_t *b, int64_t ldb, int32_t *c,
                      int64_t ldc) {
  blockedGemm(m, n, k, a, lda, b, ldb, c, ldc);
}

namespace {

bool isEightBit(DType t) { return t == DType::I8 || t == DType::U8; }

/// `count` 8-bit values from flat index `at` (stride `stride`) minus
/// `zeroPoint`, as int16.
void widen(const TensorView &v, int64_t at, int64_t stride, int64_t count,
           int32_t zeroPoint, int16_t *dst) {
  if (v.dtype == DType::I8) {
    const int8_t *src = v.as<int8_t>() + at;
    for (int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<int16_t>(src[i * stride] - zeroPoint);
  } else {
    const uint8_t *src = v.as<uint8_t>() + at;
    for (int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<int16_t>(src[i * stride] - zeroPoint);
  }
}

/// Element `i` of an i8 or u8 tensor.
int32_t load8(const TensorView &v, int64_t i) {
  return v.dtype == DType::I8 ? v.as<int8_t>()[i] : v.as<uint8_t>()[i];
}

/// real[i] = acc[i] * m + b.
STRATA_GEMM_CLONES
void applyEpilogue(const int32_t *acc, int64_t count, float m, float b,
                   float *real) {
  for (int64_t i = 0; i < count; ++i)
    real[i] = static_cast<float>(acc[i]) * m + b;
}

/// real[i] += r[i] * scale.
STRATA_GEMM_CLONES
void addScaled(float *real, const int16_t *r, int64_t count, float scale) {
  for (int64_t i = 0; i < count; ++i)
    real[i] += static_cast<float>(r[i]) * scale;
}

/// real[i] = clamp(real[i], lo, hi); NaN stays NaN.
STRATA_GEMM_CLONES
void clampRun(float *real, int64_t count, float lo, float hi) {
  for (int64_t i = 0; i < count; ++i) {
    float v = real[i];
    v = v < lo ? lo : v;
    real[i] = v > hi ? hi : v;
  }
}

/// The activation functions an epilogue may apply after the clamp.
enum class Activation { None, Swish, HardSwish, GeluErf };

/// real[i] = activation(real[i]), in f32 as the float kernels compute the
/// spelled-out chains (the sigmoid split on the sign, as sigmoidKernel).
void activationRun(float *real, int64_t count, Activation activation) {
  switch (activation) {
  case Activation::None:
    return;
  case Activation::Swish:
    for (int64_t i = 0; i < count; ++i) {
      float x = real[i], e = std::exp(-std::fabs(x));
      real[i] = x * (x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e));
    }
    return;
  case Activation::HardSwish:
    for (int64_t i = 0; i < count; ++i)
      real[i] = real[i] *
                std::min(std::max(real[i] * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f);
    return;
  case Activation::GeluErf:
    for (int64_t i = 0; i < count; ++i)
      real[i] = real[i] * 0.5f *
                (1.0f + std::erf(real[i] * static_cast<float>(M_SQRT1_2)));
    return;
  }
}

/// real[i] = saturate(round_half_to_even(real[i] / scale) + zeroPoint)
/// (as a float holding an integer in [qmin, qmax]; NaN gives the zero
/// point). Rounding adds and subtracts 1.5 * 2^23, which rounds half to
/// even under the default rounding mode for the clamped |v| <= 2^9.
STRATA_GEMM_CLONES
void requantizeRun(float *real, int64_t count, float scale, int32_t zeroPoint,
                   int32_t qmin, int32_t qmax) {
  const float magic = 12582912.0f;
  float zp = static_cast<float>(zeroPoint), lo = static_cast<float>(qmin),
        hi = static_cast<float>(qmax);
  for (int64_t i = 0; i < count; ++i) {
    float v = real[i] / scale;
    bool isNan = v != v;
    v = v < -512.0f ? -512.0f : v;
    v = v > 512.0f ? 512.0f : v;
    v = (v + magic) - magic + zp;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    real[i] = isNan ? zp : v;
  }
}

/// The depthwise tap loop: acc[oy, ox] += w * x[iy, ox * stride + shift]
/// for ox in [lo, hi].
STRATA_GEMM_CLONES
void depthwiseTap(int32_t *arow, const int16_t *xrow, int32_t w, int64_t lo,
                  int64_t hi, int64_t stride) {
  if (stride == 1)
    for (int64_t ox = lo; ox <= hi; ++ox)
      arow[ox] += w * xrow[ox];
  else
    for (int64_t ox = lo; ox <= hi; ++ox)
      arow[ox] += w * xrow[ox * stride];
}

/// An 8-bit operand with its scale and zero point (per tensor, or per
/// channel with `channels` entries).
struct QuantOperand {
  const TensorView *values = nullptr;
  std::vector<float> scale;
  std::vector<int32_t> zeroPoint;
};

Result<QuantOperand> readQuantOperand(const KernelContext &ctx, size_t index,
                                      const char *what, int64_t channels) {
  const TensorView &values = ctx.ins[index], &scale = ctx.ins[index + 1],
                   &zeroPoint = ctx.ins[index + 2];
  if (!isEightBit(values.dtype) || scale.dtype != DType::F32 ||
      zeroPoint.dtype != values.dtype || zeroPoint.shape != scale.shape)
    return Error(ErrorCode::InvalidArgument,
                 std::string(what) +
                     " must be i8 or u8 with an f32 scale and "
                     "a zero point of its type and shape, got " +
                     values.typeString() + ", " + scale.typeString() + ", " +
                     zeroPoint.typeString());
  int64_t count = scale.numel();
  if (scale.rank() > 1 || (count != 1 && (channels <= 0 || count != channels)))
    return Error(ErrorCode::InvalidArgument,
                 std::string(what) + " scale " + scale.typeString() +
                     " must be a scalar" +
                     (channels > 0
                          ? " or have " + std::to_string(channels) + " elements"
                          : std::string()));
  QuantOperand q;
  q.values = &values;
  int64_t n = std::max<int64_t>(channels, 1);
  q.scale.resize(n);
  q.zeroPoint.resize(n);
  for (int64_t c = 0; c < n; ++c) {
    q.scale[c] = scale.as<float>()[count == 1 ? 0 : c];
    q.zeroPoint[c] = load8(zeroPoint, count == 1 ? 0 : c);
  }
  return q;
}

/// The epilogue: per-channel multiplier and bias, optional residual and
/// clamp, and f32 or requantized 8-bit output.
struct Epilogue {
  std::vector<float> multiplier, bias;
  float clipMin = -std::numeric_limits<float>::infinity();
  float clipMax = std::numeric_limits<float>::infinity();
  Activation activation = Activation::None;
  bool requantize = false;
  float outScale = 1.0f;
  int32_t outZeroPoint = 0, qmin = 0, qmax = 0;
  /// The residual added before the clamp (null when none), per tensor.
  const TensorView *residual = nullptr;
  float residualScale = 1.0f;
  int32_t residualZeroPoint = 0;

  /// Writes `count` outputs of channel `c` from contiguous accumulators,
  /// starting at flat output index `index` with stride `stride`; `real`
  /// and `widened` are scratch for `count` values each.
  void storeRun(const TensorView &out, int64_t index, int64_t stride, int64_t c,
                const int32_t *acc, int64_t count, float *real,
                int16_t *widened) const {
    applyEpilogue(acc, count, multiplier[c], bias[c], real);
    if (residual) {
      widen(*residual, index, stride, count, residualZeroPoint, widened);
      addScaled(real, widened, count, residualScale);
    }
    clampRun(real, count, clipMin, clipMax);
    activationRun(real, count, activation);
    if (!requantize) {
      float *dst = out.as<float>() + index;
      for (int64_t i = 0; i < count; ++i)
        dst[i * stride] = real[i];
      return;
    }
    requantizeRun(real, count, outScale, outZeroPoint, qmin, qmax);
    if (out.dtype == DType::I8) {
      int8_t *dst = out.as<int8_t>() + index;
      for (int64_t i = 0; i < count; ++i)
        dst[i * stride] = static_cast<int8_t>(real[i]);
    } else {
      uint8_t *dst = out.as<uint8_t>() + index;
      for (int64_t i = 0; i < count; ++i)
        dst[i * stride] = static_cast<uint8_t>(real[i]);
    }
  }
};

/// Reads bias, output quantization, residual and clamp; `channels` is the
/// extent the scale and bias run along.
Result<Epilogue> readEpilogue(const KernelContext &ctx,
                              const QuantOperand &input,
                              const QuantOperand &weight, int64_t channels,
                              bool allowResidual) {
  const TensorView &bias = ctx.ins[6], &out = ctx.outs[0];
  if (bias.dtype != DType::F32 || bias.shape != std::vector<int64_t>{channels})
    return Error(ErrorCode::InvalidArgument,
                 "bias " + bias.typeString() + " must be f32 [" +
                     std::to_string(channels) + "]");
  Epilogue e;
  e.requantize = isEightBit(out.dtype);
  if (!e.requantize && out.dtype != DType::F32)
    return Error(ErrorCode::InvalidArgument,
                 "writes f32, i8 or u8, got " + out.typeString());
  size_t next = 7;
  if (e.requantize) {
    if (ctx.ins.size() < 9)
      return Error(ErrorCode::InvalidArgument,
                   "an 8-bit result needs an output scale and zero point");
    const TensorView &scale = ctx.ins[7], &zeroPoint = ctx.ins[8];
    if (scale.dtype != DType::F32 || scale.numel() != 1 ||
        zeroPoint.dtype != out.dtype || zeroPoint.numel() != 1)
      return Error(ErrorCode::InvalidArgument,
                   "output scale and zero point must be one f32 and one " +
                       std::string(dtypeName(out.dtype)));
    e.outScale = scale.as<float>()[0];
    e.outZeroPoint = load8(zeroPoint, 0);
    e.qmin = out.dtype == DType::I8 ? -128 : 0;
    e.qmax = out.dtype == DType::I8 ? 127 : 255;
    next = 9;
  }
  if (ctx.ins.size() == next + 3 && allowResidual) {
    Result<QuantOperand> residual = readQuantOperand(ctx, next, "residual", 0);
    if (!residual.ok())
      return residual.takeError();
    if (residual->values->shape != out.shape)
      return Error(ErrorCode::InvalidArgument,
                   "residual " + residual->values->typeString() +
                       " must have the result's shape " + out.typeString());
    e.residual = residual->values;
    e.residualScale = residual->scale[0];
    e.residualZeroPoint = residual->zeroPoint[0];
  } else if (ctx.ins.size() != next) {
    return Error(ErrorCode::InvalidArgument,
                 "takes " + std::to_string(next) +
                     (allowResidual ? " or " + std::to_string(next + 3) : "") +
                     " inputs for a " + out.typeString() + " result, got " +
                     std::to_string(ctx.ins.size()));
  }
  Result<double> clipMin = ctx.params.getFloat("clip_min", e.clipMin);
  Result<double> clipMax = ctx.params.getFloat("clip_max", e.clipMax);
  if (!clipMin.ok())
    return clipMin.takeError();
  if (!clipMax.ok())
    return clipMax.takeError();
  e.clipMin = static_cast<float>(*clipMin);
  e.clipMax = static_cast<float>(*clipMax);
  Result<std::string> activation = ctx.params.getString("activation", "");
  if (!activation.ok())
    return activation.takeError();
  if (*activation == "swish")
    e.activation = Activation::Swish;
  else if (*activation == "hardswish")
    e.activation = Activation::HardSwish;
  else if (*activation == "gelu_erf")
    e.activation = Activation::GeluErf;
  else if (!activation->empty())
    return Error(ErrorCode::InvalidArgument,
                 "unknown activation '" + *activation + "'");
  e.multiplier.resize(channels);
  e.bias.assign(bias.as<float>(), bias.as<float>() + channels);
  for (int64_t c = 0; c < channels; ++c)
    e.multiplier[c] = input.scale[0] * weight.scale[c];
  return e;
}

/// Int16 scratch areas carved out of the method's float scratch.
struct Scratch {
  int16_t *weights, *columns;
  int32_t *acc;
};
Scratch carveScratch(KernelContext &ctx, size_t weights, size_t columns,
                     size_t acc) {
  auto floatsFor = [](size_t bytes) { return (bytes + 63) / 64 * 16; };
  size_t w = floatsFor(weights * 2), c = floatsFor(columns * 2),
         a = floatsFor(acc * 4);
  float *base = ctx.scratchFloats(w + c + a);
  return {reinterpret_cast<int16_t *>(base),
          reinterpret_cast<int16_t *>(base + w),
          reinterpret_cast<int32_t *>(base + w + c)};
}

} // namespace

//===----------------------------------------------------------------------===//
// quantized_conv2d
//===----------------------------------------------------------------------===//

Error quantizedConv2dKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 7, 12, 1));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[3], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(g, readConv2dGeometry(ctx, in, weight, out));
  STRATA_KERNEL_ASSIGN(x, readQuantOperand(ctx, 0, "input", 0));
  STRATA_KERNEL_ASSIGN(w, readQuantOperand(ctx, 3, "weight", g.oc));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, x, w, g.oc, true));
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  int64_t spatial = g.oh * g.ow, kSize = cg * g.kh * g.kw;
  double scratchBytes = 2.0 * g.oc * kSize +
                        2.0 * std::max(kSize * spatial, g.h * g.w) +
                        4.0 * ocg * spatial;
  if (scratchBytes > 4.0 * static_cast<double>(kMaxScratchFloats) ||
      kSize >= (int64_t(1) << 15))
    return ctx.fail("the im2col buffers of " + out.typeString() +
                    " are too large");
  if (ctx.validateOnly)
    return Error::success();

  int32_t xz = x.zeroPoint[0];
  std::vector<float> real(spatial);
  std::vector<int16_t> widened(e.residual ? spatial : 0);
  // Columns: the im2col matrix, or (depthwise) one widened input plane.
  Scratch s = carveScratch(ctx, g.oc * kSize,
                           std::max(kSize * spatial, g.h * g.w), ocg * spatial);
  for (int64_t o = 0; o < g.oc; ++o)
    for (int64_t k = 0; k < kSize; ++k)
      s.weights[o * kSize + k] =
          static_cast<int16_t>(load8(weight, o * kSize + k) - w.zeroPoint[o]);

  if (cg == 1 && ocg == 1) {
    // Depthwise: per channel, the plane widened to int16, then each tap
    // adds a shifted input row over the output columns whose input column
    // is inside the image (as the f32 kernel does).
    int16_t *plane = s.columns;
    int32_t *acc = s.acc;
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t ch = 0; ch < g.c; ++ch) {
        const int16_t *wc = s.weights + ch * g.kh * g.kw;
        widen(in, (b * g.c + ch) * g.h * g.w, 1, g.h * g.w, xz, plane);
        std::fill(acc, acc + spatial, 0);
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          auto [shift, lo, hi] = tapColumns(g, kx);
          if (lo > hi)
            continue;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            int32_t *arow = acc + oy * g.ow;
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
              if (iy < 0 || iy >= g.h)
                continue;
              depthwiseTap(arow, plane + iy * g.w + shift, wc[ky * g.kw + kx],
                           lo, hi, g.strideW);
            }
          }
        }
        e.storeRun(out, (b * g.oc + ch) * spatial, 1, ch, acc, spatial,
                   real.data(), widened.data());
      }
    return Error::success();
  }

  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      // im2col of (x - zero point): row (c, ky, kx), column (oy, ox);
      // padding contributes 0.
      int64_t inBase = (b * g.c + gi * cg) * g.h * g.w;
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            int16_t *dst = s.columns + ((ci * g.kh + ky) * g.kw + kx) * spatial;
            int64_t src = inBase + ci * g.h * g.w;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
              int16_t *drow = dst + oy * g.ow;
              if (iy < 0 || iy >= g.h) {
                std::fill(drow, drow + g.ow, int16_t(0));
                continue;
              }
              // Output columns whose input column is inside the row.
              int64_t shift = kx * g.dilW - g.padL;
              int64_t lo =
                  shift >= 0 ? 0 : (-shift + g.strideW - 1) / g.strideW;
              int64_t hi =
                  g.w - 1 - shift < 0
                      ? -1
                      : std::min(g.ow - 1, (g.w - 1 - shift) / g.strideW);
              std::fill(drow, drow + g.ow, int16_t(0));
              if (lo <= hi)
                widen(in, src + iy * g.w + lo * g.strideW + shift, g.strideW,
                      hi - lo + 1, xz, drow + lo);
            }
          }
      gemmInt16(ocg, spatial, kSize, s.weights + gi * ocg * kSize, kSize,
                s.columns, spatial, s.acc, spatial);
      for (int64_t o = 0; o < ocg; ++o) {
        int64_t channel = gi * ocg + o;
        e.storeRun(out, (b * g.oc + channel) * spatial, 1, channel,
                   s.acc + o * spatial, spatial, real.data(), widened.data());
      }
    }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// quantized_matmul
//===----------------------------------------------------------------------===//

Error quantizedMatmulKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 7, 9, 1));
  const TensorView &lhs = ctx.ins[0], &rhs = ctx.ins[3], &out = ctx.outs[0];
  // rhs [K, N] shared by every batch, or [B..., K, N] with lhs's batch.
  bool batchedRhs = rhs.rank() > 2 && rhs.rank() == lhs.rank() &&
                    std::equal(lhs.shape.begin(), lhs.shape.end() - 2,
                               rhs.shape.begin());
  if (lhs.rank() < 2 || (rhs.rank() != 2 && !batchedRhs) ||
      out.rank() != lhs.rank() ||
      lhs.shape.back() != rhs.shape.end()[-2] ||
      !std::equal(lhs.shape.begin(), lhs.shape.end() - 1, out.shape.begin()) ||
      out.shape.back() != rhs.shape.back())
    return ctx.fail("takes [..., M, K] x [K, N] or [..., K, N] -> [..., M, "
                    "N], got " +
                    lhs.typeString() + " x " + rhs.typeString() + " -> " +
                    out.typeString());
  int64_t k = rhs.shape.end()[-2], n = rhs.shape.back();
  int64_t rows = k == 0 ? 0 : lhs.numel() / k;
  // Batches multiplied by their own rhs, and the rows of each.
  int64_t batches = batchedRhs ? (k * n == 0 ? 0 : rhs.numel() / (k * n)) : 1;
  int64_t m = batches == 0 ? 0 : rows / batches;
  STRATA_KERNEL_ASSIGN(a, readQuantOperand(ctx, 0, "lhs", 0));
  STRATA_KERNEL_ASSIGN(b, readQuantOperand(ctx, 3, "rhs", n));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, a, b, n, false));
  if (k >= (int64_t(1) << 15))
    return ctx.fail("inner dimension " + std::to_string(k) + " exceeds 32767");
  if (ctx.validateOnly)
    return Error::success();
  Scratch s = carveScratch(ctx, k * n, m * k, m * n);
  int32_t az = a.zeroPoint[0];
  std::vector<int32_t> column(m);
  std::vector<float> real(m);
  std::vector<int16_t> widened;
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t rhsBase = batchedRhs ? batch * k * n : 0;
    if (batch == 0 || batchedRhs)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          s.weights[p * n + j] = static_cast<int16_t>(
              load8(rhs, rhsBase + p * n + j) - b.zeroPoint[j]);
    widen(lhs, batch * m * k, 1, m * k, az, s.columns);
    gemmInt16(m, n, k, s.columns, k, s.weights, n, s.acc, n);
    // Column j has channel j: store column-wise runs down the rows.
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i)
        column[i] = s.acc[i * n + j];
      e.storeRun(out, batch * m * n + j, n, j, column.data(), m, real.data(),
                 widened.data());
    }
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
