//===- QuantizedLinearKernelTest.cpp - int8 conv2d/matmul on every ISA ----===//
//
// quantized_conv2d and quantized_matmul on each GEMM this CPU can run
// (AVX512-VNNI, AVX2, the default int16 one; setInt8Isa picks it) against
// a reference computed here from the definition: acc = sum (x - x_zp) *
// (w - w_zp[o]), real = acc * s_x * s_w[o] + bias[o] (+ (r - r_zp) * s_r),
// clamped, then for an 8-bit result saturate(round_half_to_even(real /
// s_y) + y_zp). Scales are powers of two and biases multiples of them, so
// every float step is exact and the results must match bit for bit (ties
// of the rounding included).
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include "Int8Gemm.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace strata::runtime;
using namespace strata::runtime::kernels;
using namespace strata::runtime::testing;

namespace {

int32_t lowest(DType t) { return t == DType::I8 ? -128 : 0; }
int32_t highest(DType t) { return t == DType::I8 ? 127 : 255; }

/// An i8 or u8 tensor from int values.
OwnedTensor tensor8(DType dtype, std::vector<int64_t> shape,
                    const std::vector<int32_t> &values) {
  OwnedTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  for (int32_t v : values)
    t.bytes.push_back(static_cast<uint8_t>(v));
  return t;
}

/// `count` values uniform over the range of `dtype`, the extremes included.
std::vector<int32_t> random8(std::mt19937 &rng, DType dtype, int64_t count) {
  std::uniform_int_distribution<int32_t> dist(lowest(dtype), highest(dtype));
  std::vector<int32_t> v(count);
  for (int32_t &x : v)
    x = dist(rng);
  if (count > 2) {
    v[0] = lowest(dtype);
    v[1] = highest(dtype);
  }
  return v;
}

/// The epilogue of both ops, as the reference computes it.
struct EpilogueSpec {
  DType outType = DType::F32;
  float outScale = 4.0f;
  int32_t outZeroPoint = 0;
  bool residual = false;
  DType residualType = DType::I8;
  int32_t residualZeroPoint = 0;
  float residualScale = 0.5f;
  bool clamp = false;
  float clipMin = 0.0f, clipMax = 0.0f;
};

/// The reference epilogue of one accumulator.
double finish(const EpilogueSpec &e, int64_t acc, double multiplier,
              double bias, int32_t residual) {
  double real = static_cast<double>(acc) * multiplier + bias;
  if (e.residual)
    real += (residual - e.residualZeroPoint) * double(e.residualScale);
  if (e.clamp)
    real = std::min(std::max(real, double(e.clipMin)), double(e.clipMax));
  if (e.outType == DType::F32)
    return real;
  double q = std::nearbyint(real / e.outScale) + e.outZeroPoint;
  return std::min<double>(std::max<double>(q, lowest(e.outType)),
                          highest(e.outType));
}

/// Appends the output quantization and residual operands of `e`.
void addEpilogueOperands(const EpilogueSpec &e, std::vector<OwnedTensor> &ins,
                         const std::vector<int32_t> &residual,
                         std::vector<int64_t> outShape) {
  if (e.outType != DType::F32) {
    ins.push_back(f32Tensor({}, {e.outScale}));
    ins.push_back(tensor8(e.outType, {}, {e.outZeroPoint}));
  }
  if (e.residual) {
    ins.push_back(tensor8(e.residualType, std::move(outShape), residual));
    ins.push_back(f32Tensor({}, {e.residualScale}));
    ins.push_back(tensor8(e.residualType, {}, {e.residualZeroPoint}));
  }
}

/// The result as doubles, whatever its dtype.
std::vector<double> resultValues(const OwnedTensor &t) {
  std::vector<double> v;
  if (t.dtype == DType::F32)
    for (float f : values(t))
      v.push_back(f);
  else
    for (uint8_t b : t.bytes)
      v.push_back(t.dtype == DType::I8 ? double(static_cast<int8_t>(b))
                                       : double(b));
  return v;
}

/// Per-channel weight scales 2^-2, 2^-3, 2^-4, ... and biases in 1/128.
float weightScale(int64_t o) { return std::ldexp(1.0f, -2 - int(o % 3)); }
float biasOf(int64_t o) { return static_cast<float>((o * 37) % 23 - 11) / 128; }
constexpr float kInputScale = 0.125f;

/// A quantized_conv2d case.
struct ConvCase {
  int64_t n = 1, c = 4, h = 9, w = 9, oc = 7, kh = 3, kw = 3, group = 1;
  int64_t strideH = 1, strideW = 1, dilH = 1, dilW = 1;
  std::vector<int64_t> pads = {1, 1, 1, 1};
  DType inType = DType::I8, weightType = DType::I8;
  int32_t inZeroPoint = 0;
  /// Weight zero point of channel o: weightZeroPoints[o % size].
  std::vector<int32_t> weightZeroPoints = {0};
  EpilogueSpec epilogue;
};

/// The ISAs this CPU can run, lowest first.
std::vector<Int8Isa> availableIsas() {
  std::vector<Int8Isa> isas;
  for (Int8Isa isa : {Int8Isa::Default, Int8Isa::Avx2, Int8Isa::Avx512Vnni})
    if (isa <= bestInt8Isa())
      isas.push_back(isa);
  return isas;
}

class QuantizedLinearKernelTest : public ::testing::Test {
protected:
  void TearDown() override { setInt8Isa(bestInt8Isa()); }

