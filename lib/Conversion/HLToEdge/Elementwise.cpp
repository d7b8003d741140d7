//===- Elementwise.cpp - hl elementwise ops to edge -----------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include <limits>

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

/// hl.identity forwards its operand.
struct IdentityLowering : public OpConversionPattern<hl::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::IdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// hl.clip with constant (or absent) bounds -> edge.clip.
struct ClipLowering : public OpConversionPattern<hl::ClipOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a static f32 input");
    double lo = -std::numeric_limits<float>::infinity();
    double hi = std::numeric_limits<float>::infinity();
    if (Value min = adaptor.getMin()) {
      std::optional<double> value = getConstantScalar(min);
      if (!value)
        return rewriter.notifyMatchFailure(op, "min must be a constant");
      lo = *value;
    }
    if (Value max = adaptor.getMax()) {
      std::optional<double> value = getConstantScalar(max);
      if (!value)
        return rewriter.notifyMatchFailure(op, "max must be a constant");
      hi = *value;
    }
    rewriter.replaceOpWithNewOp<edge::ClipOp>(
        op, adaptor.getInput(), rewriter.getF32FloatAttr(lo),
        rewriter.getF32FloatAttr(hi));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateElementwisePatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BinaryLowering<hl::AddOp, edge::AddOp>,
               BinaryLowering<hl::SubOp, edge::SubOp>,
               BinaryLowering<hl::MulOp, edge::MulOp>,
               BinaryLowering<hl::DivOp, edge::DivOp>,
               BinaryLowering<hl::PowOp, edge::PowOp>,
               UnaryLowering<hl::ReluOp, edge::ReluOp>,
               UnaryLowering<hl::SigmoidOp, edge::SigmoidOp>,
               UnaryLowering<hl::TanhOp, edge::TanhOp>,
               UnaryLowering<hl::ExpOp, edge::ExpOp>,
               UnaryLowering<hl::SqrtOp, edge::SqrtOp>,
               UnaryLowering<hl::NegOp, edge::NegOp>,
               UnaryLowering<hl::AbsOp, edge::AbsOp>, IdentityLowering,
               ClipLowering>(converter, patterns.getContext());
}
