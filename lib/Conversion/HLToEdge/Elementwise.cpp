//===- Elementwise.cpp - hl elementwise ops to edge -----------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// A binary hl op with NumPy broadcasting -> the edge op on operands
/// reshaped to the result's rank.
template <typename HLOp, typename EdgeOp>
struct BinaryLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType || !getStaticType(adaptor.getLhs()) ||
        !getStaticType(adaptor.getRhs()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = resultType.getRank();
    Value lhs = alignRank(rewriter, op.getLoc(), adaptor.getLhs(), rank);
    Value rhs = alignRank(rewriter, op.getLoc(), adaptor.getRhs(), rank);
    rewriter.replaceOpWithNewOp<EdgeOp>(op, resultType, lhs, rhs);
    return success();
  }
};

/// A unary hl op -> the edge op of the same meaning.
template <typename HLOp, typename EdgeOp>
struct UnaryLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getStaticType(adaptor.getInput()))
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateElementwisePatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BinaryLowering<hl::AddOp, edge::AddOp>,
               UnaryLowering<hl::ReluOp, edge::ReluOp>>(converter,
                                                        patterns.getContext());
}