  /// Runs `kernel` on every available ISA and expects `want` exactly.
  void expectOnEveryIsa(const std::string &kernel,
                        std::vector<OwnedTensor> &inputs, DType outType,
                        const std::vector<int64_t> &outShape,
                        const std::vector<Param> &params,
                        const std::vector<double> &want) {
    for (Int8Isa isa : availableIsas()) {
      SCOPED_TRACE(std::string("isa ") + int8IsaName(isa));
      ASSERT_TRUE(setInt8Isa(isa));
      Result<OwnedTensor> out =
          runKernel(kernel, inputs, outType, outShape, params);
      ASSERT_TRUE(out.ok()) << out.error().message();
      std::vector<double> got = resultValues(*out);
      ASSERT_EQ(got.size(), want.size());
      int failures = 0;
      for (size_t i = 0; i < got.size() && failures < 5; ++i)
        if (got[i] != want[i]) {
          ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want "
                        << want[i];
          ++failures;
        }
    }
  }

  void runConv(const ConvCase &t, unsigned seed = 1) {
    std::mt19937 rng(seed);
    const EpilogueSpec &e = t.epilogue;
    int64_t cg = t.c / t.group, ocg = t.oc / t.group;
    int64_t oh =
        (t.h + t.pads[0] + t.pads[2] - t.dilH * (t.kh - 1) - 1) / t.strideH + 1;
    int64_t ow =
        (t.w + t.pads[1] + t.pads[3] - t.dilW * (t.kw - 1) - 1) / t.strideW + 1;
    std::vector<int64_t> outShape = {t.n, t.oc, oh, ow};
    int64_t outCount = t.n * t.oc * oh * ow;
    std::vector<int32_t> x = random8(rng, t.inType, t.n * t.c * t.h * t.w);
    std::vector<int32_t> w =
        random8(rng, t.weightType, t.oc * cg * t.kh * t.kw);
    std::vector<int32_t> residual = e.residual
                                        ? random8(rng, e.residualType, outCount)
                                        : std::vector<int32_t>();
    std::vector<float> scales(t.oc), bias(t.oc);
    std::vector<int32_t> wz(t.oc);
    for (int64_t o = 0; o < t.oc; ++o) {
      scales[o] = weightScale(o);
      bias[o] = biasOf(o);
      wz[o] = t.weightZeroPoints[o % t.weightZeroPoints.size()];
    }

    std::vector<double> want(outCount);
    for (int64_t b = 0; b < t.n; ++b)
      for (int64_t o = 0; o < t.oc; ++o)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t acc = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < t.kh; ++ky)
                for (int64_t kx = 0; kx < t.kw; ++kx) {
                  int64_t iy = oy * t.strideH - t.pads[0] + ky * t.dilH;
                  int64_t ix = ox * t.strideW - t.pads[1] + kx * t.dilW;
                  if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w)
                    continue;
                  int64_t c = (o / ocg) * cg + ci;
                  acc += int64_t(x[((b * t.c + c) * t.h + iy) * t.w + ix] -
                                 t.inZeroPoint) *
                         (w[((o * cg + ci) * t.kh + ky) * t.kw + kx] - wz[o]);
                }
            int64_t at = ((b * t.oc + o) * oh + oy) * ow + ox;
            want[at] = finish(e, acc, double(kInputScale) * scales[o], bias[o],
                              e.residual ? residual[at] : 0);
          }

    std::vector<OwnedTensor> inputs;
    inputs.push_back(tensor8(t.inType, {t.n, t.c, t.h, t.w}, x));
    inputs.push_back(f32Tensor({}, {kInputScale}));
    inputs.push_back(tensor8(t.inType, {}, {t.inZeroPoint}));
    inputs.push_back(tensor8(t.weightType, {t.oc, cg, t.kh, t.kw}, w));
    inputs.push_back(f32Tensor({t.oc}, scales));
    inputs.push_back(tensor8(t.weightType, {t.oc}, wz));
    inputs.push_back(f32Tensor({t.oc}, bias));
    addEpilogueOperands(e, inputs, residual, outShape);
    std::vector<Param> params = {intsParam("strides", {t.strideH, t.strideW}),
                                 intsParam("dilations", {t.dilH, t.dilW}),
                                 intsParam("pads", t.pads),
                                 intParam("group", t.group)};
    if (e.clamp) {
      params.push_back(floatParam("clip_min", e.clipMin));
      params.push_back(floatParam("clip_max", e.clipMax));
    }
    expectOnEveryIsa("quantized_conv2d", inputs, e.outType, outShape, params,
                     want);
  }

  /// [batch..., m, k] x [k, n] with per-column weight zero points, or with
  /// `batchedRhs` x [batch..., k, n] (each batch its own rhs, as
  /// attention's products).
  void runMatmul(std::vector<int64_t> lhsShape, int64_t n, DType inType,
                 int32_t inZeroPoint, DType weightType,
                 std::vector<int32_t> weightZeroPoints, const EpilogueSpec &e,
                 bool batchedRhs = false) {
    std::mt19937 rng(7);
    int64_t k = lhsShape.back(), m = 1;
    for (size_t d = 0; d + 1 < lhsShape.size(); ++d)
      m *= lhsShape[d];
    int64_t rowsPerRhs = batchedRhs ? lhsShape.end()[-2] : m;
    std::vector<int64_t> outShape = lhsShape, rhsShape{k, n};
    outShape.back() = n;
    if (batchedRhs) {
      rhsShape = lhsShape;
      rhsShape.end()[-2] = k;
      rhsShape.back() = n;
    }
    std::vector<int32_t> x = random8(rng, inType, m * k);
    std::vector<int32_t> w =
        random8(rng, weightType, k * n * (m / rowsPerRhs));
    std::vector<float> scales(n), bias(n);
    std::vector<int32_t> wz(n);
    for (int64_t j = 0; j < n; ++j) {
      scales[j] = weightScale(j);
      bias[j] = biasOf(j);
      wz[j] = weightZeroPoints[j % weightZeroPoints.size()];
    }
    std::vector<double> want(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        int64_t base = (i / rowsPerRhs) * k * n;
        for (int64_t p = 0; p < k; ++p)
          acc += int64_t(x[i * k + p] - inZeroPoint) *
                 (w[base + p * n + j] - wz[j]);
        want[i * n + j] =
            finish(e, acc, double(kInputScale) * scales[j], bias[j], 0);
      }
    std::vector<OwnedTensor> inputs;
    inputs.push_back(tensor8(inType, lhsShape, x));
    inputs.push_back(f32Tensor({}, {kInputScale}));
    inputs.push_back(tensor8(inType, {}, {inZeroPoint}));
    inputs.push_back(tensor8(weightType, rhsShape, w));
    inputs.push_back(f32Tensor({n}, scales));
    inputs.push_back(tensor8(weightType, {n}, wz));
    inputs.push_back(f32Tensor({n}, bias));
    addEpilogueOperands(e, inputs, {}, outShape);
    std::vector<Param> params;
    if (e.clamp) {
      params.push_back(floatParam("clip_min", e.clipMin));
      params.push_back(floatParam("clip_max", e.clipMax));
    }
    expectOnEveryIsa("quantized_matmul", inputs, e.outType, outShape, params,
                     want);
  }
};

