//===- Logic.cpp - hl comparisons, logic, where and tests to edge ---------===//
//
// Comparisons map onto edge.equal/less/less_equal (greater and
// greater_or_equal swap their operands); And/Or/Xor/Not onto the logical
// ops, BitwiseAnd/Or/Xor/Not onto the bitwise ones; Where onto
// edge.select. Decompositions:
//   is_nan(x)           = not(x == x)
//   is_inf(x)           = |x| == inf, x == inf or x == -inf (f32)
//   thresholded_relu(x) = select(alpha < x, x, 0)
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// Element types the comparison kernels read (every runtime type but f16).
bool isComparable(Type type) {
  return isRuntimeElementType(type) && !type.isF16();
}

/// Integer element types of the bitwise kernels (8 to 64 bits).
bool isBitwiseElementType(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && !integer.isSigned() && integer.getWidth() >= 8 &&
         integer.getWidth() <= 64 && isRuntimeElementType(type);
}

/// A binary hl op -> `EdgeOp` on rank-aligned operands, swapped with
/// `Swap`, for operands of an element type `Accepts`.
template <typename HLOp, typename EdgeOp, bool Swap = false,
          bool (*Accepts)(Type) = isComparable>
struct CompareLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    RankedTensorType lhsType = getStaticType(adaptor.getLhs());
    if (!resultType || !lhsType || !getStaticType(adaptor.getRhs()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (!Accepts(lhsType.getElementType()))
      return rewriter.notifyMatchFailure(op, "no kernel for this type");
    int64_t rank = resultType.getRank();
    Value lhs = alignRank(rewriter, op.getLoc(), adaptor.getLhs(), rank);
    Value rhs = alignRank(rewriter, op.getLoc(), adaptor.getRhs(), rank);
    if (Swap)
      std::swap(lhs, rhs);
    rewriter.replaceOpWithNewOp<EdgeOp>(op, resultType, lhs, rhs);
    return success();
  }
};

/// hl.not -> edge.logical_not.
struct NotLowering : public OpConversionPattern<hl::NotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::NotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getStaticType(adaptor.getInput()))
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    rewriter.replaceOpWithNewOp<edge::LogicalNotOp>(op, adaptor.getInput());
    return success();
  }
};

/// hl.bitwise_not -> edge.bitwise_not.
struct BitwiseNotLowering : public OpConversionPattern<hl::BitwiseNotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::BitwiseNotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    if (!isBitwiseElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "no kernel for this type");
    rewriter.replaceOpWithNewOp<edge::BitwiseNotOp>(op, adaptor.getInput());
    return success();
  }
};

/// hl.where -> edge.select on rank-aligned operands.
struct WhereLowering : public OpConversionPattern<hl::WhereOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType || !getStaticType(adaptor.getCondition()) ||
        !getStaticType(adaptor.getX()) || !getStaticType(adaptor.getY()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = resultType.getRank();
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<edge::SelectOp>(
        op, resultType, alignRank(rewriter, loc, adaptor.getCondition(), rank),
        alignRank(rewriter, loc, adaptor.getX(), rank),
        alignRank(rewriter, loc, adaptor.getY(), rank));
    return success();
  }
};

/// hl.is_nan -> not(x == x).
struct IsNaNLowering : public OpConversionPattern<hl::IsNaNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::IsNaNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!type || !resultType || !isComparable(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a static f32/f64 input");
    Value x = adaptor.getInput();
    Value equal = rewriter.create<edge::EqualOp>(op.getLoc(), resultType, x, x);
    rewriter.replaceOpWithNewOp<edge::LogicalNotOp>(op, equal);
    return success();
  }
};

/// hl.is_inf -> comparisons against infinity (f32).
struct IsInfLowering : public OpConversionPattern<hl::IsInfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::IsInfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!type || !resultType || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a static f32 input");
    bool negative = op.getDetectNegative() != 0;
    bool positive = op.getDetectPositive() != 0;
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    double inf = std::numeric_limits<double>::infinity();
    if (!negative && !positive) {
      rewriter.replaceOpWithNewOp<edge::ConstantOp>(
          op, DenseElementsAttr::get(resultType, false));
      return success();
    }
    if (negative && positive)
      x = rewriter.create<edge::AbsOp>(loc, x);
    Value bound = splatConstant(rewriter, loc, type.getElementType(),
                                type.getRank(), positive ? inf : -inf);
    rewriter.replaceOpWithNewOp<edge::EqualOp>(op, resultType, x, bound);
    return success();
  }
};

/// hl.thresholded_relu -> select(alpha < x, x, 0).
struct ThresholdedReluLowering
    : public OpConversionPattern<hl::ThresholdedReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ThresholdedReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type ||
        !(type.getElementType().isF32() || type.getElementType().isF64()))
      return rewriter.notifyMatchFailure(op, "needs a static f32/f64 input");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    Value x = adaptor.getInput();
    Value alpha = splatConstant(rewriter, loc, element, type.getRank(),
                                op.getAlpha().convertToFloat());
    Value zero = splatConstant(rewriter, loc, element, type.getRank(), 0.0);
    Value above = rewriter.create<edge::LessOp>(
        loc, RankedTensorType::get(type.getShape(), rewriter.getI1Type()),
        alpha, x);
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, type, above, x, zero);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateLogicPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<CompareLowering<hl::EqualOp, edge::EqualOp>,
               CompareLowering<hl::LessOp, edge::LessOp>,
               CompareLowering<hl::LessOrEqualOp, edge::LessEqualOp>,
               CompareLowering<hl::GreaterOp, edge::LessOp, true>,
               CompareLowering<hl::GreaterOrEqualOp, edge::LessEqualOp, true>,
               CompareLowering<hl::AndOp, edge::LogicalAndOp>,
               CompareLowering<hl::OrOp, edge::LogicalOrOp>,
               CompareLowering<hl::XorOp, edge::LogicalXorOp>, NotLowering,
               CompareLowering<hl::BitwiseAndOp, edge::BitwiseAndOp, false,
                               isBitwiseElementType>,
               CompareLowering<hl::BitwiseOrOp, edge::BitwiseOrOp, false,
                               isBitwiseElementType>,
               CompareLowering<hl::BitwiseXorOp, edge::BitwiseXorOp, false,
                               isBitwiseElementType>,
               BitwiseNotLowering,
               WhereLowering, IsNaNLowering, IsInfLowering,
               ThresholdedReluLowering>(converter, patterns.getContext());
}
