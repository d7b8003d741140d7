//===- IntegerLinear.cpp - integer and quantized conv/matmul to edge ------===//
//
// MatMulInteger / ConvInteger widen both operands to i32, subtract the zero
// points and run edge.matmul / edge.conv2d on i32, which accumulate exactly
// in int32 as ONNX specifies (an f32 path would be exact only while partial
// sums stay below 2^24). QLinearMatMul / QLinearConv are the QDQ reference
// composition: dequantize the operands, the f32 op, quantize the result;
// that is also the form backends pattern-match for int8 execution.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// `value` converted elementwise to `elementType`.
Value castTo(OpBuilder &builder, Location loc, Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  return builder.create<edge::CastOp>(
      loc, RankedTensorType::get(type.getShape(), elementType), value);
}

/// `value` widened to i32 minus `zeroPoint` (if any) reshaped to
/// `zeroPointShape` of value's rank; a one-element zero point broadcasts
/// over everything.
Value subtractZeroPoint(OpBuilder &builder, Location loc, Value value,
                        Value zeroPoint, ArrayRef<int64_t> zeroPointShape) {
  Type i32 = builder.getI32Type();
  Value wide = castTo(builder, loc, value, i32);
  if (!zeroPoint)
    return wide;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> shape(zeroPointShape);
  if (cast<RankedTensorType>(zeroPoint.getType()).getNumElements() == 1)
    shape.assign(rank, 1);
  Value zp =
      reshapeTo(builder, loc, castTo(builder, loc, zeroPoint, i32), shape);
  return builder.create<edge::SubOp>(loc, wide.getType(), wide, zp);
}

/// Shape of a per-`axis` parameter broadcast against a rank-`rank` tensor
/// with `extent` elements along `axis`.
SmallVector<int64_t> perAxisShape(int64_t rank, int64_t axis, int64_t extent) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = extent;
  return shape;
}

/// Whether every value has a static type and the given ones are 8-bit.
bool allStatic(ValueRange values) {
  return llvm::all_of(values, [](Value v) { return !v || getStaticType(v); });
}
bool is8Bit(Value value) {
  auto type = dyn_cast<IntegerType>(getElementTypeOrSelf(value.getType()));
  return type && type.getWidth() == 8 && !type.isSigned();
}

/// hl.matmul_integer -> (i32(a) - a_zp) x (i32(b) - b_zp) on edge.matmul.
/// a's zero point is per row ([M]), b's per column ([N]).
struct MatMulIntegerLowering : public OpConversionPattern<hl::MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value a = adaptor.getA(), b = adaptor.getB();
    if (!resultType || !allStatic(adaptor.getOperands()) || !is8Bit(a) ||
        !is8Bit(b))
      return rewriter.notifyMatchFailure(op, "needs static 8-bit operands");
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(a.getType());
    auto bType = cast<RankedTensorType>(b.getType());
    if (aType.getRank() < 2 || bType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs operands of rank >= 2");
    int64_t m = aType.getShape().end()[-2], n = bType.getShape().back();
    Value lhs = subtractZeroPoint(
        rewriter, loc, a, adaptor.getAZeroPoint(),
        perAxisShape(aType.getRank(), aType.getRank() - 2, m));
    Value rhs = subtractZeroPoint(
        rewriter, loc, b, adaptor.getBZeroPoint(),
        perAxisShape(bType.getRank(), bType.getRank() - 1, n));
    rewriter.replaceOp(op, buildMatMul(rewriter, loc, lhs, rhs, resultType));
    return success();
  }
};

/// hl.conv_integer -> (i32(x) - x_zp) conv (i32(w) - w_zp) on edge.conv2d;
/// w's zero point is per output channel ([M]).
struct ConvIntegerLowering : public OpConversionPattern<hl::ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    if (!resultType || !allStatic(adaptor.getOperands()) || !is8Bit(x) ||
        !is8Bit(w))
      return rewriter.notifyMatchFailure(op, "needs static 8-bit operands");
    Location loc = op.getLoc();
    auto wType = cast<RankedTensorType>(w.getType());
    Value input =
        subtractZeroPoint(rewriter, loc, x, adaptor.getXZeroPoint(), {});
    Value weight = subtractZeroPoint(
        rewriter, loc, w, adaptor.getWZeroPoint(),
        perAxisShape(wType.getRank(), 0, wType.getDimSize(0)));
    FailureOr<Value> conv =
        buildConv(rewriter, loc, input, weight, Value(), resultType,
                  {op.getStrides(), op.getDilations(), op.getPads(),
                   op.getAutoPad(), static_cast<int64_t>(op.getGroup())});
    if (failed(conv))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    rewriter.replaceOp(op, *conv);
    return success();
  }
};

/// edge.dequantize_linear of `value` with ONNX scale / zero point, 1-D
/// parameters along `axis`.
FailureOr<Value> dequantize(OpBuilder &builder, Location loc, Value value,
                            Value scale, Value zeroPoint, int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  FailureOr<AffineParams> params =
      resolveAffineParams(builder, loc, scale, zeroPoint, type.getElementType(),
                          axis, type.getRank());
  if (failed(params))
    return failure();
  return builder
      .create<edge::DequantizeLinearOp>(
          loc, RankedTensorType::get(type.getShape(), builder.getF32Type()),
          value, params->scale, params->zeroPoint, params->axis)
      .getResult();
}

