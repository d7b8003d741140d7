//===- WriteLinear.cpp - XNNPACK convolutions and fully connected ---------===//
//
// edge.conv2d (depthwise where its groups are the input channels),
// edge.conv_transpose2d, edge.quantized_conv2d (qs8, a residual as a qs8
// add after it) and edge.matmul with constant weights (fully connected,
// its `add` post-op the bias), filters in XNNPACK's layouts, relu and clip
// post-ops as the output clamp.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace strata::xnnpack {
namespace {

LogicalResult writeConv(GraphWriter &writer, edge::Conv2DOp conv) {
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(conv.getWeight());
  if (!weights)
    return conv.emitError("XNNPACK convolution weights must be constant");
  FilterLayout layout(shapeOf(conv.getInput()), shapeOf(conv.getWeight()),
                      conv.getGroup());
  fbs::NodeT &node = writer.addNode(layout.kind(), conv);
  std::vector<float> filter(weights->size());
  for (int64_t o = 0, k = 0; o < layout.outC; ++o)
    for (int64_t i = 0; i < layout.groupIn; ++i)
      for (int64_t y = 0; y < layout.kh; ++y)
        for (int64_t x = 0; x < layout.kw; ++x)
          filter[layout.at(o, i, y, x)] = (*weights)[k++];
  layout.describe(node, conv.getPads(), conv.getStrides(), conv.getDilations());
  FailureOr<uint32_t> input = writer.tensor(conv.getInput());
  if (failed(input))
    return failure();
  node.inputs = {*input, writer.constantTensor(layout.dims(), filter)};
  if (conv.getBias()) {
    FailureOr<uint32_t> bias = writer.tensor(conv.getBias());
    if (failed(bias))
      return failure();
    node.inputs.push_back(*bias);
  }
  writer.clampByPostOps(node, conv);
  node.outputs.push_back(writer.defineTensor(conv.getOutput()));
  return success();
}

LogicalResult writeDeconv(GraphWriter &writer, edge::ConvTranspose2DOp deconv) {
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(deconv.getWeight());
  if (!weights)
    return deconv.emitError("XNNPACK deconvolution weights must be constant");
  // ONNX's [C, M / group, KH, KW] (group g's inputs g * groupIn ...) as
  // XNNPACK's [group * groupOut, KH, KW, groupIn].
  ArrayRef<int64_t> w = shapeOf(deconv.getWeight());
  int64_t groups = deconv.getGroup(), groupIn = w[0] / groups, groupOut = w[1],
          kh = w[2], kw = w[3];
  std::vector<float> filter(weights->size());
  for (int64_t c = 0, k = 0; c < w[0]; ++c)
    for (int64_t o = 0; o < groupOut; ++o)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          int64_t g = c / groupIn, i = c % groupIn;
          filter[(((g * groupOut + o) * kh + y) * kw + x) * groupIn + i] =
              (*weights)[k++];
        }
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::Deconvolution, deconv);
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
  FailureOr<uint32_t> input = writer.tensor(deconv.getInput());
  if (failed(input))
    return failure();
  node.inputs = {*input, writer.constantTensor(
                             {groups * groupOut, kh, kw, groupIn}, filter)};
  if (deconv.getBias()) {
    FailureOr<uint32_t> bias = writer.tensor(deconv.getBias());
    if (failed(bias))
      return failure();
    node.inputs.push_back(*bias);
  }
  writer.clampByPostOps(node, deconv);
  node.outputs.push_back(writer.defineTensor(deconv.getOutput()));
  return success();
}

