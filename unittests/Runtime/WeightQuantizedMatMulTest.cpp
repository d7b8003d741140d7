//===- WeightQuantizedMatMulTest.cpp - weight_quantized_matmul ------------===//
//
// The portable kernel on values worked by hand (one row, the register path;
// nine rows, the dequantize-once path), and its refusals of operands that
// disagree with its layout.
//
//===----------------------------------------------------------------------===//
#include "WeightQuantizedMatMul.h"
#include "KernelTestUtils.h"

#include "gtest/gtest.h"

#include <cmath>
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

namespace {

std::vector<Param> int8Params(int64_t bits = 4, int64_t group = 8) {
  return {intParam("bits", bits), intParam("group_size", group),
          intParam("activation_bits", 8)};
}

} // namespace

TEST(WeightQuantizedMatMulTest, Int8ActivationsHandWorked) {
  // x = 1, 2, 3 is one group: a = 3 / 127, p = rint(x / a) = 42, 85, 127.
  // Column 0: sum p (q - z) = 42 * 10 + 85 * -5 + 127 * 2 = 249, times
  // a * 0.5; column 1: 42 * -7 + 85 * -6 + 127 * -5 = -1439, times a * 1.
  double a = static_cast<double>(3.0f / 127.0f);
  for (int64_t rows : {1, 9}) {
    std::vector<OwnedTensor> operands = handWorkedOperands(rows, true);
    Result<OwnedTensor> y = runKernel("weight_quantized_matmul", operands,
                                      DType::F32, {rows, 2}, int8Params());
    ASSERT_TRUE(y.ok()) << y.error().message();
    const float *got = reinterpret_cast<const float *>(y->bytes.data());
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_NEAR(got[2 * r], a * 0.5 * 249 + 0.5, 1e-5);
      EXPECT_NEAR(got[2 * r + 1], a * -1439 + 1.0, 1e-4);
    }
  }
}

TEST(WeightQuantizedMatMulTest, Int8ActivationsVnniEqualsTheGenericPath) {
  using namespace strata::runtime::kernels;
  if (!hasVnni())
    GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  // K = 150 (a partial group and word), N = 37 (a padded tile), 3 rows; a
  // NaN in row 1's second group makes that row NaN and leaves the others.
  for (int64_t bits : {4, 8})
    for (int64_t group : {32, 64}) {
      WeightQuantizedMatmulState st;
      st.rows = 3, st.k = 150, st.n = 37, st.bits = bits, st.groupSize = group;
      st.activationBits = 8;
      st.tiles = 2, st.groups = (150 + group - 1) / group;
      st.blocks = (150 + 32 / bits - 1) / (32 / bits);
      std::vector<uint8_t> weight(st.tiles * st.blocks * 128),
          zeros(st.tiles * st.groups * 32);
      std::vector<float> scales(zeros.size()), x(st.rows * st.k), bias(st.n);
      uint32_t state = 12345;
      auto next = [&]() { return state = state * 1664525u + 1013904223u; };
      for (uint8_t &b : weight)
        b = static_cast<uint8_t>(next() >> 24);
      for (size_t i = 0; i < zeros.size(); ++i) {
        zeros[i] = static_cast<uint8_t>((next() >> 24) % (1u << bits));
        scales[i] = 0.01f * static_cast<float>((next() >> 24) % 100 + 1);
      }
      for (float &v : x)
        v = static_cast<float>(static_cast<int32_t>(next() >> 16) - 32768) /
            4096.0f;
      for (float &v : bias)
        v = static_cast<float>((next() >> 24) % 7);
      x[st.k + group + 3] = std::nanf("");
      std::vector<uint8_t> scratch(int8ActivationScratchBytes(st) + 4);
      std::vector<float> vnni(st.rows * st.n), generic(st.rows * st.n);
      for (bool allow : {true, false})
        weightQuantizedMatmulInt8(st, x.data(), weight.data(), scales.data(),
                                  zeros.data(), bias.data(), scratch.data(),
                                  allow ? vnni.data() : generic.data(), allow);
      for (int64_t i = 0; i < st.rows * st.n; ++i) {
        if (i / st.n == 1) {
          EXPECT_TRUE(std::isnan(vnni[i]) && std::isnan(generic[i])) << i;
          continue;
        }
        EXPECT_NEAR(vnni[i], generic[i], 1e-5 * (1 + std::fabs(generic[i])))
            << "bits " << bits << " group " << group << " at " << i;
      }
    }
}

