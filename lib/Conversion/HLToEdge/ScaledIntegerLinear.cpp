//===- ScaledIntegerLinear.cpp - ConvInteger / MatMulInteger with epilogue ===//
//
// ONNX Runtime's dynamic quantization writes every convolution and matmul
// as
//
//   x_q, x_scale, x_zp = DynamicQuantizeLinear(x)
//   acc = ConvInteger(x_q, w_q, x_zp, w_zp)          (or MatMulInteger)
//   y   = Cast<f32>(acc) * (x_scale * w_scale)       (a one-element scale)
//         [+ bias]                                   (per output channel)
//         [-> Relu]
//
// That chain is edge.quantized_conv2d (edge.quantized_matmul) with an f32
// result: its input scale is the run-time product, its weight scale 1, the
// bias and the clamp at zero its epilogue; the integer sums are the same
// exact int32 sums, and the float tail is the chain's own arithmetic
// (acc * scale, then + bias). Int8 kernels then run it (the portable int8
// GEMMs; oneDNN with a run-time source zero point) instead of the f32
// convolutions a lone ConvInteger becomes (IntegerLinear.cpp). The patterns
// are rooted at the integer op and take its single-use users; they build
// the op where the last of them stood, where the run-time scale is defined.
// A lone integer op (no such chain) is the quantized op with an i32 result,
// the sums themselves (the Bare* patterns, tried after the chains).
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// The single user of `value`, if it has exactly one use.
Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// The operand of binary `op` other than `value`.
Value otherOperand(Operation *op, Value value) {
  return op->getOperand(0) == value ? op->getOperand(1) : op->getOperand(0);
}

/// Whether `value` has a static type with one element.
bool isOneElement(Value value) {
  RankedTensorType type = getStaticType(value);
  return type && type.getNumElements() == 1;
}

/// `value` (one element) as a rank-0 tensor.
Value asScalar(OpBuilder &builder, Location loc, Value value) {
  if (cast<RankedTensorType>(value.getType()).getRank() == 0)
    return value;
  return reshapeTo(builder, loc, value, {});
}

/// The 8-bit storage type (i8 or ui8) of `type`, or null.
IntegerType storageOf(Type type) {
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
  return element && element.getWidth() == 8 && !element.isSigned()
             ? element
             : IntegerType();
}

/// The constant `value` broadcast along axis `axis` of a rank-`rank` result
/// with `channels` extents there (one value for all, or one per channel,
/// 1 elsewhere), as its `channels` values.
std::optional<SmallVector<float>>
channelConstant(Value value, int64_t rank, int64_t axis, int64_t channels) {
  RankedTensorType type = getStaticType(value);
  std::optional<SmallVector<double>> values = getConstantFloats(value);
  if (!type || !values || !type.getElementType().isF32() ||
      type.getRank() > rank)
    return std::nullopt;
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<int64_t> want(rank, 1);
  want[axis] = channels;
  if (values->size() == 1)
    return SmallVector<float>(channels, static_cast<float>(values->front()));
  if (shape != ArrayRef<int64_t>(want))
    return std::nullopt;
  return llvm::map_to_vector(*values,
                             [](double v) { return static_cast<float>(v); });
}

/// The float epilogue that reads an integer op's int32 result `acc`.
struct Epilogue {
  Value scale;                      ///< the one-element f32 factor
  SmallVector<float> bias;          ///< one per channel (0 without an Add)
  std::optional<float> clipMin;     ///< 0 when a Relu follows
  SmallVector<Operation *> ops;     ///< the chain, the integer op first
};

