//===- Preprocess.cpp - an outlined partition as an XNNPACK blob ----------===//
//
// Writes the partition as the delegate's subgraph (xnnpack_graph.fbs): one
// tensor per value, constants as named data in XNNPACK's layouts, one node
// per edge op except where a chain fuses:
//
//   conv2d / matmul / pooling / add, sub, mul, div -> relu or clip
//                                         the node's output clamp
//   matmul -> add(constant [.., N])       fully connected with bias
//   x * relu6(x + 3) / 6 (hardswish)      hardswish
//   quantized_conv2d with a residual      qs8 convolution into an
//                                         intermediate (scale: output's plus
//                                         residual's) + qs8 add
//
// A link fuses only when the intermediate value has that single use.
// Every 4-d value is NHWC (dims and constants permuted), 4-d inputs and
// outputs are marked for the delegate's transposes; filters go OIHW ->
// OHWI (depthwise: 1HWO), fully connected weights [K, N] -> [N, K]. Then
// XNNPACK itself creates the runtime once (runtime::xnnpack::checkGraph),
// so that what it refuses fails here, naming the node.
//
//===----------------------------------------------------------------------===//
#include "XNNPACKBackend.h"

#include "Common/ConstantBytes.h"
#include "Common/OpQueries.h"
#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Runtime/Delegates/Schema/xnnpack_graph_generated.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
namespace fbs = strata::xnnpack::fb;

namespace strata::xnnpack {
namespace {

/// The blob's resize flags: XNNPACK's XNN_FLAG_TENSORFLOW_LEGACY_MODE
/// and XNN_FLAG_ALIGN_CORNERS, which the runtime passes on (and checks
/// with static_asserts); the compiler does not include xnnpack.h.
constexpr uint32_t kResizeAsymmetric = 0x4;
constexpr uint32_t kResizeAlignCorners = 0x8;

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The dims XNNPACK sees: NCHW -> NHWC for 4-d values.
std::vector<int64_t> xnnDims(ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return {shape.begin(), shape.end()};
  return {shape[0], shape[2], shape[3], shape[1]};
}

/// `values` of NCHW `shape` in NHWC order (others as they are).
std::vector<float> toXnnOrder(std::vector<float> values,
                              ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return values;
  int64_t n = shape[0], c = shape[1], hw = shape[2] * shape[3];
  std::vector<float> out(values.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < hw; ++p)
        out[(b * hw + p) * c + k] = values[(b * c + k) * hw + p];
  return out;
}

/// A convolution's filter as XNNPACK takes it: OIHW becomes OHWI, or 1HWO
/// for a depthwise one (group = input channels, one per group).
struct FilterLayout {
  FilterLayout(ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
               int64_t groups)
      : groups(groups), outC(weight[0]), groupIn(weight[1]), kh(weight[2]),
        kw(weight[3]), inC(input[1]),
        depthwise(groups > 1 && groups == input[1] && weight[1] == 1) {}
  /// Where OIHW element (o, i, y, x) goes.
  size_t at(int64_t o, int64_t i, int64_t y, int64_t x) const {
    return depthwise ? (y * kw + x) * outC + o
                     : ((o * kh + y) * kw + x) * groupIn + i;
  }
  std::vector<int64_t> dims() const {
    return depthwise ? std::vector<int64_t>{1, kh, kw, outC}
                     : std::vector<int64_t>{outC, kh, kw, groupIn};
  }
  /// The node's kind, window and group sizes; edge pads are top, left,
  /// bottom, right, XNNPACK's top, right, bottom, left.
  void describe(fbs::NodeT &node, ArrayRef<int64_t> pads,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) const {
    auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
    node.pads = {u32(pads[0]), u32(pads[3]), u32(pads[2]), u32(pads[1])};
    node.kernel = {u32(kh), u32(kw)};
    node.strides = {u32(strides[0]), u32(strides[1])};
    node.dilations = {u32(dilations[0]), u32(dilations[1])};
    node.groups = depthwise ? 1 : u32(groups);
    node.group_input_channels = depthwise ? inC : groupIn;
    // Depthwise: the depth multiplier.
    node.group_output_channels = depthwise ? outC / inC : outC / groups;
  }
  fbs::NodeKind kind() const {
    return depthwise ? fbs::NodeKind::DepthwiseConvolution
                     : fbs::NodeKind::Convolution;
  }
  int64_t groups, outC, groupIn, kh, kw, inC;
  bool depthwise;
};

class GraphWriter {
public:
  GraphWriter(func::FuncOp func) : func(func) {}
  LogicalResult write();