TEST(WeightQuantizedMatMulTest, F32PathsAgreeWithAFloat64Product) {
  using namespace strata::runtime::kernels;
  // K = 150 (a partial group and word), N = 37 (a padded tile), rows 1 to
  // 5 and 8 (the register paths, one and two passes of four rows) and 9
  // (the dequantize-once one), with and without zero points; each path
  // against the product in float64 of the values the layout holds, read
  // back here word by word. `offset` shifts every x by 50 with the zero
  // points at 0 or 15, where the lookup path's folded share of the zero
  // points, (z - 8) times a large sum of x, is largest.
  for (int64_t bits : {4, 8})
    for (int64_t group : {32, 64})
      for (int zeroKind : {0, 1, 2})
        for (int64_t rows : {1, 2, 3, 4, 5, 8, 9}) {
          bool withZeros = zeroKind != 0, offset = zeroKind == 2;
          WeightQuantizedMatmulState st;
          st.rows = rows, st.k = 150, st.n = 37, st.bits = bits;
          st.groupSize = group, st.tiles = 2;
          st.groups = (st.k + group - 1) / group;
          int64_t perWord = 32 / bits;
          st.blocks = (st.k + perWord - 1) / perWord;
          std::vector<uint8_t> weight(st.tiles * st.blocks * 128),
              zeros(st.tiles * st.groups * 32);
          std::vector<float> scales(zeros.size()), x(rows * st.k), bias(st.n);
          uint32_t state = 777 + rows;
          auto next = [&]() { return state = state * 1664525u + 1013904223u; };
          for (uint8_t &b : weight)
            b = static_cast<uint8_t>(next() >> 24);
          for (size_t i = 0; i < zeros.size(); ++i) {
            uint32_t top = (1u << bits) - 1;
            zeros[i] =
                static_cast<uint8_t>(offset ? ((next() >> 24) % 2) * top
                                            : (next() >> 24) % (top + 1));
            scales[i] = 0.01f * static_cast<float>((next() >> 24) % 100 + 1);
          }
          for (float &v : x)
            v = static_cast<float>(static_cast<int32_t>(next() >> 16) - 32768) /
                    4096.0f +
                (offset ? 50.0f : 0.0f);
          for (float &v : bias)
            v = static_cast<float>((next() >> 24) % 7);
          const uint8_t *zp = withZeros ? zeros.data() : nullptr;
          std::vector<double> want(rows * st.n), magnitude(rows * st.n);
          for (int64_t n = 0; n < st.n; ++n) {
            int64_t t = n / 32, j = n % 32;
            for (int64_t p = 0; p < st.k; ++p) {
              int64_t at = ((t * st.blocks + p / perWord) * 32 + j) * 4;
              uint32_t word;
              std::memcpy(&word, weight.data() + at, 4);
              int64_t q = (word >> (bits * (p % perWord))) & ((1u << bits) - 1);
              int64_t param = (t * st.groups + p / group) * 32 + j;
              int64_t z = zp ? zp[param] : int64_t(1) << (bits - 1);
              double w = static_cast<double>(q - z) * scales[param];
              for (int64_t r = 0; r < rows; ++r) {
                want[r * st.n + n] += x[r * st.k + p] * w;
                magnitude[r * st.n + n] += std::fabs(x[r * st.k + p] * w);
              }
            }
            for (int64_t r = 0; r < rows; ++r)
              want[r * st.n + n] += bias[n];
          }
          std::vector<float> scratch(f32ActivationScratchFloats(st));
          for (bool lookup : {false, true}) {
            if (lookup && !hasNibbleLookup())
              continue;
            std::vector<float> y(rows * st.n, -1.0f);
            weightQuantizedMatmulF32(st, x.data(), weight.data(), scales.data(),
                                     zp, bias.data(), scratch.data(), y.data(),
                                     lookup);
            for (int64_t i = 0; i < rows * st.n; ++i)
              ASSERT_NEAR(y[i], want[i], 1e-6 * (1 + magnitude[i]))
                  << "bits " << bits << " group " << group << " zeros "
                  << zeroKind << " rows " << rows << " lookup " << lookup
                  << " at " << i;
          }
        }
}
