//===- NN.cpp - ONNX convolution, pooling and normalisation to hl ---------===//
//
// Normalisations here: BatchNormalization keeps only its inference form,
// Softmax/LogSoftmax/Hardmax before opset 13 (2-D coercion at `axis`) become
// flatten + op + reshape, Dropout in inference is the identity.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::importer {

/// BatchNormalization in inference mode.
static LogicalResult convertBatchNorm(NodeContext &ctx) {
  if (ctx.getInt("training_mode", 0) != 0)
    return ctx.emitError() << "training mode is not supported";
  for (unsigned i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.emitError()
             << "running statistics outputs (training) are not supported";
  if (ctx.opset() < 9 && ctx.getInt("spatial", 1) != 1)
    return ctx.emitError() << "spatial = 0 is not supported";
  ctx.setOutput(
      0, ctx.create<hl::BatchNormalizationOp>(
             ctx.outputType(0), ctx.input(0), ctx.input(1), ctx.input(2),
             ctx.input(3), ctx.input(4),
             ctx.builder().getF32FloatAttr(ctx.getFloat("epsilon", 1e-5f))));
  return success();
}

/// LpPool as the sum its definition is: (sum over the window of
/// |x|^p)^(1/p), the sum a depthwise convolution by ones (padding adds
/// zeros, as LpPool's does). Exact for p = 1 and 2 up to the summation
/// order; other p go through pow.
static LogicalResult convertLpPool(NodeContext &ctx) {
  auto type = dyn_cast<RankedTensorType>(ctx.input(0).getType());
  std::optional<SmallVector<int64_t>> kernel = ctx.getInts("kernel_shape");
  if (!type || !type.hasStaticShape() || type.getRank() < 3 ||
      !type.getElementType().isF32() || !kernel ||
      static_cast<int64_t>(kernel->size()) != type.getRank() - 2)
    return ctx.emitError() << "needs a static f32 input of rank 3 or more "
                              "and kernel_shape for each spatial axis";
  if (llvm::any_of(*kernel, [](int64_t k) { return k < 1 || k > (1 << 20); }))
    return ctx.emitError() << "kernel_shape extents must be in [1, 2^20]";
  if (ctx.getString("auto_pad", "NOTSET") != "NOTSET")
    return ctx.emitError() << "auto_pad other than NOTSET is not supported";
  int64_t p = ctx.getInt("p", 2);
  if (p < 1)
    return ctx.emitError() << "p must be at least 1, got " << p;
  OpBuilder &b = ctx.builder();
  Type tensorType = type;
  Value magnitude = ctx.create<hl::AbsOp>(tensorType, ctx.input(0));
  Value powered = magnitude;
  if (p == 2)
    powered = ctx.create<hl::MulOp>(tensorType, magnitude, magnitude);
  else if (p > 2)
    powered = ctx.create<hl::PowOp>(
        tensorType, magnitude,
        ctx.constScalar(b.getF32Type(), static_cast<double>(p)));
  int64_t channels = type.getDimSize(1);
  SmallVector<int64_t> wShape{channels, 1};
  llvm::append_range(wShape, *kernel);
  auto wType = RankedTensorType::get(wShape, b.getF32Type());
  Value ones = b.create<hl::ConstantOp>(ctx.loc(), wType,
                                        DenseElementsAttr::get(wType, 1.0f));
  std::optional<SmallVector<int64_t>> pads = ctx.getInts("pads");
  std::optional<SmallVector<int64_t>> strides = ctx.getInts("strides");
  std::optional<SmallVector<int64_t>> dilations = ctx.getInts("dilations");
  auto arrayOr = [&](const std::optional<SmallVector<int64_t>> &v) {
    return v ? b.getDenseI64ArrayAttr(*v) : DenseI64ArrayAttr();
  };
  Value sum = ctx.create<hl::ConvOp>(
      ctx.outputType(0), powered, ones, Value(), b.getStringAttr("NOTSET"),
      arrayOr(dilations), b.getI64IntegerAttr(channels),
      b.getDenseI64ArrayAttr(*kernel), arrayOr(pads), arrayOr(strides));
  Type resultType = sum.getType();
  Value result = sum;
  if (p == 2)
    result = ctx.create<hl::SqrtOp>(resultType, sum);
  else if (p > 2)
    result = ctx.create<hl::PowOp>(resultType, sum,
                                   ctx.constScalar(b.getF32Type(), 1.0 / p));
  ctx.setOutput(0, result);
  return success();
}

/// LayerNormalization with its optional mean/inv-std-dev results.
static LogicalResult convertLayerNorm(NodeContext &ctx) {
  SmallVector<Type> types = {ctx.outputType(0)};
  SmallVector<int32_t> segments = {1, 0, 0};
  for (unsigned i = 1; i < 3; ++i)
    if (ctx.hasOutput(i)) {
      types.push_back(ctx.outputType(i));
      segments[i] = 1;
    }
  OpBuilder &b = ctx.builder();
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("axis", b.getI64IntegerAttr(ctx.getInt("axis", -1))),
      b.getNamedAttr("epsilon",
                     b.getF32FloatAttr(ctx.getFloat("epsilon", 1e-5f))),
      b.getNamedAttr("stash_type",
                     b.getI64IntegerAttr(ctx.getInt("stash_type", 1))),
      b.getNamedAttr("resultSegmentSizes", b.getDenseI32ArrayAttr(segments))};
  auto op = ctx.builder().create<hl::LayerNormalizationOp>(
      ctx.loc(), types, ctx.presentInputs(), attrs);
  ctx.setOutput(0, op.getOutput());
  if (segments[1])
    ctx.setOutput(1, op.getMean());
  if (segments[2])
    ctx.setOutput(2, op.getInvStdDev());
  return success();
}

