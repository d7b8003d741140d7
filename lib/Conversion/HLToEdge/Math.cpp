//===- Math.cpp - hl math, min/max, cast and activations to edge ----------===//
//
// Unary math maps one to one onto edge ops with f32/f64 kernels. Activations
// with a closed form over existing edge ops decompose (f32 only, the type of
// the edge arithmetic kernels):
//   leaky_relu(x) = max(x, 0) + alpha * min(x, 0)
//   elu(x)        = max(x, 0) + alpha * (exp(min(x, 0)) - 1)
//   selu(x)       = gamma * elu_alpha(x)
//   celu(x)       = max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))
//   hard_sigmoid  = clip(alpha * x + beta, 0, 1); hard_swish = x * that
//   softplus      = log(exp(x) + 1); softsign = x / (1 + |x|)
//   reciprocal    = 1 / x
//   shrink        = x < -l ? x + bias : (x > l ? x - bias : 0) (selects)
//   prelu         = max(x, 0) + min(x, 0) * slope
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// Element types of the float math kernels.
bool isF32OrF64(Type type) { return type.isF32() || type.isF64(); }

/// Element types of the min/max and mod kernels (every runtime type but
/// bool).
bool isNumeric(Type type) {
  return isRuntimeElementType(type) && !type.isInteger(1);
}

/// hl.mod -> edge.mod on rank-aligned operands.
struct ModLowering : public OpConversionPattern<hl::ModOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ModOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool fmod = op.getFmod() != 0;
    if (!fmod && isa<FloatType>(getElementTypeOrSelf(op.getOutput())))
      return rewriter.notifyMatchFailure(op, "float mod needs fmod");
    FailureOr<AlignedOperands> aligned =
        alignBinaryOperands(op, op.getOutput(), adaptor.getLhs(),
                            adaptor.getRhs(), isNumeric, rewriter);
    if (failed(aligned))
      return failure();
    rewriter.replaceOpWithNewOp<edge::ModOp>(op, aligned->lhs, aligned->rhs,
                                             fmod);
    return success();
  }
};

/// hl.bit_shift -> edge.bit_shift on rank-aligned unsigned operands.
struct BitShiftLowering : public OpConversionPattern<hl::BitShiftOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::BitShiftOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType.getElementType().isUnsignedInteger() ||
        resultType.getElementType().isUnsignedInteger(1))
      return rewriter.notifyMatchFailure(op, "shifts unsigned integers only");
    int64_t rank = resultType.getRank();
    Value lhs = alignRank(rewriter, op.getLoc(), adaptor.getLhs(), rank);
    Value rhs = alignRank(rewriter, op.getLoc(), adaptor.getRhs(), rank);
    // hl keeps ONNX's LEFT/RIGHT; edge spells them in lower case.
    rewriter.replaceOpWithNewOp<edge::BitShiftOp>(op, lhs, rhs,
                                                  op.getDirection().lower());
    return success();
  }
};

/// hl.pow -> edge.pow. A float base casts the exponent to its type; an
/// integer base with a float exponent computes in f64 and casts back.
struct PowLowering : public OpConversionPattern<hl::PowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::PowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getRankedType(op.getOutput());
    RankedTensorType lhsType = getRankedType(adaptor.getLhs());
    RankedTensorType rhsType = getRankedType(adaptor.getRhs());
    if (!resultType || !lhsType || !rhsType)
      return rewriter.notifyMatchFailure(op, "needs ranked operands");
    for (Type element : {lhsType.getElementType(), rhsType.getElementType()})
      if (!isRuntimeElementType(element) || element.isInteger(1))
        return rewriter.notifyMatchFailure(op, "no kernel for this type");
    Location loc = op.getLoc();
    int64_t rank = resultType.getRank();
    Value lhs = alignRank(rewriter, loc, adaptor.getLhs(), rank);
    Value rhs = alignRank(rewriter, loc, adaptor.getRhs(), rank);
    auto castTo = [&](Value value, Type element) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getElementType() == element)
        return value;
      return rewriter.create<edge::CastOp>(
          loc, RankedTensorType::get(type.getShape(), element), value);
    };
    Type base = lhsType.getElementType();
    if (isa<FloatType>(base) || !isa<FloatType>(rhsType.getElementType())) {
      rewriter.replaceOpWithNewOp<edge::PowOp>(op, lhs, castTo(rhs, base));
      return success();
    }
    Type f64 = rewriter.getF64Type();
    Value power =
        rewriter.create<edge::PowOp>(loc, castTo(lhs, f64), castTo(rhs, f64));
    rewriter.replaceOp(op, castTo(power, base));
    return success();
  }
};

