//===- ShapeCheck.cpp - a node's dims agree before XNNPACK sees them ------===//
//
// XNNPACK's subgraph API sizes each value's buffer from the dims it was
// defined with and computes an operator's output from its input and its
// parameters, without checking that the two agree. A damaged blob whose
// dims disagree would make it write past a buffer: every node's dims are
// checked here against what its kind computes, before definition, by one
// check function per node family.
//
//===----------------------------------------------------------------------===//
#include "Subgraph.h"

#include <algorithm>
#include <array>
#include <string>

namespace strata::runtime::xnnpack {

namespace {

using Dims = std::vector<int64_t>;

std::string str(const Dims &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// The output extent of a window: -1 when the padded input is shorter
/// than the window or a parameter is zero.
int64_t outExtent(int64_t in, int64_t padBefore, int64_t padAfter,
                  int64_t kernel, int64_t stride, int64_t dilation) {
  if (kernel < 1 || stride < 1 || dilation < 1)
    return -1;
  int64_t extent = (kernel - 1) * dilation + 1;
  int64_t padded = in + padBefore + padAfter;
  return padded < extent ? -1 : (padded - extent) / stride + 1;
}

/// Element `i` of a window parameter, 0 when it is missing.
int64_t u(const flatbuffers::Vector<uint32_t> *v, size_t i) {
  return v && i < v->size() ? v->Get(i) : 0;
}

/// One node's dims, read from the graph, and its error prefix.
struct NodeDims {
  const fbs::Node &node;
  size_t index;
  std::vector<Dims> in, out;

  Error fail(const std::string &why) const {
    return Error(ErrorCode::InvalidProgram,
                 "XNNPACK " + nodeName(node, index) + ": " + why);
  }
  /// The first input and the output.
  const Dims &x() const { return in[0]; }
  const Dims &y() const { return out[0]; }
  /// [N, H, W] of a window over NHWC `input` with the node's window.
  Dims windowOut(const Dims &input, int64_t kh, int64_t kw) const {
    // pads are top, right, bottom, left.
    return Dims{input[0],
                outExtent(input[1], u(node.pads(), 0), u(node.pads(), 2), kh,
                          u(node.strides(), 0), u(node.dilations(), 0)),
                outExtent(input[2], u(node.pads(), 3), u(node.pads(), 1), kw,
                          u(node.strides(), 1), u(node.dilations(), 1))};
  }
};

Error checkConvolution(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &x = n.x(), &y = n.y();
  const std::vector<Dims> &in = n.in;
  if (in.size() < 2 || x.size() != 4 || in[1].size() != 4 || y.size() != 4)
    return n.fail("a convolution takes a 4-d input and filter");
  int64_t groups = node.groups(), groupIn = node.group_input_channels(),
          groupOut = node.group_output_channels();
  int64_t kh = u(node.kernel(), 0), kw = u(node.kernel(), 1);
  bool depthwise = node.kind() == fbs::NodeKind::DepthwiseConvolution;
  int64_t outC = depthwise ? groupIn * groupOut : groups * groupOut;
  Dims filter = depthwise ? Dims{1, kh, kw, outC} : Dims{outC, kh, kw, groupIn};
  int64_t inC = depthwise ? groupIn : groups * groupIn;
  if (groups < 1 || groupIn < 1 || groupOut < 1 || x[3] != inC ||
      in[1] != filter)
    return n.fail("input " + str(x) + " and filter " + str(in[1]) +
                  " do not match the node's groups and channels");
  if (in.size() == 3 && in[2] != Dims{outC})
    return n.fail("bias " + str(in[2]) + " is not one per output channel");
  Dims want = n.windowOut(x, kh, kw);
  want.push_back(outC);
  if (y != want)
    return n.fail("output " + str(y) + ", the window gives " + str(want));
  return Error::success();
}

Error checkDeconvolution(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &x = n.x(), &y = n.y();
  const std::vector<Dims> &in = n.in;
  if (in.size() < 2 || x.size() != 4 || in[1].size() != 4 || y.size() != 4)
    return n.fail("a deconvolution takes a 4-d input and filter");
  int64_t groups = node.groups(), groupIn = node.group_input_channels(),
          groupOut = node.group_output_channels();
  int64_t kh = u(node.kernel(), 0), kw = u(node.kernel(), 1);
  if (groups < 1 || groupIn < 1 || groupOut < 1 || x[3] != groups * groupIn ||
      in[1] != Dims{groups * groupOut, kh, kw, groupIn})
    return n.fail("input " + str(x) + " and filter " + str(in[1]) +
                  " do not match the node's groups and channels");
  if (in.size() == 3 && in[2] != Dims{groups * groupOut})
    return n.fail("bias " + str(in[2]) + " is not one per output channel");
  // (in - 1) * stride + adjustment + dilated kernel - pads.
  auto extent = [&](int64_t input, int i, int64_t k, int64_t before,
                    int64_t after) -> int64_t {
    int64_t stride = u(node.strides(), i), dilation = u(node.dilations(), i),
            adjust = u(node.adjustment(), i);
    if (k < 1 || stride < 1 || dilation < 1 || adjust >= stride)
      return -1;
    int64_t full = (input - 1) * stride + adjust + (k - 1) * dilation + 1;
    return full - before - after > 0 ? full - before - after : -1;
  };
  Dims want{x[0], extent(x[1], 0, kh, u(node.pads(), 0), u(node.pads(), 2)),
            extent(x[2], 1, kw, u(node.pads(), 3), u(node.pads(), 1)),
            groups * groupOut};
  if (y != want)
    return n.fail("output " + str(y) + ", the window gives " + str(want));
  return Error::success();
}

/// MaxPool and AvgPool.
Error checkPooling(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &x = n.x(), &y = n.y();
  if (x.size() != 4)
    return n.fail("a pooling takes a 4-d input");
  Dims want = n.windowOut(x, u(node.kernel(), 0), u(node.kernel(), 1));
  want.push_back(x[3]);
  if (node.kind() == fbs::NodeKind::AvgPool && node.dilations() &&
      (u(node.dilations(), 0) != 1 || u(node.dilations(), 1) != 1))
    return n.fail("an average pooling has no dilation");
  if (y != want)
    return n.fail("output " + str(y) + ", the window gives " + str(want));
  return Error::success();
}

Error checkGlobalPooling(const NodeDims &n) {
  const Dims &x = n.x(), &y = n.y();
  if (x.size() != 4 || y != Dims{x[0], 1, 1, x[3]})
    return n.fail("a global pooling maps [N, H, W, C] to [N, 1, 1, C]");
  return Error::success();
}

Error checkFullyConnected(const NodeDims &n) {
  const Dims &x = n.x(), &y = n.y();
  const std::vector<Dims> &in = n.in;
  if (in.size() < 2 || in[1].size() != 2 || x.empty() || x.back() != in[1][1])
    return n.fail("input " + str(x) + " and weights " + str(in[1]) +
                  " do not agree");
  if (in.size() == 3 && in[2] != Dims{in[1][0]})
    return n.fail("bias " + str(in[2]) + " is not one per output");
  Dims want = x;
  want.back() = in[1][0];
  if (y != want)
    return n.fail("output " + str(y) + ", expected " + str(want));
  return Error::success();
}

/// Add, Subtract, Multiply, Divide, Maximum and Minimum.
Error checkBinary(const NodeDims &n) {
  if (n.in.size() != 2)
    return n.fail("a binary node takes two inputs");
  const Dims &a = n.in[0], &b = n.in[1], &y = n.y();
  size_t rank = std::max(a.size(), b.size());
  Dims want(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return n.fail(str(a) + " and " + str(b) + " do not broadcast");
    want[i] = std::max(da, db);
  }
  if (y != want)
    return n.fail("output " + str(y) + ", the broadcast gives " + str(want));
  return Error::success();
}

Error checkConstantPad(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &x = n.x(), &y = n.y();
  if (!node.pre_pads() || !node.post_pads() ||
      node.pre_pads()->size() != x.size() ||
      node.post_pads()->size() != x.size())
    return n.fail("a pad names the pads of every dim");
  Dims want = x;
  for (size_t i = 0; i < x.size(); ++i) {
    uint64_t pre = node.pre_pads()->Get(i), post = node.post_pads()->Get(i);
    if (pre > (uint64_t(1) << 40) || post > (uint64_t(1) << 40))
      return n.fail("a pad is too large");
    want[i] += static_cast<int64_t>(pre + post);
  }
  if (y != want)
    return n.fail("output " + str(y) + ", the pads give " + str(want));
  return Error::success();
}

Error checkResizeBilinear(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &x = n.x(), &y = n.y();
  if (x.size() != 4 || !node.new_shape() || node.new_shape()->size() != 2 ||
      y != Dims{x[0], static_cast<int64_t>(node.new_shape()->Get(0)),
                static_cast<int64_t>(node.new_shape()->Get(1)), x[3]})
    return n.fail("a resize maps [N, H, W, C] to [N, new H, new W, C]");
  return Error::success();
}

Error checkReshape(const NodeDims &n) {
  const fbs::Node &node = n.node;
  const Dims &y = n.y();
  int64_t a = 1, b = 1;
  for (int64_t d : n.x())
    a *= d;
  for (int64_t d : y)
    b *= d;
  if (a != b || !node.new_shape() ||
      Dims(node.new_shape()->begin(), node.new_shape()->end()) != y)
    return n.fail("a reshape keeps the element count and names its dims");
  return Error::success();
}

/// Clamp, Convert and the unary nodes.
Error checkElementwise(const NodeDims &n) {
  const Dims &x = n.x(), &y = n.y();
  if (y != x)
    return n.fail("an element-wise node keeps its input's dims " + str(x) +
                  ", not " + str(y));
  return Error::success();
}

using CheckFunction = Error (*)(const NodeDims &);

constexpr size_t kindCount = static_cast<size_t>(fbs::NodeKind::MAX) + 1;

/// Each node kind's shape rule; a kind listed nowhere keeps its input's
/// dims (checkElementwise).
const std::array<CheckFunction, kindCount> &checkFunctions() {
  static const std::array<CheckFunction, kindCount> table = [] {
    std::array<CheckFunction, kindCount> t;
    t.fill(checkElementwise);
    auto set = [&](fbs::NodeKind kind, CheckFunction check) {
      t[static_cast<size_t>(kind)] = check;
    };
    set(fbs::NodeKind::Convolution, checkConvolution);
    set(fbs::NodeKind::DepthwiseConvolution, checkConvolution);
    set(fbs::NodeKind::Deconvolution, checkDeconvolution);
    set(fbs::NodeKind::MaxPool, checkPooling);
    set(fbs::NodeKind::AvgPool, checkPooling);
    set(fbs::NodeKind::GlobalAvgPool, checkGlobalPooling);
    set(fbs::NodeKind::FullyConnected, checkFullyConnected);
    for (fbs::NodeKind kind : {fbs::NodeKind::Add, fbs::NodeKind::Subtract,
                               fbs::NodeKind::Multiply, fbs::NodeKind::Divide,
                               fbs::NodeKind::Maximum, fbs::NodeKind::Minimum})
      set(kind, checkBinary);
    set(fbs::NodeKind::ConstantPad, checkConstantPad);
    set(fbs::NodeKind::ResizeBilinear, checkResizeBilinear);
    set(fbs::NodeKind::Reshape, checkReshape);
    return t;
  }();
  return table;
}

} // namespace

Error checkShapes(const fbs::Graph &graph, const fbs::Node &node,
                  size_t index) {
  NodeDims n{node, index, {}, {}};
  if (node.kind() > fbs::NodeKind::MAX)
    return n.fail("unknown node kind");
  for (const flatbuffers::Vector<uint32_t> *list :
       {node.inputs(), node.outputs()}) {
    std::vector<Dims> &into = list == node.inputs() ? n.in : n.out;
    if (list)
      for (uint32_t t : *list) {
        if (t >= graph.tensors()->size())
          return n.fail("tensor index " + std::to_string(t) + " out of range");
        const fbs::Tensor *tensor = graph.tensors()->Get(t);
        if (!tensor->dims())
          return n.fail("tensor " + std::to_string(t) + " has no dims");
        into.emplace_back(tensor->dims()->begin(), tensor->dims()->end());
      }
  }
  if (n.in.empty() || n.out.size() != 1)
    return n.fail("a node has inputs and one output");
  return checkFunctions()[static_cast<size_t>(node.kind())](n);
}

} // namespace strata::runtime::xnnpack