  fbs::GraphT graph;
  backends::ConstantBytes constants;
  std::map<std::string, std::vector<std::string>> debugHandles;

private:
  /// The tensor of a value written by a node (or a partition input).
  uint32_t defineTensor(Value value);
  /// The tensor of a value already written, or of a constant (stored in
  /// XNNPACK's order on first use).
  FailureOr<uint32_t> tensor(Value value);
  /// A new tensor of XNNPACK `dims` that a node writes and another reads
  /// (not a value of the partition: a step inside one edge op's nodes).
  uint32_t intermediateTensor(std::vector<int64_t> dims) {
    auto t = std::make_unique<fbs::TensorT>();
    t->dims = std::move(dims);
    graph.tensors.push_back(std::move(t));
    return graph.tensors.size() - 1;
  }
  /// A new constant tensor of XNNPACK `dims` holding `values`.
  uint32_t constantTensor(ArrayRef<int64_t> dims, ArrayRef<float> values);
  /// A new constant tensor of `bytes` of type `type` (per-channel scales
  /// along `channelDim` for the qc types).
  uint32_t constantTensor(ArrayRef<int64_t> dims, std::vector<uint8_t> bytes,
                          fbs::DataType type,
                          ArrayRef<float> channelScales = {},
                          uint32_t channelDim = 0);
  LogicalResult writeQuantizedConv(edge::QuantizedConv2DOp conv);
  fbs::NodeT &addNode(fbs::NodeKind kind, ArrayRef<Operation *> from);
  /// Marks `ops` fused into `node` (the last node written): their ONNX
  /// node names join its names and its debug handle.
  void fuseInto(fbs::NodeT &node, ArrayRef<Operation *> ops) {
    fused.insert(ops.begin(), ops.end());
    backends::appendNodeNames(node.node_names, ops);
    debugHandles[std::to_string(graph.nodes.size() - 1)] = node.node_names;
  }
  /// Fuses the relu or clip that alone reads `result` into `node`'s output
  /// clamp; returns the value the node then writes.
  Value fuseClamp(fbs::NodeT &node, Value result);
  /// Writes `node`'s inputs, then its output `result` (after a fused
  /// clamp when `clamps`).
  LogicalResult finish(fbs::NodeT &node, ArrayRef<Value> inputs, Value result,
                       bool clamps);
  LogicalResult writeConv(edge::Conv2DOp conv);
  LogicalResult writeDeconv(edge::ConvTranspose2DOp deconv);
  LogicalResult writeMatMul(edge::MatMulOp matmul);
  LogicalResult writePool(Operation *op);
  /// A concatenation as XNNPACK can compute it: each input padded with
  /// zeros to the result's extent at its offset, the paddings added (exact
  /// in f32: x + 0 = x).
  LogicalResult writeConcat(edge::ConcatOp concat);
  LogicalResult writeOp(Operation *op);

  func::FuncOp func;
  llvm::DenseMap<Value, uint32_t> tensors;
  llvm::DenseSet<Operation *> fused;
  /// Hardswish chains, by the op that writes their result.
  llvm::DenseMap<Operation *, edge::ActivationChain> hardSwishAt;
  /// An 8-bit value had no quantization to be found (reported).
  bool unknownQuantization = false;
};

/// scale and zero point of constant scalars.
std::optional<std::pair<float, int32_t>> scaleAndZero(Value scale,
                                                      Value zeroPoint) {
  std::optional<std::vector<float>> s = backends::getFloatConstant(scale);
  std::optional<std::vector<int64_t>> z = backends::getIntConstant(zeroPoint);
  if (!s || !z || s->size() != 1 || z->size() != 1)
    return std::nullopt;
  return std::pair{s->front(), static_cast<int32_t>(z->front())};
}

/// The per-tensor quantization of an s8 value: its `!quant.uniform` type's,
/// else that of the op that writes it or of one that reads it.
std::optional<std::pair<float, int32_t>> quantOf(Value v, int depth = 0) {
  if (auto q = dyn_cast<quant::UniformQuantizedType>(
          cast<RankedTensorType>(v.getType()).getElementType()))
    return std::pair{static_cast<float>(q.getScale()),
                     static_cast<int32_t>(q.getZeroPoint())};
  if (depth > 8)
    return std::nullopt;
  if (Operation *def = v.getDefiningOp()) {
    if (auto q = dyn_cast<edge::QuantizeLinearOp>(def))
      return scaleAndZero(q.getScale(), q.getZeroPoint());
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(def);
        conv && conv.getOutputScale())
      return scaleAndZero(conv.getOutputScale(), conv.getOutputZeroPoint());
    if (isa<edge::MaxPool2DOp>(def))
      return quantOf(def->getOperand(0), depth + 1);
  }
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(user)) {
      if (use.get() == conv.getInput())
        return scaleAndZero(conv.getInputScale(), conv.getInputZeroPoint());
      if (use.get() == conv.getResidual())
        return scaleAndZero(conv.getResidualScale(),
                            conv.getResidualZeroPoint());
    }
    if (auto dq = dyn_cast<edge::DequantizeLinearOp>(user))
      return scaleAndZero(dq.getScale(), dq.getZeroPoint());
    if (isa<edge::MaxPool2DOp>(user))
      if (auto q = quantOf(user->getResult(0), depth + 1))
        return q;
  }
  return std::nullopt;
}

