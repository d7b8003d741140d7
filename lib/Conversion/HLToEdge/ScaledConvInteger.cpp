//===- ScaledConvInteger.cpp - ConvInteger with its float epilogue --------===//
//
// ONNX Runtime's dynamic quantization writes every convolution as
//
//   x_q, x_scale, x_zp = DynamicQuantizeLinear(x)
//   acc = ConvInteger(x_q, w_q, x_zp, w_zp)          (int32)
//   y   = Cast<f32>(acc) * (x_scale * w_scale)       (a one-element scale)
//         [+ bias]                                   (per output channel)
//         [-> Relu]
//
// That chain is edge.quantized_conv2d with an f32 result: its input scale is
// the run-time product, its weight scale 1, the bias and the clamp at zero
// its epilogue; the integer sums are the same exact int32 sums, and the
// float tail is the chain's own arithmetic (acc * scale + bias). Int8
// kernels then run it (the portable int8 GEMMs; oneDNN with a run-time
// source zero point) instead of the f32 convolutions a lone ConvInteger
// becomes (IntegerLinear.cpp). The pattern is rooted at the ConvInteger and
// takes its single-use users; it builds the op where the last of them
// stood, where the run-time scale is defined.
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

/// The per-channel constant `value` broadcast along axis 1 of a rank-4
/// result with `channels` channels ([M, 1, 1], [1, M, 1, 1], or one value
/// for all), as its `channels` values.
std::optional<SmallVector<float>> channelConstant(Value value,
                                                  int64_t channels) {
  RankedTensorType type = getStaticType(value);
  std::optional<SmallVector<double>> values = getConstantFloats(value);
  if (!type || !values || !type.getElementType().isF32() ||
      type.getRank() > 4)
    return std::nullopt;
  SmallVector<int64_t> shape(4 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  if (values->size() == 1)
    return SmallVector<float>(channels, static_cast<float>(values->front()));
  if (shape != ArrayRef<int64_t>{1, channels, 1, 1})
    return std::nullopt;
  return llvm::map_to_vector(*values,
                             [](double v) { return static_cast<float>(v); });
}

struct ScaledConvIntegerLowering
    : public OpConversionPattern<hl::ConvIntegerOp> {
  ScaledConvIntegerLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(hl::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType accType = getStaticType(op.getOutput());
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    RankedTensorType xType = getStaticType(x), wType = getStaticType(w);
    if (!accType || accType.getRank() != 4 || !xType || !wType ||
        wType.getRank() != 4 || xType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs a static 2-d convolution");
    auto storage = [](Type type) {
      auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
      return element && element.getWidth() == 8 && !element.isSigned()
                 ? element
                 : IntegerType();
    };
    IntegerType xElement = storage(xType), wElement = storage(wType);
    int64_t channels = wType.getDimSize(0);
    Value xZeroPoint = adaptor.getXZeroPoint(),
          wZeroPoint = adaptor.getWZeroPoint();
    std::optional<std::vector<int64_t>> wZp =
        wZeroPoint ? constantInts8(wZeroPoint) : std::vector<int64_t>{0};
    if (!xElement || !wElement || !constantInts8(w) || !wZp ||
        (wZp->size() != 1 && static_cast<int64_t>(wZp->size()) != channels) ||
        (xZeroPoint && !isOneElement(xZeroPoint)))
      return rewriter.notifyMatchFailure(
          op, "needs 8-bit operands, constant weights and zero points");

    // The chain: cast to f32, times a one-element scale, then optionally a
    // constant per-channel bias and a relu, each the only user of the last.
    auto castOp = dyn_cast_or_null<hl::CastOp>(soleUser(op.getOutput()));
    if (!castOp || !getElementTypeOrSelf(castOp.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "result is not cast to f32");
    auto mulOp = dyn_cast_or_null<hl::MulOp>(soleUser(castOp.getResult()));
    Value scale = mulOp ? otherOperand(mulOp, castOp.getResult()) : Value();
    if (!mulOp || !isOneElement(scale) ||
        getStaticType(mulOp.getResult()) !=
            getStaticType(castOp.getResult()) ||
        !getElementTypeOrSelf(scale.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not scaled by one f32 value");
    SmallVector<Operation *> chain{op, castOp, mulOp};
    SmallVector<float> bias(channels, 0.0f);
    Value result = mulOp.getResult();
    if (auto addOp = dyn_cast_or_null<hl::AddOp>(soleUser(result))) {
      std::optional<SmallVector<float>> values =
          channelConstant(otherOperand(addOp, result), channels);
      if (values && getStaticType(addOp.getResult()) == getStaticType(result)) {
        bias = std::move(*values);
        chain.push_back(addOp);
        result = addOp.getResult();
      }
    }
    std::optional<float> clipMin;
    if (auto relu = dyn_cast_or_null<hl::ReluOp>(soleUser(result))) {
      clipMin = 0.0f;
      chain.push_back(relu);
    }

    FailureOr<Window> window = resolveWindow(
        xType.getShape().drop_front(2), wType.getShape().drop_front(2),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unsupported convolution");
    Window window2D = liftWindowTo2D(*window);

    Operation *last = chain.back();
    SmallVector<Location> locs = llvm::map_to_vector(
        chain, [](Operation *member) { return member->getLoc(); });
    Location loc = rewriter.getFusedLoc(locs);
    rewriter.setInsertionPoint(last);
    FailureOr<Value> remappedScale = rewriter.getRemappedValue(scale);
    if (failed(remappedScale))
      return rewriter.notifyMatchFailure(op, "scale cannot be converted");
    Value inputScale = asScalar(rewriter, loc, *remappedScale);
    auto zeroOf = [&](IntegerType element) {
      return rewriter
          .create<edge::ConstantOp>(
              loc, DenseElementsAttr::get(RankedTensorType::get({}, element),
                                          ArrayRef<APInt>(APInt(8, 0))))
          .getResult();
    };
    Value inputZeroPoint =
        xZeroPoint ? asScalar(rewriter, loc, xZeroPoint) : zeroOf(xElement);
    Value weightZeroPoint = !wZeroPoint ? zeroOf(wElement)
                            : wZp->size() == 1
                                ? asScalar(rewriter, loc, wZeroPoint)
                                : reshapeTo(rewriter, loc, wZeroPoint,
                                            {channels});
    auto f32 = rewriter.getF32Type();
    auto wScaleType = RankedTensorType::get(
        cast<RankedTensorType>(weightZeroPoint.getType()).getShape(), f32);
    Value weightScale = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(wScaleType, 1.0f));
    Value biasValue = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({channels}, f32),
                                    ArrayRef<float>(bias)));
    auto resultType = RankedTensorType::get(accType.getShape(), f32);
    Value conv = rewriter.create<edge::QuantizedConv2DOp>(
        loc, resultType, x, inputScale, inputZeroPoint, w, weightScale,
        weightZeroPoint, biasValue, /*output_scale=*/Value(),
        /*output_zero_point=*/Value(), /*residual=*/Value(),
        /*residual_scale=*/Value(), /*residual_zero_point=*/Value(),
        rewriter.getDenseI64ArrayAttr(window2D.strides),
        rewriter.getDenseI64ArrayAttr(window2D.dilations),
        rewriter.getDenseI64ArrayAttr(window2D.pads),
        rewriter.getI64IntegerAttr(op.getGroup()),
        clipMin ? rewriter.getF32FloatAttr(*clipMin) : FloatAttr(),
        /*clip_max=*/FloatAttr(), /*activation=*/StringAttr());
    rewriter.replaceOp(last, conv);
    for (Operation *member : llvm::reverse(ArrayRef(chain).drop_back()))
      rewriter.eraseOp(member);
    return success();
  }
};

} // namespace

void hl_to_edge::populateScaledConvIntegerPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScaledConvIntegerLowering>(converter, patterns.getContext());
}
