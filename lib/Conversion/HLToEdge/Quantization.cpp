//===- Quantization.cpp - hl (de)quantization to edge ---------------------===//
//
// QuantizeLinear / DequantizeLinear map onto edge's affine quantize ops with
// scale and zero point in edge's canonical form (scalar per tensor, 1-D per
// axis, zero point always present); DynamicQuantizeLinear maps onto
// edge.dynamic_quantize_linear, one kernel for the min and max, the scale
// arithmetic of the ONNX definition and the quantization.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "strata/Quantization/Quantization.h"

#include <cmath>

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
    if (!inputType.getElementType().isF32() ||
        !isQuantStorage(resultType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs an f32 input and an i8, ui8 or i16 result");
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
    if (!resultType.getElementType().isF32() ||
        !isQuantStorage(inputType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs an i8, ui8 or i16 input and an f32 result");
    FailureOr<AffineParams> params = resolveAffineParams(
        rewriter, op.getLoc(), adaptor.getScale(), adaptor.getZeroPoint(),
        inputType.getElementType(), op.getAxis(), inputType.getRank());
    if (failed(params))
      return rewriter.notifyMatchFailure(op, "unsupported scale/zero point");
    rewriter.replaceOpWithNewOp<edge::DequantizeLinearOp>(
        op, adaptor.getInput(), params->scale, params->zeroPoint, params->axis);
    return success();
  }
};

/// hl.dynamic_quantize_linear -> edge.dynamic_quantize_linear, whose kernel
/// computes ONNX's definition with qmin = 0, qmax = 255:
///   x_min = min(0, reduce_min(x)), x_max = max(0, reduce_max(x))
///   scale = x_max == x_min ? 1 : (x_max - x_min) / 255  (ONNX Runtime's)
///   zero_point = cast<ui8>(round_half_even(clip(0 - x_min / scale, 0, 255)))
///   y = quantize_linear(x, scale, zero_point)
struct DynamicQuantizeLinearLowering
    : public OpConversionPattern<hl::DynamicQuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    if (!inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    auto dynamic = rewriter.create<edge::DynamicQuantizeLinearOp>(
        op.getLoc(), adaptor.getInput());
    rewriter.replaceOp(op, dynamic.getResults());
    return success();
  }
};

/// Scale and zero-point constants of a `!quant.uniform` element type, in
/// edge's canonical form (scalars per tensor, 1-D per axis).
struct QuantConstants {
  Value scale, zeroPoint;
  int64_t axis = 0;
};
FailureOr<QuantConstants> quantConstants(OpBuilder &builder, Location loc,
                                         Type element) {
  std::optional<quantization::TypeQuantization> q =
      quantization::getTypeQuantization(element);
  if (!q || !q->storage.isInteger(8))
    return failure();
  Type storage = q->storage;
  QuantConstants out;
  out.axis = std::max<int64_t>(q->axis, 0);
  SmallVector<float> scales;
  SmallVector<int64_t> zeroPoints;
  for (const quantization::QuantParams &p : q->params) {
    scales.push_back(static_cast<float>(p.scale));
    zeroPoints.push_back(p.zeroPoint);
  }
  SmallVector<int64_t> shape;
  if (q->axis >= 0)
    shape.push_back(static_cast<int64_t>(scales.size()));
  auto scaleType = RankedTensorType::get(shape, builder.getF32Type());
  auto zeroType = RankedTensorType::get(shape, storage);
  SmallVector<APInt> zeros;
  for (int64_t z : zeroPoints)
    zeros.push_back(APInt(8, static_cast<uint64_t>(z), /*isSigned=*/true));
  out.scale = builder.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(scaleType, ArrayRef<float>(scales)));
  out.zeroPoint = builder.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(zeroType, zeros));
  return out;
}

/// quant.qcast -> edge.quantize_linear with the `!quant.uniform` result.
struct QuantizeCastLowering
    : public OpConversionPattern<mlir::quant::QuantizeCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(mlir::quant::QuantizeCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    RankedTensorType inputType = getStaticType(adaptor.getArg());
    if (!resultType || !inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 tensor");
    FailureOr<QuantConstants> params =
        quantConstants(rewriter, op.getLoc(), resultType.getElementType());
    if (failed(params))
      return op.emitError("unsupported quantized type ") << resultType;
    rewriter.replaceOpWithNewOp<edge::QuantizeLinearOp>(
        op, resultType, adaptor.getArg(), params->scale, params->zeroPoint,
        params->axis);
    return success();
  }
};

/// quant.dcast -> edge.dequantize_linear. A dequantized constant (a
/// weight) is quantized here, at compile time, into an int8 constant.
struct DequantizeCastLowering
    : public OpConversionPattern<mlir::quant::DequantizeCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(mlir::quant::DequantizeCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = dyn_cast<RankedTensorType>(op.getArg().getType());
    if (!inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static tensor");
    Location loc = op.getLoc();
    Type element = inputType.getElementType();
    FailureOr<QuantConstants> params = quantConstants(rewriter, loc, element);
    if (failed(params))
      return op.emitError("unsupported quantized type ") << inputType;
    Value input = adaptor.getArg();
    auto qcast = op.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>();
    std::optional<SmallVector<double>> constant =
        qcast ? getConstantFloats(qcast.getArg()) : std::nullopt;
    if (constant) {
      quantization::TypeQuantization q =
          *quantization::getTypeQuantization(element);
      SmallVector<APInt> values;
      values.reserve(constant->size());
      for (size_t i = 0; i < constant->size(); ++i) {
        size_t c = quantization::channelOf(i, inputType.getShape(), q.axis);
        int64_t level = q.params[c].quantize(static_cast<float>((*constant)[i]));
        values.push_back(APInt(8, static_cast<uint64_t>(level), true));
      }
      auto type = RankedTensorType::get(inputType.getShape(), q.storage);
      input = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(type, values));
    }
    rewriter.replaceOpWithNewOp<edge::DequantizeLinearOp>(
        op, input, params->scale, params->zeroPoint, params->axis);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateQuantizationPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering,
               DynamicQuantizeLinearLowering, QuantizeCastLowering,
               DequantizeCastLowering>(converter, patterns.getContext());
}
