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

#include <array>
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

/// One node being defined: its XNNPACK value ids, output clamp and the
/// error prefix that names it.
struct NodeDefinition {
  xnn_subgraph_t subgraph;
  const fbs::Node &node;
  size_t index;
  std::vector<uint32_t> in, out;
  float lo, hi;

  Error fail(const std::string &why) const {
    return Error(ErrorCode::InvalidProgram,
                 "XNNPACK " + nodeName(node, index) + ": " + why);
  }
  bool inputs(size_t low, size_t high) const {
    return in.size() >= low && in.size() <= high;
  }
  /// The optional third input, the bias.
  uint32_t bias() const {
    return in.size() == 3 ? in[2] : XNN_INVALID_VALUE_ID;
  }
  /// Success, or XNNPACK's refusal of the node.
  Error refused(xnn_status status) const {
    if (status != xnn_status_success)
      return fail(std::string("XNNPACK refuses it: ") + statusName(status));
    return Error::success();
  }
};

/// Copies `v` into `into` when it has `n` elements.
bool window(const flatbuffers::Vector<uint32_t> *v, size_t n,
            std::vector<uint32_t> &into) {
  if (!v || v->size() != n)
    return false;
  into.assign(v->begin(), v->end());
  return true;
}

/// A node's 2-d window: pads top, right, bottom, left, then kernel, strides
/// and dilations as height, width.
struct Window {
  std::vector<uint32_t> pads, kernel, strides, dilations;
  /// Whether `node` has a full window (dilations only when asked for).
  bool read(const fbs::Node &node, bool withDilations) {
    return window(node.pads(), 4, pads) && window(node.kernel(), 2, kernel) &&
           window(node.strides(), 2, strides) &&
           (!withDilations || window(node.dilations(), 2, dilations));
  }
};

/// Convolution and DepthwiseConvolution.
Error defineConvolution(const NodeDefinition &d) {
  const fbs::Node &node = d.node;
  Window w;
  if (!d.inputs(2, 3) || !w.read(node, true))
    return d.fail("a convolution takes input, filter, optional bias and a "
                  "full window");
  const std::vector<uint32_t> &pads = w.pads, &kernel = w.kernel,
                              &strides = w.strides, &dilations = w.dilations;
  if (node.kind() == fbs::NodeKind::Convolution)
    return d.refused(xnn_define_convolution_2d(
        d.subgraph, pads[0], pads[1], pads[2], pads[3], kernel[0], kernel[1],
        strides[0], strides[1], dilations[0], dilations[1], node.groups(),
        node.group_input_channels(), node.group_output_channels(), d.lo, d.hi,
        d.in[0], d.in[1], d.bias(), d.out[0], 0));
  return d.refused(xnn_define_depthwise_convolution_2d(
      d.subgraph, pads[0], pads[1], pads[2], pads[3], kernel[0], kernel[1],
      strides[0], strides[1], dilations[0], dilations[1],
      node.group_output_channels(), node.group_input_channels(), d.lo, d.hi,
      d.in[0], d.in[1], d.bias(), d.out[0], 0));
}

Error defineDeconvolution(const NodeDefinition &d) {
  const fbs::Node &node = d.node;
  Window w;
  std::vector<uint32_t> adjustment;
  if (!d.inputs(2, 3) || !w.read(node, true) ||
      !window(node.adjustment(), 2, adjustment))
    return d.fail("a deconvolution takes input, filter, optional bias, a "
                  "full window and its adjustment");
  return d.refused(xnn_define_deconvolution_2d(
      d.subgraph, w.pads[0], w.pads[1], w.pads[2], w.pads[3], adjustment[0],
      adjustment[1], w.kernel[0], w.kernel[1], w.strides[0], w.strides[1],
      w.dilations[0], w.dilations[1], node.groups(),
      node.group_input_channels(), node.group_output_channels(), d.lo, d.hi,
      d.in[0], d.in[1], d.bias(), d.out[0], 0));
}

Error defineFullyConnected(const NodeDefinition &d) {
  if (!d.inputs(2, 3))
    return d.fail("a fully connected takes input, weights and optional bias");
  return d.refused(xnn_define_fully_connected(d.subgraph, d.lo, d.hi, d.in[0],
                                              d.in[1], d.bias(), d.out[0], 0));
}