uint32_t GraphWriter::defineTensor(Value value) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims = xnnDims(shapeOf(value));
  if (backends::isSigned8(value.getType()) == std::optional(true)) {
    t->dtype = fbs::DataType::QS8;
    std::optional<std::pair<float, int32_t>> q = quantOf(value);
    if (!q) {
      func.emitError("the XNNPACK delegate cannot tell the quantization of "
                     "an 8-bit value");
      unknownQuantization = true;
    } else {
      t->scale = q->first;
      t->zero_point = q->second;
    }
  }
  graph.tensors.push_back(std::move(t));
  uint32_t index = graph.tensors.size() - 1;
  tensors[value] = index;
  return index;
}

uint32_t GraphWriter::constantTensor(ArrayRef<int64_t> dims,
                                     ArrayRef<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return constantTensor(dims, std::move(bytes), fbs::DataType::F32);
}

uint32_t GraphWriter::constantTensor(ArrayRef<int64_t> dims,
                                     std::vector<uint8_t> bytes,
                                     fbs::DataType type,
                                     ArrayRef<float> channelScales,
                                     uint32_t channelDim) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims.assign(dims.begin(), dims.end());
  t->dtype = type;
  t->channel_scales.assign(channelScales.begin(), channelScales.end());
  t->channel_dim = channelDim;
  graph.tensors.push_back(std::move(t));
  uint32_t index = graph.tensors.size() - 1;
  std::string key = func.getSymName().str() + "/t" + std::to_string(index);
  graph.tensors[index]->constant_key = key;
  constants.bytes[key] = std::move(bytes);
  return index;
}

FailureOr<uint32_t> GraphWriter::tensor(Value value) {
  auto it = tensors.find(value);
  if (it != tensors.end())
    return it->second;
  std::optional<std::vector<float>> values = backends::getFloatConstant(value);
  if (!values)
    return func.emitError("value used before it is defined");
  ArrayRef<int64_t> shape = shapeOf(value);
  uint32_t index =
      constantTensor(xnnDims(shape), toXnnOrder(std::move(*values), shape));
  tensors[value] = index;
  return index;
}

fbs::NodeT &GraphWriter::addNode(fbs::NodeKind kind,
                                 ArrayRef<Operation *> from) {
  auto node = std::make_unique<fbs::NodeT>();
  node->kind = kind;
  node->output_min = -std::numeric_limits<float>::infinity();
  node->output_max = std::numeric_limits<float>::infinity();
  fused.insert(from.begin(), from.end());
  backends::appendNodeNames(node->node_names, from);
  debugHandles[std::to_string(graph.nodes.size())] = node->node_names;
  graph.nodes.push_back(std::move(node));
  return *graph.nodes.back();
}

Value GraphWriter::fuseClamp(fbs::NodeT &node, Value result) {
  if (!result.hasOneUse())
    return result;
  Operation *user = *result.getUsers().begin();
  float lo = 0, hi = std::numeric_limits<float>::infinity();
  if (auto clip = dyn_cast<edge::ClipOp>(user)) {
    lo = clip.getMin().convertToFloat();
    hi = clip.getMax().convertToFloat();
  } else if (!isa<edge::ReluOp>(user)) {
    return result;
  }
  // A hardswish chain's clip is the chain's.
  for (auto &[last, chain] : hardSwishAt)
    if (llvm::is_contained(chain.ops, user))
      return result;
  node.output_min = std::max(node.output_min, lo);
  node.output_max = std::min(node.output_max, hi);
  fuseInto(node, {user});
  return user->getResult(0);
}

