//===- WeightQuantizedMatMulTest.cpp - weight_quantized_matmul ------------===//
//
// The portable kernel on values worked by hand (one row, the register path;
// nine rows, the dequantize-once path), and its refusals of operands that
// disagree with its layout.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include "gtest/gtest.h"

#include <cstring>
#include <functional>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// K = 3, N = 2, 4 bits, groups of 8 (one, partial): column 0 holds
/// q = 15, 0, 7 with zero point 5 and scale 0.5, so W[:, 0] = 5, -2.5, 1;
/// column 1 holds q = 1, 2, 3 with zero point 8 and scale 1, so W[:, 1] =
/// -7, -6, -5. Each column's word packs its rows low nibble first:
/// 15 | 0 << 4 | 7 << 8 = 0x70f and 1 | 2 << 4 | 3 << 8 = 0x321; the other
/// 30 columns of the tile are padding.
std::vector<OwnedTensor> handWorkedOperands(int64_t rows, bool withBias) {
  std::vector<float> x;
  for (int64_t r = 0; r < rows; ++r)
    x.insert(x.end(), {1.0f, 2.0f, 3.0f});
  std::vector<uint8_t> words(128, 0);
  words[0] = 0x0f, words[1] = 0x07;
  words[4] = 0x21, words[5] = 0x03;
  std::vector<float> scales(32, 0.0f);
  scales[0] = 0.5f, scales[1] = 1.0f;
  std::vector<uint8_t> zeros(32, 0);
  zeros[0] = 5, zeros[1] = 8;
  std::vector<OwnedTensor> operands = {
      tensorOf<float>(DType::F32, {rows, 3}, x),
      tensorOf<uint8_t>(DType::U8, {1, 1, 128}, words),
      tensorOf<float>(DType::F32, {1, 1, 32}, scales),
      tensorOf<uint8_t>(DType::U8, {1, 1, 32}, zeros)};
  if (withBias)
    operands.push_back(tensorOf<float>(DType::F32, {2}, {0.5f, 1.0f}));
  return operands;
}

std::vector<Param> params(int64_t bits = 4, int64_t group = 8) {
  return {intParam("bits", bits), intParam("group_size", group)};
}

TEST(WeightQuantizedMatMulTest, HandWorkedValuesOnBothPaths) {
  // x = 1, 2, 3: column 0 is 5 - 5 + 3 = 3, column 1 is -7 - 12 - 15 =
  // -34; the bias adds 0.5 and 1.
  for (int64_t rows : {1, 9}) {
    std::vector<OwnedTensor> operands = handWorkedOperands(rows, true);
    Result<OwnedTensor> y = runKernel("weight_quantized_matmul", operands,
                                      DType::F32, {rows, 2}, params());
    ASSERT_TRUE(y.ok()) << y.error().message();
    std::vector<float> want;
    for (int64_t r = 0; r < rows; ++r)
      want.insert(want.end(), {3.5f, -33.0f});
    EXPECT_EQ(valuesOf<float>(*y), want) << rows << " rows";
  }
}

TEST(WeightQuantizedMatMulTest, RefusesOperandsThatDisagreeWithTheLayout) {
  struct Case {
    std::vector<Param> params;
    std::function<void(std::vector<OwnedTensor> &)> damage;
    const char *message;
  } cases[] = {
      {params(3), nullptr, "'bits' must be 4 or 8"},
      {params(4, 12), nullptr, "must be a multiple of 8"},
      {params(),
       [](std::vector<OwnedTensor> &ops) {
         ops[1] = tensorOf<uint8_t>(DType::U8, {1, 2, 128},
                                    std::vector<uint8_t>(256, 0));
       },
       "the weight must be [1, 1, 128]"},
      {params(),
       [](std::vector<OwnedTensor> &ops) {
         ops[2] = tensorOf<float>(DType::F32, {1, 2, 32},
                                  std::vector<float>(64, 1.0f));
       },
       "the scales [1, 1, 32]"},
      {params(),
       [](std::vector<OwnedTensor> &ops) {
         ops[3] = tensorOf<int8_t>(DType::I8, {1, 1, 32},
                                   std::vector<int8_t>(32, 0));
       },
       "neither the zero points"},
  };
  for (const Case &c : cases) {
    std::vector<OwnedTensor> operands = handWorkedOperands(1, false);
    if (c.damage)
      c.damage(operands);
    Result<OwnedTensor> y = runKernel("weight_quantized_matmul", operands,
                                      DType::F32, {1, 2}, c.params);
    ASSERT_FALSE(y.ok()) << c.message;
    EXPECT_NE(y.error().message().find(c.message), std::string::npos)
        << y.error().message();
  }
}

} // namespace
