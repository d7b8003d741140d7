//===- QuantizedLinear.cpp - int8 conv2d and matmul -----------------------===//
//
// edge.quantized_conv2d / edge.quantized_matmul: 8-bit operands (i8 or
// u8), products accumulated exactly in int32, then the float epilogue
// (per-channel scale, f32 bias, residual, clamp, activation function) and,
// for an 8-bit result, the requantization of QuantizeLinear (f32 division,
// round half to even, saturation); an i32 result is the sums themselves.
//
// The convolution is im2col + GEMM per (batch, group), direct for
// depthwise; the GEMM is picked at run time (Int8Gemm.h):
// - AVX512-VNNI, for s8 weights with zero point 0: u8 x s8 vpdpbusd. An i8
//   input becomes u8 by adding 128 to values and zero point; im2col pads
//   with that zero point, and each output channel's sum is corrected by
//   -zero point * (sum of its weights).
// - AVX2, any operands: zero points subtracted into int16, vpmaddwd on
//   pairs of K.
// - otherwise: zero points subtracted into int16 and the blocked int16
//   GEMM built with the AVX2 / AVX-512 clones (a widening AXPY).
// The int32 sums are identical on every path, so the results are too. The
// matmul runs the transposed product on the same GEMMs, weight rows as
// channels. Depthwise convolutions widen each plane to int16 and add taps.
//
// Operands, in the op's order: values, scale, zero point of the input and
// of the weight, bias; then output scale and zero point when the result is
// 8-bit; then residual values, scale and zero point when present.
//
//===----------------------------------------------------------------------===//
#include "Int8Gemm.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

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

