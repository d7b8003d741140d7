//===- Preprocess.cpp - an outlined partition as a oneDNN graph blob ------===//
//
// Writes the partition as the delegate's plain graph (onednn_graph.fbs):
// one tensor per value, constants as named data, one op per edge op except
// where a chain fuses into post-ops:
//
//   conv2d -> add(residual) -> relu/clip   convolution + sum + eltwise
//   conv2d -> relu/clip                    convolution + eltwise
//   matmul -> add(constant [.., N]) -> relu   matmul + bias + eltwise
//   add -> relu                             binary + eltwise
//   mul(constant) -> add(constant) -> relu  scale-shift (binary mul + add
//                                           post-op) + eltwise
//   conv2d / matmul -> GELU (Erf form)      convolution / matmul + gelu_erf
//   conv2d / matmul -> x * sigmoid(x)       convolution / matmul + swish
//   conv2d / matmul -> hardswish            convolution / matmul + hardswish
//   GELU, SiLU, hardswish (EdgeActivationChains.h) eltwise gelu_erf, swish, ...
//   LayerNorm chain (LayerNorm.cpp)         layer_normalization
//
// A link fuses only when the intermediate value has that single use. Then
// the delegate's prepare step (oneDNN itself) picks layouts and pre-packs
// the weights; see lib/Runtime/Delegates/OneDNN.
//
//===----------------------------------------------------------------------===//
#include "OneDNNBackend.h"

#include "Common/ConstantBytes.h"
#include "Edge/IR/EdgeAttributes.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;
namespace fbs = strata::onednn::fb;

namespace strata::onednn {
namespace {

class GraphWriter {
public:
  GraphWriter(func::FuncOp func) : func(func) {}
  LogicalResult write();

  fbs::GraphT graph;
  backends::ConstantBytes constants;
  std::map<std::string, std::vector<std::string>> debugHandles;

private:
  FailureOr<uint32_t> tensor(Value value);
  uint32_t newTensor(Value value);
  /// A new f32 constant tensor holding `values`.
  uint32_t constantTensor(ArrayRef<int64_t> dims, ArrayRef<float> values);
  LogicalResult writeQuantizedConv(edge::QuantizedConv2DOp conv);
  /// A convolution of a dynamically quantized input (takesZeroPointForm):
  /// oneDNN's run-time source zero point, the weights less their zero
  /// point as one or two s8 convolutions, the run-time scale and the bias
  /// as binary post-ops, then the clamp and activation function.
  LogicalResult writeZeroPointConv(edge::QuantizedConv2DOp conv);
  /// The matmul form of writeZeroPointConv: oneDNN's weights zero point
  /// takes the weights' (one value), so one product suffices.
  LogicalResult writeZeroPointMatMul(edge::QuantizedMatMulOp matmul);
  /// The epilogue of the zero-point forms: times the run-time `scale`,
  /// plus the constant `bias` (seen with `biasDims`) where it is not 0,
  /// then the clamp and activation function.
  void addZeroPointEpilogue(fbs::OpT &out, uint32_t scale, ArrayRef<float> bias,
                            ArrayRef<int64_t> biasDims, FloatAttr clipMin,
                            FloatAttr clipMax, StringAttr activation);
  /// The operands of a zero-point form: the input's tensors, its
  /// one-element zero point and scale as tensors of dims [1] (the zero
  /// point of the input's type) read at run time, and the constant weights
  /// with their zero points and scales, and the bias (`channels` values).
  struct ZeroPointOperands {
    uint32_t input, zeroPoint, scale;
    std::vector<int64_t> weights, weightZeroPoints;
    std::vector<float> weightScales, bias;
  };
  std::optional<ZeroPointOperands>
  readZeroPointOperands(Value input, Value zeroPoint, Value scale, Value weight,
                        Value weightZeroPoint, Value weightScale, Value bias,
                        int64_t channels);
  /// A new s8 constant tensor holding `values`.
  uint32_t int8ConstantTensor(ArrayRef<int64_t> dims, ArrayRef<int8_t> values);
  LogicalResult writeQuantizedMatMul(edge::QuantizedMatMulOp matmul);
  /// The scales (per output channel) and bias (in accumulator units: oneDNN
  /// 2.x adds the bias before scaling) of an int8 op with input scale
  /// `inScale`, weight scales `wScale` (one or one per channel) and f32
  /// `bias`, writing into `outScale`.
  LogicalResult setInt8Epilogue(Operation *op, fbs::OpT &out, Value inScale,
                                Value wScale, Value bias, Value outScale,
                                int64_t channels, FloatAttr clipMin,
                                FloatAttr clipMax, StringAttr activation);
  LogicalResult writeOp(Operation *op);
  /// One LayerNorm op: inputs x, then gamma and beta when the chain has
  /// them (gamma as ones when only beta is given); epsilon as alpha.
  LogicalResult writeLayerNorm(const LayerNormChain &chain);
  fbs::OpT &addOp(fbs::OpKind kind, ArrayRef<Operation *> from);
  /// The single user of `value`, when it has exactly one use.
  Operation *soleUser(Value value) const {
    return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
  }
  /// Fuses into `target` (the last op written) as an eltwise post-op the
  /// GELU, SiLU or hardswish chain that alone reads `result`, else `op`
  /// when it is a relu or clip; `result` becomes the fused result.
  bool fuseActivation(Operation *op, fbs::OpT &target, Value &result);
  /// Fuses into `target` (the last op written) the per-tensor quantization
  /// that alone reads `result`: a linear post-op by 1/scale, and the op
  /// writes s8, rounded and saturated as the reorder it replaces would.
  /// `result` becomes the quantized value.
  void fuseQuantize(fbs::OpT &target, Value &result);
  /// Marks `ops` fused into `target` (the last op written): their node
  /// names join its names and its debug handle.
  void fuseInto(fbs::OpT &target, ArrayRef<Operation *> ops);
  /// Dequantize -> global average pool -> quantize (squeeze-excite's
  /// pooling in an int8 network) as one int8 pooling: the mean of the s8
  /// values times inScale / outScale, rounded to s8. Fails, writing
  /// nothing, where `dq` does not start that chain.
  LogicalResult writeInt8GlobalAveragePool(edge::DequantizeLinearOp dq,
                                           uint32_t x, float inScale);

