//===- IntegerLinear.cpp - integer and quantized conv/matmul to edge ------===//
//
// MatMulInteger / ConvInteger of the forms the quantized ops do not take
// (ScaledIntegerLinear.cpp: a per-row input zero point, a 1-D or 3-D
// convolution) widen both operands to i32, subtract the zero
// points and run edge.matmul / edge.conv2d on i32, which accumulate exactly
// in int32 as ONNX specifies (an f32 path would be exact only while partial
// sums stay below 2^24). QLinearMatMul / QLinearConv are the QDQ reference
// composition: dequantize the operands, the f32 op, quantize the result;
// that is also the form backends pattern-match for int8 execution.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "Edge/IR/EdgeAttributes.h"
#include "HL/IR/HLOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

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
  return builder.create<edge::SubOp>(loc, wide, zp);
}

/// Shape of a per-`axis` parameter broadcast against a rank-`rank` tensor
/// with `extent` elements along `axis`.
SmallVector<int64_t> perAxisShape(int64_t rank, int64_t axis, int64_t extent) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = extent;
  return shape;
}

/// Whether the given value is 8-bit.
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
    if (!is8Bit(a) || !is8Bit(b))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands");
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

/// ConvInteger with constant weights as f32 convolutions that sum exactly:
/// with x' = x - x_zp in [-255, 255] and d = w - w_zp in [-255, 255] written
/// in n signed base-B digits (d = sum_i B^i d_i, |d_i| <= B - 1, B^n >= 256),
/// every partial sum of x' * d_i is an integer of magnitude at most
/// K * 255 * (B - 1), exact in f32 while that stays below 2^24 (K = C/group *
/// KH * KW); the result is sum_i B^i * i32(conv(x', d_i)) in int32, exactly
/// ONNX's. B is the largest of 16, 8, 4, 2 that keeps the sums exact (2, 3,
/// 4 or 8 convolutions; K up to 4386, 9398, 21931, 65793). The f32
/// convolutions run where f32 convolutions run fast (the delegates; never
/// as Winograd, which rounds: kExactSumsAttrName). Fails where the weights
/// are not constant or K is larger still.
FailureOr<Value> buildSplitConvInteger(ConversionPatternRewriter &rewriter,
                                       hl::ConvIntegerOp op, Value x, Value w,
                                       Value xZeroPoint, Value wZeroPoint,
                                       RankedTensorType resultType) {
  auto wType = cast<RankedTensorType>(w.getType());
  if (wType.getRank() != 4)
    return failure();
  int64_t m = wType.getDimSize(0);
  int64_t k = wType.getDimSize(1) * wType.getDimSize(2) * wType.getDimSize(3);
  int64_t base = 0, digits = 0;
  for (auto [b, n] :
       {std::pair<int64_t, int64_t>{16, 2}, {8, 3}, {4, 4}, {2, 8}})
    if (k * 255 * (b - 1) < (int64_t(1) << 24)) {
      base = b;
      digits = n;
      break;
    }
  if (!base)
    return failure();
  std::optional<std::vector<int64_t>> weights = constantInts8(w);
  std::optional<std::vector<int64_t>> wZp =
      wZeroPoint ? constantInts8(wZeroPoint) : std::vector<int64_t>{0};
  if (!weights || !wZp ||
      (wZp->size() != 1 && static_cast<int64_t>(wZp->size()) != m))
    return failure();
  std::vector<std::vector<float>> parts(digits,
                                        std::vector<float>(weights->size()));
  int64_t perChannel = weights->size() / m;
  for (size_t i = 0; i < weights->size(); ++i) {
    int64_t zp = (*wZp)[wZp->size() == 1 ? 0 : i / perChannel];
    int64_t d = (*weights)[i] - zp;
    // Signed digits, least significant first (division toward zero).
    for (int64_t j = 0; j < digits; ++j) {
      parts[j][i] = static_cast<float>(d % base);
      d /= base;
    }
  }
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  auto wf32 = RankedTensorType::get(wType.getShape(), f32);
  Value input = castTo(rewriter, loc, x, f32);
  if (xZeroPoint) {
    SmallVector<int64_t> ones(4, 1);
    Value zp =
        reshapeTo(rewriter, loc, castTo(rewriter, loc, xZeroPoint, f32), ones);
    input = rewriter.create<edge::SubOp>(loc, input, zp);
  }
  auto f32Result = RankedTensorType::get(resultType.getShape(), f32);
  auto i32Scalar =
      RankedTensorType::get(SmallVector<int64_t>(4, 1), rewriter.getI32Type());
  Value sum;
  int64_t weight = 1;
  for (std::vector<float> &part : parts) {
    Value kernel = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(wf32, ArrayRef<float>(part)));
    FailureOr<Value> conv =
        buildConv(rewriter, loc, input, kernel, Value(), f32Result,
                  {op.getStrides(), op.getDilations(), op.getPads(),
                   op.getAutoPad(), static_cast<int64_t>(op.getGroup())});
    if (failed(conv))
      return failure();
    if (auto conv2d = conv->getDefiningOp<edge::Conv2DOp>())
      conv2d->setAttr(edge::kExactSumsAttrName, rewriter.getUnitAttr());
    Value term = castTo(rewriter, loc, *conv, rewriter.getI32Type());
    if (weight != 1) {
      Value factor = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(i32Scalar, static_cast<int32_t>(weight)));
      term = rewriter.create<edge::MulOp>(loc, term, factor);
    }
    sum = sum ? rewriter.create<edge::AddOp>(loc, sum, term).getResult() : term;
    weight *= base;
  }
  return sum;
}

/// hl.conv_integer -> (i32(x) - x_zp) conv (i32(w) - w_zp) on edge.conv2d;
/// w's zero point is per output channel ([M]). With constant weights, the
/// exact split into f32 convolutions (buildSplitConvInteger) instead.
struct ConvIntegerLowering : public OpConversionPattern<hl::ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    if (!is8Bit(x) || !is8Bit(w))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands");
    if (resultType.getRank() == 4) {
      FailureOr<Value> split =
          buildSplitConvInteger(rewriter, op, x, w, adaptor.getXZeroPoint(),
                                adaptor.getWZeroPoint(), resultType);
      if (succeeded(split)) {
        rewriter.replaceOp(op, *split);
        return success();
      }
    }
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
      .create<edge::DequantizeLinearOp>(loc, value, params->scale,
                                        params->zeroPoint, params->axis)
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
    if (!is8Bit(a) || !is8Bit(b) || !is8Bit(op.getOutput()))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands");
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
    if (!is8Bit(x) || !is8Bit(w) || !is8Bit(op.getOutput()))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands");
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
      Value scale = rewriter.create<edge::MulOp>(loc, wScale, xScale);
      bias = rewriter.create<edge::MulOp>(
          loc, castTo(rewriter, loc, intBias, rewriter.getF32Type()), scale);
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