/// Cast to f32, times a one-element scale, then optionally a constant
/// per-channel bias (along `axis` of the result) and a relu, each the only
/// user of the last.
FailureOr<Epilogue> matchEpilogue(Operation *root, int64_t axis,
                                  int64_t channels) {
  Value acc = root->getResult(0);
  auto castOp = dyn_cast_or_null<hl::CastOp>(soleUser(acc));
  if (!castOp || !getElementTypeOrSelf(castOp.getType()).isF32())
    return failure();
  auto mulOp = dyn_cast_or_null<hl::MulOp>(soleUser(castOp.getResult()));
  Value scale = mulOp ? otherOperand(mulOp, castOp.getResult()) : Value();
  if (!mulOp || scale == castOp.getResult() || !isOneElement(scale) ||
      !getElementTypeOrSelf(scale.getType()).isF32() ||
      getStaticType(mulOp.getResult()) != getStaticType(castOp.getResult()))
    return failure();
  Epilogue e{scale, SmallVector<float>(channels, 0.0f), std::nullopt,
             {root, castOp, mulOp}};
  Value result = mulOp.getResult();
  int64_t rank = cast<RankedTensorType>(acc.getType()).getRank();
  if (auto addOp = dyn_cast_or_null<hl::AddOp>(soleUser(result))) {
    // A constant: never the product itself (x + x).
    std::optional<SmallVector<float>> values =
        channelConstant(otherOperand(addOp, result), rank, axis, channels);
    if (values && getStaticType(addOp.getResult()) == getStaticType(result)) {
      e.bias = std::move(*values);
      e.ops.push_back(addOp);
      result = addOp.getResult();
    }
  }
  if (auto relu = dyn_cast_or_null<hl::ReluOp>(soleUser(result))) {
    e.clipMin = 0.0f;
    e.ops.push_back(relu);
  }
  return e;
}

/// The operands an integer op's quantized form takes besides its values:
/// input scale (the epilogue's), zero points, weight scale (ones of the
/// weight zero point's shape) and bias, built at the epilogue's last op.
struct QuantOperands {
  Value inputScale, inputZeroPoint, weightScale, weightZeroPoint, bias;
};

FailureOr<QuantOperands>
buildQuantOperands(ConversionPatternRewriter &rewriter, Location loc,
                   const Epilogue &e, Value input, Value inputZeroPoint,
                   Value weight, Value weightZeroPoint, int64_t channels) {
  rewriter.setInsertionPoint(e.ops.back());
  FailureOr<Value> scale = rewriter.getRemappedValue(e.scale);
  if (failed(scale))
    return failure();
  auto zeroOf = [&](Value of) {
    return rewriter
        .create<edge::ConstantOp>(
            loc, DenseElementsAttr::get(
                     RankedTensorType::get({}, storageOf(of.getType())),
                     ArrayRef<APInt>(APInt(8, 0))))
        .getResult();
  };
  QuantOperands q;
  q.inputScale = asScalar(rewriter, loc, *scale);
  q.inputZeroPoint = inputZeroPoint
                         ? asScalar(rewriter, loc, inputZeroPoint)
                         : zeroOf(input);
  q.weightZeroPoint =
      !weightZeroPoint ? zeroOf(weight)
      : isOneElement(weightZeroPoint)
          ? asScalar(rewriter, loc, weightZeroPoint)
          : reshapeTo(rewriter, loc, weightZeroPoint, {channels});
  auto f32 = rewriter.getF32Type();
  q.weightScale = rewriter.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(
               RankedTensorType::get(
                   cast<RankedTensorType>(q.weightZeroPoint.getType())
                       .getShape(),
                   f32),
               1.0f));
  q.bias = rewriter.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({channels}, f32),
                                  ArrayRef<float>(e.bias)));
  return q;
}

/// Replaces the epilogue's last op by `fused` and erases the rest.
void replaceChain(ConversionPatternRewriter &rewriter, const Epilogue &e,
                  Value fused) {
  rewriter.replaceOp(e.ops.back(), fused);
  for (Operation *member : llvm::reverse(ArrayRef(e.ops).drop_back()))
    rewriter.eraseOp(member);
}

