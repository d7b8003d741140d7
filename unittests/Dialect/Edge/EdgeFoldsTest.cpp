//===- EdgeFoldsTest.cpp - how large an edge fold may grow ----------------===//
//
// Element-wise folds over constants materialize their result. One no larger
// than a stored (non-splat) operand adds no more data than the model holds
// and folds at any size: BatchNorm's scale folded into a 512x512x3x3
// convolution weight (2.4 Mi elements) must become a constant, or the
// delegates that pack weights at compile time cannot take the convolution.
// A broadcast that would grow past both operands and the fold limit stays
// an op.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Support/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mlir;

namespace {

class EdgeFoldsTest : public ::testing::Test {
protected:
  EdgeFoldsTest() : builder(&context) {
    context.loadDialect<strata::edge::EdgeDialect>();
  }

  /// Folds lhs * rhs (constants of the given types and values) into a
  /// result of `resultShape`.
  SmallVector<OpFoldResult> foldMul(RankedTensorType lhsType,
                                    ArrayRef<float> lhsValues,
                                    RankedTensorType rhsType,
                                    ArrayRef<float> rhsValues,
                                    ArrayRef<int64_t> resultShape) {
    Location loc = builder.getUnknownLoc();
    auto module = ModuleOp::create(loc);
    builder.setInsertionPointToStart(module.getBody());
    auto constant = [&](RankedTensorType type, ArrayRef<float> values) {
      Attribute attr = values.size() == 1
                           ? DenseElementsAttr::get(type, values.front())
                           : DenseElementsAttr::get(type, values);
      OperationState state(loc, "edge.constant");
      state.addAttribute("value", attr);
      state.addTypes(type);
      return std::make_pair(builder.create(state)->getResult(0), attr);
    };
    auto [lhs, lhsAttr] = constant(lhsType, lhsValues);
    auto [rhs, rhsAttr] = constant(rhsType, rhsValues);
    auto resultType = RankedTensorType::get(resultShape, builder.getF32Type());
    auto mul = builder.create<strata::edge::MulOp>(loc, resultType, lhs, rhs);
    SmallVector<OpFoldResult> results;
    if (failed(mul->fold({lhsAttr, rhsAttr}, results)))
      results.clear();
    module->erase();
    return results;
  }

  MLIRContext context;
  OpBuilder builder;
};

TEST_F(EdgeFoldsTest, ScaleFoldedIntoLargeWeight) {
  // [64, 1, 1, 1] scales times a [64, 128, 16, 9] weight: 1,179,648
  // elements, past the fold limit of 1 Mi, no more than the weight holds.
  const int64_t out = 64, in = 128, h = 16, w = 9;
  std::vector<float> scale(out), weight(out * in * h * w);
  for (int64_t o = 0; o < out; ++o)
    scale[o] = static_cast<float>(o + 1);
  for (size_t i = 0; i < weight.size(); ++i)
    weight[i] = static_cast<float>(i % 5) - 2.0f;
  ASSERT_GT(static_cast<int64_t>(weight.size()), strata::kMaxFoldedElements);
  auto f32 = builder.getF32Type();
  SmallVector<OpFoldResult> results =
      foldMul(RankedTensorType::get({out, 1, 1, 1}, f32), scale,
              RankedTensorType::get({out, in, h, w}, f32), weight,
              {out, in, h, w});
  ASSERT_EQ(results.size(), 1u);
  auto folded = dyn_cast_or_null<ElementsAttr>(
      dyn_cast_if_present<Attribute>(results.front()));
  ASSERT_TRUE(folded);
  std::optional<std::vector<float>> values =
      strata::edge::readF32Constant(folded);
  ASSERT_TRUE(values);
  ASSERT_EQ(values->size(), weight.size());
  // Element i belongs to output channel i / (in h w) and was (i % 5) - 2.
  for (size_t i = 0; i < weight.size(); i += 9973)
    EXPECT_EQ((*values)[i], static_cast<float>(i / (in * h * w) + 1) *
                                (static_cast<float>(i % 5) - 2.0f))
        << "element " << i;
}

TEST_F(EdgeFoldsTest, FoldingAgainSharesStorage) {
  // Calibration and mixed precision compile one model dozens of times in
  // one context; each compile folds the same BatchNorm scales into the same
  // weights. The second fold must return the first one's attribute, not a
  // second copy of its data (a resource blob per fold grew wide_resnet50_2's
  // mixed-precision search past 24 GiB).
  auto f32 = builder.getF32Type();
  std::vector<float> scale(64), weight(64 * 64 * 3 * 3);
  for (size_t o = 0; o < scale.size(); ++o)
    scale[o] = 0.5f + static_cast<float>(o);
  for (size_t i = 0; i < weight.size(); ++i)
    weight[i] = static_cast<float>(i % 7) - 3.0f;
  auto scaleType = RankedTensorType::get({64, 1, 1, 1}, f32);
  auto weightType = RankedTensorType::get({64, 64, 3, 3}, f32);
  SmallVector<OpFoldResult> first =
      foldMul(scaleType, scale, weightType, weight, {64, 64, 3, 3});
  SmallVector<OpFoldResult> second =
      foldMul(scaleType, scale, weightType, weight, {64, 64, 3, 3});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  auto a = dyn_cast_if_present<Attribute>(first.front());
  auto b = dyn_cast_if_present<Attribute>(second.front());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a, b);
}

TEST_F(EdgeFoldsTest, GrowingBroadcastStaysAnOp) {
  // [2048, 1] times [1, 1024]: 2 Mi elements from 3,072 stored ones.
  auto f32 = builder.getF32Type();
  std::vector<float> column(2048, 1.5f), row(1024, 2.0f);
  column[0] = 3.0f;
  row[0] = 4.0f;
  SmallVector<OpFoldResult> results =
      foldMul(RankedTensorType::get({2048, 1}, f32), column,
              RankedTensorType::get({1, 1024}, f32), row, {2048, 1024});
  EXPECT_TRUE(results.empty());
}

} // namespace
