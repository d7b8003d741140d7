//===- Subgraph.cpp - a blob as an XNNPACK runtime ------------------------===//
//
// Defines the blob's tensors and nodes in XNNPACK's subgraph API, in blob
// order, and creates the runtime. Partition inputs and outputs are external
// values bound once, at init, to staging buffers the delegate owns: XNNPACK
// may read XNN_EXTRA_BYTES past a buffer, which the caller's arena does not
// promise, and 4-d values change layout (NCHW outside, NHWC inside) on the
// way anyway.
//
//===----------------------------------------------------------------------===//
#include "Subgraph.h"

#include <pthreadpool.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

namespace strata::runtime::xnnpack {

Result<const fbs::Graph *> verifiedGraph(ByteSpan bytes) {
  if (!bytes.data || bytes.size < 8 ||
      !fbs::GraphBufferHasIdentifier(bytes.data))
    return Error(ErrorCode::InvalidProgram,
                 "the blob is not an XNNPACK graph (identifier 'SXNN' "
                 "missing)");
  flatbuffers::Verifier verifier(bytes.data, bytes.size);
  if (!fbs::VerifyGraphBuffer(verifier))
    return Error(ErrorCode::InvalidProgram,
                 "the XNNPACK graph blob does not verify");
  return fbs::GetGraph(bytes.data);
}

bool xnnpackReady() {
  static const bool ready = xnn_initialize(nullptr) == xnn_status_success;
  return ready;
}

static const char *statusName(xnn_status status) {
  switch (status) {
  case xnn_status_success:
    return "success";
  case xnn_status_uninitialized:
    return "uninitialized";
  case xnn_status_invalid_parameter:
    return "invalid parameter";
  case xnn_status_invalid_state:
    return "invalid state";
  case xnn_status_unsupported_parameter:
    return "unsupported parameter";
  case xnn_status_unsupported_hardware:
    return "unsupported hardware";
  case xnn_status_out_of_memory:
    return "out of memory";
  }
  return "unknown status";
}

Result<ThreadPool> sharedThreadPool(int threads) {
  if (threads <= 1)
    return ThreadPool();
  static std::mutex mutex;
  static std::map<int, ThreadPool> pools;
  std::lock_guard<std::mutex> lock(mutex);
  ThreadPool &pool = pools[threads];
  if (!pool) {
    pthreadpool_t created = pthreadpool_create(static_cast<size_t>(threads));
    if (!created)
      return Error(ErrorCode::OutOfMemory, "pthreadpool_create failed");
    pool = ThreadPool(created, pthreadpool_destroy);
  }
  return pool;
}

Subgraph::~Subgraph() {
  // The runtime first: it uses the pool.
  if (runtime_)
    xnn_delete_runtime(runtime_);
}

/// The node's name for errors: its index, kind and ONNX nodes.
std::string nodeName(const fbs::Node &node, size_t index) {
  std::string s = "node " + std::to_string(index) + " (" +
                  fbs::EnumNameNodeKind(node.kind());
  if (node.node_names())
    for (size_t i = 0; i < node.node_names()->size(); ++i)
      s += (i ? ", " : ": ") + node.node_names()->Get(i)->str();
  return s + ")";
}

namespace {

/// Deletes a subgraph when it leaves scope (the runtime does not need it).
struct SubgraphOwner {
  xnn_subgraph_t subgraph = nullptr;
  ~SubgraphOwner() {
    if (subgraph)
      xnn_delete_subgraph(subgraph);
  }
};

/// Defines one node; `ids` maps blob tensors to XNNPACK value ids.
Error defineNode(xnn_subgraph_t subgraph, const fbs::Node &node, size_t index,
                 const std::vector<uint32_t> &ids) {
  auto fail = [&](const std::string &why) {
    return Error(ErrorCode::InvalidProgram,
                 "XNNPACK " + nodeName(node, index) + ": " + why);
  };
  std::vector<uint32_t> in, out;
  for (const flatbuffers::Vector<uint32_t> *list :
       {node.inputs(), node.outputs()}) {
    std::vector<uint32_t> &into = list == node.inputs() ? in : out;
    if (list)
      for (uint32_t t : *list) {
        if (t >= ids.size())
          return fail("tensor index " + std::to_string(t) + " out of range");
        into.push_back(ids[t]);
      }
  }
  if (out.size() != 1)
    return fail("a node has one output");
  auto window = [&](const flatbuffers::Vector<uint32_t> *v, size_t n,
                    std::vector<uint32_t> &into) {
    if (!v || v->size() != n)
      return false;
    into.assign(v->begin(), v->end());
    return true;
  };
  std::vector<uint32_t> pads, kernel, strides, dilations;
  auto needWindow = [&](bool withDilations) {
    return window(node.pads(), 4, pads) && window(node.kernel(), 2, kernel) &&
           window(node.strides(), 2, strides) &&
           (!withDilations || window(node.dilations(), 2, dilations));
  };
  auto needInputs = [&](size_t low, size_t high) {
    return in.size() >= low && in.size() <= high;
  };
  float lo = node.output_min(), hi = node.output_max();
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return fail("bad output clamp");
  xnn_status status = xnn_status_invalid_parameter;
  switch (node.kind()) {
  case fbs::NodeKind::Convolution:
  case fbs::NodeKind::DepthwiseConvolution: {
    if (!needInputs(2, 3) || !needWindow(true))
      return fail("a convolution takes input, filter, optional bias and a "
                  "full window");
    uint32_t bias = in.size() == 3 ? in[2] : XNN_INVALID_VALUE_ID;
    if (node.kind() == fbs::NodeKind::Convolution)
      status = xnn_define_convolution_2d(
          subgraph, pads[0], pads[1], pads[2], pads[3], kernel[0], kernel[1],
          strides[0], strides[1], dilations[0], dilations[1], node.groups(),
          node.group_input_channels(), node.group_output_channels(), lo, hi,
          in[0], in[1], bias, out[0], 0);
    else
      status = xnn_define_depthwise_convolution_2d(
          subgraph, pads[0], pads[1], pads[2], pads[3], kernel[0], kernel[1],
          strides[0], strides[1], dilations[0], dilations[1],
          node.group_output_channels(), node.group_input_channels(), lo, hi,
          in[0], in[1], bias, out[0], 0);
    break;
  }
  case fbs::NodeKind::Deconvolution: {
    std::vector<uint32_t> adjustment;
    if (!needInputs(2, 3) || !needWindow(true) ||
        !window(node.adjustment(), 2, adjustment))
      return fail("a deconvolution takes input, filter, optional bias, a "
                  "full window and its adjustment");
    status = xnn_define_deconvolution_2d(
        subgraph, pads[0], pads[1], pads[2], pads[3], adjustment[0],
        adjustment[1], kernel[0], kernel[1], strides[0], strides[1],
        dilations[0], dilations[1], node.groups(), node.group_input_channels(),
        node.group_output_channels(), lo, hi, in[0], in[1],
        in.size() == 3 ? in[2] : XNN_INVALID_VALUE_ID, out[0], 0);
    break;
  }
  case fbs::NodeKind::FullyConnected:
    if (!needInputs(2, 3))
      return fail("a fully connected takes input, weights and optional bias");
    status = xnn_define_fully_connected(
        subgraph, lo, hi, in[0], in[1],
        in.size() == 3 ? in[2] : XNN_INVALID_VALUE_ID, out[0], 0);
    break;
  case fbs::NodeKind::MaxPool:
    if (!needInputs(1, 1) || !needWindow(true))
      return fail("a pooling takes one input and a full window");
    status = xnn_define_max_pooling_2d(subgraph, pads[0], pads[1], pads[2],
                                       pads[3], kernel[0], kernel[1],
                                       strides[0], strides[1], dilations[0],
                                       dilations[1], lo, hi, in[0], out[0], 0);
    break;
  case fbs::NodeKind::AvgPool:
    if (!needInputs(1, 1) || !needWindow(false))
      return fail("a pooling takes one input and a full window");
    status = xnn_define_average_pooling_2d(
        subgraph, pads[0], pads[1], pads[2], pads[3], kernel[0], kernel[1],
        strides[0], strides[1], lo, hi, in[0], out[0], 0);
    break;
  case fbs::NodeKind::GlobalAvgPool:
    if (!needInputs(1, 1))
      return fail("a pooling takes one input");
    status = xnn_define_global_average_pooling_2d(subgraph, lo, hi, in[0],
                                                  out[0], 0);
    break;
  case fbs::NodeKind::Add:
  case fbs::NodeKind::Subtract:
  case fbs::NodeKind::Multiply:
  case fbs::NodeKind::Divide: {
    if (!needInputs(2, 2))
      return fail("a binary node takes two inputs");
    auto define = node.kind() == fbs::NodeKind::Add        ? xnn_define_add2
                  : node.kind() == fbs::NodeKind::Subtract ? xnn_define_subtract
                  : node.kind() == fbs::NodeKind::Multiply
                      ? xnn_define_multiply2
                      : xnn_define_divide;
    status = define(subgraph, lo, hi, in[0], in[1], out[0], 0);
    break;
  }
  case fbs::NodeKind::Maximum:
  case fbs::NodeKind::Minimum:
    if (!needInputs(2, 2))
      return fail("a binary node takes two inputs");
    status = (node.kind() == fbs::NodeKind::Maximum
                  ? xnn_define_maximum2
                  : xnn_define_minimum2)(subgraph, in[0], in[1], out[0], 0);
    break;
  case fbs::NodeKind::Clamp:
    if (!needInputs(1, 1))
      return fail("a clamp takes one input");
    status = xnn_define_clamp(subgraph, lo, hi, in[0], out[0], 0);
    break;
  case fbs::NodeKind::ConstantPad: {
    if (!needInputs(1, 1) || !node.pre_pads() || !node.post_pads() ||
        node.pre_pads()->size() != node.post_pads()->size() ||
        node.pre_pads()->size() > XNN_MAX_TENSOR_DIMS)
      return fail("a pad takes one input and pads per dim");
    std::vector<size_t> pre(node.pre_pads()->begin(), node.pre_pads()->end()),
        post(node.post_pads()->begin(), node.post_pads()->end());
    status = xnn_define_static_constant_pad(subgraph, pre.data(), post.data(),
                                            node.pad_value(), in[0], out[0],
                                            0);
    break;
  }
  case fbs::NodeKind::ResizeBilinear: {
    // The compiler writes these values (lib/Backends/XNNPACK).
    static_assert(XNN_FLAG_TENSORFLOW_LEGACY_MODE == 0x4 &&
                  XNN_FLAG_ALIGN_CORNERS == 0x8);
    uint32_t known = XNN_FLAG_ALIGN_CORNERS | XNN_FLAG_TENSORFLOW_LEGACY_MODE;
    if (!needInputs(1, 1) || !node.new_shape() ||
        node.new_shape()->size() != 2 || (node.flags() & ~known) ||
        node.flags() == known)
      return fail("a resize takes one input, the new height and width and "
                  "at most one mode flag");
    status = xnn_define_static_resize_bilinear_2d(
        subgraph, node.new_shape()->Get(0), node.new_shape()->Get(1), in[0],
        out[0], node.flags());
    break;
  }
  case fbs::NodeKind::Convert:
    if (!needInputs(1, 1))
      return fail("a convert takes one input");
    status = xnn_define_convert(subgraph, in[0], out[0], 0);
    break;
  case fbs::NodeKind::Reshape: {
    if (!needInputs(1, 1) || !node.new_shape() ||
        node.new_shape()->size() == 0 ||
        node.new_shape()->size() > XNN_MAX_TENSOR_DIMS)
      return fail("a reshape takes one input and its new dims");
    std::vector<size_t> dims(node.new_shape()->begin(),
                             node.new_shape()->end());
    status = xnn_define_static_reshape(subgraph, dims.size(), dims.data(),
                                       in[0], out[0], 0);
    break;
  }
  default: {
    using Unary = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t);
    Unary define = nullptr;
    switch (node.kind()) {
    case fbs::NodeKind::HardSwish:
      define = xnn_define_hardswish;
      break;
    case fbs::NodeKind::Sigmoid:
      define = xnn_define_sigmoid;
      break;
    case fbs::NodeKind::Softmax:
      define = xnn_define_softmax;
      break;
    case fbs::NodeKind::Abs:
      define = xnn_define_abs;
      break;
    case fbs::NodeKind::Negate:
      define = xnn_define_negate;
      break;
    case fbs::NodeKind::Floor:
      define = xnn_define_floor;
      break;
    case fbs::NodeKind::Ceiling:
      define = xnn_define_ceiling;
      break;
    case fbs::NodeKind::SquareRoot:
      define = xnn_define_square_root;
      break;
    case fbs::NodeKind::Square:
      define = xnn_define_square;
      break;
    case fbs::NodeKind::Round:
      define = xnn_define_bankers_rounding;
      break;
    default:
      return fail("unknown node kind");
    }
    if (!needInputs(1, 1))
      return fail("a unary node takes one input");
    status = define(subgraph, in[0], out[0], 0);
    break;
  }
  }
  if (status != xnn_status_success)
    return fail(std::string("XNNPACK refuses it: ") + statusName(status));
  return Error::success();
}

/// NCHW <-> NHWC of elements of type T: `toNHWC` reads NCHW `from`.
template <typename T>
void transposeAs(const void *fromBytes, void *toBytes,
                 const std::vector<int64_t> &nchw, bool toNHWC) {
  const T *from = static_cast<const T *>(fromBytes);
  T *to = static_cast<T *>(toBytes);
  int64_t n = nchw[0], c = nchw[1], hw = nchw[2] * nchw[3];
  for (int64_t b = 0; b < n; ++b) {
    const T *src = from + b * c * hw;
    T *dst = to + b * c * hw;
    for (int64_t p = 0; p < hw; ++p)
      for (int64_t k = 0; k < c; ++k) {
        if (toNHWC)
          dst[p * c + k] = src[k * hw + p];
        else
          dst[k * hw + p] = src[p * c + k];
      }
  }
}

void transpose(const Staging &s, const void *from, void *to, bool toNHWC) {
  if (s.elementBytes == 1)
    transposeAs<int8_t>(from, to, s.shape, toNHWC);
  else
    transposeAs<float>(from, to, s.shape, toNHWC);
}

/// Bytes per element of a blob type.
size_t elementBytes(fbs::DataType type) {
  return type == fbs::DataType::QS8 || type == fbs::DataType::QCS8 ? 1 : 4;
}

} // namespace