  /// Finds the s8 values that oneDNN may read as u8 (`unsignedValues`).
  void findUnsignedValues();

  func::FuncOp func;
  llvm::DenseMap<Value, uint32_t> tensors;
  llvm::DenseSet<Operation *> fused;
  /// s8 values known non-negative (a quantized conv or matmul clamped at
  /// zero writes them, or a max pooling of one) whose every reader takes
  /// u8: their bytes are the same in u8, and oneDNN 2.6 has faster int8
  /// kernels for u8 sources (brgconv and brdgmm_dw instead of jit_int8; no
  /// s8 compensation).
  llvm::DenseSet<Value> unsignedValues;
};

uint32_t GraphWriter::newTensor(Value value) {
  auto t = std::make_unique<fbs::TensorT>();
  for (int64_t d : cast<RankedTensorType>(value.getType()).getShape())
    t->dims.push_back(d);
  if (std::optional<bool> isSigned = isSigned8(value.getType()))
    t->dtype = *isSigned && !unsignedValues.contains(value) ? fbs::DataType::S8
                                                            : fbs::DataType::U8;
  graph.tensors.push_back(std::move(t));
  uint32_t index = graph.tensors.size() - 1;
  tensors[value] = index;
  return index;
}

FailureOr<uint32_t> GraphWriter::tensor(Value value) {
  auto it = tensors.find(value);
  if (it != tensors.end())
    return it->second;
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return func.emitError("value used before it is defined");
  std::vector<uint8_t> bytes;
  if (std::optional<std::vector<float>> values =
          edge::readF32Constant(constant.getValue())) {
    bytes.resize(values->size() * sizeof(float));
    std::memcpy(bytes.data(), values->data(), bytes.size());
  } else if (isSigned8(value.getType())) {
    // int8 weights: their bytes as stored.
    auto elements = cast<ElementsAttr>(constant.getValue());
    auto dense = dyn_cast<DenseElementsAttr>(elements);
    if (dense && dense.isSplat()) {
      bytes.assign(elements.getNumElements(),
                   static_cast<uint8_t>(dense.getRawData().front()));
    } else {
      std::optional<ArrayRef<char>> raw = edge::getRawConstantData(elements);
      if (!raw ||
          static_cast<int64_t>(raw->size()) != elements.getNumElements())
        return constant.emitError("unreadable int8 constant");
      bytes.assign(raw->begin(), raw->end());
    }
  } else {
    return constant.emitError("the oneDNN delegate takes f32 or int8 "
                              "constants");
  }
  uint32_t index = newTensor(value);
  std::string key = func.getSymName().str() + "/t" + std::to_string(index);
  graph.tensors[index]->constant_key = key;
  constants.bytes[key] = std::move(bytes);
  return index;
}

uint32_t GraphWriter::constantTensor(ArrayRef<int64_t> dims,
                                     ArrayRef<float> values) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims.assign(dims.begin(), dims.end());
  graph.tensors.push_back(std::move(t));
  uint32_t index = graph.tensors.size() - 1;
  std::string key = func.getSymName().str() + "/t" + std::to_string(index);
  graph.tensors[index]->constant_key = key;
  std::vector<uint8_t> &bytes = constants.bytes[key];
  bytes.resize(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return index;
}

fbs::OpT &GraphWriter::addOp(fbs::OpKind kind, ArrayRef<Operation *> from) {
  auto op = std::make_unique<fbs::OpT>();
  op->kind = kind;
  fused.insert(from.begin(), from.end());
  backends::appendNodeNames(op->node_names, from);
  debugHandles[std::to_string(graph.ops.size())] = op->node_names;
  graph.ops.push_back(std::move(op));
  return *graph.ops.back();
}

/// An element-wise function with its parameters.
struct Eltwise {
  fbs::EltwiseKind kind;
  float alpha = 0, beta = 0;
};

/// The oneDNN element-wise function an edge op computes, if any.
static std::optional<Eltwise> eltwiseOf(Operation *op) {
  if (isa<edge::ReluOp>(op))
    return Eltwise{fbs::EltwiseKind::Relu};
  if (auto clip = dyn_cast<edge::ClipOp>(op))
    return Eltwise{fbs::EltwiseKind::Clip, clip.getMin().convertToFloat(),
                   clip.getMax().convertToFloat()};
  if (isa<edge::SigmoidOp>(op))
    return Eltwise{fbs::EltwiseKind::Sigmoid};
  if (isa<edge::TanhOp>(op))
    return Eltwise{fbs::EltwiseKind::Tanh};
  if (isa<edge::ExpOp>(op))
    return Eltwise{fbs::EltwiseKind::Exp};
  if (isa<edge::SqrtOp>(op))
    return Eltwise{fbs::EltwiseKind::Sqrt};
  if (isa<edge::AbsOp>(op))
    return Eltwise{fbs::EltwiseKind::Abs};
  if (isa<edge::LogOp>(op))
    return Eltwise{fbs::EltwiseKind::Log};
  if (isa<edge::NegOp>(op))
    return Eltwise{fbs::EltwiseKind::Linear, -1};
  if (isa<edge::PowOp>(op))
    return Eltwise{getScalarConstant(op->getOperand(1)) == 2.f
                       ? fbs::EltwiseKind::Square
                       : fbs::EltwiseKind::Sqrt};
  return std::nullopt;
}

/// The oneDNN function of an activation, and its alpha (swish's sigmoid
/// scale).
static fbs::EltwiseKind eltwiseKindOf(ActivationChain::Kind kind) {
  switch (kind) {
  case ActivationChain::Swish:
    return fbs::EltwiseKind::Swish;
  case ActivationChain::HardSwish:
    return fbs::EltwiseKind::HardSwish;
  case ActivationChain::GeluErf:
    break;
  }
  return fbs::EltwiseKind::GeluErf;
}
static float eltwiseAlphaOf(ActivationChain::Kind kind) {
  return kind == ActivationChain::Swish ? 1.0f : 0.0f;
}

bool GraphWriter::fuseActivation(Operation *op, fbs::OpT &target,
                                 Value &result) {
  if (std::optional<ActivationChain> chain = matchActivationOf(result)) {
    auto post = std::make_unique<fbs::PostOpT>();
    post->eltwise = eltwiseKindOf(chain->kind);
    post->alpha = eltwiseAlphaOf(chain->kind);
    target.post_ops.push_back(std::move(post));
    fuseInto(target, chain->ops);
    result = chain->output;
    return true;
  }
  if (!op || !isa<edge::ReluOp, edge::ClipOp>(op))
    return false;
  Eltwise e = *eltwiseOf(op);
  auto post = std::make_unique<fbs::PostOpT>();
  post->eltwise = e.kind;
  post->alpha = e.alpha;
  post->beta = e.beta;
  target.post_ops.push_back(std::move(post));
  fuseInto(target, op);
  result = op->getResult(0);
  return true;
}

void GraphWriter::fuseInto(fbs::OpT &target, ArrayRef<Operation *> ops) {
  fused.insert(ops.begin(), ops.end());
  backends::appendNodeNames(target.node_names, ops);
  debugHandles[std::to_string(graph.ops.size() - 1)] = target.node_names;
}

/// An eltwise post-op computing alpha * x.
static std::unique_ptr<fbs::PostOpT> linearPostOp(float alpha) {
  auto post = std::make_unique<fbs::PostOpT>();
  post->eltwise = fbs::EltwiseKind::Linear;
  post->alpha = alpha;
  post->beta = 0.0f;
  return post;
}

/// The scale of a per-tensor quantization into s8 with a constant,
/// positive scale; std::nullopt for any other.
static std::optional<float> s8QuantizeScale(edge::QuantizeLinearOp quantize) {
  if (!quantize || !isSigned8(quantize.getType()).value_or(false))
    return std::nullopt;
  std::optional<std::vector<float>> scale =
      getFloatConstant(quantize.getScale());
  if (!scale || scale->size() != 1 || !(scale->front() > 0))
    return std::nullopt;
  return scale->front();
}

void GraphWriter::fuseQuantize(fbs::OpT &target, Value &result) {
  auto quantize = dyn_cast_or_null<edge::QuantizeLinearOp>(soleUser(result));
  std::optional<float> scale = s8QuantizeScale(quantize);
  if (!scale)
    return;
  target.post_ops.push_back(linearPostOp(1.0f / *scale));
  fuseInto(target, quantize.getOperation());
  result = quantize.getResult();
}

LogicalResult
GraphWriter::writeInt8GlobalAveragePool(edge::DequantizeLinearOp dq, uint32_t x,
                                        float inScale) {
  auto reduce = dyn_cast_or_null<edge::ReduceMeanOp>(soleUser(dq.getResult()));
  if (!reduce || !reduce.getKeepDims() ||
      reduce.getAxes() != ArrayRef<int64_t>{2, 3} ||
      cast<RankedTensorType>(reduce.getType()).getRank() != 4)
    return failure();
  auto quantize =
      dyn_cast_or_null<edge::QuantizeLinearOp>(soleUser(reduce.getResult()));
  std::optional<float> outScale = s8QuantizeScale(quantize);
  if (!outScale)
    return failure();
  // addOp marks the three fused.
  fbs::OpT &out =
      addOp(fbs::OpKind::ReduceMean, {dq, reduce, quantize.getOperation()});
  out.inputs = {x};
  out.axes = {2, 3};
  out.post_ops.push_back(linearPostOp(inScale / *outScale));
  out.outputs = {newTensor(quantize.getResult())};
  return success();
}

static std::vector<int64_t> vec(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// Strides, dilations, pads and groups of a (float or int8) convolution.
template <typename ConvOp>
static void setConvGeometry(fbs::OpT &out, ConvOp conv) {
  ArrayRef<int64_t> pads = conv.getPads();
  out.strides = vec(conv.getStrides());
  out.dilations = vec(conv.getDilations());
  out.pads_begin = {pads[0], pads[1]};
  out.pads_end = {pads[2], pads[3]};
  out.groups = conv.getGroup();
}

LogicalResult GraphWriter::writeOp(Operation *op) {
  auto in = [&](unsigned i) { return tensor(op->getOperand(i)); };
  SmallVector<Operation *> chain{op};
  Value result = op->getResult(0);

  if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op))
    return writeQuantizedConv(conv);
  if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(op))
    return writeQuantizedMatMul(matmul);
  if (isa<edge::QuantizeLinearOp, edge::DequantizeLinearOp>(op)) {
    // A per-tensor (de)quantization: a reorder scaling by 1/scale (into
    // int8) or by scale (into f32).
    FailureOr<uint32_t> x = in(0);
    std::optional<std::vector<float>> scale =
        getFloatConstant(op->getOperand(1));
    if (failed(x) || !scale || scale->size() != 1)
      return op->emitError("the oneDNN delegate needs a constant scale");
    if (auto dq = dyn_cast<edge::DequantizeLinearOp>(op))
      if (succeeded(writeInt8GlobalAveragePool(dq, *x, scale->front())))
        return success();
    fbs::OpT &out = addOp(fbs::OpKind::Reorder, chain);
    out.inputs = {*x};
    out.output_scales = {isa<edge::QuantizeLinearOp>(op) ? 1.0f / scale->front()
                                                         : scale->front()};
    out.outputs = {newTensor(result)};
    return success();
  }