/// hl.cast -> edge.cast between runtime element types.
struct CastLowering : public OpConversionPattern<hl::CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inType = getRankedType(adaptor.getInput());
    RankedTensorType outType = getRankedType(op.getOutput());
    if (!inType || !outType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    auto isCastable = [](Type element) {
      return isRuntimeElementType(element) || element.isBF16();
    };
    if (!isCastable(inType.getElementType()) ||
        !isCastable(outType.getElementType()))
      return rewriter.notifyMatchFailure(op, "no kernel for these types");
    if (inType == outType) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<edge::CastOp>(op, outType, adaptor.getInput());
    return success();
  }
};

/// Builds edge arithmetic on f32 tensors of one type, with scalars
/// broadcast as [1, ..., 1] constants.
class Arith {
public:
  Arith(OpBuilder &builder, Location loc, RankedTensorType type)
      : builder(builder), loc(loc), type(type) {}

  Value scalar(double value) {
    return splatConstant(builder, loc, type.getElementType(), type.getRank(),
                         value);
  }
  Value add(Value a, Value b) { return builder.create<edge::AddOp>(loc, a, b); }
  Value sub(Value a, Value b) { return builder.create<edge::SubOp>(loc, a, b); }
  Value mul(Value a, Value b) { return builder.create<edge::MulOp>(loc, a, b); }
  Value div(Value a, Value b) { return builder.create<edge::DivOp>(loc, a, b); }
  Value max(Value a, Value b) {
    return builder.create<edge::MaximumOp>(loc, a, b);
  }
  Value min(Value a, Value b) {
    return builder.create<edge::MinimumOp>(loc, a, b);
  }
  /// a < b as i1.
  Value less(Value a, Value b) {
    return builder.create<edge::LessOp>(loc, a, b);
  }
  Value select(Value c, Value a, Value b) {
    return builder.create<edge::SelectOp>(loc, c, a, b);
  }
  Value exp(Value a) { return builder.create<edge::ExpOp>(loc, a); }
  Value log(Value a) { return builder.create<edge::LogOp>(loc, a); }
  Value abs(Value a) { return builder.create<edge::AbsOp>(loc, a); }
  Value clip(Value a, float lo, float hi) {
    return builder.create<edge::ClipOp>(loc, a, builder.getF32FloatAttr(lo),
                                        builder.getF32FloatAttr(hi));
  }
  /// alpha * (exp(min(x, 0)) - 1): the negative branch of elu.
  Value eluNegative(Value x, double alpha) {
    Value expm1 = sub(exp(min(x, scalar(0.0))), scalar(1.0));
    return mul(scalar(alpha), expm1);
  }

private:
  OpBuilder &builder;
  Location loc;
  RankedTensorType type;
};

/// Decomposes a unary f32 activation with `build(arith, x, op)`.
template <typename HLOp, typename Build>
LogicalResult decompose(HLOp op, Value input,
                        ConversionPatternRewriter &rewriter, Build build) {
  RankedTensorType type = getRankedType(input);
  if (!type || !type.getElementType().isF32())
    return rewriter.notifyMatchFailure(op, "needs an f32 input");
  Arith arith(rewriter, op.getLoc(), type);
  rewriter.replaceOp(op, build(arith, input));
  return success();
}

#define STRATA_ACTIVATION(NAME, HLOP, BODY)                                    \
  struct NAME : public OpConversionPattern<HLOP> {                             \
    using OpConversionPattern::OpConversionPattern;                            \
    LogicalResult                                                              \
    matchAndRewrite(HLOP op, OpAdaptor adaptor,                                \
                    ConversionPatternRewriter &rewriter) const override {      \
      return decompose(op, adaptor.getInput(), rewriter,                       \
                       [&](Arith &a, Value x) -> Value { BODY });              \
    }                                                                          \
  };

STRATA_ACTIVATION(LeakyReluLowering, hl::LeakyReluOp, {
  double alpha = op.getAlpha().convertToFloat();
  return a.add(a.max(x, a.scalar(0.0)),
               a.mul(a.scalar(alpha), a.min(x, a.scalar(0.0))));
})
STRATA_ACTIVATION(EluLowering, hl::EluOp, {
  return a.add(a.max(x, a.scalar(0.0)),
               a.eluNegative(x, op.getAlpha().convertToFloat()));
})
STRATA_ACTIVATION(SeluLowering, hl::SeluOp, {
  Value elu = a.add(a.max(x, a.scalar(0.0)),
                    a.eluNegative(x, op.getAlpha().convertToFloat()));
  return a.mul(a.scalar(op.getGamma().convertToFloat()), elu);
})
STRATA_ACTIVATION(CeluLowering, hl::CeluOp, {
  double alpha = op.getAlpha().convertToFloat();
  Value scaled = a.div(x, a.scalar(alpha));
  Value negative = a.mul(a.scalar(alpha), a.sub(a.exp(scaled), a.scalar(1.0)));
  return a.add(a.max(x, a.scalar(0.0)), a.min(negative, a.scalar(0.0)));
})
STRATA_ACTIVATION(HardSigmoidLowering, hl::HardSigmoidOp, {
  Value linear = a.add(a.mul(a.scalar(op.getAlpha().convertToFloat()), x),
                       a.scalar(op.getBeta().convertToFloat()));
  return a.clip(linear, 0.0f, 1.0f);
})
STRATA_ACTIVATION(HardSwishLowering, hl::HardSwishOp, {
  Value linear = a.add(a.mul(a.scalar(1.0 / 6.0), x), a.scalar(0.5));
  return a.mul(x, a.clip(linear, 0.0f, 1.0f));
})
STRATA_ACTIVATION(SoftplusLowering, hl::SoftplusOp,
                  { return a.log(a.add(a.exp(x), a.scalar(1.0))); })