/// Whether constant weight `w` and its zero point (absent, one value or one
/// ConvInteger `op`'s window (strides, dilations, pads), lifted to 2-D.
FailureOr<Window> convIntegerWindow(hl::ConvIntegerOp op,
                                    RankedTensorType xType,
                                    RankedTensorType wType) {
  FailureOr<Window> window = resolveWindow(
      xType.getShape().drop_front(2), wType.getShape().drop_front(2),
      op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
  if (failed(window))
    return failure();
  return liftWindowTo2D(*window);
}

/// edge.quantized_conv2d of ConvInteger `op` over `x` and `w` with the
/// quantization operands `q`, into `resultType` (f32 for a scaled epilogue,
/// the i32 sums for a lone one), with an optional ReLU floor `clipMin`.
Value createQuantizedConv(ConversionPatternRewriter &rewriter, Location loc,
                          hl::ConvIntegerOp op, Type resultType, Value x,
                          Value w, const QuantOperands &q,
                          const Window &window2D, FloatAttr clipMin) {
  return rewriter.create<edge::QuantizedConv2DOp>(
      loc, resultType, x, q.inputScale, q.inputZeroPoint, w, q.weightScale,
      q.weightZeroPoint, q.bias, /*output_scale=*/Value(),
      /*output_zero_point=*/Value(), /*residual=*/Value(),
      /*residual_scale=*/Value(), /*residual_zero_point=*/Value(),
      rewriter.getDenseI64ArrayAttr(window2D.strides),
      rewriter.getDenseI64ArrayAttr(window2D.dilations),
      rewriter.getDenseI64ArrayAttr(window2D.pads),
      rewriter.getI64IntegerAttr(op.getGroup()), clipMin,
      /*clip_max=*/FloatAttr(), /*activation=*/StringAttr());
}

/// per channel) are 8-bit integers the quantized ops take.
bool isConstantWeight(Value w, Value zeroPoint, int64_t channels) {
  std::optional<std::vector<int64_t>> zp =
      zeroPoint ? constantInts8(zeroPoint) : std::vector<int64_t>{0};
  return storageOf(w.getType()) && constantInts8(w) && zp &&
         (zp->size() == 1 || static_cast<int64_t>(zp->size()) == channels);
}

Location fusedLoc(ConversionPatternRewriter &rewriter, const Epilogue &e) {
  return rewriter.getFusedLoc(llvm::map_to_vector(
      e.ops, [](Operation *member) { return member->getLoc(); }));
}

struct ScaledConvIntegerLowering
    : public OpConversionPattern<hl::ConvIntegerOp> {
  ScaledConvIntegerLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/3) {}

  LogicalResult
  matchAndRewrite(hl::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType accType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    RankedTensorType xType = getStaticType(x), wType = getStaticType(w);
    if (accType.getRank() != 4 || wType.getRank() != 4 || xType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs a 2-d convolution");
    int64_t channels = wType.getDimSize(0);
    Value xZeroPoint = adaptor.getXZeroPoint();
    if (!storageOf(xType) ||
        !isConstantWeight(w, adaptor.getWZeroPoint(), channels) ||
        (xZeroPoint && !isOneElement(xZeroPoint)))
      return rewriter.notifyMatchFailure(
          op, "needs 8-bit operands, constant weights and zero points");
    FailureOr<Epilogue> e = matchEpilogue(op, /*axis=*/1, channels);
    if (failed(e))
      return rewriter.notifyMatchFailure(op, "not scaled by one f32 value");
    FailureOr<Window> window2D = convIntegerWindow(op, xType, wType);
    if (failed(window2D))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    Location loc = fusedLoc(rewriter, *e);
    FailureOr<QuantOperands> q =
        buildQuantOperands(rewriter, loc, *e, x, xZeroPoint, w,
                           adaptor.getWZeroPoint(), channels);
    if (failed(q))
      return rewriter.notifyMatchFailure(op, "scale cannot be converted");
    Value conv = createQuantizedConv(
        rewriter, loc, op,
        RankedTensorType::get(accType.getShape(), rewriter.getF32Type()), x,
        w, *q, *window2D,
        e->clipMin ? rewriter.getF32FloatAttr(*e->clipMin) : FloatAttr());
    replaceChain(rewriter, *e, conv);
    return success();
  }
};

/// MatMulInteger of a [B..., M, K] input (zero point one value) by constant
/// [K, N] weights (zero point one value or [N]).
struct ScaledMatMulIntegerLowering
    : public OpConversionPattern<hl::MatMulIntegerOp> {
  ScaledMatMulIntegerLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/3) {}

  LogicalResult
  matchAndRewrite(hl::MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType accType = getStaticType(op.getOutput());
    Value a = adaptor.getA(), b = adaptor.getB();
    RankedTensorType aType = getStaticType(a), bType = getStaticType(b);
    if (!accType || !aType || !bType || aType.getRank() < 2 ||
        bType.getRank() != 2 || accType.getRank() != aType.getRank())
      return rewriter.notifyMatchFailure(op, "needs [..., M, K] x [K, N]");
    int64_t channels = bType.getDimSize(1);
    Value aZeroPoint = adaptor.getAZeroPoint();
    if (!storageOf(aType) ||
        !isConstantWeight(b, adaptor.getBZeroPoint(), channels) ||
        (aZeroPoint && !isOneElement(aZeroPoint)))
      return rewriter.notifyMatchFailure(
          op, "needs 8-bit operands, constant weights and zero points");
    FailureOr<Epilogue> e =
        matchEpilogue(op, /*axis=*/accType.getRank() - 1, channels);
    if (failed(e))
      return rewriter.notifyMatchFailure(op, "not scaled by one f32 value");
    Location loc = fusedLoc(rewriter, *e);
    FailureOr<QuantOperands> q =
        buildQuantOperands(rewriter, loc, *e, a, aZeroPoint, b,
                           adaptor.getBZeroPoint(), channels);
    if (failed(q))
      return rewriter.notifyMatchFailure(op, "scale cannot be converted");
    Value matmul = rewriter.create<edge::QuantizedMatMulOp>(
        loc, RankedTensorType::get(accType.getShape(), rewriter.getF32Type()),
        a, q->inputScale, q->inputZeroPoint, b, q->weightScale,
        q->weightZeroPoint, q->bias, /*output_scale=*/Value(),
        /*output_zero_point=*/Value(),
        e->clipMin ? rewriter.getF32FloatAttr(*e->clipMin) : FloatAttr(),
        /*clip_max=*/FloatAttr(), /*activation=*/StringAttr());
    replaceChain(rewriter, *e, matmul);
    return success();
  }
};

