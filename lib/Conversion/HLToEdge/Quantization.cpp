//===- Quantization.cpp - hl (de)quantization to edge ---------------------===//
//
// QuantizeLinear / DequantizeLinear map onto edge's affine quantize ops with
// scale and zero point in edge's canonical form (scalar per tensor, 1-D per
// axis, zero point always present); DynamicQuantizeLinear decomposes into
// the min/max reductions and scale arithmetic of the ONNX definition
// followed by a quantize_linear with run-time scale and zero point.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace strata::hl_to_edge {

FailureOr<AffineParams> resolveAffineParams(OpBuilder &builder, Location loc,
                                            Value scale, Value zeroPoint,
                                            Type storage, int64_t axis,
                                            int64_t rank) {
  RankedTensorType scaleType = getStaticType(scale);
  if (!scaleType || !scaleType.getElementType().isF32() ||
      scaleType.getRank() > 1)
    return failure();
  if (zeroPoint) {
    RankedTensorType zeroPointType = getStaticType(zeroPoint);
    if (!zeroPointType || zeroPointType.getShape() != scaleType.getShape() ||
        zeroPointType.getElementType() != storage)
      return failure();
  } else {
    // ONNX's missing zero point is 0.
    auto type = RankedTensorType::get(scaleType.getShape(), storage);
    zeroPoint = builder.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(
                 type, APInt::getZero(storage.getIntOrFloatBitWidth())));
  }
  AffineParams params;
  params.axis = 0;
  if (scaleType.getRank() == 1 && scaleType.getDimSize(0) == 1) {
    // A one-element 1-D scale broadcasts: it is a per-tensor one.
    scale = reshapeTo(builder, loc, scale, {});
    zeroPoint = reshapeTo(builder, loc, zeroPoint, {});
  } else if (scaleType.getRank() == 1) {
    params.axis = axis < 0 ? axis + rank : axis;
    if (params.axis < 0 || params.axis >= rank)
      return failure();
  }
  params.scale = scale;
  params.zeroPoint = zeroPoint;
  return params;
}

} // namespace strata::hl_to_edge

namespace {

/// Whether `type` is a storage type edge quantizes to.
bool isQuantStorage(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && !intType.isSigned() &&
         (intType.getWidth() == 8 ||
          (intType.getWidth() == 16 && intType.isSignless()));
}

/// hl.quantize_linear -> edge.quantize_linear.
struct QuantizeLinearLowering
    : public OpConversionPattern<hl::QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !resultType || !inputType.getElementType().isF32() ||
        !isQuantStorage(resultType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs static f32 input and an i8, ui8 or i16 result");
    FailureOr<AffineParams> params = resolveAffineParams(
        rewriter, op.getLoc(), adaptor.getScale(), adaptor.getZeroPoint(),
        resultType.getElementType(), op.getAxis(), inputType.getRank());
    if (failed(params))
      return rewriter.notifyMatchFailure(op, "unsupported scale/zero point");
    rewriter.replaceOpWithNewOp<edge::QuantizeLinearOp>(
        op, resultType, adaptor.getInput(), params->scale, params->zeroPoint,
        params->axis);
    return success();
  }
};

/// hl.dequantize_linear -> edge.dequantize_linear.
struct DequantizeLinearLowering
    : public OpConversionPattern<hl::DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !resultType || !resultType.getElementType().isF32() ||
        !isQuantStorage(inputType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs a static i8, ui8 or i16 input and an f32 result");
    FailureOr<AffineParams> params = resolveAffineParams(
        rewriter, op.getLoc(), adaptor.getScale(), adaptor.getZeroPoint(),
        inputType.getElementType(), op.getAxis(), inputType.getRank());
    if (failed(params))
      return rewriter.notifyMatchFailure(op, "unsupported scale/zero point");
    rewriter.replaceOpWithNewOp<edge::DequantizeLinearOp>(
        op, resultType, adaptor.getInput(), params->scale, params->zeroPoint,
        params->axis);
    return success();
  }
};

/// hl.dynamic_quantize_linear -> ONNX's definition with qmin = 0, qmax = 255:
///   x_min = min(0, reduce_min(x)), x_max = max(0, reduce_max(x))
///   scale = (x_max - x_min) / 255
///   zero_point = cast<ui8>(round_half_even(clip(0 - x_min / scale, 0, 255)))
///   y = quantize_linear(x, scale, zero_point)
struct DynamicQuantizeLinearLowering
    : public OpConversionPattern<hl::DynamicQuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    if (!inputType || !inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a static f32 input");
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto scalarType = RankedTensorType::get({}, rewriter.getF32Type());
    SmallVector<int64_t> allAxes =
        llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
    auto constant = [&](double value) {
      return splatConstant(rewriter, loc, rewriter.getF32Type(), 0, value);
    };
    Value zero = constant(0.0);
    Value min = rewriter.create<edge::ReduceMinOp>(loc, scalarType, x, allAxes,
                                                   /*keep_dims=*/false);
    Value max = rewriter.create<edge::ReduceMaxOp>(loc, scalarType, x, allAxes,
                                                   /*keep_dims=*/false);
    min = rewriter.create<edge::MinimumOp>(loc, scalarType, min, zero);
    max = rewriter.create<edge::MaximumOp>(loc, scalarType, max, zero);
    Value range = rewriter.create<edge::SubOp>(loc, scalarType, max, min);
    Value scale =
        rewriter.create<edge::DivOp>(loc, scalarType, range, constant(255.0));
    Value shift = rewriter.create<edge::DivOp>(loc, scalarType, min, scale);
    Value zeroPoint =
        rewriter.create<edge::SubOp>(loc, scalarType, zero, shift);
    zeroPoint = rewriter.create<edge::ClipOp>(loc, zeroPoint,
                                              rewriter.getF32FloatAttr(0.0f),
                                              rewriter.getF32FloatAttr(255.0f));
    zeroPoint = rewriter.create<edge::RoundOp>(loc, zeroPoint);
    Type u8 = rewriter.getIntegerType(8, /*isSigned=*/false);
    zeroPoint = rewriter.create<edge::CastOp>(
        loc, RankedTensorType::get({}, u8), zeroPoint);
    Value y = rewriter.create<edge::QuantizeLinearOp>(
        loc, RankedTensorType::get(inputType.getShape(), u8), x, scale,
        zeroPoint, /*axis=*/0);
    rewriter.replaceOp(op, {y, scale, zeroPoint});
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateQuantizationPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering,
               DynamicQuantizeLinearLowering>(converter, patterns.getContext());
}