/// real[i] = acc[i] * m + b, rounded after the product and after the sum
/// as the float chain it replaces is (Cast -> Mul -> Add): two loops, so
/// that the compiler cannot contract them into one fused multiply-add.
STRATA_GEMM_CLONES
void applyEpilogue(const int32_t *acc, int64_t count, float m, float b,
                   float *real) {
  for (int64_t i = 0; i < count; ++i)
    real[i] = static_cast<float>(acc[i]) * m;
  if (b != 0.0f)
    for (int64_t i = 0; i < count; ++i)
      real[i] += b;
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

Result<QuantOperand> readQuantOperand(const KernelIO &ctx, size_t index,
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
    if (out.dtype == DType::I32) {
      int32_t *dst = out.as<int32_t>() + index;
      for (int64_t i = 0; i < count; ++i)
        dst[i * stride] = acc[i];
      return;
    }
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

/// The epilogue's parameters: the clamp and the activation function.
struct EpilogueParams {
  float clipMin = -std::numeric_limits<float>::infinity();
  float clipMax = std::numeric_limits<float>::infinity();
  Activation activation = Activation::None;
};

/// Reads clip_min, clip_max and activation, each optional (the edge ops'
/// OptionalAttr: absent means no clamp, no function).
Result<EpilogueParams> readEpilogueParams(const Params &params) {
  EpilogueParams p;
  STRATA_ASSIGN_OR_RETURN(double clipMin,
                          params.getFloat("clip_min", p.clipMin));
  STRATA_ASSIGN_OR_RETURN(double clipMax,
                          params.getFloat("clip_max", p.clipMax));
  p.clipMin = static_cast<float>(clipMin);
  p.clipMax = static_cast<float>(clipMax);
  STRATA_ASSIGN_OR_RETURN(std::string activation,
                          params.getString("activation", ""));
  if (activation == "swish")
    p.activation = Activation::Swish;
  else if (activation == "hardswish")
    p.activation = Activation::HardSwish;
  else if (activation == "gelu_erf")
    p.activation = Activation::GeluErf;
  else if (!activation.empty())
    return Error(ErrorCode::InvalidArgument,
                 "unknown activation '" + activation + "'");
  return p;
}

/// Reads bias, output quantization and residual, with the clamp and
/// activation of `params`; `channels` is the extent the scale and bias run
/// along.
Result<Epilogue> readEpilogue(const KernelIO &ctx, const EpilogueParams &params,
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
  if (!e.requantize && out.dtype != DType::F32 && out.dtype != DType::I32)
    return Error(ErrorCode::InvalidArgument,
                 "writes f32, i8, u8 or i32, got " + out.typeString());
  if (out.dtype == DType::I32)
    allowResidual = false;
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
    STRATA_ASSIGN_OR_RETURN(QuantOperand residual,
                            readQuantOperand(ctx, next, "residual", 0));
    if (residual.values->shape != out.shape)
      return Error(ErrorCode::InvalidArgument,
                   "residual " + residual.values->typeString() +
                       " must have the result's shape " + out.typeString());
    e.residual = residual.values;
    e.residualScale = residual.scale[0];
    e.residualZeroPoint = residual.zeroPoint[0];
  } else if (ctx.ins.size() != next) {
    return Error(ErrorCode::InvalidArgument,
                 "takes " + std::to_string(next) +
                     (allowResidual ? " or " + std::to_string(next + 3) : "") +
                     " inputs for a " + out.typeString() + " result, got " +
                     std::to_string(ctx.ins.size()));
  }
  e.clipMin = params.clipMin;
  e.clipMax = params.clipMax;
  e.activation = params.activation;
  e.multiplier.resize(channels);
  e.bias.assign(bias.as<float>(), bias.as<float>() + channels);
  for (int64_t c = 0; c < channels; ++c)
    e.multiplier[c] = input.scale[0] * weight.scale[c];
  return e;
}

/// Typed areas, each 64-byte aligned, carved out of the method's float
/// scratch: add() every area, then allocate() once.
class ScratchAreas {
public:
  /// Reserves `count` values of T; returns the area's offset.
  template <typename T> size_t add(int64_t count) {
    size_t at = bytes_;
    bytes_ += (static_cast<size_t>(count) * sizeof(T) + 63) / 64 * 64;
    return at;
  }
  void allocate(KernelIO &ctx) {
    base_ = reinterpret_cast<uint8_t *>(ctx.scratchFloats(bytes_ / 4));
  }
  template <typename T> T *at(size_t offset) const {
    return reinterpret_cast<T *>(base_ + offset);
  }

private:
  size_t bytes_ = 0;
  uint8_t *base_ = nullptr;
};

/// The scratch of an int16 path, in one allocation: the weights and the
/// input (a plane or im2col columns) widened to int16, and the int32 sums.
struct Int16Scratch {
  int16_t *weights, *input;
  int32_t *acc;
};
Int16Scratch allocateInt16Scratch(KernelIO &ctx, int64_t weights, int64_t input,
                                  int64_t acc) {
  ScratchAreas areas;
  size_t weightsAt = areas.add<int16_t>(weights);
  size_t inputAt = areas.add<int16_t>(input);
  size_t accAt = areas.add<int32_t>(acc);
  areas.allocate(ctx);
  return {areas.at<int16_t>(weightsAt), areas.at<int16_t>(inputAt),
          areas.at<int32_t>(accAt)};
}

int64_t roundUp(int64_t value, int64_t to) {
  return (value + to - 1) / to * to;
}

/// How a quantized conv2d or matmul computes its int32 sums.
enum class GemmPath {
  Int16,    ///< blockedGemm on int16 (any CPU, any operands).
  S16Pairs, ///< gemmS16PairsAvx2 (AVX2, any operands).
  U8S8,     ///< gemmU8S8Vnni (AVX512-VNNI, s8 weights with zero point 0).
};

GemmPath chooseGemmPath(const TensorView &weight, const QuantOperand &w) {
  Int8Isa isa = int8Isa();
  if (isa == Int8Isa::Avx512Vnni && weight.dtype == DType::I8 &&
      std::all_of(w.zeroPoint.begin(), w.zeroPoint.end(),
                  [](int32_t z) { return z == 0; }))
    return GemmPath::U8S8;
  return isa >= Int8Isa::Avx2 ? GemmPath::S16Pairs : GemmPath::Int16;
}

/// dst[j] = r0[j] | r1[j] << 8 | r2[j] << 16 | r3[j] << 24.
STRATA_GEMM_CLONES
void interleave4(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                 const uint8_t *r3, int64_t count, uint32_t *dst) {
  for (int64_t j = 0; j < count; ++j)
    dst[j] = uint32_t(r0[j]) | uint32_t(r1[j]) << 8 | uint32_t(r2[j]) << 16 |
             uint32_t(r3[j]) << 24;
}

/// dst[j] = r0[j] | r1[j] << 16, as 16-bit fields.
STRATA_GEMM_CLONES
void interleave2(const int16_t *r0, const int16_t *r1, int64_t count,
                 uint32_t *dst) {
  for (int64_t j = 0; j < count; ++j)
    dst[j] = uint32_t(uint16_t(r0[j])) | uint32_t(uint16_t(r1[j])) << 16;
}

/// dst[i] = src[i] + 128 (i8 to u8 with the zero point moved by 128).
STRATA_GEMM_CLONES
void flipSign(const int8_t *src, int64_t count, uint8_t *dst) {
  for (int64_t i = 0; i < count; ++i)
    dst[i] = static_cast<uint8_t>(src[i]) ^ 0x80;
}

/// The packed B operand's layout for elements of type T: kVnniLayout for
/// u8, kAvx2Layout for int16.
template <typename T> constexpr Int8GemmLayout layoutOf() {
  return sizeof(T) == 1 ? kVnniLayout : kAvx2Layout;
}

/// Writes group `p` of the packed B operand (`groups` groups of G rows,
/// Int8Gemm.h) from its G rows of `n` values each; columns past n get 0.
template <typename T>
void packGroup(const T *const *rows, int64_t n, int64_t groups, int64_t p,
               T *packed) {
  constexpr Int8GemmLayout l = layoutOf<T>();
  static_assert(l.groupRows * sizeof(T) == 4, "a group is one 32-bit word");
  for (int64_t j0 = 0; j0 < n; j0 += l.tileColumns) {
    int64_t width = std::min(l.tileColumns, roundUp(n - j0, l.vectorColumns));
    int64_t count = std::min(width, n - j0);
    uint32_t *dst = reinterpret_cast<uint32_t *>(
        packed + j0 * groups * l.groupRows + p * width * l.groupRows);
    if constexpr (sizeof(T) == 1)
      interleave4(rows[0] + j0, rows[1] + j0, rows[2] + j0, rows[3] + j0, count,
                  dst);
    else
      interleave2(rows[0] + j0, rows[1] + j0, count, dst);
    std::fill(dst + count, dst + width, 0u);
  }
}

/// Row (ky, kx) of the im2col matrix of one input plane: dst[oy * ow + ox]
/// is plane[iy, ix], or `pad` where (iy, ix) is outside the image.
template <typename T>
void im2colRow(const Conv2dGeometry &g, const T *plane, int64_t ky, int64_t kx,
               T pad, T *dst) {
  TapColumns cols = tapColumns(g, kx);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    T *drow = dst + oy * g.ow;
    int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
    if (iy < 0 || iy >= g.h || cols.lo > cols.hi) {
      std::fill(drow, drow + g.ow, pad);
      continue;
    }
    std::fill(drow, drow + cols.lo, pad);
    std::fill(drow + cols.hi + 1, drow + g.ow, pad);
    const T *srow = plane + iy * g.w + cols.shift;
    if (g.strideW == 1)
      std::memcpy(drow + cols.lo, srow + cols.lo,
                  (cols.hi - cols.lo + 1) * sizeof(T));
    else
      for (int64_t ox = cols.lo; ox <= cols.hi; ++ox)
        drow[ox] = srow[ox * g.strideW];
  }
}