  if (auto conv = dyn_cast<edge::Conv2DOp>(op)) {
    FailureOr<uint32_t> x = in(0), w = in(1);
    if (failed(x) || failed(w))
      return failure();
    std::vector<uint32_t> inputs{*x, *w};
    if (conv.getBias()) {
      FailureOr<uint32_t> b = tensor(conv.getBias());
      if (failed(b))
        return failure();
      inputs.push_back(*b);
    }
    std::unique_ptr<fbs::PostOpT> sum;
    Operation *next = soleUser(result);
    if (next && isa<edge::AddOp>(next) &&
        next->getOperand(0).getType() == next->getOperand(1).getType()) {
      Value residual = next->getOperand(0) == result ? next->getOperand(1)
                                                     : next->getOperand(0);
      // The residual must already exist when the convolution runs.
      bool ready =
          tensors.count(residual) || residual.getDefiningOp<edge::ConstantOp>();
      if (residual != result && ready) {
        FailureOr<uint32_t> r = tensor(residual);
        if (failed(r))
          return failure();
        sum = std::make_unique<fbs::PostOpT>();
        sum->is_sum = true;
        sum->sum_input = static_cast<int32_t>(*r);
        chain.push_back(next);
        result = next->getResult(0);
        next = soleUser(result);
      }
    }
    fbs::OpT &out = addOp(fbs::OpKind::Convolution, chain);
    out.inputs = inputs;
    setConvGeometry(out, conv);
    out.exact = conv->hasAttr(edge::kExactSumsAttrName);
    if (sum)
      out.post_ops.push_back(std::move(sum));
    fuseActivation(next, out, result);
    out.outputs = {newTensor(result)};
    return success();
  }