TEST_F(QuantizedLinearKernelTest, SetIsaAcceptsWhatTheCpuHas) {
  for (Int8Isa isa : availableIsas()) {
    EXPECT_TRUE(setInt8Isa(isa)) << int8IsaName(isa);
    EXPECT_EQ(int8Isa(), isa);
  }
  if (bestInt8Isa() < Int8Isa::Avx512Vnni) {
    EXPECT_FALSE(setInt8Isa(Int8Isa::Avx512Vnni));
  }
}

TEST_F(QuantizedLinearKernelTest, I8InputWithZeroPointKNotAMultipleOf4) {
  // K = 5 * 3 * 3 = 45, 7 channels (a partial block of rows), 81 columns
  // (a full tile and a partial one), f32 result.
  ConvCase t;
  t.c = 5;
  t.inZeroPoint = -3;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, U8InputRequantizedWithResidualAndClamp) {
  // K = 8 * 9 = 72 (the s8 weights are used as stored on VNNI), i8 result
  // with a u8 residual, a relu6-like clamp and an output zero point.
  ConvCase t;
  t.c = 8;
  t.oc = 13;
  t.h = t.w = 12;
  t.inType = DType::U8;
  t.inZeroPoint = 131;
  t.epilogue.outType = DType::I8;
  t.epilogue.outZeroPoint = -5;
  t.epilogue.residual = true;
  t.epilogue.residualType = DType::U8;
  t.epilogue.residualZeroPoint = 120;
  t.epilogue.clamp = true;
  t.epilogue.clipMin = 0.0f;
  t.epilogue.clipMax = 300.0f;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, StemLikeStride2AsymmetricPads) {
  // K = 3 * 3 * 3 = 27, stride 2, pads (top 1, left 0, bottom 2, right 1),
  // batch 2, a u8 result.
  ConvCase t;
  t.n = 2;
  t.c = 3;
  t.h = 15;
  t.w = 14;
  t.oc = 16;
  t.strideH = t.strideW = 2;
  t.pads = {1, 0, 2, 1};
  t.inZeroPoint = 17;
  t.epilogue.outType = DType::U8;
  t.epilogue.outZeroPoint = 128;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, PointwiseAndStridedPointwise) {
  ConvCase t;
  t.c = 12;
  t.oc = 9;
  t.kh = t.kw = 1;
  t.pads = {0, 0, 0, 0};
  t.inZeroPoint = 4;
  runConv(t);
  t.c = 6; // K not a multiple of 4 without im2col.
  runConv(t, 2);
  t.strideH = t.strideW = 2;
  t.epilogue.residual = true;
  t.epilogue.residualZeroPoint = -7;
  runConv(t, 3);
}

