//===- Elementwise.cpp - hl elementwise ops to edge -----------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

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

/// hl.clip: f32 with constant (or absent) bounds -> edge.clip; otherwise
/// (integer types, bounds computed at run time) minimum(maximum(x, lo), hi)
/// with the bounds reshaped to the input's rank.
struct ClipLowering : public OpConversionPattern<hl::ClipOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getInput());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    Value min = adaptor.getMin(), max = adaptor.getMax();
    std::optional<double> lo = min ? getConstantScalar(min) : std::nullopt;
    std::optional<double> hi = max ? getConstantScalar(max) : std::nullopt;
    if (type.getElementType().isF32() && (!min || lo) && (!max || hi)) {
      rewriter.replaceOpWithNewOp<edge::ClipOp>(
          op, adaptor.getInput(),
          rewriter.getF32FloatAttr(
              lo.value_or(-std::numeric_limits<float>::infinity())),
          rewriter.getF32FloatAttr(
              hi.value_or(std::numeric_limits<float>::infinity())));
      return success();
    }
    Type element = type.getElementType();
    bool numeric = isRuntimeElementType(element) && !element.isF16() &&
                   !element.isInteger(1);
    if (!numeric)
      return rewriter.notifyMatchFailure(op, "no kernel for this type");
    for (Value bound : {min, max})
      if (bound &&
          (!getStaticType(bound) || getStaticType(bound).getNumElements() != 1))
        return rewriter.notifyMatchFailure(op, "bounds must be scalars");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    Value result = adaptor.getInput();
    if (min)
      result = rewriter.create<edge::MaximumOp>(
          loc, result,
          reshapeTo(rewriter, loc, min, SmallVector<int64_t>(rank, 1)));
    if (max)
      result = rewriter.create<edge::MinimumOp>(
          loc, result,
          reshapeTo(rewriter, loc, max, SmallVector<int64_t>(rank, 1)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Whether edge's float ops take `type` (Edge_FloatTensor).
bool isEdgeFloat(Type type) { return isa<FloatType>(type); }

/// hl.abs and hl.neg of integers (T5's relative-position buckets take the
/// absolute value of position differences): 0 - x, and select(x < 0, 0 - x,
/// x), in the ops the integer kernels run; the absolute value of an
/// unsigned integer is itself.
template <typename HLOp, bool isAbs>
struct IntegerSignLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    auto element =
        type ? dyn_cast<IntegerType>(type.getElementType()) : IntegerType();
    if (!element || element.getWidth() == 1)
      return rewriter.notifyMatchFailure(op, "needs an integer input");
    Value x = adaptor.getInput();
    if (isAbs && element.isUnsigned()) {
      rewriter.replaceOp(op, x);
      return success();
    }
    Location loc = op.getLoc();
    auto unitType =
        RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1), element);
    Value zero = rewriter.create<edge::ConstantOp>(
        loc,
        DenseElementsAttr::get(unitType, rewriter.getIntegerAttr(element, 0)));
    Value negated = rewriter.create<edge::SubOp>(loc, type, zero, x);
    if (!isAbs) {
      rewriter.replaceOp(op, negated);
      return success();
    }
    Value negative = rewriter.create<edge::LessOp>(loc, x, zero);
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, type, negative, negated, x);
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
               UnaryLowering<hl::ReluOp, edge::ReluOp>,
               UnaryLowering<hl::SigmoidOp, edge::SigmoidOp>,
               UnaryLowering<hl::TanhOp, edge::TanhOp>,
               UnaryLowering<hl::ExpOp, edge::ExpOp>,
               UnaryLowering<hl::SqrtOp, edge::SqrtOp>,
               UnaryLowering<hl::NegOp, edge::NegOp, isEdgeFloat>,
               UnaryLowering<hl::AbsOp, edge::AbsOp, isEdgeFloat>,
               IntegerSignLowering<hl::NegOp, /*isAbs=*/false>,
               IntegerSignLowering<hl::AbsOp, /*isAbs=*/true>, IdentityLowering,
               ClipLowering>(converter, patterns.getContext());
}