/// Softmax, LogSoftmax, Hardmax. Opset 13 takes one axis; earlier opsets
/// coerce the input to 2-D at `axis` (default 1), which is the same as the
/// opset-13 form when `axis` is the last dimension and otherwise becomes
/// flatten -> op(axis = -1) -> reshape (also for an input of unknown
/// rank).
template <typename OpTy> static LogicalResult convertSoftmax(NodeContext &ctx) {
  Value input = ctx.input(0);
  Type resultType = ctx.outputType(0);
  OpBuilder &b = ctx.builder();
  if (ctx.opset() >= 13) {
    ctx.setOutput(0, ctx.create<OpTy>(resultType, input,
                                      getSI64Attr(b, ctx.getInt("axis", -1))));
    return success();
  }
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType) {
    // A rank ONNX could not infer (an exporter's reshape to a computed
    // shape): the same flatten -> op -> reshape, back to the input's shape
    // read at run time; shape refinement resolves what it can later.
    Type element = getElementTypeOrSelf(input.getType());
    auto flatType = RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic}, element);
    Value flat = ctx.create<hl::FlattenOp>(
        flatType, input, getSI64Attr(b, ctx.getInt("axis", 1)));
    Value soft = ctx.create<OpTy>(flatType, flat, getSI64Attr(b, -1));
    Value targetShape = ctx.create<hl::ShapeOp>(
        RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type()), input,
        b.getI64IntegerAttr(0), IntegerAttr());
    ctx.setOutput(0, ctx.create<hl::ReshapeOp>(resultType, soft, targetShape,
                                               b.getI64IntegerAttr(0)));
    return success();
  }
  int64_t rank = inputType.getRank();
  int64_t axis = ctx.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis == rank - 1 || rank == 0) {
    ctx.setOutput(0, ctx.create<OpTy>(resultType, input, getSI64Attr(b, -1)));
    return success();
  }
  auto product = [&](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t d : dims) {
      if (ShapedType::isDynamic(d))
        return ShapedType::kDynamic;
      p *= d;
    }
    return p;
  };
  ArrayRef<int64_t> shape = inputType.getShape();
  auto flatType = RankedTensorType::get(
      {product(shape.take_front(axis)), product(shape.drop_front(axis))},
      inputType.getElementType());
  Value flat = ctx.create<hl::FlattenOp>(flatType, input, getSI64Attr(b, axis));
  Value soft = ctx.create<OpTy>(flatType, flat, getSI64Attr(b, -1));
  Value targetShape = inputType.hasStaticShape()
                          ? ctx.constI64(shape)
                          : ctx.create<hl::ShapeOp>(
                                RankedTensorType::get({rank}, b.getI64Type()),
                                input, b.getI64IntegerAttr(0), IntegerAttr());
  ctx.setOutput(0, ctx.create<hl::ReshapeOp>(resultType, soft, targetShape,
                                             b.getI64IntegerAttr(0)));
  return success();
}

/// Whether `ratio` (Dropout's optional input 1; absent means 0.5) is a
/// constant zero.
static bool isZeroRatio(Value ratio) {
  DenseFPElementsAttr value;
  return ratio && matchPattern(ratio, m_Constant(&value)) &&
         llvm::all_of(value.getValues<APFloat>(),
                      [](const APFloat &v) { return v.isZero(); });
}

