//===- WriteQuantized.cpp - oneDNN int8 ops -------------------------------===//
//
// Per-tensor quantize and dequantize as reorders with a scale;
// edge.quantized_conv2d and edge.quantized_matmul (whose epilogue, clamp
// and activation function the quantization passes already put on the op)
// as int8 convolutions and matmuls: oneDNN's output scales, the bias in
// accumulator units, the residual as a sum post-op and the clamp and
// activation as eltwise post-ops; or, where the input's scale or zero point
// is computed at run time or the weights have zero points, the zero-point
// form with run-time scales as binary post-ops.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include "Edge/IR/EdgeActivationChains.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace strata::onednn {
namespace {

/// The operands of a zero-point form: the input's tensors, its
/// one-element zero point and scale as tensors of dims [1] (the zero
/// point of the input's type) read at run time, and the constant weights
/// with their zero points and scales, and the bias (`channels` values).
struct ZeroPointOperands {
  uint32_t input, zeroPoint, scale;
  std::vector<int64_t> weights, weightZeroPoints;
  std::vector<float> weightScales, bias;
};

/// The epilogue of the zero-point forms: times the run-time `scale`,
/// plus the constant `bias` (seen with `biasDims`) where it is not 0,
/// then the clamp and activation function.
void addZeroPointEpilogue(GraphWriter &g, fbs::OpT &out, uint32_t scale,
                          ArrayRef<float> bias, ArrayRef<int64_t> biasDims,
                          FloatAttr clipMin, FloatAttr clipMax,
                          StringAttr activation);

/// Whether an integer op's result is its i32 sums (MatMulInteger,
/// ConvInteger): the zero-point form without an epilogue.
bool isSums(Value result) {
  return getElementTypeOrSelf(result.getType()).isSignlessInteger(32);
}

/// The post-op kind of an int8 op's `activation` (its verifier admits only
/// the names symbolizeActivationKind knows).
edge::PostOpKind activationKindOf(StringAttr activation) {
  switch (*edge::symbolizeActivationKind(activation.getValue())) {
  case edge::ActivationChain::Swish:
    return edge::PostOpKind::Swish;
  case edge::ActivationChain::HardSwish:
    return edge::PostOpKind::HardSwish;
  case edge::ActivationChain::GeluErf:
    break;
  }
  return edge::PostOpKind::GeluErf;
}

/// The output scale of an int8 op's result (1 for an f32 result).
float resultScale(Value outScale) {
  return outScale ? getFloatConstant(outScale)->front() : 1.0f;
}

/// The units an int8 op's post-ops run in: the result's (scale `y`), or
/// real values when an activation function must see them (a final linear
/// post-op then divides by `y`).
float postOpUnit(Value outScale, StringAttr activation) {
  return activation ? 1.0f : resultScale(outScale);
}

/// An int8 convolution: s8/u8 input, s8 weights, oneDNN's output scales
/// (input scale x weight scale, divided by the result's scale when it is
/// int8 and no activation function follows), the bias in accumulator units
/// (oneDNN 2.x adds it to the int32 sum before scaling), the residual as a
/// sum post-op scaled into the same units, the clamp as a relu or clip
/// post-op, and an activation function as an eltwise post-op on real
/// values followed by a linear one into the result's units.
LogicalResult setInt8Epilogue(GraphWriter &g, Operation *op, fbs::OpT &out,
                              Value inScale, Value wScale, Value bias,
                              Value outScale, int64_t channels,
                              FloatAttr clipMin, FloatAttr clipMax,
                              StringAttr activation) {
  std::optional<std::vector<float>> in = getFloatConstant(inScale);
  std::optional<std::vector<float>> w = getFloatConstant(wScale);
  std::optional<std::vector<float>> b = getFloatConstant(bias);
  if (!in || !w || !b || static_cast<int64_t>(b->size()) != channels)
    return op->emitError("the oneDNN delegate needs constant scales and "
                         "bias");
  if (w->size() == 1)
    w->assign(channels, w->front());
  float y = postOpUnit(outScale, activation);
  std::vector<float> scales(channels), accBias(channels);
  for (int64_t c = 0; c < channels; ++c) {
    float multiplier = in->front() * (*w)[c];
    scales[c] = multiplier / y;
    accBias[c] = (*b)[c] / multiplier;
  }
  out.inputs.push_back(g.constantTensor({channels}, accBias));
  out.output_scales = scales;
  std::optional<float> lo, hi;
  if (clipMin)
    lo = clipMin.getValueAsDouble();
  if (clipMax)
    hi = clipMax.getValueAsDouble();
  // An s8 result written as u8 saturates where s8 would: at 127.
  bool asUnsigned = g.unsignedValues.contains(op->getResult(0));
  if (lo || hi) {
    auto post = std::make_unique<fbs::PostOpT>();
    if (lo == 0.0f && !hi && !asUnsigned) {
      post->eltwise = fbs::EltwiseKind::Relu;
    } else {
      post->eltwise = fbs::EltwiseKind::Clip;
      post->alpha = lo ? *lo / y : -std::numeric_limits<float>::max();
      post->beta = hi ? *hi / y : std::numeric_limits<float>::max();
      if (asUnsigned)
        post->beta = std::min(post->beta, 127.0f);
    }
    out.post_ops.push_back(std::move(post));
  }
  if (activation) {
    out.post_ops.push_back(activationPostOp(activationKindOf(activation)));
    if (float z = resultScale(outScale); z != 1.0f)
      out.post_ops.push_back(linearPostOp(1.0f / z));
  }
  return success();
}

/// Whether an int8 convolution or matmul takes the zero-point form
/// (writeZeroPointConv / writeZeroPointMatMul): its input's scale is not a
/// constant positive scale, or its input's zero point is not a constant 0
/// (with an 8-bit result, any constant: the plain form's source zero
/// point), or its weights are u8 or have a zero point.
bool takesZeroPointForm(Value inputScale, Value inputZeroPoint, Value weight,
                        Value weightZeroPoint, Value result) {
  std::optional<std::vector<float>> scale = getFloatConstant(inputScale);
  auto allZero = [](Value v) {
    std::optional<std::vector<int64_t>> values = backends::getIntConstant(v);
    return values && llvm::all_of(*values, [](int64_t z) { return z == 0; });
  };
  std::optional<std::vector<int64_t>> zeroPoint =
      backends::getIntConstant(inputZeroPoint);
  bool inputOk = allZero(inputZeroPoint) ||
                 (isSigned8(result.getType()) && zeroPoint &&
                  zeroPoint->size() == 1);
  return isSums(result) || !scale || scale->size() != 1 ||
         scale->front() <= 0.0f || !inputOk ||
         !allZero(weightZeroPoint) ||
         isSigned8(weight.getType()) != std::optional(true);
}


/// The one-element tensor oneDNN reads `input`'s zero point from, of the
/// type input `x` is read with: a constant written as one byte (an s8
/// input read as u8 holds no negative values; its zero point must not
/// be), or the run-time value.
FailureOr<uint32_t> zeroPointTensor(GraphWriter &g, Value zeroPoint,
                                    uint32_t x) {
  fbs::DataType type = g.graph.tensors[x]->dtype;
  std::optional<std::vector<int64_t>> value = backends::getEightBitConstant(zeroPoint);
  uint32_t zp;
  if (value && value->size() == 1) {
    if (type == fbs::DataType::U8 && value->front() < 0)
      return failure();
    zp = g.int8ConstantTensor({1}, {static_cast<int8_t>(value->front())});
  } else {
    FailureOr<uint32_t> t = g.tensor(zeroPoint);
    if (failed(t))
      return failure();
    zp = *t;
    if (g.graph.tensors[zp]->dims.empty())
      g.graph.tensors[zp]->dims = {1};
  }
  g.graph.tensors[zp]->dtype = type;
  return zp;
}

/// The plain form's zero points: the input's as oneDNN's source zero point
/// (a one-element tensor read at run time) where it is not 0, and the
/// result's as a final linear post-op adding it (before the rounding and
/// saturation into the 8-bit result, so round(v) + z = round(v + z)).
LogicalResult setPlainZeroPoints(GraphWriter &g, fbs::OpT &out, Value input,
                                 Value inputZeroPoint, Value outputZeroPoint) {
  std::optional<std::vector<int64_t>> in = backends::getEightBitConstant(inputZeroPoint);
  if (in && in->size() == 1 && in->front() != 0) {
    FailureOr<uint32_t> x = g.tensor(input);
    if (failed(x))
      return failure();
    FailureOr<uint32_t> zp = zeroPointTensor(g, inputZeroPoint, *x);
    if (failed(zp))
      return failure();
    out.src_zero_point = static_cast<int32_t>(*zp);
  }
  if (!outputZeroPoint)
    return success();
  std::optional<std::vector<int64_t>> z = backends::getEightBitConstant(outputZeroPoint);
  if (!z || z->size() != 1)
    return failure();
  if (z->front() != 0) {
    std::unique_ptr<fbs::PostOpT> post = linearPostOp(1.0f);
    post->beta = static_cast<float>(z->front());
    out.post_ops.push_back(std::move(post));
  }
  return success();
}

std::optional<ZeroPointOperands>
readZeroPointOperands(GraphWriter &g, Value input, Value zeroPoint, Value scale,
                      Value weight, Value weightZeroPoint, Value weightScale,
                      Value bias, int64_t channels) {
  FailureOr<uint32_t> x = g.tensor(input);
  FailureOr<uint32_t> zp = succeeded(x) ? zeroPointTensor(g, zeroPoint, *x)
                                        : FailureOr<uint32_t>(failure());
  FailureOr<uint32_t> s = g.tensor(scale);
  std::optional<std::vector<int64_t>> w = backends::getEightBitConstant(weight);
  std::optional<std::vector<int64_t>> wZp = backends::getEightBitConstant(weightZeroPoint);
  std::optional<std::vector<float>> wScale = getFloatConstant(weightScale);
  std::optional<std::vector<float>> b = getFloatConstant(bias);
  if (failed(x) || failed(zp) || failed(s) || !w || !wZp || wZp->empty() ||
      !wScale || !b || static_cast<int64_t>(b->size()) != channels)
    return std::nullopt;
  // The delegate's tensors have rank 1 at least: a scalar is [1]; the
  // zero point has the input's type.
  if (g.graph.tensors[*s]->dims.empty())
    g.graph.tensors[*s]->dims = {1};
  return ZeroPointOperands{
      *x,           *zp, *s, std::move(*w), std::move(*wZp), std::move(*wScale),
      std::move(*b)};
}

LogicalResult writeZeroPointConv(GraphWriter &g, edge::QuantizedConv2DOp conv) {
  auto wType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t channels = wType.getDimSize(0);
  std::optional<ZeroPointOperands> q = readZeroPointOperands(
      g, conv.getInput(), conv.getInputZeroPoint(), conv.getInputScale(),
      conv.getWeight(), conv.getWeightZeroPoint(), conv.getWeightScale(),
      conv.getBias(), channels);
  if (!q)
    return conv.emitError("the oneDNN delegate needs constant weights, "
                          "weight zero points, weight scales and bias");
  // weight - zero point lies in [-255, 255]: s8 part d1 = clamp(d, -128,
  // 127) and the rest d2 = d - d1, a second convolution (summed into the
  // first's result) only where some d2 is not 0. The sums stay integers.
  std::vector<int8_t> low(q->weights.size()), high(q->weights.size());
  bool needsHigh = false;
  int64_t perChannel = q->weights.size() / channels;
  for (size_t i = 0; i < q->weights.size(); ++i) {
    int64_t d =
        q->weights[i] -
        q->weightZeroPoints[q->weightZeroPoints.size() == 1 ? 0
                                                            : i / perChannel];
    int64_t d1 = std::clamp<int64_t>(d, -128, 127);
    low[i] = static_cast<int8_t>(d1);
    high[i] = static_cast<int8_t>(d - d1);
    needsHigh |= d != d1;
  }
  SmallVector<int64_t> wDims(wType.getShape());
  auto convolution = [&](ArrayRef<int8_t> weights) -> fbs::OpT & {
    fbs::OpT &out = g.addOp(fbs::OpKind::Convolution, conv);
    out.inputs = {q->input, g.int8ConstantTensor(wDims, weights)};
    out.src_zero_point = static_cast<int32_t>(q->zeroPoint);
    setConvGeometry(out, conv);
    if (llvm::any_of(q->weightScales, [](float s) { return s != 1.0f; }))
      out.output_scales = q->weightScales;
    return out;
  };
  auto resultShape = cast<RankedTensorType>(conv.getType()).getShape();
  int32_t partial = -1;
  if (needsHigh) {
    fbs::OpT &first = convolution(low);
    auto t = std::make_unique<fbs::TensorT>();
    t->dims.assign(resultShape.begin(), resultShape.end());
    if (isSums(conv.getResult()))
      t->dtype = fbs::DataType::S32;
    g.graph.tensors.push_back(std::move(t));
    partial = static_cast<int32_t>(g.graph.tensors.size() - 1);
    first.outputs = {static_cast<uint32_t>(partial)};
  }
  fbs::OpT &out = convolution(needsHigh ? high : low);
  if (partial >= 0) {
    auto sum = std::make_unique<fbs::PostOpT>();
    sum->is_sum = true;
    sum->sum_input = partial;
    out.post_ops.push_back(std::move(sum));
  }
  if (!isSums(conv.getResult()))
    addZeroPointEpilogue(g, out, q->scale, q->bias, {channels, 1, 1},
                         conv.getClipMinAttr(), conv.getClipMaxAttr(),
                         conv.getActivationAttr());
  out.outputs = {g.newTensor(conv.getResult())};
  return success();
}

void addZeroPointEpilogue(GraphWriter &g, fbs::OpT &out, uint32_t scale,
                          ArrayRef<float> bias, ArrayRef<int64_t> biasDims,
                          FloatAttr clipMin, FloatAttr clipMax,
                          StringAttr activation) {
  auto binary = [&](fbs::BinaryKind kind, uint32_t input) {
    auto post = std::make_unique<fbs::PostOpT>();
    post->binary = kind;
    post->binary_input = static_cast<int32_t>(input);
    out.post_ops.push_back(std::move(post));
  };
  binary(fbs::BinaryKind::Mul, scale);
  if (llvm::any_of(bias, [](float b) { return b != 0.0f; }))
    binary(fbs::BinaryKind::Add, g.constantTensor(biasDims, bias));
  if (clipMin || clipMax) {
    auto post = std::make_unique<fbs::PostOpT>();
    if (clipMin && clipMin.getValueAsDouble() == 0.0 && !clipMax) {
      post->eltwise = fbs::EltwiseKind::Relu;
    } else {
      post->eltwise = fbs::EltwiseKind::Clip;
      post->alpha = clipMin ? clipMin.getValueAsDouble()
                            : -std::numeric_limits<float>::max();
      post->beta = clipMax ? clipMax.getValueAsDouble()
                           : std::numeric_limits<float>::max();
    }
    out.post_ops.push_back(std::move(post));
  }
  if (activation)
    out.post_ops.push_back(activationPostOp(activationKindOf(activation)));
}

LogicalResult writeZeroPointMatMul(GraphWriter &g,
                                   edge::QuantizedMatMulOp matmul) {
  auto wType = cast<RankedTensorType>(matmul.getRhs().getType());
  int64_t channels = wType.getDimSize(1);
  std::optional<ZeroPointOperands> q = readZeroPointOperands(
      g, matmul.getLhs(), matmul.getLhsZeroPoint(), matmul.getLhsScale(),
      matmul.getRhs(), matmul.getRhsZeroPoint(), matmul.getRhsScale(),
      matmul.getBias(), channels);
  if (!q || !llvm::all_equal(q->weightZeroPoints))
    return matmul.emitError("the oneDNN delegate needs constant weights, "
                            "one weight zero point, weight scales and bias");
  // oneDNN's int8 weights are s8: u8 ones and their zero point less 128
  // (the differences, and so the sums, are the same).
  bool isUnsigned = isSigned8(wType) == std::optional(false);
  int64_t shift = isUnsigned ? 128 : 0;
  std::vector<int8_t> weights(q->weights.size());
  for (size_t i = 0; i < q->weights.size(); ++i)
    weights[i] = static_cast<int8_t>(q->weights[i] - shift);
  SmallVector<int64_t> wDims(wType.getShape());
  fbs::OpT &out = g.addOp(fbs::OpKind::MatMul, matmul);
  out.inputs = {q->input, g.int8ConstantTensor(wDims, weights)};
  out.src_zero_point = static_cast<int32_t>(q->zeroPoint);
  out.weights_zero_point =
      static_cast<int32_t>(q->weightZeroPoints.front() - shift);
  if (llvm::any_of(q->weightScales, [](float s) { return s != 1.0f; }))
    out.output_scales = q->weightScales;
  if (!isSums(matmul.getResult()))
    addZeroPointEpilogue(g, out, q->scale, q->bias, {channels},
                         matmul.getClipMinAttr(), matmul.getClipMaxAttr(),
                         matmul.getActivationAttr());
  out.outputs = {g.newTensor(matmul.getResult())};
  return success();
}

LogicalResult writeQuantizedConv(GraphWriter &g, edge::QuantizedConv2DOp conv) {
  if (takesZeroPointForm(conv.getInputScale(), conv.getInputZeroPoint(),
                         conv.getWeight(), conv.getWeightZeroPoint(),
                         conv.getResult()))
    return writeZeroPointConv(g, conv);
  FailureOr<uint32_t> x = g.tensor(conv.getInput()),
                      w = g.tensor(conv.getWeight());
  FailureOr<uint32_t> r = conv.getResidual() ? g.tensor(conv.getResidual())
                                             : FailureOr<uint32_t>(0u);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  int64_t channels =
      cast<RankedTensorType>(conv.getWeight().getType()).getDimSize(0);
  fbs::OpT &out = g.addOp(fbs::OpKind::Convolution, conv);
  out.inputs = {*x, *w};
  setConvGeometry(out, conv);
  // The residual is a sum post-op ahead of the activation.
  if (conv.getResidual()) {
    float y = postOpUnit(conv.getOutputScale(), conv.getActivationAttr());
    auto sum = std::make_unique<fbs::PostOpT>();
    sum->is_sum = true;
    sum->sum_input = static_cast<int32_t>(*r);
    sum->scale = getFloatConstant(conv.getResidualScale())->front() / y;
    out.post_ops.push_back(std::move(sum));
  }
  if (failed(setInt8Epilogue(g, conv, out, conv.getInputScale(),
                             conv.getWeightScale(), conv.getBias(),
                             conv.getOutputScale(), channels,
                             conv.getClipMinAttr(), conv.getClipMaxAttr(),
                             conv.getActivationAttr())) ||
      failed(setPlainZeroPoints(g, out, conv.getInput(),
                                conv.getInputZeroPoint(),
                                conv.getOutputZeroPoint())))
    return failure();
  out.outputs = {g.newTensor(conv.getResult())};
  return success();
}

LogicalResult writeQuantizedMatMul(GraphWriter &g,
                                   edge::QuantizedMatMulOp matmul) {
  if (takesZeroPointForm(matmul.getLhsScale(), matmul.getLhsZeroPoint(),
                         matmul.getRhs(), matmul.getRhsZeroPoint(),
                         matmul.getResult()))
    return writeZeroPointMatMul(g, matmul);
  FailureOr<uint32_t> a = g.tensor(matmul.getLhs()),
                      b = g.tensor(matmul.getRhs());
  if (failed(a) || failed(b))
    return failure();
  int64_t channels =
      cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
  fbs::OpT &out = g.addOp(fbs::OpKind::MatMul, matmul);
  out.inputs = {*a, *b};
  if (failed(setInt8Epilogue(g, matmul, out, matmul.getLhsScale(),
                             matmul.getRhsScale(), matmul.getBias(),
                             matmul.getOutputScale(), channels,
                             matmul.getClipMinAttr(), matmul.getClipMaxAttr(),
                             matmul.getActivationAttr())) ||
      failed(setPlainZeroPoints(g, out, matmul.getLhs(),
                                matmul.getLhsZeroPoint(),
                                matmul.getOutputZeroPoint())))
    return failure();
  out.outputs = {g.newTensor(matmul.getResult())};
  return success();
}

/// A per-tensor (de)quantization: a reorder scaling by 1/scale (into int8)
/// or by scale (into f32).
LogicalResult writeReorder(GraphWriter &g, Operation *op) {
  FailureOr<uint32_t> x = g.tensor(op->getOperand(0));
  std::optional<std::vector<float>> scale = getFloatConstant(op->getOperand(1));
  if (failed(x) || !scale || scale->size() != 1)
    return op->emitError("the oneDNN delegate needs a constant scale");
  fbs::OpT &out = g.addOp(fbs::OpKind::Reorder, op);
  out.inputs = {*x};
  out.output_scales = {isa<edge::QuantizeLinearOp>(op) ? 1.0f / scale->front()
                                                       : scale->front()};
  out.outputs = {g.newTensor(op->getResult(0))};
  return success();
}

} // namespace

void addQuantizedWriters(WriteTable &table) {
  table.on(writeQuantizedConv)
      .on(writeQuantizedMatMul)
      .onEach<edge::QuantizeLinearOp, edge::DequantizeLinearOp>(writeReorder);
}

} // namespace strata::onednn
