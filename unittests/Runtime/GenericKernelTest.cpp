//===- GenericKernelTest.cpp - dtype-generic kernels vs hand expectations -===//
//
// Cases the ONNX node tests leave out: f16 rounding at the edges (ties to
// even, subnormals, overflow), Python-style integer mod with mixed signs
// and a zero divisor, arg_max ties, integer reductions, the NaN and signed
// zero f32 max/min keep, broadcasting select, out-of-range gather indices,
// and range's run-time check of the compiled length.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <cstring>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

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

TEST(GenericKernelTest, CastF32ToBF16TruncatesAndKeepsNaN) {
  // bf16 keeps the high 16 bits of the binary32. 1.00390625 = 1 + 2^-8 is
  // 0x3f808000, halfway between bf16 1.0 (0x3f80) and 1 + 2^-7 (0x3f81):
  // ties-to-even and truncation agree on 0x3f80. 1 + 3 * 2^-8 (0x3f818000)
  // separates them: truncation keeps 0x3f81 where ties-to-even would give
  // 0x3f82. The ONNX Cast test data truncates (0x3ef5eeb0 -> 0x3ef5), so
  // the kernel does. A NaN whose payload sits only in the low half
  // (0x7f800001) stays a NaN (quiet bit set) instead of becoming +inf.
  std::vector<uint32_t> bits = {0x3f808000, 0x3f818000, 0x7f800001,
                                0xff800000, 0xbf800000, 0x00000000};
  std::vector<float> in(bits.size());
  std::memcpy(in.data(), bits.data(), bits.size() * 4);
  std::vector<OwnedTensor> inputs = {f32Tensor({6}, in)};
  Result<OwnedTensor> out = runKernel("cast", inputs, DType::BF16, {6});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(
      valuesOf<uint16_t>(*out),
      (std::vector<uint16_t>{0x3f80, 0x3f81, 0x7fc0, 0xff80, 0xbf80, 0x0000}));
}

TEST(GenericKernelTest, CastBF16ToF32IsExact) {
  // 0x3ef5 -> 0x3ef50000 = 0.478515625; 0x0001 is the smallest subnormal
  // 2^-133; 0xff80 is -inf.
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint16_t>(DType::BF16, {3}, {0x3ef5, 0x0001, 0xff80})};
  Result<OwnedTensor> out = runKernel("cast", inputs, DType::F32, {3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<float> v = values(*out);
  EXPECT_EQ(v[0], 0.478515625f);
  EXPECT_EQ(v[1], 0x1p-133f);
  EXPECT_EQ(v[2], -INFINITY);
}

TEST(GenericKernelTest, U64ValuesAboveTwoToThe63AreUnsigned) {
  // 2^63 + 5 is above every int64: max/min/mod must compare it unsigned.
  // (2^63 + 5) mod 10 = 9223372036854775813 mod 10 = 3.
  uint64_t big = (uint64_t(1) << 63) + 5;
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint64_t>(DType::U64, {2}, {big, 7}),
      tensorOf<uint64_t>(DType::U64, {2}, {10, big})};
  Result<OwnedTensor> max = runKernel("maximum", inputs, DType::U64, {2});
  ASSERT_TRUE(max.ok()) << max.error().message();
  EXPECT_EQ(valuesOf<uint64_t>(*max), (std::vector<uint64_t>{big, big}));
  Result<OwnedTensor> min = runKernel("minimum", inputs, DType::U64, {2});
  ASSERT_TRUE(min.ok()) << min.error().message();
  EXPECT_EQ(valuesOf<uint64_t>(*min), (std::vector<uint64_t>{10, 7}));
  Result<OwnedTensor> mod =
      runKernel("mod", inputs, DType::U64, {2}, {boolParam("fmod", false)});
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  EXPECT_EQ(valuesOf<uint64_t>(*mod), (std::vector<uint64_t>{3, 7}));
}

TEST(GenericKernelTest, U16ArithmeticWrapsModulo65536) {
  // 65535 * 65535 = 4294836225 = 65534 * 65536 + 1 -> 1 (in C++ the
  // operands promote to int, where the product overflows); 1 * 2 = 2.
  // 65535 - 65535 = 0; 1 - 2 wraps to 65535.
  std::vector<OwnedTensor> inputs = {
      tensorOf<uint16_t>(DType::U16, {2}, {65535, 1}),
      tensorOf<uint16_t>(DType::U16, {2}, {65535, 2})};
  Result<OwnedTensor> mul = runKernel("mul", inputs, DType::U16, {2});
  ASSERT_TRUE(mul.ok()) << mul.error().message();
  EXPECT_EQ(valuesOf<uint16_t>(*mul), (std::vector<uint16_t>{1, 2}));
  Result<OwnedTensor> sub = runKernel("sub", inputs, DType::U16, {2});
  ASSERT_TRUE(sub.ok()) << sub.error().message();
  EXPECT_EQ(valuesOf<uint16_t>(*sub), (std::vector<uint16_t>{0, 65535}));
}