  if (auto deconv = dyn_cast<edge::ConvTranspose2DOp>(op)) {
    FailureOr<uint32_t> x = in(0), w = in(1);
    if (failed(x) || failed(w))
      return failure();
    std::vector<uint32_t> inputs{*x, *w};
    if (deconv.getBias()) {
      FailureOr<uint32_t> b = tensor(deconv.getBias());
      if (failed(b))
        return failure();
      inputs.push_back(*b);
    }
    fbs::OpT &out = addOp(fbs::OpKind::Deconvolution, chain);
    out.inputs = inputs;
    ArrayRef<int64_t> pads = deconv.getPads(),
                      extra = deconv.getOutputPadding();
    out.strides = vec(deconv.getStrides());
    out.dilations = vec(deconv.getDilations());
    out.pads_begin = {pads[0], pads[1]};
    // The output padding extends the result at its end: less cropping.
    out.pads_end = {pads[2] - extra[0], pads[3] - extra[1]};
    out.groups = 1;
    fuseActivation(soleUser(result), out, result);
    out.outputs = {newTensor(result)};
    return success();
  }

  if (auto matmul = dyn_cast<edge::MatMulOp>(op)) {
    FailureOr<uint32_t> a = in(0), b = in(1);
    if (failed(a) || failed(b))
      return failure();
    std::vector<uint32_t> inputs{*a, *b};
    Operation *next = soleUser(result);
    if (next && isa<edge::AddOp>(next)) {
      Value bias = next->getOperand(0) == result ? next->getOperand(1)
                                                 : next->getOperand(0);
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(bias.getType()).getShape();
      ArrayRef<int64_t> outShape =
          cast<RankedTensorType>(result.getType()).getShape();
      bool rowVector =
          bias.getDefiningOp<edge::ConstantOp>() && !shape.empty() &&
          shape.back() == outShape.back() &&
          llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }) &&
          next->getResult(0).getType() == result.getType();
      if (rowVector) {
        FailureOr<uint32_t> t = tensor(bias);
        if (failed(t))
          return failure();
        inputs.push_back(*t);
        chain.push_back(next);
        result = next->getResult(0);
        next = soleUser(result);
      }
    }
    fbs::OpT &out = addOp(fbs::OpKind::MatMul, chain);
    out.inputs = inputs;
    fuseActivation(next, out, result);
    out.outputs = {newTensor(result)};
    return success();
  }

  if (isa<edge::MaxPool2DOp, edge::AvgPool2DOp>(op)) {
    FailureOr<uint32_t> x = in(0);
    if (failed(x))
      return failure();
    std::optional<PoolGeometry> geometry = getPoolGeometry(op);
    if (!geometry)
      return op->emitError("oneDNN cannot express this pooling's padding");
    auto avg = dyn_cast<edge::AvgPool2DOp>(op);
    fbs::OpT &out =
        addOp(avg ? fbs::OpKind::AvgPool : fbs::OpKind::MaxPool, chain);
    out.inputs = {*x};
    out.kernel = geometry->kernel;
    out.strides = geometry->strides;
    out.dilations = geometry->dilations;
    out.pads_begin = geometry->padsBegin;
    out.pads_end = geometry->padsEnd;
    out.count_include_pad = avg && avg.getCountIncludePad();
    out.outputs = {newTensor(result)};
    return success();
  }

  if (std::optional<Eltwise> eltwise = eltwiseOf(op)) {
    FailureOr<uint32_t> x = in(0);
    if (failed(x))
      return failure();
    fbs::OpT &out = addOp(fbs::OpKind::Eltwise, chain);
    out.inputs = {*x};
    out.eltwise = eltwise->kind;
    out.alpha = eltwise->alpha;
    out.beta = eltwise->beta;
    out.outputs = {newTensor(result)};
    return success();
  }

  std::optional<fbs::BinaryKind> binary;
  if (isa<edge::AddOp>(op))
    binary = fbs::BinaryKind::Add;
  else if (isa<edge::SubOp>(op))
    binary = fbs::BinaryKind::Sub;
  else if (isa<edge::MulOp>(op))
    binary = fbs::BinaryKind::Mul;
  else if (isa<edge::DivOp>(op))
    binary = fbs::BinaryKind::Div;
  else if (isa<edge::MaximumOp>(op))
    binary = fbs::BinaryKind::Max;
  else if (isa<edge::MinimumOp>(op))
    binary = fbs::BinaryKind::Min;
  if (binary) {
    bool swap = binaryOperandsSwap(op);
    FailureOr<uint32_t> a = in(swap ? 1 : 0), b = in(swap ? 0 : 1);
    if (failed(a) || failed(b))
      return failure();
    Operation *next = soleUser(result);
    // x * scale + shift with constant scale and shift of one shape (an
    // unfolded BatchNormalization): one pass.
    Value scale = op->getOperand(swap ? 0 : 1);
    if (*binary == fbs::BinaryKind::Mul && next && isa<edge::AddOp>(next) &&
        scale.getDefiningOp<edge::ConstantOp>() &&
        next->getResult(0).getType() == result.getType()) {
      Value shift = next->getOperand(0) == result ? next->getOperand(1)
                                                  : next->getOperand(0);
      if (shift != result && shift.getDefiningOp<edge::ConstantOp>() &&
          shift.getType() == scale.getType()) {
        FailureOr<uint32_t> s = tensor(shift);
        if (failed(s))
          return failure();
        chain.push_back(next);
        result = next->getResult(0);
        next = soleUser(result);
        fbs::OpT &out = addOp(fbs::OpKind::ScaleShift, chain);
        out.inputs = {*a, *b, *s};
        fuseActivation(next, out, result);
        fuseQuantize(out, result);
        out.outputs = {newTensor(result)};
        return success();
      }
    }
    fbs::OpT &out = addOp(fbs::OpKind::Binary, chain);
    out.inputs = {*a, *b};
    out.binary = *binary;
    fuseActivation(next, out, result);
    // A quantization only where oneDNN's own kernels take the broadcast
    // (equal shapes, or one value per channel): elsewhere the delegate's
    // f32 broadcasting kernel runs the op, and the reorder after it.
    auto bType = cast<RankedTensorType>(op->getOperand(swap ? 0 : 1).getType());
    auto rType = cast<RankedTensorType>(op->getResult(0).getType());
    bool perChannel =
        bType.getRank() == rType.getRank() && rType.getRank() >= 2 &&
        llvm::all_of(llvm::enumerate(bType.getShape()), [&](auto dim) {
          return dim.value() == 1 ||
                 (dim.index() == 1 && dim.value() == rType.getDimSize(1));
        });
    if (bType.getShape() == rType.getShape() || perChannel)
      fuseQuantize(out, result);
    out.outputs = {newTensor(result)};
    return success();
  }

  auto unary = [&](fbs::OpKind kind) -> FailureOr<fbs::OpT *> {
    FailureOr<uint32_t> x = in(0);
    if (failed(x))
      return failure();
    fbs::OpT &out = addOp(kind, chain);
    out.inputs = {*x};
    out.outputs = {newTensor(result)};
    return &out;
  };
  if (auto softmax = dyn_cast<edge::SoftmaxOp>(op)) {
    FailureOr<fbs::OpT *> out = unary(fbs::OpKind::Softmax);
    if (succeeded(out))
      (*out)->axis = softmax.getAxis();
    return out;
  }
  if (auto reduce = dyn_cast<edge::ReduceMeanOp>(op)) {
    FailureOr<fbs::OpT *> out = unary(fbs::OpKind::ReduceMean);
    if (succeeded(out))
      (*out)->axes = vec(reduce.getAxes());
    return out;
  }
  if (auto transpose = dyn_cast<edge::TransposeOp>(op)) {
    FailureOr<fbs::OpT *> out = unary(fbs::OpKind::Transpose);
    if (succeeded(out))
      (*out)->axes = vec(transpose.getPermutation());
    return out;
  }
  if (auto slice = dyn_cast<edge::SliceOp>(op)) {
    FailureOr<fbs::OpT *> out = unary(fbs::OpKind::Slice);
    if (succeeded(out))
      (*out)->axes = vec(slice.getStarts());
    return out;
  }
  if (isa<edge::ReshapeOp>(op))
    return unary(fbs::OpKind::Reshape);
  if (auto concat = dyn_cast<edge::ConcatOp>(op)) {
    std::vector<uint32_t> inputs;
    for (Value v : concat.getInputs()) {
      FailureOr<uint32_t> t = tensor(v);
      if (failed(t))
        return failure();
      inputs.push_back(*t);
    }
    fbs::OpT &out = addOp(fbs::OpKind::Concat, chain);
    out.inputs = inputs;
    out.axis = concat.getAxis();
    out.outputs = {newTensor(result)};
    return success();
  }
  return op->emitError("the oneDNN delegate does not run '")
         << op->getName() << "'";
}