LogicalResult GraphWriter::finish(fbs::NodeT &node, ArrayRef<Value> inputs,
                                  Value result, bool clamps) {
  for (Value v : inputs) {
    FailureOr<uint32_t> t = tensor(v);
    if (failed(t))
      return failure();
    node.inputs.push_back(*t);
  }
  if (clamps)
    result = fuseClamp(node, result);
  node.outputs.push_back(defineTensor(result));
  return success();
}

LogicalResult GraphWriter::writeConv(edge::Conv2DOp conv) {
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(conv.getWeight());
  if (!weights)
    return conv.emitError("XNNPACK convolution weights must be constant");
  FilterLayout layout(shapeOf(conv.getInput()), shapeOf(conv.getWeight()),
                      conv.getGroup());
  fbs::NodeT &node = addNode(layout.kind(), {conv.getOperation()});
  std::vector<float> filter(weights->size());
  for (int64_t o = 0, k = 0; o < layout.outC; ++o)
    for (int64_t i = 0; i < layout.groupIn; ++i)
      for (int64_t y = 0; y < layout.kh; ++y)
        for (int64_t x = 0; x < layout.kw; ++x)
          filter[layout.at(o, i, y, x)] = (*weights)[k++];
  layout.describe(node, conv.getPads(), conv.getStrides(),
                  conv.getDilations());
  FailureOr<uint32_t> input = tensor(conv.getInput());
  if (failed(input))
    return failure();
  node.inputs = {*input, constantTensor(layout.dims(), filter)};
  if (conv.getBias()) {
    FailureOr<uint32_t> bias = tensor(conv.getBias());
    if (failed(bias))
      return failure();
    node.inputs.push_back(*bias);
  }
  Value result = fuseClamp(node, conv.getOutput());
  node.outputs.push_back(defineTensor(result));
  return success();
}

LogicalResult GraphWriter::writeDeconv(edge::ConvTranspose2DOp deconv) {
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(deconv.getWeight());
  if (!weights)
    return deconv.emitError("XNNPACK deconvolution weights must be constant");
  // ONNX's [C, M / group, KH, KW] (group g's inputs g * groupIn ...) as
  // XNNPACK's [group * groupOut, KH, KW, groupIn].
  ArrayRef<int64_t> w = shapeOf(deconv.getWeight());
  int64_t groups = deconv.getGroup(), groupIn = w[0] / groups,
          groupOut = w[1], kh = w[2], kw = w[3];
  std::vector<float> filter(weights->size());
  for (int64_t c = 0, k = 0; c < w[0]; ++c)
    for (int64_t o = 0; o < groupOut; ++o)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          int64_t g = c / groupIn, i = c % groupIn;
          filter[(((g * groupOut + o) * kh + y) * kw + x) * groupIn + i] =
              (*weights)[k++];
        }
  fbs::NodeT &node =
      addNode(fbs::NodeKind::Deconvolution, {deconv.getOperation()});
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  ArrayRef<int64_t> pads = deconv.getPads(), strides = deconv.getStrides(),
                    dilations = deconv.getDilations(),
                    padding = deconv.getOutputPadding();
  node.pads = {u32(pads[0]), u32(pads[3]), u32(pads[2]), u32(pads[1])};
  node.kernel = {u32(kh), u32(kw)};
  node.strides = {u32(strides[0]), u32(strides[1])};
  node.dilations = {u32(dilations[0]), u32(dilations[1])};
  node.adjustment = {u32(padding[0]), u32(padding[1])};
  node.groups = u32(groups);
  node.group_input_channels = groupIn;
  node.group_output_channels = groupOut;
  FailureOr<uint32_t> input = tensor(deconv.getInput());
  if (failed(input))
    return failure();
  node.inputs = {*input,
                 constantTensor({groups * groupOut, kh, kw, groupIn}, filter)};
  if (deconv.getBias()) {
    FailureOr<uint32_t> bias = tensor(deconv.getBias());
    if (failed(bias))
      return failure();
    node.inputs.push_back(*bias);
  }
  Value result = fuseClamp(node, deconv.getOutput());
  node.outputs.push_back(defineTensor(result));
  return success();
}