Result<std::unique_ptr<Subgraph>> Subgraph::build(const fbs::Graph &graph,
                                                  const NamedDataMap &named,
                                                  ThreadPool pool) {
  if (!xnnpackReady())
    return Error(ErrorCode::NotSupported,
                 "XNNPACK does not initialise on this CPU");
  if (!graph.tensors() || !graph.nodes() || !graph.inputs() ||
      !graph.outputs() || graph.outputs()->size() == 0)
    return Error(ErrorCode::InvalidProgram,
                 "the XNNPACK graph lacks tensors, nodes, inputs or outputs");
  size_t tensorCount = graph.tensors()->size();
  // External ids: the inputs in call order, then the outputs.
  std::vector<int64_t> externalOf(tensorCount, -1);
  std::vector<uint32_t> externals(graph.inputs()->begin(),
                                  graph.inputs()->end());
  externals.insert(externals.end(), graph.outputs()->begin(),
                   graph.outputs()->end());
  for (size_t i = 0; i < externals.size(); ++i) {
    if (externals[i] >= tensorCount || externalOf[externals[i]] >= 0)
      return Error(ErrorCode::InvalidProgram,
                   "XNNPACK graph input/output " + std::to_string(i) +
                       " names a bad or repeated tensor");
    externalOf[externals[i]] = static_cast<int64_t>(i);
  }
  std::unique_ptr<Subgraph> result(new Subgraph());
  result->inputs_.resize(graph.inputs()->size());
  result->outputs_.resize(graph.outputs()->size());
  SubgraphOwner owner;
  xnn_status status = xnn_create_subgraph(
      static_cast<uint32_t>(externals.size()), 0, &owner.subgraph);
  if (status != xnn_status_success)
    return Error(ErrorCode::OutOfMemory,
                 std::string("xnn_create_subgraph: ") + statusName(status));
  std::vector<uint32_t> ids(tensorCount, XNN_INVALID_VALUE_ID);
  for (size_t i = 0; i < tensorCount; ++i) {
    const fbs::Tensor *t = graph.tensors()->Get(i);
    std::string what = "XNNPACK graph tensor " + std::to_string(i);
    if (!t->dims() || t->dims()->size() == 0 ||
        t->dims()->size() > XNN_MAX_TENSOR_DIMS)
      return Error(ErrorCode::InvalidProgram, what + " has a bad rank");
    std::vector<size_t> dims;
    size_t elements = 1;
    for (int64_t d : *t->dims()) {
      if (d <= 0 || elements > (size_t(1) << 40) / static_cast<size_t>(d))
        return Error(ErrorCode::InvalidProgram, what + " has a bad dim");
      dims.push_back(static_cast<size_t>(d));
      elements *= static_cast<size_t>(d);
    }
    size_t bytesPerElement = elementBytes(t->dtype());
    bool perChannel = t->dtype() == fbs::DataType::QCS8 ||
                      t->dtype() == fbs::DataType::QCS32;
    if (perChannel &&
        (t->channel_dim() >= dims.size() || !t->channel_scales() ||
         t->channel_scales()->size() != dims[t->channel_dim()]))
      return Error(ErrorCode::InvalidProgram,
                   what + " needs one scale per channel");
    const void *data = nullptr;
    if (t->constant_key()) {
      STRATA_ASSIGN_OR_RETURN(ByteSpan bytes,
                              named.get(t->constant_key()->str()));
      if (bytes.size != elements * bytesPerElement)
        return Error(ErrorCode::InvalidProgram,
                     "constant '" + t->constant_key()->str() + "' has " +
                         std::to_string(bytes.size) + " bytes, its dims need " +
                         std::to_string(elements * bytesPerElement));
      data = bytes.data;
    }
    uint32_t flags = 0, external = XNN_INVALID_VALUE_ID;
    if (externalOf[i] >= 0) {
      if (data)
        return Error(ErrorCode::InvalidProgram,
                     what + " is both a constant and an input or output");
      external = static_cast<uint32_t>(externalOf[i]);
      bool isInput = external < graph.inputs()->size();
      flags = isInput ? XNN_VALUE_FLAG_EXTERNAL_INPUT
                      : XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
      if (t->nchw() && dims.size() != 4)
        return Error(ErrorCode::InvalidProgram,
                     what + " is marked NCHW but is not 4-d");
      if (t->dtype() != fbs::DataType::F32 &&
          t->dtype() != fbs::DataType::QS8)
        return Error(ErrorCode::InvalidProgram,
                     what + ": an input or output is f32 or qs8");
      Staging staging;
      staging.nchw = t->nchw();
      staging.dtype =
          t->dtype() == fbs::DataType::QS8 ? DType::I8 : DType::F32;
      staging.elementBytes = bytesPerElement;
      staging.shape.assign(t->dims()->begin(), t->dims()->end());
      if (staging.nchw)
        staging.shape = {staging.shape[0], staging.shape[3], staging.shape[1],
                         staging.shape[2]};
      staging.elements = elements;
      staging.data.assign(elements * bytesPerElement + XNN_EXTRA_BYTES, 0);
      size_t inputCount = graph.inputs()->size();
      (isInput ? result->inputs_[external]
               : result->outputs_[external - inputCount]) = std::move(staging);
    }
    switch (t->dtype()) {
    case fbs::DataType::F32:
      status = xnn_define_tensor_value(owner.subgraph, xnn_datatype_fp32,
                                       dims.size(), dims.data(), data,
                                       external, flags, &ids[i]);
      break;
    case fbs::DataType::QS8:
    case fbs::DataType::QS32:
      status = xnn_define_quantized_tensor_value(
          owner.subgraph,
          t->dtype() == fbs::DataType::QS8 ? xnn_datatype_qint8
                                           : xnn_datatype_qint32,
          t->zero_point(), t->scale(), dims.size(), dims.data(), data,
          external, flags, &ids[i]);
      break;
    case fbs::DataType::QCS8:
    case fbs::DataType::QCS32:
      // The scales stay in the blob, which outlives the runtime.
      status = xnn_define_channelwise_quantized_tensor_value(
          owner.subgraph,
          t->dtype() == fbs::DataType::QCS8 ? xnn_datatype_qcint8
                                            : xnn_datatype_qcint32,
          t->channel_scales()->data(), dims.size(), t->channel_dim(),
          dims.data(), data, external, flags, &ids[i]);
      break;
    default:
      return Error(ErrorCode::InvalidProgram, what + " has an unknown type");
    }
    if (status != xnn_status_success)
      return Error(ErrorCode::InvalidProgram,
                   what + ": XNNPACK refuses it: " + statusName(status));
  }
  // Each node writes one tensor no one else writes: not a constant (its
  // bytes are the read-only program) and not a partition input.
  std::vector<bool> written(tensorCount, false);
  for (uint32_t t : *graph.inputs())
    written[t] = true;
  for (size_t i = 0; i < tensorCount; ++i)
    if (graph.tensors()->Get(i)->constant_key())
      written[i] = true;
  for (size_t i = 0; i < graph.nodes()->size(); ++i) {
    const fbs::Node &node = *graph.nodes()->Get(i);
    if (node.outputs() && node.outputs()->size() == 1 &&
        node.outputs()->Get(0) < tensorCount) {
      uint32_t out = node.outputs()->Get(0);
      if (written[out])
        return Error(ErrorCode::InvalidProgram,
                     "XNNPACK " + nodeName(node, i) + " writes tensor " +
                         std::to_string(out) +
                         ", a constant, an input or another node's result");
      written[out] = true;
    }
    STRATA_RETURN_IF_ERROR(checkShapes(graph, *graph.nodes()->Get(i), i));
    STRATA_RETURN_IF_ERROR(
        defineNode(owner.subgraph, *graph.nodes()->Get(i), i, ids));
  }
  result->pool_ = std::move(pool);
  status = xnn_create_runtime_v2(owner.subgraph, result->pool_.get(),
                                 XNN_FLAG_YIELD_WORKERS, &result->runtime_);
  if (status != xnn_status_success)
    return Error(ErrorCode::InvalidProgram,
                 std::string("XNNPACK cannot create the runtime: ") +
                     statusName(status));
  std::vector<xnn_external_value> values;
  for (size_t i = 0; i < externals.size(); ++i) {
    Staging &s = i < result->inputs_.size()
                     ? result->inputs_[i]
                     : result->outputs_[i - result->inputs_.size()];
    values.push_back({static_cast<uint32_t>(i), s.data.data()});
  }
  status = xnn_setup_runtime(result->runtime_, values.size(), values.data());
  if (status != xnn_status_success)
    return Error(ErrorCode::InvalidProgram,
                 std::string("XNNPACK cannot set the runtime up: ") +
                     statusName(status));
  return result;
}

