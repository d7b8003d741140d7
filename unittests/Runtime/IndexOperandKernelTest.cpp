//===- IndexOperandKernelTest.cpp - pad, dynamic_slice, cum_sum -----------===//
//
// Expected values are the examples of the ONNX operator specification (Pad,
// Slice, CumSum) and hand-derived cases for the run-time checks: index
// values that disagree with the compiled result shape must fail the call.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <cstring>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

OwnedTensor i64Tensor(std::vector<int64_t> shape, std::vector<int64_t> v) {
  OwnedTensor t;
  t.dtype = DType::I64;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * 8);
  if (!v.empty())
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

std::vector<int64_t> i64Values(const OwnedTensor &t) {
  std::vector<int64_t> v(t.bytes.size() / 8);
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

Param modeParam(const std::string &mode) { return stringParam("mode", mode); }

// ONNX Pad, examples "constant_pad", "reflection_pad" and "edge_pad" of the
// specification: x = [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]].
const std::vector<float> kPadInput = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};

/// Pads kPadInput by two columns in front in `mode` (a constant pad with
/// the value 0 takes it as an operand) and checks the result.
void expectPaddedInFront(const std::string &mode,
                         const std::vector<float> &expected) {
  std::vector<OwnedTensor> inputs = {f32Tensor({3, 2}, kPadInput),
                                     i64Tensor({4}, {0, 2, 0, 0})};
  if (mode == "constant")
    inputs.push_back(f32Tensor({}, {0.0f}));
  Result<OwnedTensor> out =
      runKernel("pad", inputs, DType::F32, {3, 4}, {modeParam(mode)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), expected);
}

TEST(IndexOperandKernelTest, PadConstantSpecExample) {
  expectPaddedInFront("constant",
                      {0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f});
}

TEST(IndexOperandKernelTest, PadReflectSpecExample) {
  expectPaddedInFront("reflect", {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f,
                                  3.4f, 4.5f, 5.7f, 4.5f, 5.7f});
}

TEST(IndexOperandKernelTest, PadEdgeSpecExample) {
  expectPaddedInFront("edge", {1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f,
                               4.5f, 4.5f, 4.5f, 5.7f});
}

TEST(IndexOperandKernelTest, PadWrapAndCrop) {
  // [1, 2, 3] wrapped by 2 in front and cropped by 1 at the end:
  // periodic extension ... 2 3 | 1 2 3 | 1 ... -> [2, 3, 1, 2].
  std::vector<OwnedTensor> inputs = {f32Tensor({3}, {1, 2, 3}),
                                     i64Tensor({2}, {2, -1})};
  Result<OwnedTensor> out =
      runKernel("pad", inputs, DType::F32, {4}, {modeParam("wrap")});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{2, 3, 1, 2}));
}

TEST(IndexOperandKernelTest, PadRejectsPadsThatDisagreeWithTheResult) {
  std::vector<OwnedTensor> inputs = {f32Tensor({3, 2}, kPadInput),
                                     i64Tensor({4}, {0, 3, 0, 0})};
  Result<OwnedTensor> out =
      runKernel("pad", inputs, DType::F32, {3, 4}, {modeParam("edge")});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find("compiled for"), std::string::npos)
      << out.error().message();
  // Huge pads must be rejected, not overflow.
  inputs[1] = i64Tensor({4}, {0, INT64_MAX, 0, INT64_MIN + 10});
  out = runKernel("pad", inputs, DType::F32, {3, 4}, {modeParam("edge")});
  EXPECT_FALSE(out.ok());
}

TEST(IndexOperandKernelTest, PadReflectNeedsTwoElements) {
  std::vector<OwnedTensor> inputs = {f32Tensor({1}, {7}),
                                     i64Tensor({2}, {1, 0})};
  Result<OwnedTensor> out =
      runKernel("pad", inputs, DType::F32, {2}, {modeParam("reflect")});
  EXPECT_FALSE(out.ok());
}

