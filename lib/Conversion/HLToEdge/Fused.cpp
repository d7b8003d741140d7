//===- Fused.cpp - hl.fused groups lowered by inlining their body ---------===//
//
// A fusion pattern wraps the ops it claims in an `hl.fused` region; the body
// is the original ops, so lowering a group with no dedicated edge form is
// inlining it: the body's ops are cloned in place of the group, with the
// group's operands for the body's arguments, and the conversion then
// legalizes the clones like any other hl op. A backend that has a fused
// kernel for a kind claims the group before this pattern sees it (its
// partitioner, or a pattern of higher benefit keyed on `kind`).
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct FusedInlining : public OpConversionPattern<hl::FusedOp> {
  FusedInlining(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/0) {
    // A body may hold further groups; each level is a smaller region.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(hl::FusedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    IRMapping mapping;
    Block &body = op.getBody().front();
    mapping.map(body.getArguments(), op.getInputs());
    for (Operation &inner : body.without_terminator())
      rewriter.clone(inner, mapping);
    rewriter.replaceOp(
        op, llvm::map_to_vector(op.getYield().getValues(), [&](Value v) {
          return mapping.lookupOrDefault(v);
        }));
    return success();
  }
};

} // namespace

void hl_to_edge::populateFusedPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<FusedInlining>(converter, patterns.getContext());
}