/// The A operand of the SIMD GEMMs: `rows` rows of K values (K from
/// `at(row, k)`, the weight with its zero point) padded with zeros to the
/// GEMM's groups. For the VNNI GEMM (s8, zero point 0) also the row bias
/// -xzU8 * sum_k w[row, k] that takes the activations' u8 zero point out.
template <typename T, typename At>
void packWeights(int64_t rows, int64_t kSize, int64_t kPad, At at, int32_t xzU8,
                 T *a, int32_t *rowBias) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t sum = 0;
    T *dst = a + r * kPad;
    for (int64_t k = 0; k < kSize; ++k) {
      int32_t v = at(r, k);
      sum += v;
      dst[k] = static_cast<T>(v);
    }
    std::fill(dst + kSize, dst + kPad, T(0));
    if (rowBias)
      rowBias[r] = -xzU8 * sum;
  }
}

/// Per-row sums of an s8 [rows, kSize] matrix, as the VNNI row bias.
void rowBiasOf(const int8_t *w, int64_t rows, int64_t kSize, int32_t xzU8,
               int32_t *rowBias) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t sum = 0;
    for (int64_t k = 0; k < kSize; ++k)
      sum += w[r * kSize + k];
    rowBias[r] = -xzU8 * sum;
  }
}

/// Scratch bytes of any path of a quantized conv2d, an upper bound.
double convScratchBytes(const Conv2dGeometry &g) {
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  double spatial = static_cast<double>(g.oh) * g.ow, kSize = cg * g.kh * g.kw;
  double kPad = kSize + 4, ldc = spatial + 64, plane = double(g.h) * g.w;
  double int16Path = 2.0 * g.oc * kSize +
                     2.0 * std::max(kSize * spatial, plane) +
                     4.0 * ocg * spatial;
  double packedPaths = 2.0 * g.oc * kPad + 4.0 * g.oc + 2.0 * cg * plane +
                       8.0 * spatial + 2.0 * kPad * ldc + 4.0 * ocg * ldc;
  return std::max(int16Path, packedPaths) + 64.0 * 8;
}