Error defineMaxPool(const NodeDefinition &d) {
  Window w;
  if (!d.inputs(1, 1) || !w.read(d.node, true))
    return d.fail("a pooling takes one input and a full window");
  return d.refused(xnn_define_max_pooling_2d(
      d.subgraph, w.pads[0], w.pads[1], w.pads[2], w.pads[3], w.kernel[0],
      w.kernel[1], w.strides[0], w.strides[1], w.dilations[0], w.dilations[1],
      d.lo, d.hi, d.in[0], d.out[0], 0));
}

Error defineAvgPool(const NodeDefinition &d) {
  Window w;
  if (!d.inputs(1, 1) || !w.read(d.node, false))
    return d.fail("a pooling takes one input and a full window");
  return d.refused(xnn_define_average_pooling_2d(
      d.subgraph, w.pads[0], w.pads[1], w.pads[2], w.pads[3], w.kernel[0],
      w.kernel[1], w.strides[0], w.strides[1], d.lo, d.hi, d.in[0], d.out[0],
      0));
}

Error defineGlobalAvgPool(const NodeDefinition &d) {
  if (!d.inputs(1, 1))
    return d.fail("a pooling takes one input");
  return d.refused(xnn_define_global_average_pooling_2d(d.subgraph, d.lo, d.hi,
                                                        d.in[0], d.out[0], 0));
}

using ClampedBinary = xnn_status (*)(xnn_subgraph_t, float, float, uint32_t,
                                     uint32_t, uint32_t, uint32_t);
using Binary = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t,
                              uint32_t);
using Unary = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t);

/// Add, Subtract, Multiply and Divide, which take the output clamp.
template <ClampedBinary define>
Error defineClampedBinary(const NodeDefinition &d) {
  if (!d.inputs(2, 2))
    return d.fail("a binary node takes two inputs");
  return d.refused(
      define(d.subgraph, d.lo, d.hi, d.in[0], d.in[1], d.out[0], 0));
}

/// Maximum and Minimum.
template <Binary define> Error defineBinary(const NodeDefinition &d) {
  if (!d.inputs(2, 2))
    return d.fail("a binary node takes two inputs");
  return d.refused(define(d.subgraph, d.in[0], d.in[1], d.out[0], 0));
}

template <Unary define> Error defineUnary(const NodeDefinition &d) {
  if (!d.inputs(1, 1))
    return d.fail("a unary node takes one input");
  return d.refused(define(d.subgraph, d.in[0], d.out[0], 0));
}

Error defineClamp(const NodeDefinition &d) {
  if (!d.inputs(1, 1))
    return d.fail("a clamp takes one input");
  return d.refused(
      xnn_define_clamp(d.subgraph, d.lo, d.hi, d.in[0], d.out[0], 0));
}

Error defineConstantPad(const NodeDefinition &d) {
  const fbs::Node &node = d.node;
  if (!d.inputs(1, 1) || !node.pre_pads() || !node.post_pads() ||
      node.pre_pads()->size() != node.post_pads()->size() ||
      node.pre_pads()->size() > XNN_MAX_TENSOR_DIMS)
    return d.fail("a pad takes one input and pads per dim");
  std::vector<size_t> pre(node.pre_pads()->begin(), node.pre_pads()->end()),
      post(node.post_pads()->begin(), node.post_pads()->end());
  return d.refused(xnn_define_static_constant_pad(d.subgraph, pre.data(),
                                                  post.data(), node.pad_value(),
                                                  d.in[0], d.out[0], 0));
}

Error defineResizeBilinear(const NodeDefinition &d) {
  const fbs::Node &node = d.node;
  // The compiler writes these values (lib/Backends/XNNPACK).
  static_assert(XNN_FLAG_TENSORFLOW_LEGACY_MODE == 0x4 &&
                XNN_FLAG_ALIGN_CORNERS == 0x8);
  uint32_t known = XNN_FLAG_ALIGN_CORNERS | XNN_FLAG_TENSORFLOW_LEGACY_MODE;
  if (!d.inputs(1, 1) || !node.new_shape() || node.new_shape()->size() != 2 ||
      (node.flags() & ~known) || node.flags() == known)
    return d.fail("a resize takes one input, the new height and width and "
                  "at most one mode flag");
  return d.refused(xnn_define_static_resize_bilinear_2d(
      d.subgraph, node.new_shape()->Get(0), node.new_shape()->Get(1), d.in[0],
      d.out[0], node.flags()));
}

Error defineConvert(const NodeDefinition &d) {
  if (!d.inputs(1, 1))
    return d.fail("a convert takes one input");
  return d.refused(xnn_define_convert(d.subgraph, d.in[0], d.out[0], 0));
}

