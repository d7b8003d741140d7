//===- Preprocess.cpp - an outlined partition as an XNNPACK blob ----------===//
//
// Writes the partition as the delegate's subgraph (xnnpack_graph.fbs): one
// tensor per value, constants as named data in XNNPACK's layouts, one node
// per edge op (several for a concatenation, a padded average pooling or an
// int8 convolution with a residual), written by the function its op kind
// maps to (GraphWriter.h). The fusions XNNPACK takes were formed before,
// in the IR, by strata-edge-fuse with the backend's capability set
// (Builtin.cpp):
//
//   conv2d / conv_transpose2d / matmul / pooling / reduce_mean / add, sub,
//   mul, div post [relu or clip]     the node's output clamp
//   matmul post [add (bias row)]     fully connected with bias
//   edge.activation (hardswish)      hardswish
//
// Every 4-d value is NHWC (dims and constants permuted), 4-d inputs and
// outputs are marked for the delegate's transposes; filters go OIHW ->
// OHWI (depthwise: 1HWO), fully connected weights [K, N] -> [N, K]. Then
// XNNPACK itself creates the runtime once (runtime::xnnpack::checkGraph),
// so that what it refuses fails here, naming the node.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include "Edge/IR/EdgePostOps.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace mlir;

namespace strata::xnnpack {

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
static std::optional<std::pair<float, int32_t>> quantOf(Value v,
                                                        int depth = 0) {
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
  // A dynamic extent is written at its bound, with its slot (in XNNPACK's
  // order of the dims).
  if (ArrayRef<int64_t> slots = slotsOf(value); !slots.empty()) {
    std::vector<int64_t> order = xnnDims(slots);
    t->dim_slots.assign(order.begin(), order.end());
    for (size_t d = 0; d < order.size(); ++d)
      if (order[d] >= 0)
        t->dims[d] = extentBounds()[order[d]];
  }
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
  uint32_t index = appendTensor(std::move(t));
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
  uint32_t index = appendTensor(std::move(t));
  setConstant(index, std::move(bytes));
  return index;
}

FailureOr<uint32_t> GraphWriter::tensor(Value value) {
  if (std::optional<uint32_t> index = lookupTensor(value))
    return *index;
  std::optional<std::vector<float>> values = backends::getFloatConstant(value);
  if (!values)
    return func.emitError("value used before it is defined");
  ArrayRef<int64_t> shape = shapeOf(value);
  uint32_t index =
      constantTensor(xnnDims(shape), toXnnOrder(std::move(*values), shape));
  tensors[value] = index;
  return index;
}

fbs::NodeT &GraphWriter::addNode(fbs::NodeKind kind, Operation *op) {
  fbs::NodeT &node = DelegateWriter::addNode(graph.nodes, op);
  node.kind = kind;
  node.output_min = -std::numeric_limits<float>::infinity();
  node.output_max = std::numeric_limits<float>::infinity();
  return node;
}

void GraphWriter::clampByPostOps(fbs::NodeT &node, Operation *op) {
  for (edge::PostOpAttr step : edge::getPostOpSteps(op)) {
    float lo = 0, hi = std::numeric_limits<float>::infinity();
    if (step.getKind() == edge::PostOpKind::Clip) {
      lo = step.getAlphaF();
      hi = step.getBetaF();
    } else if (step.getKind() != edge::PostOpKind::Relu) {
      continue;
    }
    node.output_min = std::max(node.output_min, lo);
    node.output_max = std::min(node.output_max, hi);
  }
}

LogicalResult GraphWriter::finish(fbs::NodeT &node, ValueRange inputs,
                                  Operation *op) {
  for (Value v : inputs) {
    FailureOr<uint32_t> t = tensor(v);
    if (failed(t))
      return failure();
    node.inputs.push_back(*t);
  }
  clampByPostOps(node, op);
  node.outputs.push_back(defineTensor(op->getResult(0)));
  return success();
}

LogicalResult GraphWriter::write() {
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    // Index arguments are extents the ops read (a reshape's sizes): the
    // tensors' slots carry them.
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    uint32_t t = defineTensor(arg);
    graph.tensors[t]->nchw = shapeOf(arg).size() == 4;
    graph.inputs.push_back(t);
  }
  static const WriteTable table = [] {
    WriteTable t;
    addLinearWriters(t);
    addElementwiseWriters(t);
    return t;
  }();
  if (failed(writeOps(*this, table, "XNNPACK")))
    return failure();
  for (Value v : body.getTerminator()->getOperands()) {
    std::optional<uint32_t> t = lookupTensor(v);
    if (!t || isa<BlockArgument>(v) || llvm::is_contained(graph.outputs, *t))
      return func.emitError("an XNNPACK partition returns a value no node "
                            "of it writes, or one twice");
    graph.tensors[*t]->nchw = shapeOf(v).size() == 4;
    graph.outputs.push_back(*t);
  }
  graph.extent_bounds.assign(extentBounds().begin(), extentBounds().end());
  return failure(unknownQuantization || missingSlots());
}

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