/// A quantized conv2d's operands and geometry, validated.
struct ConvOperands {
  const Conv2dGeometry &g;
  const TensorView &in, &weight, &out;
  const QuantOperand &x, &w;
  const Epilogue &e;
};

/// The conv weight, `rows` output channels of `perRow` values each, minus
/// its channel's zero point, as int16.
void widenWeights(const ConvOperands &op, int64_t rows, int64_t perRow,
                  int16_t *dst) {
  for (int64_t o = 0; o < rows; ++o)
    for (int64_t k = 0; k < perRow; ++k)
      dst[o * perRow + k] = static_cast<int16_t>(
          load8(op.weight, o * perRow + k) - op.w.zeroPoint[o]);
}

/// Depthwise: per channel, the plane widened to int16, then each tap adds
/// a shifted input row over the output columns whose input column is
/// inside the image (as the f32 kernel does).
void convDepthwise(KernelIO &ctx, const ConvOperands &op) {
  const Conv2dGeometry &g = op.g;
  int64_t spatial = g.oh * g.ow, taps = g.kh * g.kw;
  int32_t xz = op.x.zeroPoint[0];
  Int16Scratch scratch =
      allocateInt16Scratch(ctx, g.oc * taps, g.h * g.w, spatial);
  int16_t *weights = scratch.weights, *plane = scratch.input;
  int32_t *acc = scratch.acc;
  widenWeights(op, g.oc, taps, weights);
  std::vector<float> real(spatial);
  std::vector<int16_t> widened(op.e.residual ? spatial : 0);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const int16_t *wc = weights + ch * taps;
      widen(op.in, (b * g.c + ch) * g.h * g.w, 1, g.h * g.w, xz, plane);
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
            depthwiseTap(arow, plane + iy * g.w + shift, wc[ky * g.kw + kx], lo,
                         hi, g.strideW);
          }
        }
      }
      op.e.storeRun(op.out, (b * g.oc + ch) * spatial, 1, ch, acc, spatial,
                    real.data(), widened.data());
    }
}