TEST(GenericKernelTest, IntegerPowWrapsLikeMul) {
  // 3^4 = 81; 2^31 wraps to -2^31 (numpy's int32 power); 7^0 = 1;
  // (-3)^3 = -27; 10^10 = 10000000000 mod 2^32 = 1410065408. Negative
  // exponents truncate 1 / base^n: 1^-5 = 1, (-1)^-3 = -1, (-1)^-4 = 1,
  // 2^-1 = 0, 0^-2 = 0 (as integer division by zero gives).
  std::vector<OwnedTensor> inputs = {
      tensorOf<int32_t>(DType::I32, {10}, {3, 2, 7, -3, 10, 1, -1, -1, 2, 0}),
      tensorOf<int32_t>(DType::I32, {10},
                        {4, 31, 0, 3, 10, -5, -3, -4, -1, -2})};
  Result<OwnedTensor> pow = runKernel("pow", inputs, DType::I32, {10});
  ASSERT_TRUE(pow.ok()) << pow.error().message();
  EXPECT_EQ(valuesOf<int32_t>(*pow),
            (std::vector<int32_t>{81, INT32_MIN, 1, -27, 1410065408, 1, -1, 1,
                                  0, 0}));
}

TEST(GenericKernelTest, BitShiftByTheWidthOrMoreGivesZero) {
  // u8: 1 << 7 = 128; 1 << 8 and 255 >> 8 leave the type: 0 (numpy);
  // 0x81 << 1 drops the carry: 0x02. u64: 1 << 63 = 2^63, 1 << 64 = 0.
  std::vector<OwnedTensor> bytes = {
      tensorOf<uint8_t>(DType::U8, {4}, {1, 1, 255, 0x81}),
      tensorOf<uint8_t>(DType::U8, {4}, {7, 8, 8, 1})};
  Result<OwnedTensor> left = runKernel("bit_shift", bytes, DType::U8, {4},
                                       {stringParam("direction", "left")});
  ASSERT_TRUE(left.ok()) << left.error().message();
  EXPECT_EQ(valuesOf<uint8_t>(*left), (std::vector<uint8_t>{128, 0, 0, 2}));
  Result<OwnedTensor> right = runKernel("bit_shift", bytes, DType::U8, {4},
                                        {stringParam("direction", "right")});
  ASSERT_TRUE(right.ok()) << right.error().message();
  EXPECT_EQ(valuesOf<uint8_t>(*right), (std::vector<uint8_t>{0, 0, 0, 0x40}));
  std::vector<OwnedTensor> wide = {
      tensorOf<uint64_t>(DType::U64, {3}, {1, 1, ~uint64_t(0)}),
      tensorOf<uint64_t>(DType::U64, {3}, {63, 64, 200})};
  Result<OwnedTensor> wideLeft = runKernel("bit_shift", wide, DType::U64, {3},
                                           {stringParam("direction", "left")});
  ASSERT_TRUE(wideLeft.ok()) << wideLeft.error().message();
  EXPECT_EQ(valuesOf<uint64_t>(*wideLeft),
            (std::vector<uint64_t>{uint64_t(1) << 63, 0, 0}));
}

TEST(GenericKernelTest, BitShiftRejectsBadParamsAndTypes) {
  std::vector<OwnedTensor> bytes = {tensorOf<uint8_t>(DType::U8, {1}, {1}),
                                    tensorOf<uint8_t>(DType::U8, {1}, {1})};
  Result<OwnedTensor> noDirection =
      runKernel("bit_shift", bytes, DType::U8, {1});
  ASSERT_FALSE(noDirection.ok());
  EXPECT_NE(noDirection.error().message().find("direction"), std::string::npos);
  std::vector<OwnedTensor> ints = {tensorOf<int32_t>(DType::I32, {1}, {1}),
                                   tensorOf<int32_t>(DType::I32, {1}, {1})};
  Result<OwnedTensor> signedShift = runKernel(
      "bit_shift", ints, DType::I32, {1}, {stringParam("direction", "left")});
  ASSERT_FALSE(signedShift.ok());
  EXPECT_NE(signedShift.error().message().find("u8, u16, u32 or u64"),
            std::string::npos);
}

TEST(GenericKernelTest, MaxPoolOnU8) {
  // A 2x2 window with stride 2 on a 4x4 u8 plane: the maxima of the four
  // quadrants. 200 exceeds int8's range, so the comparison must be
  // unsigned.
  std::vector<OwnedTensor> inputs = {tensorOf<uint8_t>(
      DType::U8, {1, 1, 4, 4},
      {1, 2, 3, 4, 5, 200, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})};
  Result<OwnedTensor> out =
      runKernel("max_pool2d", inputs, DType::U8, {1, 1, 2, 2},
                windowParams("max_pool2d", {intsParam("kernel", {2, 2}),
                                            intsParam("strides", {2, 2})}));
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<uint8_t>(*out), (std::vector<uint8_t>{200, 8, 14, 16}));
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