LogicalResult GraphWriter::writeLayerNorm(const LayerNormChain &chain) {
  FailureOr<uint32_t> x = tensor(chain.input);
  if (failed(x))
    return failure();
  std::vector<uint32_t> inputs{*x};
  int64_t channels =
      cast<RankedTensorType>(chain.input.getType()).getShape().back();
  if (chain.gamma || chain.beta) {
    FailureOr<uint32_t> gamma =
        chain.gamma ? tensor(chain.gamma)
                    : FailureOr<uint32_t>(constantTensor(
                          {channels}, std::vector<float>(channels, 1.0f)));
    if (failed(gamma))
      return failure();
    inputs.push_back(*gamma);
  }
  if (chain.beta) {
    FailureOr<uint32_t> beta = tensor(chain.beta);
    if (failed(beta))
      return failure();
    inputs.push_back(*beta);
  }
  fbs::OpT &out = addOp(fbs::OpKind::LayerNorm, chain.ops);
  out.inputs = inputs;
  out.alpha = chain.epsilon;
  out.outputs = {newTensor(chain.output)};
  return success();
}

/// The output scale of an int8 op's result (1 for an f32 result).
static float resultScale(Value outScale) {
  return outScale ? getFloatConstant(outScale)->front() : 1.0f;
}

/// The units an int8 op's post-ops run in: the result's (scale `y`), or
/// real values when an activation function must see them (a final linear
/// post-op then divides by `y`).
static float postOpUnit(Value outScale, StringAttr activation) {
  return activation ? 1.0f : resultScale(outScale);
}

