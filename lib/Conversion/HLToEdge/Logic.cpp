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

/// hl.where -> edge.select on rank-aligned operands.
struct WhereLowering : public OpConversionPattern<hl::WhereOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getRankedType(op.getOutput());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    int64_t rank = resultType.getRank();
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<edge::SelectOp>(
        op, alignRank(rewriter, loc, adaptor.getCondition(), rank),
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
    if (!isComparable(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs an f32/f64 input");
    Value x = adaptor.getInput();
    Value equal = rewriter.create<edge::EqualOp>(op.getLoc(), x, x);
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
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
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
    rewriter.replaceOpWithNewOp<edge::EqualOp>(op, x, bound);
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
    if (!(type.getElementType().isF32() || type.getElementType().isF64()))
      return rewriter.notifyMatchFailure(op, "needs an f32/f64 input");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    Value x = adaptor.getInput();
    Value alpha = splatConstant(rewriter, loc, element, type.getRank(),
                                op.getAlpha().convertToFloat());
    Value zero = splatConstant(rewriter, loc, element, type.getRank(), 0.0);
    Value above = rewriter.create<edge::LessOp>(loc, alpha, x);
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, above, x, zero);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateLogicPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<
      BinaryLowering<hl::EqualOp, edge::EqualOp, isComparable>,
      BinaryLowering<hl::LessOp, edge::LessOp, isComparable>,
      BinaryLowering<hl::LessOrEqualOp, edge::LessEqualOp, isComparable>,
      BinaryLowering<hl::GreaterOp, edge::LessOp, isComparable, true>,
      BinaryLowering<hl::GreaterOrEqualOp, edge::LessEqualOp, isComparable,
                     true>,
      BinaryLowering<hl::AndOp, edge::LogicalAndOp, isComparable>,
      BinaryLowering<hl::OrOp, edge::LogicalOrOp, isComparable>,
      BinaryLowering<hl::XorOp, edge::LogicalXorOp, isComparable>,
      UnaryLowering<hl::NotOp, edge::LogicalNotOp>,
      BinaryLowering<hl::BitwiseAndOp, edge::BitwiseAndOp,
                     isBitwiseElementType>,
      BinaryLowering<hl::BitwiseOrOp, edge::BitwiseOrOp, isBitwiseElementType>,
      BinaryLowering<hl::BitwiseXorOp, edge::BitwiseXorOp,
                     isBitwiseElementType>,
      UnaryLowering<hl::BitwiseNotOp, edge::BitwiseNotOp, isBitwiseElementType>,
      WhereLowering, IsNaNLowering, IsInfLowering, ThresholdedReluLowering>(
      converter, patterns.getContext());
}