TEST_F(QuantizedLinearKernelTest, GroupsAndDilation) {
  ConvCase t;
  t.c = 6;
  t.oc = 10;
  t.group = 2;
  t.dilH = 2;
  t.dilW = 3;
  t.pads = {2, 3, 2, 3};
  t.inZeroPoint = -100;
  t.epilogue.outType = DType::I8;
  t.epilogue.outScale = 2.0f;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, U8WeightsWithZeroPoints) {
  // Not VNNI's case: u8 weights with per-channel zero points.
  ConvCase t;
  t.c = 4;
  t.oc = 6;
  t.weightType = DType::U8;
  t.weightZeroPoints = {128, 0, 255, 77};
  t.inZeroPoint = 9;
  runConv(t);
  t.inType = DType::U8;
  t.inZeroPoint = 200;
  runConv(t, 2);
}

TEST_F(QuantizedLinearKernelTest, I8WeightsWithNonzeroZeroPoint) {
  ConvCase t;
  t.weightZeroPoints = {0, 3, -128};
  t.inZeroPoint = 1;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, Depthwise) {
  ConvCase t;
  t.c = t.oc = t.group = 8;
  t.strideH = t.strideW = 2;
  t.inZeroPoint = -20;
  t.epilogue.outType = DType::I8;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, LongKAndManyChannels) {
  // K = 64 * 9 = 576 and 70 channels, a 7x7 output as in ResNet's layer4.
  ConvCase t;
  t.c = 64;
  t.oc = 70;
  t.h = t.w = 7;
  t.inZeroPoint = -128;
  t.epilogue.outType = DType::I8;
  t.epilogue.outScale = 64.0f;
  runConv(t);
}

TEST_F(QuantizedLinearKernelTest, MatmulI8ToF32) {
  // M = 2 * 5 rows, K = 19, N = 11.
  runMatmul({2, 5, 19}, 11, DType::I8, 6, DType::I8, {0}, EpilogueSpec());
}

TEST_F(QuantizedLinearKernelTest, MatmulU8RequantizedManyRows) {
  // M = 70 rows (two column tiles of C^T), K = 32.
  EpilogueSpec e;
  e.outType = DType::U8;
  e.outZeroPoint = 100;
  e.clamp = true;
  e.clipMin = -50.0f;
  e.clipMax = 50.0f;
  runMatmul({70, 32}, 9, DType::U8, 140, DType::I8, {0}, e);
}

TEST_F(QuantizedLinearKernelTest, MatmulBatchedRhsRequantized) {
  // Attention's shape: 3 heads, each [7, 16] x its own [16, 7].
  EpilogueSpec e;
  e.outType = DType::I8;
  runMatmul({3, 7, 16}, 7, DType::I8, 0, DType::I8, {0}, e,
            /*batchedRhs=*/true);
}

TEST_F(QuantizedLinearKernelTest, MatmulBatchedRhsWithZeroPointsToF32) {
  runMatmul({2, 2, 5, 9}, 6, DType::U8, 3, DType::U8, {7, 0}, EpilogueSpec(),
            /*batchedRhs=*/true);
}

TEST_F(QuantizedLinearKernelTest, MatmulU8WeightsWithZeroPoints) {
  EpilogueSpec e;
  e.outType = DType::I8;
  runMatmul({3, 23}, 5, DType::I8, -2, DType::U8, {128, 3, 250}, e);
}

} // namespace
