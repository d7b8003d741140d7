//===- ShapeCheck.cpp - a node's dims agree before XNNPACK sees them ------===//
//
// XNNPACK's subgraph API sizes each value's buffer from the dims it was
// defined with and computes an operator's output from its input and its
// parameters, without checking that the two agree. A damaged blob whose
// dims disagree would make it write past a buffer: every node's dims are
// checked here against what its kind computes, before definition.
//
//===----------------------------------------------------------------------===//
#include "Subgraph.h"

#include <algorithm>
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

} // namespace

Error checkShapes(const fbs::Graph &graph, const fbs::Node &node,
                  size_t index) {
  auto fail = [&](const std::string &why) {
    return Error(ErrorCode::InvalidProgram,
                 "XNNPACK " + nodeName(node, index) + ": " + why);
  };
  if (node.kind() > fbs::NodeKind::MAX)
    return fail("unknown node kind");
  std::vector<Dims> in, out;
  for (const flatbuffers::Vector<uint32_t> *list :
       {node.inputs(), node.outputs()}) {
    std::vector<Dims> &into = list == node.inputs() ? in : out;
    if (list)
      for (uint32_t t : *list) {
        if (t >= graph.tensors()->size())
          return fail("tensor index " + std::to_string(t) + " out of range");
        const fbs::Tensor *tensor = graph.tensors()->Get(t);
        if (!tensor->dims())
          return fail("tensor " + std::to_string(t) + " has no dims");
        into.emplace_back(tensor->dims()->begin(), tensor->dims()->end());
      }
  }
  if (in.empty() || out.size() != 1)
    return fail("a node has inputs and one output");
  const Dims &x = in[0], &y = out[0];
  auto u = [](const flatbuffers::Vector<uint32_t> *v, size_t i) -> int64_t {
    return v && i < v->size() ? v->Get(i) : 0;
  };
  // pads are top, right, bottom, left.
  auto windowOut = [&](const Dims &input, int64_t kh, int64_t kw) {
    return Dims{input[0],
                outExtent(input[1], u(node.pads(), 0), u(node.pads(), 2), kh,
                          u(node.strides(), 0), u(node.dilations(), 0)),
                outExtent(input[2], u(node.pads(), 3), u(node.pads(), 1), kw,
                          u(node.strides(), 1), u(node.dilations(), 1))};
  };
  switch (node.kind()) {
  case fbs::NodeKind::Convolution:
  case fbs::NodeKind::DepthwiseConvolution: {
    if (in.size() < 2 || x.size() != 4 || in[1].size() != 4 || y.size() != 4)
      return fail("a convolution takes a 4-d input and filter");
    int64_t groups = node.groups(), groupIn = node.group_input_channels(),
            groupOut = node.group_output_channels();
    int64_t kh = u(node.kernel(), 0), kw = u(node.kernel(), 1);
    bool depthwise = node.kind() == fbs::NodeKind::DepthwiseConvolution;
    int64_t outC = depthwise ? groupIn * groupOut : groups * groupOut;
    Dims filter = depthwise ? Dims{1, kh, kw, outC}
                            : Dims{outC, kh, kw, groupIn};
    int64_t inC = depthwise ? groupIn : groups * groupIn;
    if (groups < 1 || groupIn < 1 || groupOut < 1 || x[3] != inC ||
        in[1] != filter)
      return fail("input " + str(x) + " and filter " + str(in[1]) +
                  " do not match the node's groups and channels");
    if (in.size() == 3 && in[2] != Dims{outC})
      return fail("bias " + str(in[2]) + " is not one per output channel");
    Dims want = windowOut(x, kh, kw);
    want.push_back(outC);
    if (y != want)
      return fail("output " + str(y) + ", the window gives " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::Deconvolution: {
    if (in.size() < 2 || x.size() != 4 || in[1].size() != 4 || y.size() != 4)
      return fail("a deconvolution takes a 4-d input and filter");
    int64_t groups = node.groups(), groupIn = node.group_input_channels(),
            groupOut = node.group_output_channels();
    int64_t kh = u(node.kernel(), 0), kw = u(node.kernel(), 1);
    if (groups < 1 || groupIn < 1 || groupOut < 1 || x[3] != groups * groupIn ||
        in[1] != Dims{groups * groupOut, kh, kw, groupIn})
      return fail("input " + str(x) + " and filter " + str(in[1]) +
                  " do not match the node's groups and channels");
    if (in.size() == 3 && in[2] != Dims{groups * groupOut})
      return fail("bias " + str(in[2]) + " is not one per output channel");
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
    Dims want{x[0],
              extent(x[1], 0, kh, u(node.pads(), 0), u(node.pads(), 2)),
              extent(x[2], 1, kw, u(node.pads(), 3), u(node.pads(), 1)),
              groups * groupOut};
    if (y != want)
      return fail("output " + str(y) + ", the window gives " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::MaxPool:
  case fbs::NodeKind::AvgPool: {
    if (x.size() != 4)
      return fail("a pooling takes a 4-d input");
    Dims want = windowOut(x, u(node.kernel(), 0), u(node.kernel(), 1));
    want.push_back(x[3]);
    if (node.kind() == fbs::NodeKind::AvgPool && node.dilations() &&
        (u(node.dilations(), 0) != 1 || u(node.dilations(), 1) != 1))
      return fail("an average pooling has no dilation");
    if (y != want)
      return fail("output " + str(y) + ", the window gives " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::GlobalAvgPool:
    if (x.size() != 4 || y != Dims{x[0], 1, 1, x[3]})
      return fail("a global pooling maps [N, H, W, C] to [N, 1, 1, C]");
    return Error::success();
  case fbs::NodeKind::FullyConnected: {
    if (in.size() < 2 || in[1].size() != 2 || x.empty() ||
        x.back() != in[1][1])
      return fail("input " + str(x) + " and weights " + str(in[1]) +
                  " do not agree");
    if (in.size() == 3 && in[2] != Dims{in[1][0]})
      return fail("bias " + str(in[2]) + " is not one per output");
    Dims want = x;
    want.back() = in[1][0];
    if (y != want)
      return fail("output " + str(y) + ", expected " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::Add:
  case fbs::NodeKind::Subtract:
  case fbs::NodeKind::Multiply:
  case fbs::NodeKind::Divide:
  case fbs::NodeKind::Maximum:
  case fbs::NodeKind::Minimum: {
    if (in.size() != 2)
      return fail("a binary node takes two inputs");
    const Dims &a = in[0], &b = in[1];
    size_t rank = std::max(a.size(), b.size());
    Dims want(rank);
    for (size_t i = 0; i < rank; ++i) {
      int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
      int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
      if (da != db && da != 1 && db != 1)
        return fail(str(a) + " and " + str(b) + " do not broadcast");
      want[i] = std::max(da, db);
    }
    if (y != want)
      return fail("output " + str(y) + ", the broadcast gives " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::ConstantPad: {
    if (!node.pre_pads() || !node.post_pads() ||
        node.pre_pads()->size() != x.size() ||
        node.post_pads()->size() != x.size())
      return fail("a pad names the pads of every dim");
    Dims want = x;
    for (size_t i = 0; i < x.size(); ++i) {
      uint64_t pre = node.pre_pads()->Get(i), post = node.post_pads()->Get(i);
      if (pre > (uint64_t(1) << 40) || post > (uint64_t(1) << 40))
        return fail("a pad is too large");
      want[i] += static_cast<int64_t>(pre + post);
    }
    if (y != want)
      return fail("output " + str(y) + ", the pads give " + str(want));
    return Error::success();
  }
  case fbs::NodeKind::ResizeBilinear:
    if (x.size() != 4 || !node.new_shape() || node.new_shape()->size() != 2 ||
        y != Dims{x[0], static_cast<int64_t>(node.new_shape()->Get(0)),
                  static_cast<int64_t>(node.new_shape()->Get(1)), x[3]})
      return fail("a resize maps [N, H, W, C] to [N, new H, new W, C]");
    return Error::success();
  case fbs::NodeKind::Reshape: {
    int64_t a = 1, b = 1;
    for (int64_t d : x)
      a *= d;
    for (int64_t d : y)
      b *= d;
    if (a != b || !node.new_shape() ||
        Dims(node.new_shape()->begin(), node.new_shape()->end()) != y)
      return fail("a reshape keeps the element count and names its dims");
    return Error::success();
  }
  default:
    if (y != x)
      return fail("an element-wise node keeps its input's dims " + str(x) +
                  ", not " + str(y));
    return Error::success();
  }
}

} // namespace strata::runtime::xnnpack