LogicalResult GraphWriter::writeQuantizedConv(edge::QuantizedConv2DOp conv) {
  std::optional<std::vector<int64_t>> weights =
      backends::getIntConstant(conv.getWeight());
  std::optional<std::vector<float>> scales =
      backends::getFloatConstant(conv.getWeightScale());
  std::optional<std::vector<float>> bias =
      backends::getFloatConstant(conv.getBias());
  std::optional<std::pair<float, int32_t>> input =
      scaleAndZero(conv.getInputScale(), conv.getInputZeroPoint());
  std::optional<std::pair<float, int32_t>> output =
      scaleAndZero(conv.getOutputScale(), conv.getOutputZeroPoint());
  if (!weights || !scales || !bias || !input || !output)
    return conv.emitError("XNNPACK int8 convolutions need constant weights, "
                          "scales, zero points and bias");
  FilterLayout layout(shapeOf(conv.getInput()), shapeOf(conv.getWeight()),
                      conv.getGroup());
  int64_t outC = layout.outC;
  fbs::NodeT &node = addNode(layout.kind(), {conv.getOperation()});
  // A channel with a negative scale (a folded batch norm) is negated so
  // that every scale is positive.
  std::vector<float> channelScales(outC), biasScales(outC);
  std::vector<uint8_t> filter(weights->size());
  for (int64_t o = 0, k = 0; o < outC; ++o) {
    float s = (*scales)[scales->size() == 1 ? 0 : o];
    int64_t sign = s < 0 ? -1 : 1;
    channelScales[o] = std::fabs(s);
    biasScales[o] = input->first * channelScales[o];
    for (int64_t i = 0; i < layout.groupIn; ++i)
      for (int64_t y = 0; y < layout.kh; ++y)
        for (int64_t x = 0; x < layout.kw; ++x)
          filter[layout.at(o, i, y, x)] = static_cast<uint8_t>(
              static_cast<int8_t>(sign * (*weights)[k++]));
  }
  // The bias in accumulator units.
  std::vector<uint8_t> biasBytes(outC * sizeof(int32_t));
  for (int64_t o = 0; o < outC; ++o) {
    double q = std::nearbyint(double((*bias)[o]) / biasScales[o]);
    auto v = static_cast<int32_t>(std::clamp(q, -2147483648.0, 2147483647.0));
    std::memcpy(biasBytes.data() + o * sizeof(int32_t), &v, sizeof(v));
  }
  layout.describe(node, conv.getPads(), conv.getStrides(),
                  conv.getDilations());
  FailureOr<uint32_t> x = tensor(conv.getInput());
  if (failed(x))
    return failure();
  node.inputs = {*x,
                 constantTensor(layout.dims(), std::move(filter),
                                fbs::DataType::QCS8, channelScales,
                                layout.depthwise ? 3 : 0),
                 constantTensor({outC}, std::move(biasBytes),
                                fbs::DataType::QCS32, biasScales, 0)};
  float lo = conv.getClipMin() ? conv.getClipMin()->convertToFloat()
                               : -std::numeric_limits<float>::infinity();
  float hi = conv.getClipMax() ? conv.getClipMax()->convertToFloat()
                               : std::numeric_limits<float>::infinity();
  if (!conv.getResidual()) {
    node.output_min = lo;
    node.output_max = hi;
    node.outputs.push_back(defineTensor(conv.getResult()));
    return success();
  }
  // With a residual: the product into an intermediate wide enough for the
  // output's range and the residual's, then a qs8 add that clamps.
  std::optional<std::pair<float, int32_t>> residual =
      scaleAndZero(conv.getResidualScale(), conv.getResidualZeroPoint());
  if (!residual)
    return conv.emitError("XNNPACK int8 residuals need a constant scale");
  uint32_t product = intermediateTensor(xnnDims(shapeOf(conv.getResult())));
  graph.tensors[product]->dtype = fbs::DataType::QS8;
  graph.tensors[product]->scale = output->first + residual->first;
  node.outputs.push_back(product);
  FailureOr<uint32_t> r = tensor(conv.getResidual());
  if (failed(r))
    return failure();
  fbs::NodeT &add = addNode(fbs::NodeKind::Add, {conv.getOperation()});
  add.inputs = {product, *r};
  add.output_min = lo;
  add.output_max = hi;
  add.outputs.push_back(defineTensor(conv.getResult()));
  return success();
}

