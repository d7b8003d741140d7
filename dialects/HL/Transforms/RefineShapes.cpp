//===- RefineShapes.cpp - make hl result types static by folding ----------===//
//
// Greedy folding plus a refinement pattern that gives an op the static result
// type its operands imply (ShapeRules.cpp), run to a fixpoint; then the
// function's result types follow the returned values where the declared
// types leave room. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "HL/Transforms/Passes.h"
#include "HL/Transforms/ShapeRules.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::hl {
#define GEN_PASS_DEF_REFINESHAPES
#include "HL/Transforms/Passes.h.inc"
} // namespace strata::hl

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

/// Gives an hl op whose first result is not statically shaped the static
/// type its operands imply. Records (and reports) an inferred shape that
/// contradicts a static extent the result already has.
struct RefineResultType : public RewritePattern {
  RefineResultType(MLIRContext *context, bool &conflict,
                   llvm::Statistic &numRefined)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        conflict(conflict), numRefined(numRefined) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<HLDialect>(op->getDialect()) ||
        op->getNumResults() == 0)
      return rewriter.notifyMatchFailure(op, "not an hl op with a result");
    Value result = op->getResult(0);
    auto type = dyn_cast<TensorType>(result.getType());
    if (!type || type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result is already static");
    std::optional<SmallVector<int64_t>> shape = inferStaticResultShape(op);
    if (!shape)
      return rewriter.notifyMatchFailure(op, "operands imply no shape yet");
    if (type.hasRank() && !isCompatibleShape(type.getShape(), *shape)) {
      if (!conflict)
        op->emitOpError("operands imply the result shape ")
            << formatShape(*shape) << ", which contradicts its type "
            << result.getType();
      conflict = true;
      return failure();
    }
    rewriter.modifyOpInPlace(op, [&] {
      result.setType(RankedTensorType::get(*shape, type.getElementType()));
    });
    ++numRefined;
    return success();
  }

  bool &conflict;
  llvm::Statistic &numRefined;
};

/// Sets `func`'s result types to the returned values' types where those are
/// refinements of the declared ones. A declared static type stays.
LogicalResult updateResultTypes(func::FuncOp func) {
  if (func.isExternal())
    return success();
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
  if (!ret)
    return success();
  SmallVector<Type> results(func.getResultTypes());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Type actual = value.getType();
    if (actual == results[i])
      continue;
    auto declared = dyn_cast<TensorType>(results[i]);
    auto refined = dyn_cast<RankedTensorType>(actual);
    if (!declared || !refined || declared.hasStaticShape() ||
        (declared.hasRank() &&
         !isCompatibleShape(refined.getShape(), declared.getShape())))
      return ret.emitOpError("result ")
             << i << " has type " << actual
             << ", which contradicts the declared result type " << results[i];
    results[i] = refined;
  }
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 results));
  return success();
}

struct RefineShapesPass
    : public strata::hl::impl::RefineShapesBase<RefineShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool conflict = false;
    RewritePatternSet patterns(&getContext());
    patterns.add<RefineResultType>(&getContext(), conflict, numRefined);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    // Refinement only turns dynamic extents static and folding only shrinks
    // the IR, so the driver reaches a fixpoint; no iteration bound needed.
    config.maxIterations = GreedyRewriteConfig::kNoLimit;
    if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns),
                                            config)) ||
        conflict || failed(updateResultTypes(func)))
      return signalPassFailure();
  }
};

} // namespace