/// im2col of (x - zero point) in int16 (padding contributes 0), then the
/// blocked int16 GEMM, per (batch, group).
void convInt16(KernelIO &ctx, const ConvOperands &op) {
  const Conv2dGeometry &g = op.g;
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  int64_t spatial = g.oh * g.ow, kSize = cg * g.kh * g.kw;
  int32_t xz = op.x.zeroPoint[0];
  Int16Scratch scratch =
      allocateInt16Scratch(ctx, g.oc * kSize, kSize * spatial, ocg * spatial);
  int16_t *weights = scratch.weights, *columns = scratch.input;
  int32_t *acc = scratch.acc;
  widenWeights(op, g.oc, kSize, weights);
  std::vector<float> real(spatial);
  std::vector<int16_t> widened(op.e.residual ? spatial : 0);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      // im2col: row (c, ky, kx), column (oy, ox).
      int64_t inBase = (b * g.c + gi * cg) * g.h * g.w;
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            int16_t *dst = columns + ((ci * g.kh + ky) * g.kw + kx) * spatial;
            int64_t src = inBase + ci * g.h * g.w;
            auto [shift, lo, hi] = tapColumns(g, kx);
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
              int16_t *drow = dst + oy * g.ow;
              std::fill(drow, drow + g.ow, int16_t(0));
              if (iy >= 0 && iy < g.h && lo <= hi)
                widen(op.in, src + iy * g.w + lo * g.strideW + shift, g.strideW,
                      hi - lo + 1, xz, drow + lo);
            }
          }
      gemmInt16(ocg, spatial, kSize, weights + gi * ocg * kSize, kSize, columns,
                spatial, acc, spatial);
      for (int64_t o = 0; o < ocg; ++o) {
        int64_t channel = gi * ocg + o;
        op.e.storeRun(op.out, (b * g.oc + channel) * spatial, 1, channel,
                      acc + o * spatial, spatial, real.data(), widened.data());
      }
    }
}

/// On one of the SIMD GEMMs, per (batch, group): the input planes made
/// T (u8 for VNNI, x + 128 for i8; int16 x - zero point for AVX2), then
/// each group of G im2col rows (padding holds the zero point, so it
/// contributes 0) packed straight into the B operand, then the GEMM.
/// A 1x1 stride-1 unpadded convolution packs the planes themselves.
template <typename T> void convPacked(KernelIO &ctx, const ConvOperands &op) {
  constexpr bool vnni = sizeof(T) == 1;
  using W = std::conditional_t<vnni, int8_t, int16_t>;
  constexpr Int8GemmLayout l = layoutOf<T>();
  constexpr int64_t G = l.groupRows;
  const Conv2dGeometry &g = op.g;
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  int64_t spatial = g.oh * g.ow, kSize = cg * g.kh * g.kw, taps = g.kh * g.kw;
  int64_t groups = (kSize + G - 1) / G, kPad = groups * G, plane = g.h * g.w;
  int64_t ldc = roundUp(spatial, l.vectorColumns);
  bool pointwise = taps == 1 && g.strideH == 1 && g.strideW == 1 &&
                   g.padT == 0 && g.padL == 0 && g.padB == 0 && g.padR == 0;
  bool inPlace = vnni && op.in.dtype == DType::U8;
  // s8 weights with a multiple of 4 columns are the A operand as stored.
  bool copyWeights = !vnni || kSize % G != 0;
  int32_t xz = op.x.zeroPoint[0];
  int32_t xzU8 = op.in.dtype == DType::I8 ? xz + 128 : xz;

  ScratchAreas areas;
  size_t weightsAt = areas.add<W>(copyWeights ? g.oc * kPad : 0);
  size_t biasAt = areas.add<int32_t>(g.oc);
  size_t planesAt = areas.add<T>(inPlace ? 0 : cg * plane);
  size_t rowsAt = areas.add<T>(G * spatial);
  size_t packedAt = areas.add<T>(kPad * ldc);
  size_t accAt = areas.add<int32_t>(ocg * ldc);
  areas.allocate(ctx);
  int32_t *rowBias = areas.at<int32_t>(biasAt);
  T *planes = areas.at<T>(planesAt), *rowArea = areas.at<T>(rowsAt);
  T *packed = areas.at<T>(packedAt);
  int32_t *acc = areas.at<int32_t>(accAt);

  const W *a = areas.at<W>(weightsAt);
  int64_t lda = kPad;
  if constexpr (vnni) {
    const int8_t *stored = op.weight.as<int8_t>();
    if (copyWeights)
      packWeights(
          g.oc, kSize, kPad,
          [&](int64_t r, int64_t k) -> int32_t {
            return stored[r * kSize + k];
          },
          xzU8, areas.at<W>(weightsAt), rowBias);
    else {
      a = stored;
      rowBiasOf(stored, g.oc, kSize, xzU8, rowBias);
    }
  } else {
    packWeights(
        g.oc, kSize, kPad,
        [&](int64_t r, int64_t k) -> int32_t {
          return load8(op.weight, r * kSize + k) - op.w.zeroPoint[r];
        },
        0, areas.at<W>(weightsAt), nullptr);
  }

  std::vector<float> real(spatial);
  std::vector<int16_t> widened(op.e.residual ? spatial : 0);
  T pad = vnni ? static_cast<T>(xzU8) : T(0);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      int64_t inBase = (b * g.c + gi * cg) * plane;
      const T *x = planes;
      if constexpr (vnni) {
        if (inPlace)
          x = op.in.as<uint8_t>() + inBase;
        else
          flipSign(op.in.as<int8_t>() + inBase, cg * plane, planes);
      } else {
        widen(op.in, inBase, 1, cg * plane, xz, planes);
      }
      for (int64_t p = 0; p < groups; ++p) {
        const T *rows[G];
        for (int64_t j = 0; j < G; ++j) {
          int64_t k = p * G + j;
          T *row = rowArea + j * spatial;
          rows[j] = row;
          if (k >= kSize)
            std::fill(row, row + spatial, T(0));
          else if (pointwise)
            rows[j] = x + k * plane;
          else
            im2colRow(g, x + (k / taps) * plane, (k % taps) / g.kw, k % g.kw,
                      pad, row);
        }
        packGroup(rows, spatial, groups, p, packed);
      }
      if constexpr (vnni)
        gemmU8S8Vnni(ocg, spatial, groups, a + gi * ocg * lda, lda, packed,
                     rowBias + gi * ocg, acc, ldc);
      else
        gemmS16PairsAvx2(ocg, spatial, groups, a + gi * ocg * lda, lda, packed,
                         acc, ldc);
      for (int64_t o = 0; o < ocg; ++o) {
        int64_t channel = gi * ocg + o;
        op.e.storeRun(op.out, (b * g.oc + channel) * spatial, 1, channel,
                      acc + o * ldc, spatial, real.data(), widened.data());
      }
    }
}

} // namespace