LogicalResult GraphWriter::writeMatMul(edge::MatMulOp matmul) {
  ArrayRef<int64_t> rhs = shapeOf(matmul.getRhs());
  int64_t k = rhs[rhs.size() - 2], n = rhs.back();
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(matmul.getRhs());
  if (!weights)
    return matmul.emitError("XNNPACK fully connected weights must be "
                            "constant");
  fbs::NodeT &node =
      addNode(fbs::NodeKind::FullyConnected, {matmul.getOperation()});
  std::vector<float> transposed(weights->size());
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      transposed[c * k + r] = (*weights)[r * n + c];
  FailureOr<uint32_t> input = tensor(matmul.getLhs());
  if (failed(input))
    return failure();
  node.inputs = {*input, constantTensor({n, k}, transposed)};
  Value result = matmul.getOutput();
  // A constant row [.., N] added alone to the product: the bias.
  if (result.hasOneUse())
    if (auto add = dyn_cast<edge::AddOp>(*result.getUsers().begin())) {
      Value other = add.getLhs() == result ? add.getRhs() : add.getLhs();
      ArrayRef<int64_t> shape = shapeOf(other);
      std::optional<std::vector<float>> bias =
          backends::getFloatConstant(other);
      if (bias && shape.back() == n &&
          shapeOf(add.getOutput()) == shapeOf(result) &&
          llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; })) {
        node.inputs.push_back(constantTensor({n}, *bias));
        fuseInto(node, {add.getOperation()});
        result = add.getOutput();
      }
    }
  result = fuseClamp(node, result);
  node.outputs.push_back(defineTensor(result));
  return success();
}

LogicalResult GraphWriter::writePool(Operation *op) {
  std::optional<backends::PoolGeometry> g = backends::getPoolGeometry(op);
  if (!g)
    return op->emitError("XNNPACK cannot express this pooling window");
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  Value input = op->getOperand(0);
  FailureOr<uint32_t> inputTensor = tensor(input);
  if (failed(inputTensor))
    return failure();
  // An average that counts padding: zeros padded first, then a window
  // over the padded input alone (XNNPACK leaves padding out).
  auto avg = dyn_cast<edge::AvgPool2DOp>(op);
  bool padFirst = avg && avg.getCountIncludePad() &&
                  (llvm::any_of(g->padsBegin, [](int64_t p) { return p; }) ||
                   llvm::any_of(g->padsEnd, [](int64_t p) { return p; }));
  if (padFirst) {
    fbs::NodeT &pad = addNode(fbs::NodeKind::ConstantPad, {op});
    ArrayRef<int64_t> in = shapeOf(input); // NCHW
    pad.pre_pads = {0, static_cast<uint64_t>(g->padsBegin[0]),
                    static_cast<uint64_t>(g->padsBegin[1]), 0};
    pad.post_pads = {0, static_cast<uint64_t>(g->padsEnd[0]),
                     static_cast<uint64_t>(g->padsEnd[1]), 0};
    pad.inputs = {*inputTensor};
    pad.outputs = {intermediateTensor(
        {in[0], in[2] + g->padsBegin[0] + g->padsEnd[0],
         in[3] + g->padsBegin[1] + g->padsEnd[1], in[1]})};
    inputTensor = pad.outputs[0];
    g->padsBegin = {0, 0};
    g->padsEnd = {0, 0};
  }
  fbs::NodeT &node =
      addNode(isa<edge::MaxPool2DOp>(op) ? fbs::NodeKind::MaxPool
                                         : fbs::NodeKind::AvgPool,
              {op});
  node.inputs = {*inputTensor};
  node.pads = {u32(g->padsBegin[0]), u32(g->padsEnd[1]), u32(g->padsEnd[0]),
               u32(g->padsBegin[1])};
  node.kernel = {u32(g->kernel[0]), u32(g->kernel[1])};
  node.strides = {u32(g->strides[0]), u32(g->strides[1])};
  node.dilations = {u32(g->dilations[0]), u32(g->dilations[1])};
  return finish(node, {}, op->getResult(0), true);
}

LogicalResult GraphWriter::writeConcat(edge::ConcatOp concat) {
  ArrayRef<int64_t> outShape = shapeOf(concat.getOutput());
  int64_t rank = outShape.size(), axis = static_cast<int64_t>(concat.getAxis());
  // The axis among XNNPACK's dims (NHWC for 4-d values).
  static const int64_t kNHWCAxis[] = {0, 3, 1, 2};
  int64_t xnnAxis = rank == 4 ? kNHWCAxis[axis] : axis;
  std::vector<int64_t> dims = xnnDims(outShape);
  std::vector<uint32_t> padded;
  int64_t offset = 0;
  for (Value input : concat.getInputs()) {
    std::vector<int64_t> in = xnnDims(shapeOf(input));
    fbs::NodeT &pad = addNode(fbs::NodeKind::ConstantPad, {concat});
    pad.pre_pads.assign(rank, 0);
    pad.post_pads.assign(rank, 0);
    pad.pre_pads[xnnAxis] = offset;
    pad.post_pads[xnnAxis] = dims[xnnAxis] - offset - in[xnnAxis];
    offset += in[xnnAxis];
    FailureOr<uint32_t> t = tensor(input);
    if (failed(t))
      return failure();
    pad.inputs = {*t};
    padded.push_back(intermediateTensor(dims));
    pad.outputs = {padded.back()};
  }
  uint32_t sum = padded[0];
  for (size_t i = 1; i < padded.size(); ++i) {
    fbs::NodeT &add = addNode(fbs::NodeKind::Add, {concat});
    add.inputs = {sum, padded[i]};
    if (i + 1 == padded.size()) {
      add.outputs = {defineTensor(concat.getOutput())};
    } else {
      sum = intermediateTensor(dims);
      add.outputs = {sum};
    }
  }
  return success();
}

