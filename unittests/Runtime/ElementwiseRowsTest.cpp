//===- ElementwiseRowsTest.cpp - broadcast rows and vector math -----------===//
//
// The broadcast walker against an element-by-element index computation,
// the kernels built on it against naive references, and the f32
// transcendental kernels against the C++ functions in double.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace strata::runtime;
using namespace strata::runtime::kernels;
using namespace strata::runtime::testing;

namespace {

/// A view of `shape` over no data (the walker reads shapes only).
TensorView shapeView(std::vector<int64_t> shape) {
  TensorView v;
  v.dtype = DType::F32;
  v.shape = std::move(shape);
  return v;
}

int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

/// The element of an operand of `in` that result element `i` of `out`
/// reads: the result index, with broadcast extents at 0, in row-major
/// order.
int64_t naiveOffset(const std::vector<int64_t> &in,
                    const std::vector<int64_t> &out, int64_t i) {
  std::vector<int64_t> index(out.size());
  for (size_t d = out.size(); d-- > 0;) {
    index[d] = i % out[d];
    i /= out[d];
  }
  int64_t offset = 0;
  for (size_t d = 0; d < out.size(); ++d)
    offset = offset * in[d] + (in[d] == 1 ? 0 : index[d]);
  return offset;
}

struct BroadcastCase {
  std::vector<int64_t> out;
  std::vector<std::vector<int64_t>> ins;
};

const std::vector<BroadcastCase> &broadcastCases() {
  static const std::vector<BroadcastCase> cases = {
      {{2, 3, 4}, {{2, 3, 4}, {2, 3, 4}}},          // same shape
      {{2, 3, 4}, {{2, 3, 4}, {1, 1, 1}}},          // scalar
      {{2, 3, 4}, {{1, 1, 1}, {2, 3, 4}}},          // scalar first
      {{2, 3, 4}, {{2, 3, 4}, {1, 1, 4}}},          // row
      {{2, 3, 4}, {{2, 3, 4}, {1, 3, 1}}},          // middle axis
      {{2, 3, 4}, {{2, 1, 4}, {1, 3, 1}}},          // both sides
      {{1, 5, 1, 7}, {{1, 5, 1, 1}, {1, 1, 1, 7}}}, // outer product
      {{3, 1, 2, 5}, {{3, 1, 1, 5}, {1, 1, 2, 1}, {3, 1, 2, 5}}},
      {{1, 2, 6, 6}, {{1, 1, 6, 6}, {1, 2, 6, 6}, {1, 2, 1, 1}}},
      {{}, {{}, {}}},                                // rank 0
      {{1, 1}, {{1, 1}, {1, 1}}},                    // one element
  };
  return cases;
}

TEST(BroadcastRowsTest, VisitsEveryElementWithTheNaiveOffsets) {
  for (const BroadcastCase &c : broadcastCases()) {
    std::vector<TensorView> ins;
    for (const auto &shape : c.ins)
      ins.push_back(shapeView(shape));
    TensorView out = shapeView(c.out);
    int64_t total = numelOf(c.out);
    std::vector<int> visits(total, 0);
    forEachBroadcastRow(ins, out,
                        [&](int64_t base, const int64_t *offsets, int64_t n,
                            const int64_t *steps) {
                          for (size_t k = 0; k < ins.size(); ++k)
                            ASSERT_TRUE(steps[k] == 0 || steps[k] == 1);
                          for (int64_t j = 0; j < n; ++j) {
                            ASSERT_LT(base + j, total);
                            ++visits[base + j];
                            for (size_t k = 0; k < ins.size(); ++k)
                              EXPECT_EQ(offsets[k] + steps[k] * j,
                                        naiveOffset(c.ins[k], c.out, base + j))
                                  << "operand " << k << " element "
                                  << base + j;
                          }
                        });
    for (int64_t i = 0; i < total; ++i)
      EXPECT_EQ(visits[i], 1) << "element " << i;
  }
}

TEST(BroadcastRowsTest, MergesDimensionsIntoLongRows) {
  // [2,3,4] against a [2,3,1] column: 6 rows of 4. Same shapes: one row.
  TensorView a = shapeView({2, 3, 4}), b = shapeView({2, 3, 1});
  BroadcastRows plan = planBroadcastRows({a, b}, a);
  EXPECT_EQ(plan.rowLength, 4);
  EXPECT_EQ(plan.steps[0], 1);
  EXPECT_EQ(plan.steps[1], 0);
  BroadcastRows same = planBroadcastRows({a, a}, a);
  EXPECT_EQ(same.rowLength, 24);
  EXPECT_TRUE(same.outer.empty());
  // A [1,3,1] bias over [2,3,4]: the row is the 4 innermost elements.
  BroadcastRows bias = planBroadcastRows({a, shapeView({1, 3, 1})}, a);
  EXPECT_EQ(bias.rowLength, 4);
  EXPECT_EQ(bias.steps[1], 0);
}

/// Deterministic test values with repeats, so equality comparisons see
/// both outcomes.
std::vector<float> floatValues(int64_t n, int seed) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 7 + seed * 3) % 5) - 2.0f;
  return v;
}