//===----------------------------------------------------------------------===//
// quantized_conv2d
//===----------------------------------------------------------------------===//

/// A quantized conv2d's geometry and epilogue parameters, checked against
/// its operands.
struct QuantizedConvState {
  Conv2dGeometry g;
  EpilogueParams epilogue;
};

static Result<QuantizedConvState>
prepareQuantizedConv(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 7, 12, 1));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[3], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(g, readConv2dGeometry(ctx.params, in, weight, out));
  STRATA_KERNEL_ASSIGN(params, readEpilogueParams(ctx.params));
  STRATA_KERNEL_ASSIGN(x, readQuantOperand(ctx, 0, "input", 0));
  STRATA_KERNEL_ASSIGN(w, readQuantOperand(ctx, 3, "weight", g.oc));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, params, x, w, g.oc, true));
  int64_t kSize = g.c / g.group * g.kh * g.kw;
  if (convScratchBytes(g) > 4.0 * static_cast<double>(kMaxScratchFloats) ||
      kSize >= (int64_t(1) << 15))
    return ctx.fail("the im2col buffers of " + out.typeString() +
                    " are too large");
  return QuantizedConvState{g, params};
}

/// Reads the quantization operands' values (scales and zero points are
/// tensors, which the program may compute) and runs the convolution.
static Error executeQuantizedConv(const QuantizedConvState &st, KernelIO &ctx) {
  const Conv2dGeometry &g = st.g;
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[3], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(x, readQuantOperand(ctx, 0, "input", 0));
  STRATA_KERNEL_ASSIGN(w, readQuantOperand(ctx, 3, "weight", g.oc));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, st.epilogue, x, w, g.oc, true));
  ConvOperands op{g, in, weight, out, x, w, e};
  if (g.c == g.group && g.oc == g.group) {
    convDepthwise(ctx, op);
    return Error::success();
  }
  switch (chooseGemmPath(weight, w)) {
  case GemmPath::U8S8:
    convPacked<uint8_t>(ctx, op);
    break;
  case GemmPath::S16Pairs:
    convPacked<int16_t>(ctx, op);
    break;
  case GemmPath::Int16:
    convInt16(ctx, op);
    break;
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// quantized_matmul
//===----------------------------------------------------------------------===//

namespace {

/// Where one batch's lhs rows, rhs and results start (flat indices).
struct MatmulBatch {
  int64_t lhs = 0, rhs = 0, out = 0;
};

/// [M, K] x [K, N] on one of the SIMD GEMMs as C^T = W^T X^T: the weight,
/// transposed, is the A operand (rows are the N channels), the lhs rows
/// the packed B columns (K runs along each row, so a group is G adjacent
/// values), and each row of C^T one channel's run of M results.
template <typename T>
void matmulPacked(KernelIO &ctx, const TensorView &lhs, const TensorView &rhs,
                  const QuantOperand &a, const QuantOperand &b,
                  const Epilogue &e, int64_t m, int64_t k, int64_t n,
                  MatmulBatch at) {
  constexpr bool vnni = sizeof(T) == 1;
  using W = std::conditional_t<vnni, int8_t, int16_t>;
  constexpr Int8GemmLayout l = layoutOf<T>();
  constexpr int64_t G = l.groupRows;
  int64_t groups = (k + G - 1) / G, kPad = groups * G;
  int64_t ldc = roundUp(m, l.vectorColumns);
  int32_t az = a.zeroPoint[0];
  int32_t azU8 = lhs.dtype == DType::I8 ? az + 128 : az;

  ScratchAreas areas;
  size_t weightsAt = areas.add<W>(n * kPad);
  size_t biasAt = areas.add<int32_t>(n);
  size_t packedAt = areas.add<T>(kPad * ldc);
  size_t accAt = areas.add<int32_t>(n * ldc);
  areas.allocate(ctx);
  W *weights = areas.at<W>(weightsAt);
  int32_t *rowBias = areas.at<int32_t>(biasAt);
  T *packed = areas.at<T>(packedAt);
  int32_t *acc = areas.at<int32_t>(accAt);
  if constexpr (vnni) {
    const int8_t *stored = rhs.as<int8_t>() + at.rhs;
    packWeights(
        n, k, kPad,
        [&](int64_t j, int64_t p) -> int32_t { return stored[p * n + j]; },
        azU8, weights, rowBias);
  } else {
    packWeights(
        n, k, kPad,
        [&](int64_t j, int64_t p) -> int32_t {
          return load8(rhs, at.rhs + p * n + j) - b.zeroPoint[j];
        },
        0, weights, nullptr);
  }

  // B: column i of tile j0 in group p holds lhs[j0 + i, p * G .. + G).
  for (int64_t j0 = 0; j0 < m; j0 += l.tileColumns) {
    int64_t width = std::min(l.tileColumns, roundUp(m - j0, l.vectorColumns));
    int64_t count = std::min(width, m - j0);
    for (int64_t p = 0; p < groups; ++p) {
      T *dst = packed + j0 * groups * G + p * width * G;
      for (int64_t i = 0; i < count; ++i)
        for (int64_t j = 0; j < G; ++j) {
          int64_t col = p * G + j, from = at.lhs + (j0 + i) * k + col;
          T v = T(0);
          if (col < k) {
            if constexpr (vnni)
              v = static_cast<T>(load8(lhs, from) - az + azU8);
            else
              v = static_cast<T>(load8(lhs, from) - az);
          }
          dst[i * G + j] = v;
        }
      std::fill(dst + count * G, dst + width * G, T(0));
    }
  }
  if constexpr (vnni)
    gemmU8S8Vnni(n, m, groups, weights, kPad, packed, rowBias, acc, ldc);
  else
    gemmS16PairsAvx2(n, m, groups, weights, kPad, packed, acc, ldc);
  // Row j of C^T is channel j: a run down column j of the result.
  std::vector<float> real(m);
  std::vector<int16_t> widened;
  for (int64_t j = 0; j < n; ++j)
    e.storeRun(ctx.outs[0], at.out + j, n, j, acc + j * ldc, m, real.data(),
               widened.data());
}

/// The int16 path: (x - zero point) in int16, the blocked GEMM, then a
/// column-wise epilogue.
void matmulInt16(KernelIO &ctx, const TensorView &lhs, const TensorView &rhs,
                 const QuantOperand &a, const QuantOperand &b,
                 const Epilogue &e, int64_t m, int64_t k, int64_t n,
                 MatmulBatch at) {
  Int16Scratch scratch = allocateInt16Scratch(ctx, k * n, m * k, m * n);
  int16_t *weights = scratch.weights, *columns = scratch.input;
  int32_t *acc = scratch.acc;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      weights[p * n + j] = static_cast<int16_t>(
          load8(rhs, at.rhs + p * n + j) - b.zeroPoint[j]);
  widen(lhs, at.lhs, 1, m * k, a.zeroPoint[0], columns);
  gemmInt16(m, n, k, columns, k, weights, n, acc, n);
  // Column j has channel j: store column-wise runs down the rows.
  std::vector<int32_t> column(m);
  std::vector<float> real(m);
  std::vector<int16_t> widened;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i)
      column[i] = acc[i * n + j];
    e.storeRun(ctx.outs[0], at.out + j, n, j, column.data(), m, real.data(),
               widened.data());
  }
}

} // namespace

