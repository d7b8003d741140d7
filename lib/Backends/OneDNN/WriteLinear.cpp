//===- WriteLinear.cpp - oneDNN convolutions and matmuls ------------------===//
//
// edge.conv2d, edge.conv_transpose2d and edge.matmul as oneDNN
// convolution, deconvolution and matmul ops, with the post-ops
// strata-edge-fuse put on them: a residual as a sum post-op, a matmul's
// bias row as its bias input, an activation as an eltwise post-op.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include "Edge/IR/EdgeAttributes.h"

using namespace mlir;

namespace strata::onednn {
namespace {

/// The tensors of a convolution's input, weight and bias (where it has one).
FailureOr<std::vector<uint32_t>> convInputs(GraphWriter &w, Value input,
                                            Value weight, Value bias) {
  SmallVector<Value, 3> values{input, weight};
  if (bias)
    values.push_back(bias);
  return w.tensorsOf(values);
}

LogicalResult writeConv(GraphWriter &w, edge::Conv2DOp conv) {
  FailureOr<std::vector<uint32_t>> inputs =
      convInputs(w, conv.getInput(), conv.getWeight(), conv.getBias());
  if (failed(inputs))
    return failure();
  // The residuals (sum post-ops) exist before the convolution runs.
  FailureOr<std::vector<uint32_t>> residuals =
      w.tensorsOf(conv.getPostOperands());
  if (failed(residuals))
    return failure();
  fbs::OpT &out = w.addOp(fbs::OpKind::Convolution, conv);
  out.inputs = std::move(*inputs);
  setConvGeometry(out, conv);
  out.exact = conv->hasAttr(edge::kExactSumsAttrName);
  w.appendPostOps(out, conv, *residuals);
  out.outputs = {w.newTensor(conv.getResult())};
  return success();
}

LogicalResult writeDeconv(GraphWriter &w, edge::ConvTranspose2DOp deconv) {
  FailureOr<std::vector<uint32_t>> inputs =
      convInputs(w, deconv.getInput(), deconv.getWeight(), deconv.getBias());
  if (failed(inputs))
    return failure();
  fbs::OpT &out = w.addOp(fbs::OpKind::Deconvolution, deconv);
  out.inputs = std::move(*inputs);
  ArrayRef<int64_t> pads = deconv.getPads(), extra = deconv.getOutputPadding();
  out.strides = vec(deconv.getStrides());
  out.dilations = vec(deconv.getDilations());
  out.pads_begin = {pads[0], pads[1]};
  // The output padding extends the result at its end: less cropping.
  out.pads_end = {pads[2] - extra[0], pads[3] - extra[1]};
  out.groups = 1;
  w.appendPostOps(out, deconv);
  out.outputs = {w.newTensor(deconv.getResult())};
  return success();
}

/// A matmul; its `add` post-op (a constant row) is oneDNN's bias input.
LogicalResult writeMatMul(GraphWriter &w, edge::MatMulOp matmul) {
  FailureOr<std::vector<uint32_t>> inputs = w.tensorsOf(matmul->getOperands());
  if (failed(inputs))
    return failure();
  fbs::OpT &out = w.addOp(fbs::OpKind::MatMul, matmul);
  out.inputs = std::move(*inputs);
  w.appendPostOps(out, matmul);
  out.outputs = {w.newTensor(matmul.getResult())};
  return success();
}

} // namespace

void addLinearWriters(WriteTable &table) {
  table.on(writeConv).on(writeDeconv).on(writeMatMul);
}

} // namespace strata::onednn
