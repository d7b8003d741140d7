//===- Linear.cpp - hl conv/gemm/matmul to edge ---------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// hl.conv (1-d or 2-d) -> edge.conv2d with explicit window attributes; a
/// 1-d convolution runs as a 2-d one of unit height.
struct ConvLowering : public OpConversionPattern<hl::ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType weightType = getStaticType(adaptor.getWeight());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !weightType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = inputType.getRank();
    if (rank != 3 && rank != 4)
      return rewriter.notifyMatchFailure(op, "only 1-d and 2-d convolutions");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), weightType.getShape().drop_front(2),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window window2D = liftWindowTo2D(*window);

    Location loc = op.getLoc();
    auto to4D = [&](Value value, RankedTensorType type) {
      if (type.getRank() == 4)
        return value;
      ArrayRef<int64_t> s = type.getShape();
      return reshapeTo(rewriter, loc, value, {s[0], s[1], 1, s[2]});
    };
    Value input = to4D(adaptor.getInput(), inputType);
    Value weight = to4D(adaptor.getWeight(), weightType);
    ArrayRef<int64_t> out = resultType.getShape();
    SmallVector<int64_t> out4D(out);
    if (rank == 3)
      out4D = {out[0], out[1], 1, out[2]};
    Value conv = rewriter.create<edge::Conv2DOp>(
        loc, RankedTensorType::get(out4D, resultType.getElementType()), input,
        weight, adaptor.getBias(), window2D.strides, window2D.dilations,
        window2D.pads, op.getGroup());
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, conv, out));
    return success();
  }
};

/// hl.gemm -> [transpose] + matmul [* alpha] [+ beta * C].
struct GemmLowering : public OpConversionPattern<hl::GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType || !getStaticType(adaptor.getA()) ||
        !getStaticType(adaptor.getB()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (!isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer gemm is not supported");
    Location loc = op.getLoc();
    auto transpose = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      return rewriter.create<edge::TransposeOp>(
          loc,
          RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                type.getElementType()),
          value, ArrayRef<int64_t>{1, 0});
    };
    Value a = op.getTransA() ? transpose(adaptor.getA()) : adaptor.getA();
    Value b = op.getTransB() ? transpose(adaptor.getB()) : adaptor.getB();
    Type elementType = resultType.getElementType();
    Value result = rewriter.create<edge::MatMulOp>(loc, resultType, a, b);
    auto scale = [&](Value value, float factor) -> Value {
      if (factor == 1.0f)
        return value;
      Value constant = splatConstant(
          rewriter, loc, elementType,
          cast<RankedTensorType>(value.getType()).getRank(), factor);
      return rewriter.create<edge::MulOp>(loc, value.getType(), value,
                                          constant);
    };
    result = scale(result, op.getAlpha().convertToFloat());
    if (Value c = adaptor.getC()) {
      if (!getStaticType(c))
        return rewriter.notifyMatchFailure(op, "needs a static C");
      if (op.getBeta().convertToFloat() != 0.0f) {
        Value bias = scale(alignRank(rewriter, loc, c, 2),
                           op.getBeta().convertToFloat());
        result = rewriter.create<edge::AddOp>(loc, resultType, result, bias);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// hl.matmul (NumPy semantics) -> edge.matmul on equal ranks >= 2; 1-d
/// operands are promoted and the promoted dimension reshaped away.
struct MatMulLowering : public OpConversionPattern<hl::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType lhsType = getStaticType(adaptor.getLhs());
    RankedTensorType rhsType = getStaticType(adaptor.getRhs());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!lhsType || !rhsType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (lhsType.getRank() == 1)
      lhs = reshapeTo(rewriter, loc, lhs, {1, lhsType.getDimSize(0)});
    if (rhsType.getRank() == 1)
      rhs = reshapeTo(rewriter, loc, rhs, {rhsType.getDimSize(0), 1});
    int64_t rank = std::max(cast<RankedTensorType>(lhs.getType()).getRank(),
                            cast<RankedTensorType>(rhs.getType()).getRank());
    lhs = alignRank(rewriter, loc, lhs, rank);
    rhs = alignRank(rewriter, loc, rhs, rank);
    ArrayRef<int64_t> l = cast<RankedTensorType>(lhs.getType()).getShape();
    ArrayRef<int64_t> r = cast<RankedTensorType>(rhs.getType()).getShape();
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i + 2 < rank; ++i)
      shape.push_back(std::max(l[i], r[i]));
    shape.append({l[rank - 2], r[rank - 1]});
    Value product = rewriter.create<edge::MatMulOp>(
        loc, RankedTensorType::get(shape, resultType.getElementType()), lhs,
        rhs);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, product, resultType.getShape()));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateLinearPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ConvLowering, GemmLowering, MatMulLowering>(
      converter, patterns.getContext());
}