Error defineReshape(const NodeDefinition &d) {
  const fbs::Node &node = d.node;
  if (!d.inputs(1, 1) || !node.new_shape() || node.new_shape()->size() == 0 ||
      node.new_shape()->size() > XNN_MAX_TENSOR_DIMS)
    return d.fail("a reshape takes one input and its new dims");
  std::vector<size_t> dims(node.new_shape()->begin(), node.new_shape()->end());
  return d.refused(xnn_define_static_reshape(
      d.subgraph, dims.size(), dims.data(), d.in[0], d.out[0], 0));
}

using DefineFunction = Error (*)(const NodeDefinition &);

constexpr size_t kindCount = static_cast<size_t>(fbs::NodeKind::MAX) + 1;

/// Each node kind's define function (null: an unknown kind), as
/// ExecuTorch's XNNPACK runtime maps node kinds (getDefineNodeFunc).
const std::array<DefineFunction, kindCount> &defineFunctions() {
  using K = fbs::NodeKind;
  static const std::array<DefineFunction, kindCount> table = [] {
    std::array<DefineFunction, kindCount> t{};
    auto set = [&](K kind, DefineFunction define) {
      t[static_cast<size_t>(kind)] = define;
    };
    set(K::Convolution, defineConvolution);
    set(K::DepthwiseConvolution, defineConvolution);
    set(K::Deconvolution, defineDeconvolution);
    set(K::FullyConnected, defineFullyConnected);
    set(K::MaxPool, defineMaxPool);
    set(K::AvgPool, defineAvgPool);
    set(K::GlobalAvgPool, defineGlobalAvgPool);
    set(K::Add, defineClampedBinary<xnn_define_add2>);
    set(K::Subtract, defineClampedBinary<xnn_define_subtract>);
    set(K::Multiply, defineClampedBinary<xnn_define_multiply2>);
    set(K::Divide, defineClampedBinary<xnn_define_divide>);
    set(K::Maximum, defineBinary<xnn_define_maximum2>);
    set(K::Minimum, defineBinary<xnn_define_minimum2>);
    set(K::Clamp, defineClamp);
    set(K::ConstantPad, defineConstantPad);
    set(K::ResizeBilinear, defineResizeBilinear);
    set(K::Convert, defineConvert);
    set(K::Reshape, defineReshape);
    set(K::HardSwish, defineUnary<xnn_define_hardswish>);
    set(K::Sigmoid, defineUnary<xnn_define_sigmoid>);
    set(K::Softmax, defineUnary<xnn_define_softmax>);
    set(K::Abs, defineUnary<xnn_define_abs>);
    set(K::Negate, defineUnary<xnn_define_negate>);
    set(K::Floor, defineUnary<xnn_define_floor>);
    set(K::Ceiling, defineUnary<xnn_define_ceiling>);
    set(K::SquareRoot, defineUnary<xnn_define_square_root>);
    set(K::Square, defineUnary<xnn_define_square>);
    set(K::Round, defineUnary<xnn_define_bankers_rounding>);
    return t;
  }();
  return table;
}

