//===- ShapeInferenceTest.cpp - shared shape rules ------------------------===//
//
// Expected extents follow the formulas of the ONNX operator specification
// (Conv, MaxPool with ceil_mode) and NumPy broadcasting.
//
//===----------------------------------------------------------------------===//
#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include <gtest/gtest.h>

#include <limits>

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

TEST(WindowExtent, RefusesWhatTheRuntimeMustNotComputeWith) {
  // The plain C++ rule the runtime kernels check programs with: arguments
  // out of range and overflowing steps give no extent.
  EXPECT_EQ(windowExtent(224, 7, 2, 1, 3, 3), 112);
  EXPECT_EQ(windowExtent(8, 3, 0, 1, 0, 0), std::nullopt);
  EXPECT_EQ(windowExtent(8, 3, 1, 0, 0, 0), std::nullopt);
  EXPECT_EQ(windowExtent(8, 0, 1, 1, 0, 0), std::nullopt);
  EXPECT_EQ(windowExtent(8, 3, 1, 1, -1, 0), std::nullopt);
  int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(windowExtent(kMax, 1, 1, 1, 1, 0), std::nullopt);
}

TEST(TransposedWindowExtent, MatchesOnnxConvTranspose) {
  // ONNX ConvTranspose: (in - 1) * stride + dilation * (k - 1) + 1 - pads
  // + output_padding; "convtranspose_pads": 3 input, 3x3, stride 3, pads 1.
  EXPECT_EQ(transposedWindowExtent(3, 3, 3, 1, 1, 1, 0), 7);
  EXPECT_EQ(transposedWindowExtent(3, 2, 1, 2, 0, 0, 0), 5);
  EXPECT_EQ(transposedWindowExtent(3, 3, 2, 1, 0, 0, 1), 8);
  EXPECT_EQ(transposedWindowExtent(1, 1, 1, 1, 1, 1, 0), std::nullopt);
  int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(transposedWindowExtent(kMax, 3, 2, 1, 0, 0, 0), std::nullopt);
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

// Expected shapes below follow the ONNX operator definitions by hand.
using Shape = llvm::SmallVector<int64_t>;

TEST(InferReshapeShape, ZeroCopiesAndMinusOneInfers) {
  // [2, 3, 4] to [0, -1]: 0 copies 2, -1 is 24 / 2 = 12.
  EXPECT_EQ(*inferReshapeShape({2, 3, 4}, {0, -1}, false), (Shape{2, 12}));
  // With allowzero a 0 stays 0 (and then the counts differ).
  EXPECT_TRUE(mlir::failed(inferReshapeShape({2, 3}, {0, 6}, true)));
  EXPECT_TRUE(mlir::failed(inferReshapeShape({2, 3}, {-1, -1}, false)));
  EXPECT_TRUE(mlir::failed(inferReshapeShape({2, 3}, {4, -1}, false)));
  EXPECT_TRUE(mlir::failed(inferReshapeShape({2, 3}, {5}, false)));
}

TEST(InferSqueezeShape, AxesOrAllUnitExtents) {
  EXPECT_EQ(*inferSqueezeShape({1, 3, 1}, llvm::ArrayRef<int64_t>{-1}),
            (Shape{1, 3}));
  EXPECT_EQ(*inferSqueezeShape({1, 3, 1}, std::nullopt), (Shape{3}));
  EXPECT_TRUE(
      mlir::failed(inferSqueezeShape({1, 3}, llvm::ArrayRef<int64_t>{2})));
}

TEST(InferUnsqueezeShape, AxesIndexTheResult) {
  // Unsqueeze([3, 4], axes [0, -1]) has rank 4: [1, 3, 4, 1].
  EXPECT_EQ(*inferUnsqueezeShape({3, 4}, {0, -1}), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(*inferUnsqueezeShape({}, {0}), (Shape{1}));
  EXPECT_TRUE(mlir::failed(inferUnsqueezeShape({3}, {0, 0})));
  EXPECT_TRUE(mlir::failed(inferUnsqueezeShape({3}, {2})));
}

TEST(InferGatherShape, IndicesReplaceTheAxis) {
  EXPECT_EQ(*inferGatherShape({5, 4}, {2, 3}, 0), (Shape{2, 3, 4}));
  EXPECT_EQ(*inferGatherShape({3}, {}, -1), (Shape{}));
  EXPECT_TRUE(mlir::failed(inferGatherShape({3}, {1}, 1)));
}

TEST(InferConcatShape, SumsTheAxis) {
  EXPECT_EQ(*inferConcatShape({Shape{1, 2}, Shape{1, 3}}, -1), (Shape{1, 5}));
  EXPECT_TRUE(mlir::failed(inferConcatShape({Shape{1, 2}, Shape{2}}, 0)));
}

TEST(InferSliceShape, ClampsLikeOnnx) {
  // [2:100:3] of 10 picks 2, 5, 8; [-1:-11:-1] of 4 (end clamped to -1)
  // walks 3, 2, 1, 0.
  EXPECT_EQ(*inferSliceShape({10, 4}, {2}, {100}, {0}, {3}), (Shape{3, 4}));
  EXPECT_EQ(*inferSliceShape({4}, {-1}, {-11}, {0}, {-1}), (Shape{4}));
  EXPECT_EQ(*inferSliceShape({4}, {3}, {1}, {0}, {1}), (Shape{0}));
  EXPECT_TRUE(mlir::failed(inferSliceShape({4}, {0}, {1}, {0}, {0})));
}

// Extents, pads, repeats and steps come from the model: a sum or product
// past int64_t is a refusal, never undefined arithmetic (the importer
// fuzzer runs these rules under UBSan).
TEST(ShapeRules, OverflowIsAMisfit) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(slidingWindowExtent(8, 3, 1, 1, kMax, kMax), std::nullopt);
  EXPECT_EQ(slidingWindowExtent(8, kMax, 1, 4, 0, 0), std::nullopt);
  EXPECT_EQ(slidingWindowExtent(kMax - 1, 1, 1, 1, 0, 0), kMax - 1);
  EXPECT_TRUE(mlir::failed(inferReshapeShape({int64_t(1) << 62, 4}, {-1},
                                             /*allowZero=*/false)));
  EXPECT_TRUE(mlir::failed(
      inferReshapeShape({4}, {int64_t(1) << 62, 4, 0}, /*allowZero=*/true)));
  EXPECT_TRUE(mlir::failed(inferConcatShape({Shape{kMax}, Shape{1}}, 0)));
  // The most negative step reads one element of a reversed axis.
  EXPECT_EQ(*inferSliceShape({4}, {-1}, {kMin}, {0}, {kMin}), (Shape{1}));
}

TEST(RangeElementCount, CeilOfSpanOverDelta) {
  // ONNX Range examples: (3, 9, 3) -> 2, (10, 4, -3) -> 2; (0, 4.5, 2) -> 3.
  EXPECT_EQ(*rangeElementCount(3, 9, 3), 2);
  EXPECT_EQ(*rangeElementCount(10, 4, -3), 2);
  EXPECT_EQ(*rangeElementCount(0, 4.5, 2), 3);
  EXPECT_EQ(*rangeElementCount(5, 1, 1), 0);
  EXPECT_TRUE(mlir::failed(rangeElementCount(0, 1, 0)));
}

} // namespace