/// An int8 convolution: s8/u8 input, s8 weights, oneDNN's output scales
/// (input scale x weight scale, divided by the result's scale when it is
/// int8 and no activation function follows), the bias in accumulator units
/// (oneDNN 2.x adds it to the int32 sum before scaling), the residual as a
/// sum post-op scaled into the same units, the clamp as a relu or clip
/// post-op, and an activation function as an eltwise post-op on real
/// values followed by a linear one into the result's units.
LogicalResult GraphWriter::setInt8Epilogue(Operation *op, fbs::OpT &out,
                                           Value inScale, Value wScale,
                                           Value bias, Value outScale,
                                           int64_t channels, FloatAttr clipMin,
                                           FloatAttr clipMax,
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
  out.inputs.push_back(constantTensor({channels}, accBias));
  out.output_scales = scales;
  std::optional<float> lo, hi;
  if (clipMin)
    lo = clipMin.getValueAsDouble();
  if (clipMax)
    hi = clipMax.getValueAsDouble();
  // An s8 result written as u8 saturates where s8 would: at 127.
  bool asUnsigned = unsignedValues.contains(op->getResult(0));
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
    auto function = std::make_unique<fbs::PostOpT>();
    // The verifier admits only names symbolizeActivationKind knows.
    ActivationChain::Kind kind =
        *edge::symbolizeActivationKind(activation.getValue());
    function->eltwise = eltwiseKindOf(kind);
    function->alpha = eltwiseAlphaOf(kind);
    out.post_ops.push_back(std::move(function));
    if (float z = resultScale(outScale); z != 1.0f)
      out.post_ops.push_back(linearPostOp(1.0f / z));
  }
  return success();
}

/// Whether an int8 convolution or matmul takes the zero-point form
/// (writeZeroPointConv / writeZeroPointMatMul): its input's scale or zero
/// point is not a constant positive scale and zero, or its weights are u8
/// or have a zero point.
static bool takesZeroPointForm(Value inputScale, Value inputZeroPoint,
                               Value weight, Value weightZeroPoint) {
  std::optional<std::vector<float>> scale = getFloatConstant(inputScale);
  auto allZero = [](Value v) {
    std::optional<std::vector<int64_t>> values = backends::getIntConstant(v);
    return values && llvm::all_of(*values, [](int64_t z) { return z == 0; });
  };
  return !scale || scale->size() != 1 || scale->front() <= 0.0f ||
         !allZero(inputZeroPoint) || !allZero(weightZeroPoint) ||
         isSigned8(weight.getType()) != std::optional(true);
}

/// The values of 8-bit constant `value`, zero-extended where it is u8.
static std::optional<std::vector<int64_t>> int8Values(Value value) {
  std::optional<std::vector<int64_t>> values = backends::getIntConstant(value);
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(value.getType()));
  if (values && element && element.isUnsigned())
    for (int64_t &v : *values)
      v &= 0xff;
  return values;
}

uint32_t GraphWriter::int8ConstantTensor(ArrayRef<int64_t> dims,
                                         ArrayRef<int8_t> values) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims.assign(dims.begin(), dims.end());
  t->dtype = fbs::DataType::S8;
  graph.tensors.push_back(std::move(t));
  uint32_t index = graph.tensors.size() - 1;
  std::string key = func.getSymName().str() + "/t" + std::to_string(index);
  graph.tensors[index]->constant_key = key;
  constants.bytes[key].assign(reinterpret_cast<const uint8_t *>(values.data()),
                              reinterpret_cast<const uint8_t *>(values.data()) +
                                  values.size());
  return index;
}

std::optional<GraphWriter::ZeroPointOperands>
GraphWriter::readZeroPointOperands(Value input, Value zeroPoint, Value scale,
                                   Value weight, Value weightZeroPoint,
                                   Value weightScale, Value bias,
                                   int64_t channels) {
  FailureOr<uint32_t> x = tensor(input), zp = tensor(zeroPoint),
                      s = tensor(scale);
  std::optional<std::vector<int64_t>> w = int8Values(weight);
  std::optional<std::vector<int64_t>> wZp = int8Values(weightZeroPoint);
  std::optional<std::vector<float>> wScale = getFloatConstant(weightScale);
  std::optional<std::vector<float>> b = getFloatConstant(bias);
  if (failed(x) || failed(zp) || failed(s) || !w || !wZp || wZp->empty() ||
      !wScale || !b || static_cast<int64_t>(b->size()) != channels)
    return std::nullopt;
  // The delegate's tensors have rank 1 at least: a scalar is [1]; the
  // zero point has the input's type.
  for (uint32_t t : {*zp, *s})
    if (graph.tensors[t]->dims.empty())
      graph.tensors[t]->dims = {1};
  graph.tensors[*zp]->dtype = graph.tensors[*x]->dtype;
  return ZeroPointOperands{*x, *zp, *s, std::move(*w), std::move(*wZp),
                           std::move(*wScale), std::move(*b)};
}

LogicalResult GraphWriter::writeZeroPointConv(edge::QuantizedConv2DOp conv) {
  auto wType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t channels = wType.getDimSize(0);
  std::optional<ZeroPointOperands> q = readZeroPointOperands(
      conv.getInput(), conv.getInputZeroPoint(), conv.getInputScale(),
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
    fbs::OpT &out = addOp(fbs::OpKind::Convolution, {conv});
    out.inputs = {q->input, int8ConstantTensor(wDims, weights)};
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
    graph.tensors.push_back(std::move(t));
    partial = static_cast<int32_t>(graph.tensors.size() - 1);
    first.outputs = {static_cast<uint32_t>(partial)};
  }
  fbs::OpT &out = convolution(needsHigh ? high : low);
  if (partial >= 0) {
    auto sum = std::make_unique<fbs::PostOpT>();
    sum->is_sum = true;
    sum->sum_input = partial;
    out.post_ops.push_back(std::move(sum));
  }
  addZeroPointEpilogue(out, q->scale, q->bias, {channels, 1, 1},
                       conv.getClipMinAttr(), conv.getClipMaxAttr(),
                       conv.getActivationAttr());
  out.outputs = {newTensor(conv.getResult())};
  return success();
}