/// Defines one node; `ids` maps blob tensors to XNNPACK value ids.
Error defineNode(xnn_subgraph_t subgraph, const fbs::Node &node, size_t index,
                 const std::vector<uint32_t> &ids) {
  NodeDefinition d{subgraph,         node, index, {}, {}, node.output_min(),
                   node.output_max()};
  for (const flatbuffers::Vector<uint32_t> *list :
       {node.inputs(), node.outputs()}) {
    std::vector<uint32_t> &into = list == node.inputs() ? d.in : d.out;
    if (list)
      for (uint32_t t : *list) {
        if (t >= ids.size())
          return d.fail("tensor index " + std::to_string(t) + " out of range");
        into.push_back(ids[t]);
      }
  }
  if (d.out.size() != 1)
    return d.fail("a node has one output");
  if (std::isnan(d.lo) || std::isnan(d.hi) || d.lo > d.hi)
    return d.fail("bad output clamp");
  DefineFunction define =
      node.kind() > fbs::NodeKind::MAX
          ? nullptr
          : defineFunctions()[static_cast<size_t>(node.kind())];
  if (!define)
    return d.fail("unknown node kind");
  return define(d);
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

/// A tensor's dims, checked, and their element count.
struct TensorShape {
  std::vector<size_t> dims;
  size_t elements = 1;
};

/// The dims of `t` (`what` in errors): a rank XNNPACK takes, positive dims,
/// at most 2^40 elements, and one scale per channel when per-channel.
Result<TensorShape> checkedShape(const fbs::Tensor &t,
                                 const std::string &what) {
  if (!t.dims() || t.dims()->size() == 0 ||
      t.dims()->size() > XNN_MAX_TENSOR_DIMS)
    return Error(ErrorCode::InvalidProgram, what + " has a bad rank");
  TensorShape shape;
  for (int64_t d : *t.dims()) {
    if (d <= 0 || shape.elements > (size_t(1) << 40) / static_cast<size_t>(d))
      return Error(ErrorCode::InvalidProgram, what + " has a bad dim");
    shape.dims.push_back(static_cast<size_t>(d));
    shape.elements *= static_cast<size_t>(d);
  }
  bool perChannel =
      t.dtype() == fbs::DataType::QCS8 || t.dtype() == fbs::DataType::QCS32;
  if (perChannel &&
      (t.channel_dim() >= shape.dims.size() || !t.channel_scales() ||
       t.channel_scales()->size() != shape.dims[t.channel_dim()]))
    return Error(ErrorCode::InvalidProgram,
                 what + " needs one scale per channel");
  return shape;
}

/// The bytes of constant `t` from `named` (null when `t` is no constant),
/// checked against its dims.
Result<const void *> constantData(const fbs::Tensor &t,
                                  const TensorShape &shape,
                                  const NamedDataMap &named) {
  if (!t.constant_key())
    return static_cast<const void *>(nullptr);
  size_t bytesPerElement = elementBytes(t.dtype());
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, named.get(t.constant_key()->str()));
  if (bytes.size != shape.elements * bytesPerElement)
    return Error(ErrorCode::InvalidProgram,
                 "constant '" + t.constant_key()->str() + "' has " +
                     std::to_string(bytes.size) + " bytes, its dims need " +
                     std::to_string(shape.elements * bytesPerElement));
  return static_cast<const void *>(bytes.data);
}

/// The staging buffer of partition input or output `t`.
Result<Staging> stagingFor(const fbs::Tensor &t, const TensorShape &shape,
                           const std::string &what) {
  if (t.nchw() && shape.dims.size() != 4)
    return Error(ErrorCode::InvalidProgram,
                 what + " is marked NCHW but is not 4-d");
  if (t.dtype() != fbs::DataType::F32 && t.dtype() != fbs::DataType::QS8)
    return Error(ErrorCode::InvalidProgram,
                 what + ": an input or output is f32 or qs8");
  Staging staging;
  staging.nchw = t.nchw();
  staging.dtype = t.dtype() == fbs::DataType::QS8 ? DType::I8 : DType::F32;
  staging.elementBytes = elementBytes(t.dtype());
  staging.shape.assign(t.dims()->begin(), t.dims()->end());
  if (staging.nchw)
    staging.shape = {staging.shape[0], staging.shape[3], staging.shape[1],
                     staging.shape[2]};
  staging.elements = shape.elements;
  staging.data.assign(shape.elements * staging.elementBytes + XNN_EXTRA_BYTES,
                      0);
  return staging;
}

/// Defines the XNNPACK value of tensor `t` with `data` (null: not a
/// constant) as external value `external` with `flags`; sets `id`.
Error defineValue(xnn_subgraph_t subgraph, const fbs::Tensor &t,
                  const std::vector<size_t> &dims, const void *data,
                  uint32_t external, uint32_t flags, uint32_t &id,
                  const std::string &what) {
  xnn_status status = xnn_status_invalid_parameter;
  switch (t.dtype()) {
  case fbs::DataType::F32:
    status = xnn_define_tensor_value(subgraph, xnn_datatype_fp32, dims.size(),
                                     dims.data(), data, external, flags, &id);
    break;
  case fbs::DataType::QS8:
  case fbs::DataType::QS32:
    status = xnn_define_quantized_tensor_value(
        subgraph,
        t.dtype() == fbs::DataType::QS8 ? xnn_datatype_qint8
                                        : xnn_datatype_qint32,
        t.zero_point(), t.scale(), dims.size(), dims.data(), data, external,
        flags, &id);
    break;
  case fbs::DataType::QCS8:
  case fbs::DataType::QCS32:
    // The scales stay in the blob, which outlives the runtime.
    status = xnn_define_channelwise_quantized_tensor_value(
        subgraph,
        t.dtype() == fbs::DataType::QCS8 ? xnn_datatype_qcint8
                                         : xnn_datatype_qcint32,
        t.channel_scales()->data(), dims.size(), t.channel_dim(), dims.data(),
        data, external, flags, &id);
    break;
  default:
    return Error(ErrorCode::InvalidProgram, what + " has an unknown type");
  }
  if (status != xnn_status_success)
    return Error(ErrorCode::InvalidProgram,
                 what + ": XNNPACK refuses it: " + statusName(status));
  return Error::success();
}