/// The operands of an integer op's quantized form without an epilogue
/// (an i32 result, the sums themselves): zero points as given (0 where
/// absent), scales 1 of their shapes, bias 0.
QuantOperands buildBareQuantOperands(ConversionPatternRewriter &rewriter,
                                     Location loc, Value input,
                                     Value inputZeroPoint, Value weight,
                                     Value weightZeroPoint, int64_t channels) {
  auto zeroOf = [&](Value of) {
    return rewriter
        .create<edge::ConstantOp>(
            loc, DenseElementsAttr::get(
                     RankedTensorType::get({}, storageOf(of.getType())),
                     ArrayRef<APInt>(APInt(8, 0))))
        .getResult();
  };
  auto f32 = rewriter.getF32Type();
  auto ones = [&](Value like) {
    return rewriter
        .create<edge::ConstantOp>(
            loc,
            DenseElementsAttr::get(
                RankedTensorType::get(
                    cast<RankedTensorType>(like.getType()).getShape(), f32),
                1.0f))
        .getResult();
  };
  QuantOperands q;
  q.inputZeroPoint = inputZeroPoint ? asScalar(rewriter, loc, inputZeroPoint)
                                    : zeroOf(input);
  q.inputScale = ones(q.inputZeroPoint);
  q.weightZeroPoint =
      !weightZeroPoint ? zeroOf(weight)
      : isOneElement(weightZeroPoint)
          ? asScalar(rewriter, loc, weightZeroPoint)
          : reshapeTo(rewriter, loc, weightZeroPoint, {channels});
  q.weightScale = ones(q.weightZeroPoint);
  q.bias = rewriter.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({channels}, f32),
                                  0.0f));
  return q;
}

/// Whether zero point `zp` of a weight with `channels` output channels is
/// absent, one value, or one per channel.
bool isChannelZeroPoint(Value zp, int64_t channels) {
  if (!zp || isOneElement(zp))
    return true;
  RankedTensorType type = getStaticType(zp);
  return type && type.getRank() == 1 && type.getDimSize(0) == channels;
}