void GraphWriter::addZeroPointEpilogue(fbs::OpT &out, uint32_t scale,
                                       ArrayRef<float> bias,
                                       ArrayRef<int64_t> biasDims,
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
    binary(fbs::BinaryKind::Add, constantTensor(biasDims, bias));
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
  if (activation) {
    auto function = std::make_unique<fbs::PostOpT>();
    ActivationChain::Kind kind =
        *edge::symbolizeActivationKind(activation.getValue());
    function->eltwise = eltwiseKindOf(kind);
    function->alpha = eltwiseAlphaOf(kind);
    out.post_ops.push_back(std::move(function));
  }
}

LogicalResult
GraphWriter::writeZeroPointMatMul(edge::QuantizedMatMulOp matmul) {
  auto wType = cast<RankedTensorType>(matmul.getRhs().getType());
  int64_t channels = wType.getDimSize(1);
  std::optional<ZeroPointOperands> q = readZeroPointOperands(
      matmul.getLhs(), matmul.getLhsZeroPoint(), matmul.getLhsScale(),
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
  fbs::OpT &out = addOp(fbs::OpKind::MatMul, {matmul});
  out.inputs = {q->input, int8ConstantTensor(wDims, weights)};
  out.src_zero_point = static_cast<int32_t>(q->zeroPoint);
  out.weights_zero_point =
      static_cast<int32_t>(q->weightZeroPoints.front() - shift);
  if (llvm::any_of(q->weightScales, [](float s) { return s != 1.0f; }))
    out.output_scales = q->weightScales;
  addZeroPointEpilogue(out, q->scale, q->bias, {channels},
                       matmul.getClipMinAttr(), matmul.getClipMaxAttr(),
                       matmul.getActivationAttr());
  out.outputs = {newTensor(matmul.getResult())};
  return success();
}

LogicalResult GraphWriter::writeQuantizedConv(edge::QuantizedConv2DOp conv) {
  if (takesZeroPointForm(conv.getInputScale(), conv.getInputZeroPoint(),
                         conv.getWeight(), conv.getWeightZeroPoint()))
    return writeZeroPointConv(conv);
  FailureOr<uint32_t> x = tensor(conv.getInput()), w = tensor(conv.getWeight());
  FailureOr<uint32_t> r =
      conv.getResidual() ? tensor(conv.getResidual()) : FailureOr<uint32_t>(0u);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  int64_t channels =
      cast<RankedTensorType>(conv.getWeight().getType()).getDimSize(0);
  SmallVector<Operation *> chain{conv};
  fbs::OpT &out = addOp(fbs::OpKind::Convolution, chain);
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
  if (failed(setInt8Epilogue(conv, out, conv.getInputScale(),
                             conv.getWeightScale(), conv.getBias(),
                             conv.getOutputScale(), channels,
                             conv.getClipMinAttr(), conv.getClipMaxAttr(),
                             conv.getActivationAttr())))
    return failure();
  out.outputs = {newTensor(conv.getResult())};
  return success();
}

LogicalResult
GraphWriter::writeQuantizedMatMul(edge::QuantizedMatMulOp matmul) {
  if (takesZeroPointForm(matmul.getLhsScale(), matmul.getLhsZeroPoint(),
                         matmul.getRhs(), matmul.getRhsZeroPoint()))
    return writeZeroPointMatMul(matmul);
  FailureOr<uint32_t> a = tensor(matmul.getLhs()), b = tensor(matmul.getRhs());
  if (failed(a) || failed(b))
    return failure();
  int64_t channels =
      cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
  SmallVector<Operation *> chain{matmul};
  fbs::OpT &out = addOp(fbs::OpKind::MatMul, chain);
  out.inputs = {*a, *b};
  if (failed(setInt8Epilogue(matmul, out, matmul.getLhsScale(),
                             matmul.getRhsScale(), matmul.getBias(),
                             matmul.getOutputScale(), channels,
                             matmul.getClipMinAttr(), matmul.getClipMaxAttr(),
                             matmul.getActivationAttr())))
    return failure();
  out.outputs = {newTensor(matmul.getResult())};
  return success();
}

void GraphWriter::findUnsignedValues() {
  Block &body = func.getBody().front();
  // Non-negative s8 values: clamped at zero by the op writing them (no
  // activation function, no residual: a sum post-op accumulates into the
  // residual's bytes, which are signed), or max-pooled from one.
  auto clampedAtZero = [](Operation *op) {
    auto check = [](FloatAttr clipMin, StringAttr activation, bool residual) {
      return clipMin && clipMin.getValueAsDouble() >= 0.0 && !activation &&
             !residual;
    };
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op))
      return check(conv.getClipMinAttr(), conv.getActivationAttr(),
                   static_cast<bool>(conv.getResidual()));
    if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(op))
      return check(matmul.getClipMinAttr(), matmul.getActivationAttr(), false);
    return false;
  };
  for (Operation &op : body) {
    if (op.getNumResults() != 1 ||
        !isSigned8(op.getResult(0).getType()).value_or(false))
      continue;
    if (clampedAtZero(&op) || (isa<edge::MaxPool2DOp>(op) &&
                               unsignedValues.contains(op.getOperand(0))))
      unsignedValues.insert(op.getResult(0));
  }
  // Every reader must take u8 for the same bytes: a quantized conv's input,
  // a quantized matmul's lhs, a dequantizing reorder, a max pooling whose
  // result is u8 too. Drop the others until nothing changes.
  auto readerTakesU8 = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(user))
      return use.get() == conv.getInput() && use.get() != conv.getResidual();
    if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(user))
      return use.get() == matmul.getLhs() && use.get() != matmul.getRhs();
    if (auto dq = dyn_cast<edge::DequantizeLinearOp>(user))
      // Not where it starts an int8 global average pooling (s8 -> s8).
      return !isa_and_nonnull<edge::ReduceMeanOp>(soleUser(dq.getResult()));
    if (isa<edge::MaxPool2DOp>(user))
      return unsignedValues.contains(user->getResult(0));
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Value v : llvm::to_vector(unsignedValues)) {
      bool keep = llvm::all_of(v.getUses(), readerTakesU8);
      // A max pooling reads and writes one type.
      if (auto pool = v.getDefiningOp<edge::MaxPool2DOp>())
        keep = keep && unsignedValues.contains(pool->getOperand(0));
      if (!keep) {
        unsignedValues.erase(v);
        changed = true;
      }
    }
  }
}