namespace {
/// A quantized matmul's extents and epilogue parameters, checked against
/// its operands.
struct QuantizedMatmulState {
  int64_t m, k, n, batches;
  bool batchedRhs;
  EpilogueParams epilogue;
};
} // namespace

static Result<QuantizedMatmulState>
prepareQuantizedMatmul(const KernelContext &ctx) {
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
  STRATA_KERNEL_ASSIGN(params, readEpilogueParams(ctx.params));
  STRATA_KERNEL_ASSIGN(a, readQuantOperand(ctx, 0, "lhs", 0));
  STRATA_KERNEL_ASSIGN(b, readQuantOperand(ctx, 3, "rhs", n));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, params, a, b, n, false));
  if (k >= (int64_t(1) << 15))
    return ctx.fail("inner dimension " + std::to_string(k) + " exceeds 32767");
  return QuantizedMatmulState{m, k, n, batches, batchedRhs, params};
}

static Error executeQuantizedMatmul(const QuantizedMatmulState &st,
                                    KernelIO &ctx) {
  const TensorView &lhs = ctx.ins[0], &rhs = ctx.ins[3];
  int64_t m = st.m, k = st.k, n = st.n, batches = st.batches;
  bool batchedRhs = st.batchedRhs;
  STRATA_KERNEL_ASSIGN(a, readQuantOperand(ctx, 0, "lhs", 0));
  STRATA_KERNEL_ASSIGN(b, readQuantOperand(ctx, 3, "rhs", n));
  STRATA_KERNEL_ASSIGN(e, readEpilogue(ctx, st.epilogue, a, b, n, false));
  GemmPath path = chooseGemmPath(rhs, b);
  for (int64_t batch = 0; batch < batches; ++batch) {
    MatmulBatch at{batch * m * k, batchedRhs ? batch * k * n : 0,
                   batch * m * n};
    switch (path) {
    case GemmPath::U8S8:
      matmulPacked<uint8_t>(ctx, lhs, rhs, a, b, e, m, k, n, at);
      break;
    case GemmPath::S16Pairs:
      matmulPacked<int16_t>(ctx, lhs, rhs, a, b, e, m, k, n, at);
      break;
    case GemmPath::Int16:
      matmulInt16(ctx, lhs, rhs, a, b, e, m, k, n, at);
      break;
    }
  }
  return Error::success();
}

KernelEntry quantizedConv2dKernel() {
  return typedKernel<QuantizedConvState, prepareQuantizedConv,
                     executeQuantizedConv>();
}

KernelEntry quantizedMatmulKernel() {
  return typedKernel<QuantizedMatmulState, prepareQuantizedMatmul,
                     executeQuantizedMatmul>();
}

} // namespace strata::runtime::kernels