Error Subgraph::execute(const std::vector<TensorView> &ins,
                        const std::vector<TensorView> &outs) {
  if (ins.size() != inputs_.size() || outs.size() != outputs_.size())
    return Error(ErrorCode::InvalidArgument,
                 "the XNNPACK partition takes " +
                     std::to_string(inputs_.size()) + " inputs and " +
                     std::to_string(outputs_.size()) + " outputs, got " +
                     std::to_string(ins.size()) + " and " +
                     std::to_string(outs.size()));
  auto check = [](const TensorView &view, const Staging &s, const char *what,
                  size_t i) -> Error {
    if (view.dtype != s.dtype || view.shape != s.shape || !view.data)
      return Error(ErrorCode::InvalidArgument,
                   std::string("XNNPACK partition ") + what + " " +
                       std::to_string(i) +
                       " has another type or shape than the partition's");
    return Error::success();
  };
  for (size_t i = 0; i < ins.size(); ++i) {
    STRATA_RETURN_IF_ERROR(check(ins[i], inputs_[i], "input", i));
    if (inputs_[i].nchw)
      transpose(inputs_[i], ins[i].data, inputs_[i].data.data(), true);
    else
      std::memcpy(inputs_[i].data.data(), ins[i].data,
                  inputs_[i].elements * inputs_[i].elementBytes);
  }
  for (size_t i = 0; i < outs.size(); ++i)
    STRATA_RETURN_IF_ERROR(check(outs[i], outputs_[i], "output", i));
  xnn_status status = xnn_invoke_runtime(runtime_);
  if (status != xnn_status_success)
    return Error(ErrorCode::ExecutionFailed,
                 std::string("xnn_invoke_runtime: ") + statusName(status));
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outputs_[i].nchw)
      transpose(outputs_[i], outputs_[i].data.data(), outs[i].data, false);
    else
      std::memcpy(outs[i].data, outputs_[i].data.data(),
                  outputs_[i].elements * outputs_[i].elementBytes);
  }
  return Error::success();
}

} // namespace strata::runtime::xnnpack