/// A lone ConvInteger (no epilogue to fuse): edge.quantized_conv2d with
/// the i32 sums as its result, which the int8 kernels compute exactly
/// (the portable int8 GEMMs; oneDNN's int8 convolution with a source zero
/// point), where the input's zero point is one value and the weight's one
/// value or one per output channel.
struct BareConvIntegerLowering : public OpConversionPattern<hl::ConvIntegerOp> {
  BareConvIntegerLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(hl::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType accType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    RankedTensorType xType = getStaticType(x), wType = getStaticType(w);
    if (!accType || !xType || !wType || accType.getRank() != 4 ||
        wType.getRank() != 4 || xType.getRank() != 4 ||
        !accType.getElementType().isSignlessInteger(32))
      return rewriter.notifyMatchFailure(op, "needs a 2-d convolution");
    int64_t channels = wType.getDimSize(0);
    Value xZeroPoint = adaptor.getXZeroPoint();
    if (!storageOf(xType) || !storageOf(wType) ||
        (xZeroPoint && !isOneElement(xZeroPoint)) ||
        !isChannelZeroPoint(adaptor.getWZeroPoint(), channels))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands and "
                                             "per-tensor/channel zero points");
    FailureOr<Window> window2D = convIntegerWindow(op, xType, wType);
    if (failed(window2D))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    Location loc = op.getLoc();
    QuantOperands q = buildBareQuantOperands(
        rewriter, loc, x, xZeroPoint, w, adaptor.getWZeroPoint(), channels);
    Value conv = createQuantizedConv(rewriter, loc, op, accType, x, w, q,
                                     *window2D, /*clipMin=*/FloatAttr());
    rewriter.replaceOp(op, conv);
    return success();
  }
};

/// A lone MatMulInteger: edge.quantized_matmul with the i32 sums as its
/// result, for [B..., M, K] by [K, N] (or [B..., K, N] of the same batch),
/// the input's zero point one value, the weight's one value or [N].
struct BareMatMulIntegerLowering
    : public OpConversionPattern<hl::MatMulIntegerOp> {
  BareMatMulIntegerLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(hl::MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType accType = getStaticType(op.getOutput());
    Value a = adaptor.getA(), b = adaptor.getB();
    RankedTensorType aType = getStaticType(a), bType = getStaticType(b);
    if (!accType || !aType || !bType || aType.getRank() < 2 ||
        accType.getRank() != aType.getRank() ||
        !accType.getElementType().isSignlessInteger(32) ||
        (bType.getRank() != 2 &&
         (bType.getRank() != aType.getRank() ||
          aType.getShape().drop_back(2) != bType.getShape().drop_back(2))))
      return rewriter.notifyMatchFailure(op, "needs [..., M, K] x [K, N]");
    int64_t channels = bType.getShape().back();
    Value aZeroPoint = adaptor.getAZeroPoint();
    if (!storageOf(aType) || !storageOf(bType) ||
        (aZeroPoint && !isOneElement(aZeroPoint)) ||
        !isChannelZeroPoint(adaptor.getBZeroPoint(), channels))
      return rewriter.notifyMatchFailure(op, "needs 8-bit operands and "
                                             "per-tensor/column zero points");
    Location loc = op.getLoc();
    QuantOperands q = buildBareQuantOperands(
        rewriter, loc, a, aZeroPoint, b, adaptor.getBZeroPoint(), channels);
    Value matmul = rewriter.create<edge::QuantizedMatMulOp>(
        loc, accType, a, q.inputScale, q.inputZeroPoint, b, q.weightScale,
        q.weightZeroPoint, q.bias, /*output_scale=*/Value(),
        /*output_zero_point=*/Value(), /*clip_min=*/FloatAttr(),
        /*clip_max=*/FloatAttr(), /*activation=*/StringAttr());
    rewriter.replaceOp(op, matmul);
    return success();
  }
};

} // namespace

void hl_to_edge::populateScaledIntegerLinearPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScaledConvIntegerLowering, ScaledMatMulIntegerLowering,
               BareConvIntegerLowering, BareMatMulIntegerLowering>(
      converter, patterns.getContext());
}
