//===- GenericKernelTest.cpp - dtype-generic kernels vs hand expectations -===//
//
// Cases the ONNX node tests leave out: f16 rounding at the edges (ties to
// even, subnormals, overflow), Python-style integer mod with mixed signs
// and a zero divisor, arg_max ties, integer reductions,
// broadcasting select and out-of-range gather indices.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <cstring>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

template <typename T>
OwnedTensor tensorOf(DType dtype, std::vector<int64_t> shape,
                     std::vector<T> values) {
  OwnedTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <typename T> std::vector<T> valuesOf(const OwnedTensor &t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

TEST(GenericKernelTest, CastF32ToF16RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go
  // to the even mantissa (1.0); 1 + 3 * 2^-11 rounds up to 1 + 2^-9.
  // 2^-24 is the smallest subnormal; 65520 overflows to infinity.
  std::vector<float> in = {
      1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0x1p-24f, 65520.0f, -2.0f, 0.0f};
  std::vector<OwnedTensor> inputs = {f32Tensor({6}, in)};
  Result<OwnedTensor> out = runKernel("cast", inputs, DType::F16, {6});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<uint16_t> bits = valuesOf<uint16_t>(*out);
  EXPECT_EQ(bits, (std::vector<uint16_t>{0x3c00, 0x3c02, 0x0001, 0x7c00, 0xc000,
                                         0x0000}));
}

TEST(GenericKernelTest, CastF16ToF32IsExact) {
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint16_t>(DType::F16, {4}, {0x0001, 0x3555, 0xfc00, 0x7bff})};
  Result<OwnedTensor> out = runKernel("cast", inputs, DType::F32, {4});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<float> v = values(*out);
  EXPECT_EQ(v[0], 0x1p-24f);
  EXPECT_EQ(v[1], 0.333251953125f);
  EXPECT_EQ(v[2], -INFINITY);
  EXPECT_EQ(v[3], 65504.0f);
}

TEST(GenericKernelTest, IntegerModTakesTheDivisorsSign) {
  std::vector<OwnedTensor> inputs = {
      tensorOf<int32_t>(DType::I32, {5}, {7, -7, 7, -7, 5}),
      tensorOf<int32_t>(DType::I32, {5}, {3, 3, -3, -3, 0})};
  Result<OwnedTensor> out =
      runKernel("mod", inputs, DType::I32, {5}, {boolParam("fmod", false)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int32_t>(*out), (std::vector<int32_t>{1, 2, -2, -1, 0}));
}

TEST(GenericKernelTest, ArgMaxTiesPickFirstOrLast) {
  for (bool last : {false, true}) {
    std::vector<OwnedTensor> inputs = {
        f32Tensor({2, 3}, {1.0f, 5.0f, 5.0f, 2.0f, 2.0f, 2.0f})};
    Result<OwnedTensor> out =
        runKernel("arg_max", inputs, DType::I64, {2},
                  {intParam("axis", 1), boolParam("keep_dims", false),
                   boolParam("select_last_index", last)});
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(valuesOf<int64_t>(*out), last ? (std::vector<int64_t>{2, 2})
                                            : (std::vector<int64_t>{1, 0}));
  }
}

TEST(GenericKernelTest, IntegerReductionsOverAnOuterAxis) {
  // [[3, -2], [-4, 5], [2, 1]] reduced over axis 0.
  std::vector<std::pair<const char *, std::vector<int32_t>>> cases = {
      {"reduce_sum", {1, 4}},
      {"reduce_prod", {-24, -10}},
      {"reduce_max", {3, 5}},
      {"reduce_min", {-4, -2}}};
  for (auto &[kernel, want] : cases) {
    std::vector<OwnedTensor> inputs = {
        tensorOf<int32_t>(DType::I32, {3, 2}, {3, -2, -4, 5, 2, 1})};
    Result<OwnedTensor> out =
        runKernel(kernel, inputs, DType::I32, {2},
                  {intsParam("axes", {0}), boolParam("keep_dims", false)});
    ASSERT_TRUE(out.ok()) << kernel << ": " << out.error().message();
    EXPECT_EQ(valuesOf<int32_t>(*out), want) << kernel;
  }
}

TEST(GenericKernelTest, SelectBroadcastsEveryOperand) {
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint8_t>(DType::Bool, {2, 1}, {1, 0}),
      tensorOf<int64_t>(DType::I64, {1, 3}, {1, 2, 3}),
      tensorOf<int64_t>(DType::I64, {1, 1}, {-1})};
  Result<OwnedTensor> out = runKernel("select", inputs, DType::I64, {2, 3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int64_t>(*out),
            (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(GenericKernelTest, GatherRejectsOutOfRangeIndices) {
  std::vector<OwnedTensor> inputs = {
      f32Tensor({3, 2}, {0, 1, 2, 3, 4, 5}),
      tensorOf<int64_t>(DType::I64, {2}, {-1, 3})};
  Result<OwnedTensor> out =
      runKernel("gather", inputs, DType::F32, {2, 2}, {intParam("axis", 0)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("index 3 is outside axis 0"),
            std::string::npos)
      << out.error().message();
}

TEST(GenericKernelTest, GatherReadsNegativeIndicesFromTheEnd) {
  std::vector<OwnedTensor> inputs = {
      f32Tensor({3, 2}, {0, 1, 2, 3, 4, 5}),
      tensorOf<int64_t>(DType::I64, {2}, {-1, 0})};
  Result<OwnedTensor> out =
      runKernel("gather", inputs, DType::F32, {2, 2}, {intParam("axis", 0)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{4, 5, 0, 1}));
}

} // namespace

namespace {

TEST(GenericKernelTest, I32MatMulAccumulatesExactly) {
  // [1, 3] x [3, 1]: 2^24 + 1 + 255 * 255 - 1 = 16842241, which f32
  // accumulation could not hold (2^24 + 1 is not an f32).
  std::vector<OwnedTensor> inputs = {
      tensorOf<int32_t>(DType::I32, {1, 3}, {16777217, 255, -1}),
      tensorOf<int32_t>(DType::I32, {3, 1}, {1, 255, 1})};
  Result<OwnedTensor> out = runKernel("matmul", inputs, DType::I32, {1, 1});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int32_t>(*out), (std::vector<int32_t>{16842241}));
}

TEST(GenericKernelTest, I32Conv2dWithPaddingAndBias) {
  // 1x1x2x2 input [[1, 2], [3, 4]], one 2x2 filter of ones, pad 1 on the
  // top and left only, bias 10: the 2x2 output windows hold
  // {1}, {1, 2}, {1, 3}, {1, 2, 3, 4} -> 11, 13, 14, 20.
  std::vector<OwnedTensor> inputs = {
      tensorOf<int32_t>(DType::I32, {1, 1, 2, 2}, {1, 2, 3, 4}),
      tensorOf<int32_t>(DType::I32, {1, 1, 2, 2}, {1, 1, 1, 1}),
      tensorOf<int32_t>(DType::I32, {1}, {10})};
  Result<OwnedTensor> out = runKernel(
      "conv2d", inputs, DType::I32, {1, 1, 2, 2},
      {intsParam("strides", {1, 1}), intsParam("dilations", {1, 1}),
       intsParam("pads", {1, 1, 0, 0}), intParam("group", 1)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int32_t>(*out), (std::vector<int32_t>{11, 13, 14, 20}));
}

TEST(GenericKernelTest, F64MatMulKeepsDoublePrecision) {
  // [1, 2] x [2, 1]: 2^52 * 1 + 1 * 1 = 2^52 + 1, exact in f64 only.
  std::vector<OwnedTensor> inputs = {
      tensorOf<double>(DType::F64, {1, 2}, {4503599627370496.0, 1.0}),
      tensorOf<double>(DType::F64, {2, 1}, {1.0, 1.0})};
  Result<OwnedTensor> out = runKernel("matmul", inputs, DType::F64, {1, 1});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<double>(*out), (std::vector<double>{4503599627370497.0}));
}

TEST(GenericKernelTest, MatMulRejectsMixedTypes) {
  std::vector<OwnedTensor> inputs = {
      tensorOf<int32_t>(DType::I32, {1, 1}, {1}), f32Tensor({1, 1}, {1})};
  Result<OwnedTensor> out = runKernel("matmul", inputs, DType::I32, {1, 1});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("or all-i32 operands"),
            std::string::npos)
      << out.error().message();
}

} // namespace
