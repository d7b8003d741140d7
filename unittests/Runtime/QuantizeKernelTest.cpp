//===- QuantizeKernelTest.cpp - quantize/dequantize vs the ONNX spec ------===//
//
// Expected values are the ONNX operator spec's examples and hand-computed
// applications of its formulas: y = saturate(round_half_even(x / scale) +
// zero_point) and x = (y - zero_point) * scale.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

TEST(QuantizeKernelTest, SpecExampleU8) {
  // ONNX QuantizeLinear example: 3 / 2 = 1.5 rounds to 2 (even); 1000 / 2
  // + 128 saturates to 255, -1000 / 2 + 128 to 0.
  std::vector<OwnedTensor> inputs = {
      f32Tensor({6}, {0, 2, 3, 1000, -254, -1000}), f32Tensor({}, {2}),
      tensorOf<uint8_t>(DType::U8, {}, {128})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::U8, {6});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<uint8_t>(*out),
            (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeKernelTest, TiesGoToEvenAndI8Saturates) {
  // 2.5 -> 2, -2.5 -> -2, 3.5 -> 4, -3.5 -> -4, 0.5 -> 0, -0.5 -> 0;
  // 200 and -200 saturate to [-128, 127].
  std::vector<OwnedTensor> inputs = {
      f32Tensor({8}, {2.5f, -2.5f, 3.5f, -3.5f, 0.5f, -0.5f, 200, -200}),
      f32Tensor({}, {1}), tensorOf<int8_t>(DType::I8, {}, {0})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::I8, {8});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int8_t>(*out),
            (std::vector<int8_t>{2, -2, 4, -4, 0, 0, 127, -128}));
}

TEST(QuantizeKernelTest, TiesGoToEvenBeforeTheZeroPointU8) {
  // scale 2, zero point 128: 5/2 = 2.5 -> 2 -> 130; -5/2 -> -2 -> 126;
  // 7/2 = 3.5 -> 4 -> 132; 300/2 + 128 = 278 -> 255; -300/2 + 128 -> 0.
  std::vector<OwnedTensor> inputs = {f32Tensor({5}, {5, -5, 7, 300, -300}),
                                     f32Tensor({}, {2}),
                                     tensorOf<uint8_t>(DType::U8, {}, {128})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::U8, {5});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<uint8_t>(*out),
            (std::vector<uint8_t>{130, 126, 132, 255, 0}));
}

TEST(QuantizeKernelTest, I16Saturates) {
  // 80000 / 2 = 40000 saturates to 32767; 3 / 2 = 1.5 -> 2;
  // -70000 / 2 = -35000 saturates to -32768.
  std::vector<OwnedTensor> inputs = {f32Tensor({3}, {80000, 3, -70000}),
                                     f32Tensor({}, {2}),
                                     tensorOf<int16_t>(DType::I16, {}, {0})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::I16, {3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int16_t>(*out), (std::vector<int16_t>{32767, 2, -32768}));
}

TEST(QuantizeKernelTest, NaNGivesTheZeroPointAndHugeValuesSaturate) {
  // NaN -> zero point 3; +-1e30, +-inf and 2^21 + 0.5 saturate; the tie
  // -254.5 rounds to the even -254.
  float inf = std::numeric_limits<float>::infinity();
  std::vector<OwnedTensor> inputs = {
      f32Tensor({7},
                {std::nanf(""), 1e30f, -1e30f, inf, -inf, 2097152.5f, -254.5f}),
      f32Tensor({}, {1}), tensorOf<int16_t>(DType::I16, {}, {3})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::I16, {7});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(
      valuesOf<int16_t>(*out),
      (std::vector<int16_t>{3, 32767, -32768, 32767, -32768, 32767, -251}));
}

TEST(QuantizeKernelTest, LongRunsRoundTiesToEven) {
  // 1001 ties k + 0.5 for k in [-500, 500], past the vector loops' widths
  // and into a tail: each goes to its even neighbour.
  std::vector<float> x;
  std::vector<int16_t> want;
  for (int k = -500; k <= 500; ++k) {
    x.push_back(k + 0.5f);
    want.push_back(static_cast<int16_t>(k % 2 == 0 ? k : k + 1));
  }
  int64_t n = static_cast<int64_t>(x.size());
  std::vector<OwnedTensor> inputs = {f32Tensor({n}, x), f32Tensor({}, {1}),
                                     tensorOf<int16_t>(DType::I16, {}, {0})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::I16, {n});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int16_t>(*out), want);
}

TEST(QuantizeKernelTest, PerAxisUsesEachColumnsParams) {
  // Axis 1 of [2, 3]; scales [1, 2, 4], zero points [0, 1, -1]:
  // row 0: 2/1+0 = 2, 4/2+1 = 3, 8/4-1 = 1;
  // row 1: -3/1+0 = -3, -6/2+1 = -2, -10/4 = -2.5 -> -2, -1 = -3.
  std::vector<OwnedTensor> inputs = {
      f32Tensor({2, 3}, {2, 4, 8, -3, -6, -10}), f32Tensor({3}, {1, 2, 4}),
      tensorOf<int8_t>(DType::I8, {3}, {0, 1, -1})};
  Result<OwnedTensor> out = runKernel("quantize_linear", inputs, DType::I8,
                                      {2, 3}, {intParam("axis", 1)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int8_t>(*out), (std::vector<int8_t>{2, 3, 1, -3, -2, -3}));
}

TEST(DequantizeKernelTest, SpecExampleU8) {
  // ONNX DequantizeLinear example: (x - 128) * 2.
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint8_t>(DType::U8, {4}, {0, 3, 128, 255}), f32Tensor({}, {2}),
      tensorOf<uint8_t>(DType::U8, {}, {128})};
  Result<OwnedTensor> out =
      runKernel("dequantize_linear", inputs, DType::F32, {4});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{-256, -250, 0, 254}));
}

TEST(DequantizeKernelTest, PerAxisUsesEachColumnsParams) {
  // (q - zp[c]) * scale[c] with scales [1, 2, 4], zero points [0, 1, -1].
  std::vector<OwnedTensor> inputs = {
      tensorOf<int8_t>(DType::I8, {2, 3}, {2, 3, 1, -3, -2, -3}),
      f32Tensor({3}, {1, 2, 4}), tensorOf<int8_t>(DType::I8, {3}, {0, 1, -1})};
  Result<OwnedTensor> out = runKernel("dequantize_linear", inputs, DType::F32,
                                      {2, 3}, {intParam("axis", 1)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{2, 4, 8, -3, -6, -8}));
}

TEST(QuantizeKernelTest, RejectsAScaleThatDoesNotFitTheAxis) {
  std::vector<OwnedTensor> inputs = {
      f32Tensor({2, 3}, {0, 0, 0, 0, 0, 0}), f32Tensor({3}, {1, 1, 1}),
      tensorOf<int8_t>(DType::I8, {3}, {0, 0, 0})};
  Result<OwnedTensor> out = runKernel("quantize_linear", inputs, DType::I8,
                                      {2, 3}, {intParam("axis", 0)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("1-D along axis 0"), std::string::npos)
      << out.error().message();
}

TEST(QuantizeKernelTest, RejectsAZeroPointOfAnotherType) {
  std::vector<OwnedTensor> inputs = {f32Tensor({2}, {0, 0}), f32Tensor({}, {1}),
                                     tensorOf<int8_t>(DType::I8, {}, {0})};
  Result<OwnedTensor> out =
      runKernel("quantize_linear", inputs, DType::U8, {2});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("storage type u8"), std::string::npos)
      << out.error().message();
}

} // namespace