LogicalResult GraphWriter::write() {
  findUnsignedValues();
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    graph.inputs.push_back(newTensor(arg));
  // Chains written as one op where their first op stands: GELU and SiLU
  // chains that no producer takes as a post-op (an eltwise op) and
  // LayerNorms.
  std::vector<std::function<LogicalResult()>> chains;
  llvm::DenseMap<Operation *, size_t> chainOf;
  auto addChain = [&](ArrayRef<Operation *> ops,
                      std::function<LogicalResult()> write) {
    for (Operation *o : ops)
      chainOf[o] = chains.size();
    chains.push_back(std::move(write));
  };
  for (Operation &op : body) {
    std::optional<ActivationChain> activation =
        isa<edge::ErfOp>(op)    ? matchGelu(&op)
        : isa<edge::ClipOp>(op) ? matchHardSwish(&op)
                                : matchSwish(&op);
    if (activation && !chainOf.count(&op))
      addChain(activation->ops, [this, chain = *activation] {
        FailureOr<uint32_t> x = tensor(chain.input);
        if (failed(x))
          return failure();
        fbs::OpT &out = addOp(fbs::OpKind::Eltwise, chain.ops);
        out.inputs = {*x};
        out.eltwise = eltwiseKindOf(chain.kind);
        out.alpha = eltwiseAlphaOf(chain.kind);
        out.outputs = {newTensor(chain.output)};
        return success();
      });
    if (isa<edge::ReduceMeanOp>(op) && !chainOf.count(&op))
      if (std::optional<LayerNormChain> chain = matchLayerNorm(&op))
        addChain(chain->ops,
                 [this, chain = *chain] { return writeLayerNorm(chain); });
  }
  for (Operation &op : body) {
    if (isa<edge::ConstantOp, func::ReturnOp>(op) || fused.contains(&op))
      continue;
    if (auto it = chainOf.find(&op); it != chainOf.end()) {
      if (failed(chains[it->second]()))
        return failure();
      continue;
    }
    if (failed(writeOp(&op)))
      return failure();
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (Value v : ret.getOperands()) {
    FailureOr<uint32_t> t = tensor(v);
    if (failed(t))
      return failure();
    graph.outputs.push_back(*t);
  }
  return success();
}

/// Parses a boolean compile spec.
FailureOr<bool> flag(func::FuncOp func, const CompileSpecs &specs,
                     StringRef name, bool byDefault = false) {
  auto it = specs.find(name.str());
  if (it == specs.end())
    return byDefault;
  if (it->second == "false" || it->second == "0")
    return false;
  if (it->second == "true" || it->second == "1")
    return true;
  return func.emitError("compile spec '")
         << name << "' takes true or false, got '" << it->second << "'";
}

} // namespace

FailureOr<PreprocessResult> preprocess(func::FuncOp func,
                                       const CompileSpecs &specs) {
  GraphWriter writer(func);
  if (failed(writer.write()))
    return failure();
  runtime::onednn::PrepareOptions options;
  // On by default: the own F(2x2,3x3) kernel where its rule says it pays
  // (rel-L2 about 1e-6 against the direct convolution's 1e-7 on ResNets).
  FailureOr<bool> winograd = flag(func, specs, "winograd", /*byDefault=*/true);
  FailureOr<bool> keepPlain = flag(func, specs, "keep_plain_weights");
  FailureOr<bool> tune = flag(func, specs, "tune");
  if (failed(winograd) || failed(keepPlain) || failed(tune))
    return failure();
  options.winograd = *winograd;
  options.keepPlainWeights = *keepPlain;
  options.measure = *tune;
  if (auto it = specs.find("activation_layout"); it != specs.end()) {
    using Layout = runtime::onednn::PrepareOptions::Layout;
    if (it->second == "auto")
      options.activationLayout = Layout::Rule;
    else if (it->second == "open")
      options.activationLayout = Layout::Open;
    else if (it->second == "blocked")
      options.activationLayout = Layout::ChannelBlocked;
    else
      return func.emitError("compile spec 'activation_layout' takes auto, "
                            "open or blocked, got '")
             << it->second << "'";
  }
  // Tuning records: read from the file (which --tune may create), written
  // back with what this partition measured.
  std::string tuningFile;
  if (auto it = specs.find("tuning_file"); it != specs.end())
    tuningFile = it->second;
  runtime::onednn::TuningRecords records;
  if (!tuningFile.empty()) {
    std::string error;
    FailureOr<runtime::onednn::TuningRecords> read =
        readTuningRecords(tuningFile, /*mayBeMissing=*/*tune, error);
    if (failed(read))
      return func.emitError(error);
    records = std::move(*read);
    options.tuning = &records;
  }
  if (auto it = specs.find("tune_threads"); it != specs.end()) {
    int threads = 0;
    if (StringRef(it->second).getAsInteger(10, threads) || threads < 1)
      return func.emitError("compile spec 'tune_threads' takes a positive "
                            "integer, got '")
             << it->second << "'";
    options.tuneThreads = threads;
  }

  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &writer.graph), fbs::GraphIdentifier());
  runtime::Result<runtime::onednn::PreparedGraph> prepared =
      runtime::onednn::prepareGraph({fbb.GetBufferPointer(), fbb.GetSize()},
                                    writer.constants, options);
  if (!prepared.ok())
    return func.emitError("oneDNN could not prepare partition @")
           << func.getSymName() << ": " << prepared.error().message();
  if (*tune && !tuningFile.empty() && prepared->tunedByMeasuring) {
    std::string error;
    if (failed(writeTuningRecords(tuningFile, records, error)))
      return func.emitError(error);
  }
  PreprocessResult result;
  result.processedBytes = std::move(prepared->blob);
  result.namedData = std::move(prepared->namedData);
  result.scratchBytes = prepared->scratchBytes;
  result.debugHandles = std::move(writer.debugHandles);
  return result;
}

} // namespace strata::onednn