TEST(GenericKernelTest, F32MaxMinKeepTheLastNaNAndTheFirstSignedZero) {
  // 100 elements, past the 32 vector lanes and into a tail: the results are
  // those of the sequential loop, which keeps the last NaN met (with its
  // payload) and, of +0 and -0, the first met.
  auto bitsOf = [](const OwnedTensor &t) { return valuesOf<uint32_t>(t)[0]; };
  auto reduce = [&](const char *kernel, const std::vector<float> &x) {
    std::vector<OwnedTensor> inputs = {f32Tensor({100}, x)};
    Result<OwnedTensor> out = runKernel(kernel, inputs, DType::F32, {1});
    EXPECT_TRUE(out.ok()) << kernel << ": " << out.error().message();
    return out.ok() ? bitsOf(*out) : 0u;
  };
  std::vector<float> below(100), above(100);
  for (int i = 0; i < 100; ++i) {
    below[i] = -1.0f - i;
    above[i] = 1.0f + i;
  }
  for (std::vector<float> *x : {&below, &above}) {
    (*x)[37] = -0.0f;
    (*x)[70] = 0.0f;
  }
  EXPECT_EQ(reduce("reduce_max", below), 0x80000000u);
  EXPECT_EQ(reduce("reduce_min", above), 0x80000000u);
  for (std::vector<float> *x : {&below, &above}) {
    (*x)[37] = 0.0f;
    (*x)[70] = -0.0f;
  }
  EXPECT_EQ(reduce("reduce_max", below), 0x00000000u);
  EXPECT_EQ(reduce("reduce_min", above), 0x00000000u);
  uint32_t nanBits[2] = {0x7fc00001u, 0xffc00002u};
  float nans[2];
  std::memcpy(nans, nanBits, sizeof(nans));
  below[20] = nans[0];
  below[90] = nans[1];
  EXPECT_EQ(reduce("reduce_max", below), nanBits[1]);
  EXPECT_EQ(reduce("reduce_min", below), nanBits[1]);
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

TEST(GenericKernelTest, RangeFillsStartPlusIDelta) {
  // ONNX Range example: Range(10, 4, -3) = [10, 7] (ceil(-6 / -3) = 2).
  std::vector<OwnedTensor> inputs = {tensorOf<int32_t>(DType::I32, {}, {10}),
                                     tensorOf<int32_t>(DType::I32, {}, {4}),
                                     tensorOf<int32_t>(DType::I32, {}, {-3})};
  Result<OwnedTensor> out = runKernel("range", inputs, DType::I32, {2}, {});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<int32_t>(*out), (std::vector<int32_t>{10, 7}));
}

TEST(GenericKernelTest, RangeCountsAPartialStepAsAnElement) {
  // Range(1, 5.5, 2): ceil(4.5 / 2) = 3 elements, 1, 3, 5.
  std::vector<OwnedTensor> inputs = {f32Tensor({}, {1}), f32Tensor({}, {5.5}),
                                     f32Tensor({}, {2})};
  Result<OwnedTensor> out = runKernel("range", inputs, DType::F32, {3}, {});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{1, 3, 5}));
}

/// Runs range on `inputs` for a result of `type` and `extent` elements and
/// expects an error that says `says`.
void expectRangeFails(std::vector<OwnedTensor> inputs, DType type,
                      int64_t extent, const std::string &says) {
  Result<OwnedTensor> out = runKernel("range", inputs, type, {extent}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find(says), std::string::npos)
      << out.error().message();
}

TEST(GenericKernelTest, RangeRejectsOperandsForAnotherLength) {
  // Range(0, 7, 1) has 7 elements; the program was compiled for 10.
  std::vector<OwnedTensor> inputs = {tensorOf<int64_t>(DType::I64, {}, {0}),
                                     tensorOf<int64_t>(DType::I64, {}, {7}),
                                     tensorOf<int64_t>(DType::I64, {}, {1})};
  expectRangeFails(std::move(inputs), DType::I64, 10,
                   "give 7 elements, but the program was compiled for 10");
}

TEST(GenericKernelTest, RangeRejectsAZeroDelta) {
  std::vector<OwnedTensor> inputs = {f32Tensor({}, {0}), f32Tensor({}, {1}),
                                     f32Tensor({}, {0})};
  expectRangeFails(std::move(inputs), DType::F32, 1, "gives no valid range");
}

TEST(GenericKernelTest, RangeRejectsOperandsOfAnotherType) {
  std::vector<OwnedTensor> inputs = {f32Tensor({}, {0}), f32Tensor({}, {2}),
                                     f32Tensor({}, {1})};
  expectRangeFails(std::move(inputs), DType::I64, 2, "of the result's type");
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
  Result<OwnedTensor> out =
      runKernel("conv2d", inputs, DType::I32, {1, 1, 2, 2},
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
  std::vector<OwnedTensor> inputs = {tensorOf<int32_t>(DType::I32, {1, 1}, {1}),
                                     f32Tensor({1, 1}, {1})};
  Result<OwnedTensor> out = runKernel("matmul", inputs, DType::I32, {1, 1});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("or all-i32 operands"),
            std::string::npos)
      << out.error().message();
}

} // namespace