STRATA_ACTIVATION(SoftsignLowering, hl::SoftsignOp,
                  { return a.div(x, a.add(a.scalar(1.0), a.abs(x))); })
STRATA_ACTIVATION(ReciprocalLowering, hl::ReciprocalOp,
                  { return a.div(a.scalar(1.0), x); })

STRATA_ACTIVATION(ShrinkLowering, hl::ShrinkOp, {
  double lambd = op.getLambd().convertToFloat();
  double bias = op.getBias().convertToFloat();
  Value inner = a.select(a.less(a.scalar(lambd), x), a.sub(x, a.scalar(bias)),
                         a.scalar(0.0));
  return a.select(a.less(x, a.scalar(-lambd)), a.add(x, a.scalar(bias)), inner);
})

#undef STRATA_ACTIVATION

/// hl.prelu -> max(x, 0) + min(x, 0) * slope, the slope broadcast to x:
/// the same values as select(x < 0, x * slope, x) (one of the two terms is
/// a zero), in binary ops that the delegates run (LeakyRelu's form).
struct PReluLowering : public OpConversionPattern<hl::PReluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::PReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getInput());
    RankedTensorType resultType = getRankedType(op.getOutput());
    if (!type || type != resultType || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs f32 operands");
    Arith a(rewriter, op.getLoc(), type);
    Value x = adaptor.getInput();
    Value slope =
        alignRank(rewriter, op.getLoc(), adaptor.getSlope(), type.getRank());
    rewriter.replaceOp(op, a.add(a.max(x, a.scalar(0.0)),
                                 a.mul(a.min(x, a.scalar(0.0)), slope)));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateMathPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns
      .add<UnaryLowering<hl::LogOp, edge::LogOp, isF32OrF64>,
           UnaryLowering<hl::SinOp, edge::SinOp, isF32OrF64>,
           UnaryLowering<hl::CosOp, edge::CosOp, isF32OrF64>,
           UnaryLowering<hl::TanOp, edge::TanOp, isF32OrF64>,
           UnaryLowering<hl::AsinOp, edge::AsinOp, isF32OrF64>,
           UnaryLowering<hl::AcosOp, edge::AcosOp, isF32OrF64>,
           UnaryLowering<hl::AtanOp, edge::AtanOp, isF32OrF64>,
           UnaryLowering<hl::SinhOp, edge::SinhOp, isF32OrF64>,
           UnaryLowering<hl::CoshOp, edge::CoshOp, isF32OrF64>,
           UnaryLowering<hl::AsinhOp, edge::AsinhOp, isF32OrF64>,
           UnaryLowering<hl::AcoshOp, edge::AcoshOp, isF32OrF64>,
           UnaryLowering<hl::AtanhOp, edge::AtanhOp, isF32OrF64>,
           UnaryLowering<hl::FloorOp, edge::FloorOp, isF32OrF64>,
           UnaryLowering<hl::CeilOp, edge::CeilOp, isF32OrF64>,
           UnaryLowering<hl::RoundOp, edge::RoundOp, isF32OrF64>,
           UnaryLowering<hl::ErfOp, edge::ErfOp, isF32OrF64>,
           UnaryLowering<hl::SignOp, edge::SignOp, isF32OrF64>,
           BinaryLowering<hl::MaxOp, edge::MaximumOp, isNumeric>,
           BinaryLowering<hl::MinOp, edge::MinimumOp, isNumeric>, CastLowering,
           ModLowering, BitShiftLowering, PowLowering, LeakyReluLowering,
           EluLowering, SeluLowering, CeluLowering, HardSigmoidLowering,
           HardSwishLowering, SoftplusLowering, SoftsignLowering,
           ReciprocalLowering, ShrinkLowering, PReluLowering>(
          converter, patterns.getContext());
}