TEST(BroadcastRowsTest, CompareLogicalSelectAndIntegerBinaryMatchNaive) {
  for (const BroadcastCase &c : broadcastCases()) {
    if (c.ins.size() != 2)
      continue;
    const auto &sa = c.ins[0], &sb = c.ins[1];
    int64_t total = numelOf(c.out);
    std::vector<float> fa = floatValues(numelOf(sa), 1);
    std::vector<float> fb = floatValues(numelOf(sb), 2);
    auto naive = [&](auto values, const std::vector<int64_t> &shape,
                     int64_t i) {
      return values[naiveOffset(shape, c.out, i)];
    };

    std::vector<OwnedTensor> fins = {tensorOf(DType::F32, sa, fa),
                                     tensorOf(DType::F32, sb, fb)};
    Result<OwnedTensor> less = runKernel("less", fins, DType::Bool, c.out);
    ASSERT_TRUE(less.ok()) << less.error().message();
    std::vector<uint8_t> lessValues = valuesOf<uint8_t>(*less);

    std::vector<uint8_t> ba(fa.size()), bb(fb.size());
    for (size_t i = 0; i < fa.size(); ++i)
      ba[i] = fa[i] > 0;
    for (size_t i = 0; i < fb.size(); ++i)
      bb[i] = fb[i] >= 0;
    std::vector<OwnedTensor> bins = {tensorOf(DType::Bool, sa, ba),
                                     tensorOf(DType::Bool, sb, bb)};
    Result<OwnedTensor> xr = runKernel("logical_xor", bins, DType::Bool, c.out);
    ASSERT_TRUE(xr.ok()) << xr.error().message();
    std::vector<uint8_t> xorValues = valuesOf<uint8_t>(*xr);

    std::vector<int32_t> ia(fa.begin(), fa.end()), ib(fb.begin(), fb.end());
    std::vector<OwnedTensor> iins = {tensorOf(DType::I32, sa, ia),
                                     tensorOf(DType::I32, sb, ib)};
    Result<OwnedTensor> sub = runKernel("sub", iins, DType::I32, c.out);
    ASSERT_TRUE(sub.ok()) << sub.error().message();
    std::vector<int32_t> subValues = valuesOf<int32_t>(*sub);

    // select(condition over a's shape, a, b).
    std::vector<OwnedTensor> sins = {tensorOf(DType::Bool, sa, ba),
                                     tensorOf(DType::F32, sa, fa),
                                     tensorOf(DType::F32, sb, fb)};
    Result<OwnedTensor> sel = runKernel("select", sins, DType::F32, c.out);
    ASSERT_TRUE(sel.ok()) << sel.error().message();
    std::vector<float> selValues = valuesOf<float>(*sel);

    for (int64_t i = 0; i < total; ++i) {
      float x = naive(fa, sa, i), y = naive(fb, sb, i);
      EXPECT_EQ(lessValues[i], x < y ? 1 : 0) << "less element " << i;
      EXPECT_EQ(xorValues[i], (x > 0) != (y >= 0) ? 1 : 0)
          << "xor element " << i;
      EXPECT_EQ(subValues[i], static_cast<int32_t>(x) - static_cast<int32_t>(y))
          << "sub element " << i;
      EXPECT_EQ(selValues[i], x > 0 ? x : y) << "select element " << i;
    }
  }
}