/// The node of an element-wise edge op, if it has one.
std::optional<fbs::NodeKind> elementwiseKind(Operation *op) {
  if (isa<edge::AddOp>(op))
    return fbs::NodeKind::Add;
  if (isa<edge::SubOp>(op))
    return fbs::NodeKind::Subtract;
  if (isa<edge::MulOp>(op))
    return fbs::NodeKind::Multiply;
  if (isa<edge::DivOp>(op))
    return fbs::NodeKind::Divide;
  if (isa<edge::MaximumOp>(op))
    return fbs::NodeKind::Maximum;
  if (isa<edge::MinimumOp>(op))
    return fbs::NodeKind::Minimum;
  if (isa<edge::SigmoidOp>(op))
    return fbs::NodeKind::Sigmoid;
  if (isa<edge::AbsOp>(op))
    return fbs::NodeKind::Abs;
  if (isa<edge::NegOp>(op))
    return fbs::NodeKind::Negate;
  if (isa<edge::FloorOp>(op))
    return fbs::NodeKind::Floor;
  if (isa<edge::CeilOp>(op))
    return fbs::NodeKind::Ceiling;
  if (isa<edge::RoundOp>(op))
    return fbs::NodeKind::Round;
  if (isa<edge::SqrtOp>(op))
    return fbs::NodeKind::SquareRoot;
  if (isa<edge::SoftmaxOp>(op))
    return fbs::NodeKind::Softmax;
  if (isa<edge::PowOp>(op))
    return backends::getScalarConstant(op->getOperand(1)) == 2.f
               ? fbs::NodeKind::Square
               : fbs::NodeKind::SquareRoot;
  return std::nullopt;
}

LogicalResult GraphWriter::writeOp(Operation *op) {
  if (auto it = hardSwishAt.find(op); it != hardSwishAt.end()) {
    fbs::NodeT &node = addNode(fbs::NodeKind::HardSwish, it->second.ops);
    return finish(node, {it->second.input}, it->second.output, false);
  }
  if (auto conv = dyn_cast<edge::Conv2DOp>(op))
    return writeConv(conv);
  if (auto deconv = dyn_cast<edge::ConvTranspose2DOp>(op))
    return writeDeconv(deconv);
  if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op))
    return writeQuantizedConv(conv);
  if (isa<edge::QuantizeLinearOp, edge::DequantizeLinearOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::Convert, {op});
    return finish(node, {op->getOperand(0)}, op->getResult(0), false);
  }
  if (auto matmul = dyn_cast<edge::MatMulOp>(op))
    return writeMatMul(matmul);
  if (isa<edge::MaxPool2DOp, edge::AvgPool2DOp>(op))
    return writePool(op);
  if (isa<edge::ReduceMeanOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::GlobalAvgPool, {op});
    return finish(node, {op->getOperand(0)}, op->getResult(0), true);
  }
  if (isa<edge::ReluOp, edge::ClipOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::Clamp, {op});
    if (auto clip = dyn_cast<edge::ClipOp>(op)) {
      node.output_min = clip.getMin().convertToFloat();
      node.output_max = clip.getMax().convertToFloat();
    } else {
      node.output_min = 0;
    }
    return finish(node, {op->getOperand(0)}, op->getResult(0), false);
  }
  if (auto concat = dyn_cast<edge::ConcatOp>(op))
    return writeConcat(concat);
  if (auto pad = dyn_cast<edge::PadOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::ConstantPad, {op});
    std::vector<int64_t> pads = *backends::getIntConstant(pad.getPads());
    size_t rank = pads.size() / 2;
    // Begins then ends, in the model's order; 4-d values are NHWC here.
    std::vector<size_t> order{0, 1, 2, 3};
    if (rank == 4)
      order = {0, 2, 3, 1};
    for (size_t i = 0; i < rank; ++i) {
      size_t d = rank == 4 ? order[i] : i;
      node.pre_pads.push_back(static_cast<uint64_t>(pads[d]));
      node.post_pads.push_back(static_cast<uint64_t>(pads[rank + d]));
    }
    node.pad_value =
        pad.getValue() ? *backends::getScalarConstant(pad.getValue()) : 0.f;
    return finish(node, {pad.getInput()}, pad.getOutput(), false);
  }
  if (auto resize = dyn_cast<edge::ResizeOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::ResizeBilinear, {op});
    ArrayRef<int64_t> out = shapeOf(resize.getOutput());
    node.new_shape = {static_cast<uint64_t>(out[2]),
                      static_cast<uint64_t>(out[3])};
    StringRef mode = resize.getCoordinateTransformationMode();
    node.flags = mode == "align_corners" ? kResizeAlignCorners
                 : mode == "asymmetric"  ? kResizeAsymmetric
                                         : 0;
    return finish(node, {resize.getInput()}, resize.getOutput(), false);
  }
  if (auto reshape = dyn_cast<edge::ReshapeOp>(op)) {
    fbs::NodeT &node = addNode(fbs::NodeKind::Reshape, {op});
    for (int64_t d : xnnDims(shapeOf(reshape.getOutput())))
      node.new_shape.push_back(static_cast<uint64_t>(d));
    return finish(node, {reshape.getInput()}, reshape.getOutput(), false);
  }
  std::optional<fbs::NodeKind> kind = elementwiseKind(op);
  if (!kind)
    return op->emitError("the XNNPACK delegate has no node for this op");
  fbs::NodeT &node = addNode(*kind, {op});
  bool binary = isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp,
                    edge::MaximumOp, edge::MinimumOp>(op);
  SmallVector<Value, 2> inputs{op->getOperand(0)};
  if (binary)
    inputs.push_back(op->getOperand(1));
  bool clamps = isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp>(op);
  return finish(node, inputs, op->getResult(0), clamps);
}