// ONNX Slice, specification example 1: data = [[1, 2, 3, 4], [5, 6, 7, 8]],
// axes = [0, 1], starts = [1, 0], ends = [2, 3], steps = [1, 2] ->
// [[5, 7]]; example 2: starts = [0, 1], ends = [-1, 1000] -> [[2, 3, 4]].
TEST(IndexOperandKernelTest, DynamicSliceSpecExamples) {
  std::vector<OwnedTensor> inputs = {
      f32Tensor({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), i64Tensor({2}, {1, 0}),
      i64Tensor({2}, {2, 3}), i64Tensor({2}, {0, 1}), i64Tensor({2}, {1, 2})};
  Result<OwnedTensor> out =
      runKernel("dynamic_slice", inputs, DType::F32, {1, 2});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{5, 7}));

  inputs[1] = i64Tensor({2}, {0, 1});
  inputs[2] = i64Tensor({2}, {-1, 1000});
  inputs[4] = i64Tensor({2}, {1, 1});
  out = runKernel("dynamic_slice", inputs, DType::F32, {1, 3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{2, 3, 4}));
}

TEST(IndexOperandKernelTest, DynamicSliceNegativeStepClamps) {
  // [0..4], start INT64_MAX clamps to 4, end -100 clamps to -1, step -2:
  // 4, 2, 0.
  std::vector<OwnedTensor> inputs = {
      f32Tensor({5}, {0, 1, 2, 3, 4}), i64Tensor({1}, {INT64_MAX}),
      i64Tensor({1}, {-100}), i64Tensor({1}, {0}), i64Tensor({1}, {-2})};
  Result<OwnedTensor> out = runKernel("dynamic_slice", inputs, DType::F32, {3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{4, 2, 0}));
}

TEST(IndexOperandKernelTest, DynamicSliceRejectsBadBounds) {
  auto run = [](std::vector<int64_t> starts, std::vector<int64_t> ends,
                std::vector<int64_t> axes, std::vector<int64_t> steps) {
    std::vector<OwnedTensor> inputs = {
        f32Tensor({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
        i64Tensor({int64_t(starts.size())}, starts),
        i64Tensor({int64_t(ends.size())}, ends),
        i64Tensor({int64_t(axes.size())}, axes),
        i64Tensor({int64_t(steps.size())}, steps)};
    return runKernel("dynamic_slice", inputs, DType::F32, {1, 2});
  };
  EXPECT_TRUE(run({1, 0}, {2, 3}, {0, 1}, {1, 2}).ok());
  EXPECT_FALSE(run({1, 0}, {2, 4}, {0, 1}, {1, 1}).ok()); // [1, 4] selected.
  EXPECT_FALSE(run({1, 0}, {2, 3}, {0, 0}, {1, 2}).ok()); // Repeated axis.
  EXPECT_FALSE(run({1, 0}, {2, 3}, {0, 2}, {1, 2}).ok()); // Axis out of rank.
  EXPECT_FALSE(run({1, 0}, {2, 3}, {0, 1}, {1, 0}).ok()); // Zero step.
}

// ONNX CumSum, specification examples: x = [1, 2, 3, 4, 5].
TEST(IndexOperandKernelTest, CumSumSpecExamples) {
  struct Case {
    bool exclusive, reverse;
    std::vector<float> want;
  } cases[] = {{false, false, {1, 3, 6, 10, 15}},
               {true, false, {0, 1, 3, 6, 10}},
               {false, true, {15, 14, 12, 9, 5}},
               {true, true, {14, 12, 9, 5, 0}}};
  for (const Case &c : cases) {
    std::vector<OwnedTensor> inputs = {f32Tensor({5}, {1, 2, 3, 4, 5}),
                                       i64Tensor({}, {0})};
    Result<OwnedTensor> out =
        runKernel("cum_sum", inputs, DType::F32, {5},
                  {boolParam("exclusive", c.exclusive),
                   boolParam("reverse", c.reverse)});
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(values(*out), c.want) << c.exclusive << c.reverse;
  }
}

TEST(IndexOperandKernelTest, CumSumAlongNegativeAxisOfIntegers) {
  // [[1, 2, 3], [4, 5, 6]] along axis -1 -> [[1, 3, 6], [4, 9, 15]].
  std::vector<OwnedTensor> inputs = {i64Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                                     i64Tensor({1}, {-1})};
  Result<OwnedTensor> out = runKernel("cum_sum", inputs, DType::I64, {2, 3});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(i64Values(*out), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  inputs[1] = i64Tensor({1}, {2});
  EXPECT_FALSE(runKernel("cum_sum", inputs, DType::I64, {2, 3}).ok());
}

} // namespace