/// Dropout at inference: the identity; the optional mask is all true. So is
/// training-mode Dropout with a constant ratio of 0, which keeps every
/// element at scale 1/(1 - 0) (PyTorch exports F.dropout(x, p=0.0), whose
/// `training` defaults to true, in that form: torchvision's Swin).
static LogicalResult convertDropout(NodeContext &ctx) {
  if (Value training = ctx.input(2)) {
    DenseIntElementsAttr value;
    if (!matchPattern(training, m_Constant(&value)) ||
        (llvm::any_of(value.getValues<APInt>(),
                      [](const APInt &v) { return !v.isZero(); }) &&
         !isZeroRatio(ctx.input(1))))
      return ctx.emitError()
             << "only inference (training_mode = false, or a constant ratio "
                "of 0) is supported";
  }
  Value input = ctx.input(0);
  ctx.setOutput(0, ctx.create<hl::IdentityOp>(input.getType(), input));
  if (ctx.hasOutput(1)) {
    // The mask has the input's shape: of unknown rank until shape
    // refinement knows the input's (an unused mask is dropped later).
    Type maskType = ctx.outputType(1, ctx.builder().getI1Type());
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    int64_t rank = inputType ? inputType.getRank() : ShapedType::kDynamic;
    Value shape = ctx.create<hl::ShapeOp>(
        RankedTensorType::get({rank}, ctx.builder().getI64Type()), input,
        ctx.builder().getI64IntegerAttr(0), IntegerAttr());
    auto one = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.builder().getI1Type()), true);
    ctx.setOutput(1, ctx.create<hl::ConstantOfShapeOp>(maskType, shape, one));
  }
  return success();
}

/// RNN, GRU and LSTM. ONNX's inference leaves the results open where the
/// input's extents came through a computation it does not follow (Silero
/// VAD's decoder feeds its LSTM from a folded conditional squeeze); they
/// follow from X ([seq, batch, input], or [batch, seq, input] with
/// layout = 1), the direction and `hidden_size`.
template <typename OpTy, unsigned Operands, unsigned Results>
static LogicalResult convertRecurrent(NodeContext &ctx) {
  auto x = dyn_cast_or_null<RankedTensorType>(
      ctx.input(0) ? ctx.input(0).getType() : Type());
  int64_t hidden = ctx.getInt("hidden_size", 0);
  if (x && x.hasStaticShape() && x.getRank() == 3 && hidden > 0) {
    bool batchFirst = ctx.getInt("layout", 0) == 1;
    int64_t seq = x.getDimSize(batchFirst ? 1 : 0);
    int64_t batch = x.getDimSize(batchFirst ? 0 : 1);
    int64_t directions =
        ctx.getString("direction", "forward") == "bidirectional" ? 2 : 1;
    if (batchFirst)
      ctx.refineOutputShape(0, {batch, seq, directions, hidden});
    else
      ctx.refineOutputShape(0, {seq, directions, batch, hidden});
    for (unsigned i = 1; i < Results; ++i)
      ctx.refineOutputShape(
          i, batchFirst ? SmallVector<int64_t>{batch, directions, hidden}
                        : SmallVector<int64_t>{directions, batch, hidden});
  }
  return ctx.convertGeneric(OpTy::getOperationName(), {}, Operands, Results);
}

void populateNNHandlers(OpTable &t) {
  t.on("Conv", 1, generic<hl::ConvOp>());
  t.on("ConvTranspose", 1, generic<hl::ConvTransposeOp>());
  // DeformConv is opset 19; its schema is registered at 17 (ONNXChecks.cpp).
  t.on("DeformConv", 17, generic<hl::DeformConvOp>({}, 5));
  t.on("Gemm", 7, generic<hl::GemmOp>());
  t.on("MatMul", 1, generic<hl::MatMulOp>());
  t.on("MaxPool", 1, generic<hl::MaxPoolOp>());
  t.on("AveragePool", 1, generic<hl::AveragePoolOp>());
  t.on("LpPool", 1, convertLpPool);
  t.on("GlobalAveragePool", 1, generic<hl::GlobalAveragePoolOp>());
  t.on("GlobalMaxPool", 1, generic<hl::GlobalMaxPoolOp>());
  t.on("BatchNormalization", 7, convertBatchNorm);
  t.on("InstanceNormalization", 6, generic<hl::InstanceNormalizationOp>());
  t.on("LayerNormalization", 17, convertLayerNorm);
  t.on("LRN", 1, generic<hl::LRNOp>());
  t.on("MeanVarianceNormalization", 9,
       generic<hl::MeanVarianceNormalizationOp>());
  t.on("Softmax", 1, convertSoftmax<hl::SoftmaxOp>);
  t.on("LogSoftmax", 1, convertSoftmax<hl::LogSoftmaxOp>);
  t.on("Hardmax", 1, convertSoftmax<hl::HardmaxOp>);
  t.on("Dropout", 7, convertDropout);
  // Recurrent layers: optional operands and results become segment sizes.
  t.on("RNN", 7, convertRecurrent<hl::RNNOp, 6, 2>);
  t.on("GRU", 7, convertRecurrent<hl::GRUOp, 6, 2>);
  t.on("LSTM", 7, convertRecurrent<hl::LSTMOp, 8, 3>);
}

} // namespace strata::importer