/// The external id of each tensor, -1 for internal ones: the inputs in
/// call order, then the outputs.
Result<std::vector<int64_t>> externalIds(const fbs::Graph &graph) {
  size_t tensorCount = graph.tensors()->size();
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
  return externalOf;
}

/// Checks and defines the nodes in blob order.
Error defineNodes(xnn_subgraph_t subgraph, const fbs::Graph &graph,
                  const std::vector<uint32_t> &ids) {
  size_t tensorCount = graph.tensors()->size();
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
    STRATA_RETURN_IF_ERROR(checkShapes(graph, node, i));
    STRATA_RETURN_IF_ERROR(defineNode(subgraph, node, i, ids));
  }
  return Error::success();
}

} // namespace

Error Subgraph::defineTensor(xnn_subgraph_t subgraph, const fbs::Graph &graph,
                             size_t i, const NamedDataMap &named,
                             int64_t externalIndex, uint32_t &id) {
  const fbs::Tensor &t = *graph.tensors()->Get(i);
  std::string what = "XNNPACK graph tensor " + std::to_string(i);
  STRATA_ASSIGN_OR_RETURN(TensorShape shape, checkedShape(t, what));
  STRATA_ASSIGN_OR_RETURN(const void *data, constantData(t, shape, named));
  uint32_t flags = 0, external = XNN_INVALID_VALUE_ID;
  if (externalIndex >= 0) {
    if (data)
      return Error(ErrorCode::InvalidProgram,
                   what + " is both a constant and an input or output");
    external = static_cast<uint32_t>(externalIndex);
    bool isInput = external < graph.inputs()->size();
    flags = isInput ? XNN_VALUE_FLAG_EXTERNAL_INPUT
                    : XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
    STRATA_ASSIGN_OR_RETURN(Staging staging, stagingFor(t, shape, what));
    (isInput ? inputs_[external] : outputs_[external - inputs_.size()]) =
        std::move(staging);
  }
  return defineValue(subgraph, t, shape.dims, data, external, flags, id, what);
}

Error Subgraph::createRuntime(xnn_subgraph_t subgraph, ThreadPool pool) {
  pool_ = std::move(pool);
  xnn_status status = xnn_create_runtime_v2(subgraph, pool_.get(),
                                            XNN_FLAG_YIELD_WORKERS, &runtime_);
  if (status != xnn_status_success)
    return Error(ErrorCode::InvalidProgram,
                 std::string("XNNPACK cannot create the runtime: ") +
                     statusName(status));
  // Bind the staging buffers once, by external id.
  std::vector<xnn_external_value> values;
  for (size_t i = 0; i < inputs_.size() + outputs_.size(); ++i) {
    Staging &s = i < inputs_.size() ? inputs_[i] : outputs_[i - inputs_.size()];
    values.push_back({static_cast<uint32_t>(i), s.data.data()});
  }
  status = xnn_setup_runtime(runtime_, values.size(), values.data());
  if (status != xnn_status_success)
    return Error(ErrorCode::InvalidProgram,
                 std::string("XNNPACK cannot set the runtime up: ") +
                     statusName(status));
  return Error::success();
}

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
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> externalOf, externalIds(graph));
  std::unique_ptr<Subgraph> result(new Subgraph());
  result->inputs_.resize(graph.inputs()->size());
  result->outputs_.resize(graph.outputs()->size());
  SubgraphOwner owner;
  xnn_status status = xnn_create_subgraph(
      static_cast<uint32_t>(graph.inputs()->size() + graph.outputs()->size()),
      0, &owner.subgraph);
  if (status != xnn_status_success)
    return Error(ErrorCode::OutOfMemory,
                 std::string("xnn_create_subgraph: ") + statusName(status));
  std::vector<uint32_t> ids(externalOf.size(), XNN_INVALID_VALUE_ID);
  for (size_t i = 0; i < ids.size(); ++i)
    STRATA_RETURN_IF_ERROR(result->defineTensor(owner.subgraph, graph, i, named,
                                                externalOf[i], ids[i]));
  STRATA_RETURN_IF_ERROR(defineNodes(owner.subgraph, graph, ids));
  STRATA_RETURN_IF_ERROR(
      result->createRuntime(owner.subgraph, std::move(pool)));
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
