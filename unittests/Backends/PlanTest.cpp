//===- PlanTest.cpp - the plan API: match, switch off, apply, JSON --------===//
#include "strata/Patterns/Plan.h"
#include "HL/IR/HLOps.h"
#include "strata/Backends/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace strata;
using ::testing::HasSubstr;

namespace {

/// A stem (conv, bn, relu, max pool) and a Flatten + Gemm head.
constexpr const char *kModel = R"mlir(
  func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4xf32>) -> tensor<1x2xf32> {
    %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv0")
    %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("bn0")
    %2 = hl.relu %1 : tensor<1x4x6x6xf32> loc("relu0")
    %3 = hl.max_pool %2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> loc("pool0")
    %4 = hl.flatten %3 : (tensor<1x4x3x3xf32>) -> tensor<1x36xf32> loc("flat")
    %wg = hl.constant dense<0.5> : tensor<2x36xf32> loc("fc.weight")
    %5 = hl.gemm %4, %wg {transB = 1 : i64} : (tensor<1x36xf32>, tensor<2x36xf32>) -> tensor<1x2xf32> loc("fc")
    return %5 : tensor<1x2xf32>
  })mlir";

class PlanTest : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<hl::HLDialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
    ASSERT_TRUE(module);
    patterns = makeTensorRTBackend().getPatterns();
  }
  int countFused(mlir::ModuleOp m, llvm::StringRef kind) {
    int n = 0;
    m.walk([&](hl::FusedOp op) { n += op.getKind() == kind; });
    return n;
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<PatternDescriptor> patterns;
};

TEST_F(PlanTest, ListsEveryMatchWithOverlapsSwitchedOff) {
  auto plan = getTransformationPlan(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(plan));
  const PlannedMatch *stem = plan->find("pool0", "StemConvBNReLUMaxPool");
  ASSERT_NE(stem, nullptr);
  EXPECT_TRUE(stem->apply);
  EXPECT_EQ(stem->nodes,
            (std::vector<std::string>{"conv0", "bn0", "relu0", "pool0"}));
  const PlannedMatch *short1 = plan->find("relu0", "ConvBNReLU");
  ASSERT_NE(short1, nullptr);
  EXPECT_FALSE(short1->apply);
  EXPECT_EQ(short1->reason, "overlaps StemConvBNReLUMaxPool at 'pool0'");
  const PlannedMatch *conversion = plan->find("fc", "FlattenGemmToConv");
  ASSERT_NE(conversion, nullptr);
  EXPECT_EQ(conversion->phase, PatternPhase::Conversion);
  // The converted head is a conv, which ConvBN (BN optional) then claims.
  const PlannedMatch *head = plan->find("fc", "ConvBN");
  ASSERT_NE(head, nullptr);
  EXPECT_TRUE(head->apply);
}

TEST_F(PlanTest, ApplyWorksOnACopy) {
  auto result = transform(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(countFused(*module, "conv_bn_relu_max_pool"), 0);
  EXPECT_EQ(countFused(result->module.get(), "conv_bn_relu_max_pool"), 1);
  EXPECT_EQ(countFused(result->module.get(), "conv"), 1);
  // FlattenGemmToConv, the stem, and ConvBN on the converted head.
  EXPECT_EQ(result->report.appliedCount, 3);
  EXPECT_EQ(result->report.applied("GlobalAveragePool"), 0);
  EXPECT_EQ(result->report.skippedCount, 2); // ConvBNReLU, ConvBN at bn0
}

TEST_F(PlanTest, SwitchedOffMatchesAreSkippedWithTheReason) {
  auto plan = getTransformationPlan(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(plan));
  plan->find("pool0", "StemConvBNReLUMaxPool")->apply = false;
  plan->find("relu0", "ConvBNReLU")->apply = true;
  plan->find("fc", "FlattenGemmToConv")->apply = false;
  auto result = applyTransformationPlan(*plan);
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(countFused(result->module.get(), "conv_bn_relu"), 1);
  EXPECT_EQ(countFused(result->module.get(), "conv_bn_relu_max_pool"), 0);
  int gemms = 0;
  result->module->walk([&](hl::GemmOp) { ++gemms; });
  EXPECT_EQ(gemms, 1);
  bool sawStem = false, sawConversion = false;
  for (const auto &skip : result->report.skips) {
    if (skip.pattern == "StemConvBNReLUMaxPool") {
      sawStem = true;
      EXPECT_EQ(skip.reason, "switched off in the plan");
    }
    if (skip.pattern == "FlattenGemmToConv")
      sawConversion = true;
  }
  EXPECT_TRUE(sawStem);
  EXPECT_TRUE(sawConversion);
}

TEST_F(PlanTest, JSONRoundTripCarriesTheFlags) {
  auto plan = getTransformationPlan(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(plan));
  plan->find("pool0", "StemConvBNReLUMaxPool")->apply = false;
  llvm::json::Value json = plan->toJSON();
  auto fresh = getTransformationPlan(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(fresh));
  std::string error;
  ASSERT_TRUE(mlir::succeeded(fresh->updateFromJSON(json, error))) << error;
  EXPECT_FALSE(fresh->find("pool0", "StemConvBNReLUMaxPool")->apply);
  EXPECT_FALSE(fresh->find("relu0", "ConvBNReLU")->apply);
}

TEST_F(PlanTest, JSONNamingAnUnknownMatchIsRefusedWhole) {
  auto plan = getTransformationPlan(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(plan));
  std::string error;
  llvm::json::Value json = llvm::json::Object{
      {"matches",
       llvm::json::Object{
           {"pool0",
            llvm::json::Object{{"StemConvBNReLUMaxPool",
                                llvm::json::Object{{"apply", false}}}}},
           {"nosuch", llvm::json::Object{
                          {"ConvBN", llvm::json::Object{{"apply", false}}}}}}}};
  EXPECT_TRUE(mlir::failed(plan->updateFromJSON(json, error)));
  EXPECT_EQ(error, "the model has no match of pattern 'ConvBN' at node "
                   "'nosuch' (a plan applies to the model, input shapes and "
                   "backend it was made for)");
  // Nothing changed: the valid entry was not taken either.
  EXPECT_TRUE(plan->find("pool0", "StemConvBNReLUMaxPool")->apply);
  llvm::json::Value noApply = llvm::json::Object{
      {"matches", llvm::json::Object{
                      {"pool0", llvm::json::Object{{"StemConvBNReLUMaxPool",
                                                    llvm::json::Object{}}}}}}};
  EXPECT_TRUE(mlir::failed(plan->updateFromJSON(noApply, error)));
  EXPECT_THAT(error, HasSubstr("needs a boolean 'apply'"));
}

TEST_F(PlanTest, ReportJSONHasOneRecordPerPattern) {
  auto result = transform(*module, patterns);
  ASSERT_TRUE(mlir::succeeded(result));
  llvm::json::Value json = result->report.toJSON();
  const llvm::json::Array *records = json.getAsObject()->getArray("patterns");
  ASSERT_NE(records, nullptr);
  EXPECT_EQ(records->size(), patterns.size());
  const llvm::json::Object *stem = nullptr;
  for (const llvm::json::Value &record : *records)
    if (record.getAsObject()->getString("name") == "StemConvBNReLUMaxPool")
      stem = record.getAsObject();
  ASSERT_NE(stem, nullptr);
  EXPECT_EQ(stem->getInteger("applied"), 1);
  EXPECT_EQ(stem->getInteger("skipped"), 0);
  EXPECT_EQ(stem->getString("phase"), "fusion");
}

} // namespace