LogicalResult GraphWriter::write() {
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    uint32_t t = defineTensor(arg);
    graph.tensors[t]->nchw = shapeOf(arg).size() == 4;
    graph.inputs.push_back(t);
  }
  // Hardswish chains whose every op is in the partition.
  auto findChain = [&](Value v) {
    std::optional<edge::ActivationChain> chain = edge::matchActivationOf(v);
    if (!chain || chain->kind != edge::ActivationChain::HardSwish ||
        !llvm::all_of(chain->ops,
                      [&](Operation *o) { return o->getBlock() == &body; }))
      return;
    Operation *last = chain->output.getDefiningOp();
    for (Operation *o : chain->ops)
      if (o != last)
        fused.insert(o);
    hardSwishAt[last] = *chain;
  };
  for (BlockArgument arg : body.getArguments())
    findChain(arg);
  for (Operation &op : body.without_terminator())
    for (Value result : op.getResults())
      findChain(result);
  for (Operation &op : body.without_terminator()) {
    if (fused.contains(&op) || isa<edge::ConstantOp>(op))
      continue;
    if (failed(writeOp(&op)))
      return failure();
  }
  for (Value v : body.getTerminator()->getOperands()) {
    auto it = tensors.find(v);
    if (it == tensors.end() || isa<BlockArgument>(v) ||
        llvm::is_contained(graph.outputs, it->second))
      return func.emitError("an XNNPACK partition returns a value no node "
                            "of it writes, or one twice");
    graph.tensors[it->second]->nchw = shapeOf(v).size() == 4;
    graph.outputs.push_back(it->second);
  }
  return failure(unknownQuantization);
}

} // namespace

FailureOr<PreprocessResult> preprocess(func::FuncOp func,
                                       const CompileSpecs &) {
  GraphWriter writer(func);
  if (failed(writer.write()))
    return failure();
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &writer.graph), fbs::GraphIdentifier());
  runtime::ByteSpan blob{fbb.GetBufferPointer(), fbb.GetSize()};
  if (runtime::Error e = runtime::xnnpack::checkGraph(blob, writer.constants);
      !e.ok())
    return func.emitError("XNNPACK could not build partition @")
           << func.getSymName() << ": " << e.message();
  PreprocessResult result;
  result.processedBytes.assign(blob.data, blob.data + blob.size);
  result.namedData = std::move(writer.constants.bytes);
  result.debugHandles = std::move(writer.debugHandles);
  return result;
}

} // namespace strata::xnnpack