/// edge.quantize_linear of f32 `value` to `resultType` (per tensor).
FailureOr<Value> quantize(OpBuilder &builder, Location loc, Value value,
                          Value scale, Value zeroPoint,
                          RankedTensorType resultType) {
  FailureOr<AffineParams> params =
      resolveAffineParams(builder, loc, scale, zeroPoint,
                          resultType.getElementType(), 0, resultType.getRank());
  if (failed(params) ||
      cast<RankedTensorType>(params->scale.getType()).getRank() != 0)
    return failure();
  return builder
      .create<edge::QuantizeLinearOp>(loc, resultType, value, params->scale,
                                      params->zeroPoint, params->axis)
      .getResult();
}

/// hl.qlinear_matmul -> quantize(dequantize(a) x dequantize(b)); a's
/// parameters may be per row, b's per column.
struct QLinearMatMulLowering : public OpConversionPattern<hl::QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::QLinearMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value a = adaptor.getA(), b = adaptor.getB();
    if (!resultType || !allStatic(adaptor.getOperands()) || !is8Bit(a) ||
        !is8Bit(b) || !is8Bit(op.getOutput()))
      return rewriter.notifyMatchFailure(op, "needs static 8-bit operands");
    Location loc = op.getLoc();
    int64_t aRank = cast<RankedTensorType>(a.getType()).getRank();
    int64_t bRank = cast<RankedTensorType>(b.getType()).getRank();
    if (aRank < 2 || bRank < 2)
      return rewriter.notifyMatchFailure(op, "needs operands of rank >= 2");
    FailureOr<Value> lhs = dequantize(rewriter, loc, a, adaptor.getAScale(),
                                      adaptor.getAZeroPoint(), aRank - 2);
    FailureOr<Value> rhs = dequantize(rewriter, loc, b, adaptor.getBScale(),
                                      adaptor.getBZeroPoint(), bRank - 1);
    if (failed(lhs) || failed(rhs))
      return rewriter.notifyMatchFailure(op, "unsupported scale/zero point");
    Value product = buildMatMul(
        rewriter, loc, *lhs, *rhs,
        RankedTensorType::get(resultType.getShape(), rewriter.getF32Type()));
    FailureOr<Value> y = quantize(rewriter, loc, product, adaptor.getYScale(),
                                  adaptor.getYZeroPoint(), resultType);
    if (failed(y))
      return rewriter.notifyMatchFailure(op, "needs a per-tensor y scale");
    rewriter.replaceOp(op, *y);
    return success();
  }
};

/// hl.qlinear_conv -> quantize(conv(dequantize(x), dequantize(w), bias'))
/// with the i32 bias dequantized by x_scale * w_scale (zero point 0), as
/// ONNX defines it.
struct QLinearConvLowering : public OpConversionPattern<hl::QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    if (!resultType || !allStatic(adaptor.getOperands()) || !is8Bit(x) ||
        !is8Bit(w) || !is8Bit(op.getOutput()))
      return rewriter.notifyMatchFailure(op, "needs static 8-bit operands");
    Location loc = op.getLoc();
    FailureOr<Value> input = dequantize(rewriter, loc, x, adaptor.getXScale(),
                                        adaptor.getXZeroPoint(), 1);
    FailureOr<Value> weight = dequantize(rewriter, loc, w, adaptor.getWScale(),
                                         adaptor.getWZeroPoint(), 0);
    if (failed(input) || failed(weight))
      return rewriter.notifyMatchFailure(op, "unsupported scale/zero point");
    Value bias;
    if (Value intBias = adaptor.getBias()) {
      // bias * (x_scale * w_scale), the scales as [1] or [M].
      auto asVector = [&](Value scale) {
        auto type = cast<RankedTensorType>(scale.getType());
        return type.getRank() == 1 ? scale
                                   : reshapeTo(rewriter, loc, scale, {1});
      };
      Value xScale = asVector(adaptor.getXScale());
      Value wScale = asVector(adaptor.getWScale());
      auto biasType = RankedTensorType::get(
          cast<RankedTensorType>(intBias.getType()).getShape(),
          rewriter.getF32Type());
      Value scale =
          rewriter.create<edge::MulOp>(loc, wScale.getType(), wScale, xScale);
      bias = rewriter.create<edge::MulOp>(
          loc, biasType, castTo(rewriter, loc, intBias, rewriter.getF32Type()),
          scale);
    }
    FailureOr<Value> conv = buildConv(
        rewriter, loc, *input, *weight, bias,
        RankedTensorType::get(resultType.getShape(), rewriter.getF32Type()),
        {op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad(),
         static_cast<int64_t>(op.getGroup())});
    if (failed(conv))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    FailureOr<Value> y = quantize(rewriter, loc, *conv, adaptor.getYScale(),
                                  adaptor.getYZeroPoint(), resultType);
    if (failed(y))
      return rewriter.notifyMatchFailure(op, "needs a per-tensor y scale");
    rewriter.replaceOp(op, *y);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateIntegerLinearPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatMulIntegerLowering, ConvIntegerLowering,
               QLinearMatMulLowering, QLinearConvLowering>(
      converter, patterns.getContext());
}
