//===- WriteLinear.cpp - oneDNN convolutions, matmuls, recurrent layers ---===//
//
// edge.conv2d, edge.conv_transpose2d and edge.matmul as oneDNN
// convolution, deconvolution and matmul ops, with the post-ops
// strata-edge-fuse put on them: a residual as a sum post-op, a matmul's
// bias row as its bias input, an activation as an eltwise post-op.
// edge.rnn, edge.gru and edge.lstm as one Recurrent op each.
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

/// A whole recurrent layer: its operands and results as they are; the
/// delegate repacks the weights at prepare (Delegates/OneDNN/Recurrent.cpp).
template <typename OpT>
LogicalResult writeRecurrent(GraphWriter &w, OpT op, fbs::RecurrentCell cell) {
  FailureOr<std::vector<uint32_t>> inputs = w.tensorsOf(op->getOperands());
  if (failed(inputs))
    return failure();
  fbs::OpT &out = w.addOp(fbs::OpKind::Recurrent, op);
  out.inputs = std::move(*inputs);
  out.recurrent_cell = cell;
  StringRef direction = op.getDirection();
  out.recurrent_direction =
      direction == "bidirectional" ? fbs::RecurrentDirection::Bidirectional
      : direction == "reverse"     ? fbs::RecurrentDirection::Reverse
                                   : fbs::RecurrentDirection::Forward;
  for (Value result : op->getResults())
    out.outputs.push_back(w.newTensor(result));
  return success();
}

LogicalResult writeRNN(GraphWriter &w, edge::RNNOp op) {
  return writeRecurrent(w, op,
                        op.getActivation() == "relu"
                            ? fbs::RecurrentCell::VanillaRelu
                            : fbs::RecurrentCell::VanillaTanh);
}

LogicalResult writeGRU(GraphWriter &w, edge::GRUOp op) {
  return writeRecurrent(w, op,
                        op.getLinearBeforeReset() ? fbs::RecurrentCell::LbrGru
                                                  : fbs::RecurrentCell::Gru);
}

LogicalResult writeLSTM(GraphWriter &w, edge::LSTMOp op) {
  return writeRecurrent(w, op, fbs::RecurrentCell::Lstm);
}

} // namespace

void addLinearWriters(WriteTable &table) {
  table.on(writeConv).on(writeDeconv).on(writeMatMul);
  table.on(writeRNN).on(writeGRU).on(writeLSTM);
}

} // namespace strata::onednn
