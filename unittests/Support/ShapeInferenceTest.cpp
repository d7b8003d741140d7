//===- ShapeInferenceTest.cpp - shared shape rules ------------------------===//
//
// Expected extents follow the formulas of the ONNX operator specification
// (Conv, MaxPool with ceil_mode) and NumPy broadcasting.
//
//===----------------------------------------------------------------------===//
#include "strata/Support/ShapeInference.h"

#include <gtest/gtest.h>

using namespace strata;
using mlir::ShapedType;

namespace {

TEST(SlidingWindowExtent, MatchesOnnxFloorFormula) {
  // 224 input, 7x7 kernel, stride 2, pad 3: ResNet stem gives 112.
  EXPECT_EQ(slidingWindowExtent(224, 7, 2, 1, 3, 3), 112);
  // 3x3 same-padded conv keeps the extent.
  EXPECT_EQ(slidingWindowExtent(8, 3, 1, 1, 1, 1), 8);
  // Dilation 2 widens a 3-tap kernel to 5.
  EXPECT_EQ(slidingWindowExtent(8, 3, 1, 2, 0, 0), 4);
}

TEST(SlidingWindowExtent, CeilModeAddsPartialWindow) {
  // ONNX MaxPool test "maxpool_2d_ceil": 4x4 input, 3x3 kernel, stride 2 -> 2.
  EXPECT_EQ(slidingWindowExtent(4, 3, 2, 1, 0, 0, /*ceilMode=*/true), 2);
  EXPECT_EQ(slidingWindowExtent(4, 3, 2, 1, 0, 0, /*ceilMode=*/false), 1);
  // SqueezeNet: 111 input, 3x3, stride 2, ceil -> 55.
  EXPECT_EQ(slidingWindowExtent(111, 3, 2, 1, 0, 0, true), 55);
}

TEST(SlidingWindowExtent, CeilModeDropsWindowStartingInPadding) {
  // PyTorch's rule: 5 input, kernel 2, stride 2, pad 1 each side -> 3, not 4.
  EXPECT_EQ(slidingWindowExtent(5, 2, 2, 1, 1, 1, true), 3);
}

TEST(SlidingWindowExtent, DynamicAndMisfit) {
  EXPECT_EQ(slidingWindowExtent(ShapedType::kDynamic, 3, 1, 1, 0, 0),
            ShapedType::kDynamic);
  EXPECT_EQ(slidingWindowExtent(2, 3, 1, 1, 0, 0), std::nullopt);
}

TEST(BroadcastShapes, NumpyRules) {
  auto result = broadcastShapes({1, 4, 8, 8}, {4, 1, 1});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, (llvm::SmallVector<int64_t>{1, 4, 8, 8}));
  EXPECT_TRUE(mlir::failed(broadcastShapes({2, 3}, {4})));
  auto dynamic = broadcastShapes({ShapedType::kDynamic, 3}, {1, 3});
  ASSERT_TRUE(mlir::succeeded(dynamic));
  EXPECT_EQ((*dynamic)[0], ShapedType::kDynamic);
}

TEST(NormalizeAxis, Range) {
  EXPECT_EQ(*normalizeAxis(-1, 4), 3);
  EXPECT_EQ(*normalizeAxis(0, 4), 0);
  EXPECT_TRUE(mlir::failed(normalizeAxis(4, 4)));
  EXPECT_TRUE(mlir::failed(normalizeAxis(-5, 4)));
}

TEST(FormatShape, DynamicAsQuestionMark) {
  EXPECT_EQ(formatShape({1, ShapedType::kDynamic, 224}), "1x?x224");
  EXPECT_EQ(formatShape({}), "");
}

} // namespace