TEST(BroadcastRowsTest, SelectCopiesEveryElementSizeAndAnyNonZeroByte) {
  // A condition byte of 2 counts as true; 8-byte elements are copied whole.
  std::vector<OwnedTensor> ins = {
      tensorOf(DType::Bool, {4}, std::vector<uint8_t>{0, 1, 2, 0}),
      tensorOf(DType::I64, {4},
               std::vector<int64_t>{1LL << 40, -1, 3, 4}),
      tensorOf(DType::I64, {1}, std::vector<int64_t>{-(1LL << 50)})};
  Result<OwnedTensor> out = runKernel("select", ins, DType::I64, {4});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int64_t>(*out),
            (std::vector<int64_t>{-(1LL << 50), -1, 3, -(1LL << 50)}));
}

TEST(BroadcastRowsTest, FloatModMatchesStdFmodBitForBit) {
  // Quotients small and huge, ties to integers, zeros of both signs,
  // subnormals, infinities and NaN, against a broadcast row of divisors.
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> divisors = {0.7f, -0.7f, 3.0f, 1e-3f, 1e-40f, 0.0f,
                                 -0.0f, inf, -inf, 1e30f, 2.5f};
  std::vector<float> dividends = {0.0f, -0.0f, 2.1f, -2.1f, 1e7f, 8388607.5f,
                                  1e20f, -3.4e38f, 1e-41f, inf, -inf,
                                  std::numeric_limits<float>::quiet_NaN()};
  for (int i = 0; i < 500; ++i)
    dividends.push_back(std::ldexp(static_cast<float>((i * 7919) % 4001) -
                                       2000.0f,
                                   i % 37 - 20));
  int64_t rows = static_cast<int64_t>(dividends.size());
  int64_t cols = static_cast<int64_t>(divisors.size());
  std::vector<float> a(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      a[r * cols + c] = dividends[r];
  std::vector<OwnedTensor> ins = {tensorOf(DType::F32, {rows, cols}, a),
                                  tensorOf(DType::F32, {1, cols}, divisors)};
  Result<OwnedTensor> out = runKernel("mod", ins, DType::F32, {rows, cols},
                                      {boolParam("fmod", true)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<float> y = valuesOf<float>(*out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float expected = std::fmod(dividends[r], divisors[c]);
      float got = y[r * cols + c];
      uint32_t eb, gb;
      std::memcpy(&eb, &expected, 4);
      std::memcpy(&gb, &got, 4);
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(got)) << dividends[r] << " % " << divisors[c];
      else
        EXPECT_EQ(gb, eb) << dividends[r] << " fmod " << divisors[c];
    }
}

/// Inputs over the domain of each function, with its special values.
std::vector<float> domainOf(const std::string &kernel) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v = {0.0f, -0.0f, inf, -inf, nan, 1e-30f, -1e-30f,
                          1e-45f};
  bool bounded = kernel == "asin" || kernel == "acos";
  float range = bounded ? 1.0f : kernel == "log" ? 100.0f : 10.0f;
  float lo = kernel == "log" ? 0.0f : -range;
  for (int i = 0; i <= 1000; ++i)
    v.push_back(lo + (range - lo) * static_cast<float>(i) / 1000.0f);
  if (bounded)
    for (float x : {1.5f, -1.5f, 0.99999f, -0.99999f})
      v.push_back(x);
  if (kernel == "sin" || kernel == "cos" || kernel == "tan")
    for (float x : {100.0f, 1e4f, 123456.7f, 1e6f, 3e7f, 1e30f, -1e30f,
                    3.4e38f})
      v.push_back(x);
  if (kernel == "exp" || kernel == "sigmoid")
    for (float x : {88.7f, 89.0f, -87.0f, -103.0f, -110.0f})
      v.push_back(x);
  if (kernel == "erf" || kernel == "tanh" || kernel == "atan" ||
      kernel == "sigmoid")
    for (float x : {30.0f, -30.0f, 1e10f, 3.9f, -3.9f})
      v.push_back(x);
  if (kernel == "log")
    for (float x : {-1.0f, 1e-40f, 3.4e38f, 1.0f})
      v.push_back(x);
  return v;
}

double referenceOf(const std::string &kernel, double x) {
  if (kernel == "sin")
    return std::sin(x);
  if (kernel == "cos")
    return std::cos(x);
  if (kernel == "tan")
    return std::tan(x);
  if (kernel == "asin")
    return std::asin(x);
  if (kernel == "acos")
    return std::acos(x);
  if (kernel == "atan")
    return std::atan(x);
  if (kernel == "erf")
    return std::erf(x);
  if (kernel == "exp")
    return std::exp(x);
  if (kernel == "log")
    return std::log(x);
  if (kernel == "sigmoid")
    return 1.0 / (1.0 + std::exp(-x));
  return std::tanh(x);
}

TEST(VectorMathTest, TranscendentalsMatchDoublePrecision) {
  for (std::string kernel : {"sin", "cos", "tan", "asin", "acos", "atan",
                             "erf", "exp", "log", "tanh", "sigmoid"}) {
    std::vector<float> x = domainOf(kernel);
    int64_t n = static_cast<int64_t>(x.size());
    // An odd count leaves a tail shorter than a vector.
    ASSERT_EQ(n % 8 == 0, false) << kernel;
    std::vector<OwnedTensor> ins = {tensorOf(DType::F32, {n}, x)};
    Result<OwnedTensor> out = runKernel(kernel, ins, DType::F32, {n});
    ASSERT_TRUE(out.ok()) << kernel << ": " << out.error().message();
    std::vector<float> y = valuesOf<float>(*out);
    double errorSquares = 0, referenceSquares = 0;
    for (int64_t i = 0; i < n; ++i) {
      double reference = referenceOf(kernel, static_cast<double>(x[i]));
      // The exact value rounded to float: overflow and underflow as f32.
      float rounded = static_cast<float>(reference);
      if (std::isnan(reference)) {
        EXPECT_TRUE(std::isnan(y[i])) << kernel << "(" << x[i] << ")";
        continue;
      }
      if (std::isinf(rounded)) {
        EXPECT_EQ(y[i], rounded) << kernel << "(" << x[i] << ")";
        continue;
      }
      // At most a few ulp: 1e-6 relative, or float's smallest normal.
      EXPECT_NEAR(y[i], reference,
                  std::max(1e-6 * std::fabs(reference), 1.2e-38))
          << kernel << "(" << x[i] << ")";
      double e = static_cast<double>(y[i]) - reference;
      errorSquares += e * e;
      referenceSquares += reference * reference;
    }
    EXPECT_LE(std::sqrt(errorSquares / referenceSquares), 1e-6) << kernel;
  }
}

TEST(VectorMathTest, FloatToHalfCastMatchesTheScalarRounding) {
  // Every rounding case: ties, subnormals, overflow, NaN payloads.
  std::vector<float> x = {0.0f, -0.0f, 1.0f, 65504.0f, 65520.0f, 65519.0f,
                          1e6f, -1e6f, 6.1e-5f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                          1e-10f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()};
  uint32_t nanBits[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7fbfffffu};
  for (uint32_t bits : nanBits) {
    float v;
    std::memcpy(&v, &bits, 4);
    x.push_back(v);
  }
  for (int i = 0; i < 3001; ++i)
    x.push_back(std::ldexp(1.0f + static_cast<float>(i) / 4096.0f,
                           i % 40 - 26) *
                (i % 3 ? 1.0f : -1.0f));
  int64_t n = static_cast<int64_t>(x.size());
  std::vector<OwnedTensor> ins = {tensorOf(DType::F32, {n}, x)};
  Result<OwnedTensor> out =
      runKernel("cast", ins, DType::F16, {n});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<uint16_t> h = valuesOf<uint16_t>(*out);
  for (int64_t i = 0; i < n; ++i) {
    // The reference: round the double to the nearest binary16 by hand.
    double v = x[i];
    uint16_t expected;
    if (std::isnan(v)) {
      expected = std::signbit(v) ? 0xfe00 : 0x7e00;
    } else {
      double a = std::fabs(v);
      uint16_t sign = std::signbit(v) ? 0x8000 : 0;
      int exponent = a == 0 ? -15 : std::max(std::ilogb(a), -14);
      double ulp = std::ldexp(1.0, exponent - 10);
      double units = std::nearbyint(a / ulp); // ties to even
      double rounded = units * ulp;
      if (rounded >= 65520.0 || std::isinf(a))
        expected = sign | 0x7c00;
      else if (rounded < std::ldexp(1.0, -14))
        expected = sign | static_cast<uint16_t>(rounded / std::ldexp(1.0, -24));
      else {
        int e = std::ilogb(rounded);
        uint16_t mantissa = static_cast<uint16_t>(
            (rounded / std::ldexp(1.0, e) - 1.0) * 1024.0);
        expected = sign | static_cast<uint16_t>((e + 15) << 10) | mantissa;
      }
    }
    EXPECT_EQ(h[i], expected) << "cast of " << x[i] << " (element " << i
                              << ")";
  }
}

} // namespace