LogicalResult writeQuantizedConv(GraphWriter &writer,
                                 edge::QuantizedConv2DOp conv) {
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
  fbs::NodeT &node = writer.addNode(layout.kind(), conv);
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
          filter[layout.at(o, i, y, x)] =
              static_cast<uint8_t>(static_cast<int8_t>(sign * (*weights)[k++]));
  }
  // The bias in accumulator units.
  std::vector<uint8_t> biasBytes(outC * sizeof(int32_t));
  for (int64_t o = 0; o < outC; ++o) {
    double q = std::nearbyint(double((*bias)[o]) / biasScales[o]);
    auto v = static_cast<int32_t>(std::clamp(q, -2147483648.0, 2147483647.0));
    std::memcpy(biasBytes.data() + o * sizeof(int32_t), &v, sizeof(v));
  }
  layout.describe(node, conv.getPads(), conv.getStrides(), conv.getDilations());
  FailureOr<uint32_t> x = writer.tensor(conv.getInput());
  if (failed(x))
    return failure();
  node.inputs = {*x,
                 writer.constantTensor(layout.dims(), std::move(filter),
                                       fbs::DataType::QCS8, channelScales,
                                       layout.depthwise ? 3 : 0),
                 writer.constantTensor({outC}, std::move(biasBytes),
                                       fbs::DataType::QCS32, biasScales, 0)};
  float lo = conv.getClipMin() ? conv.getClipMin()->convertToFloat()
                               : -std::numeric_limits<float>::infinity();
  float hi = conv.getClipMax() ? conv.getClipMax()->convertToFloat()
                               : std::numeric_limits<float>::infinity();
  if (!conv.getResidual()) {
    node.output_min = lo;
    node.output_max = hi;
    node.outputs.push_back(writer.defineTensor(conv.getResult()));
    return success();
  }
  // With a residual: the product into an intermediate wide enough for the
  // output's range and the residual's, then a qs8 add that clamps.
  std::optional<std::pair<float, int32_t>> residual =
      scaleAndZero(conv.getResidualScale(), conv.getResidualZeroPoint());
  if (!residual)
    return conv.emitError("XNNPACK int8 residuals need a constant scale");
  uint32_t product = writer.intermediateTensor(
      xnnDims(shapeOf(conv.getResult())), conv.getResult());
  writer.graph.tensors[product]->dtype = fbs::DataType::QS8;
  writer.graph.tensors[product]->scale = output->first + residual->first;
  node.outputs.push_back(product);
  FailureOr<uint32_t> r = writer.tensor(conv.getResidual());
  if (failed(r))
    return failure();
  fbs::NodeT &add = writer.addNode(fbs::NodeKind::Add, conv);
  add.inputs = {product, *r};
  add.output_min = lo;
  add.output_max = hi;
  add.outputs.push_back(writer.defineTensor(conv.getResult()));
  return success();
}

LogicalResult writeMatMul(GraphWriter &writer, edge::MatMulOp matmul) {
  ArrayRef<int64_t> rhs = shapeOf(matmul.getRhs());
  int64_t k = rhs[rhs.size() - 2], n = rhs.back();
  std::optional<std::vector<float>> weights =
      backends::getFloatConstant(matmul.getRhs());
  if (!weights)
    return matmul.emitError("XNNPACK fully connected weights must be "
                            "constant");
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::FullyConnected, matmul);
  std::vector<float> transposed(weights->size());
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      transposed[c * k + r] = (*weights)[r * n + c];
  FailureOr<uint32_t> input = writer.tensor(matmul.getLhs());
  if (failed(input))
    return failure();
  node.inputs = {*input, writer.constantTensor({n, k}, transposed)};
  // The bias: the constant row [1.., N] of its `add` post-op.
  if (!matmul.getPostOperands().empty()) {
    std::optional<std::vector<float>> bias =
        backends::getFloatConstant(matmul.getPostOperands().front());
    if (!bias)
      return matmul.emitError("XNNPACK fully connected biases must be "
                              "constant");
    node.inputs.push_back(writer.constantTensor({n}, *bias));
  }
  writer.clampByPostOps(node, matmul);
  node.outputs.push_back(writer.defineTensor(matmul.getOutput()));
  return success();
}

} // namespace

void addLinearWriters(WriteTable &table) {
  table.on(writeConv).on(writeDeconv).on(writeQuantizedConv).on(writeMatMul);
}

} // namespace strata::xnnpack
