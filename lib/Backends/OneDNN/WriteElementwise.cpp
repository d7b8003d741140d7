//===- WriteElementwise.cpp - oneDNN element-wise, pooling, data ops ------===//
//
// Element-wise functions (and edge.activation) as eltwise ops, binary ops
// (a mul with an `add` post-op as one scale-shift op), pooling,
// reductions, softmax, edge.layer_norm, resize and the data movement ops, each
// with the post-ops strata-edge-fuse put on it.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

using namespace mlir;

namespace strata::onednn {
namespace {

/// An element-wise function with its parameters.
struct Eltwise {
  fbs::EltwiseKind kind;
  float alpha = 0, beta = 0;
};

/// The oneDNN element-wise function a unary edge op computes.
Eltwise eltwiseOf(Operation *op) {
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
  if (auto activation = dyn_cast<edge::ActivationOp>(op)) {
    // A relu's alpha is its negative slope (LeakyRelu), as oneDNN's.
    edge::PostOpKind kind = activation.getKind().getKind();
    return Eltwise{eltwiseKindOf(kind), kind == edge::PostOpKind::Relu
                                            ? activation.getKind().getAlphaF()
                                            : eltwiseAlphaOf(kind)};
  }
  // edge.pow by 2 or 0.5 (the partitioner claims no other).
  return Eltwise{getScalarConstant(op->getOperand(1)) == 2.f
                     ? fbs::EltwiseKind::Square
                     : fbs::EltwiseKind::Sqrt};
}

LogicalResult writeEltwise(GraphWriter &w, Operation *op) {
  FailureOr<uint32_t> x = w.tensor(op->getOperand(0));
  if (failed(x))
    return failure();
  Eltwise eltwise = eltwiseOf(op);
  fbs::OpT &out = w.addOp(fbs::OpKind::Eltwise, op);
  out.inputs = {*x};
  out.eltwise = eltwise.kind;
  out.alpha = eltwise.alpha;
  out.beta = eltwise.beta;
  out.outputs = {w.newTensor(op->getResult(0))};
  return success();
}

fbs::BinaryKind binaryKindOf(Operation *op) {
  if (isa<edge::AddOp>(op))
    return fbs::BinaryKind::Add;
  if (isa<edge::SubOp>(op))
    return fbs::BinaryKind::Sub;
  if (isa<edge::MulOp>(op))
    return fbs::BinaryKind::Mul;
  if (isa<edge::DivOp>(op))
    return fbs::BinaryKind::Div;
  if (isa<edge::MaximumOp>(op))
    return fbs::BinaryKind::Max;
  return fbs::BinaryKind::Min;
}

/// A binary op, its broadcast operand second; a mul whose first post-op
/// adds a shift is one scale-shift op (x * scale + shift).
LogicalResult writeBinary(GraphWriter &w, Operation *op) {
  bool swap = binaryOperandsSwap(op);
  FailureOr<uint32_t> a = w.tensor(op->getOperand(swap ? 1 : 0)),
                      b = w.tensor(op->getOperand(swap ? 0 : 1));
  if (failed(a) || failed(b))
    return failure();
  SmallVector<edge::PostOpAttr> steps = edge::getPostOpSteps(op);
  if (!steps.empty() && steps.front().getKind() == edge::PostOpKind::Add) {
    FailureOr<uint32_t> shift = w.tensor(op->getOperand(2));
    if (failed(shift))
      return failure();
    fbs::OpT &out = w.addOp(fbs::OpKind::ScaleShift, op);
    out.inputs = {*a, *b, *shift};
    w.appendPostOps(out, op);
    out.outputs = {w.newTensor(op->getResult(0))};
    return success();
  }
  fbs::OpT &out = w.addOp(fbs::OpKind::Binary, op);
  out.inputs = {*a, *b};
  out.binary = binaryKindOf(op);
  w.appendPostOps(out, op);
  out.outputs = {w.newTensor(op->getResult(0))};
  return success();
}

LogicalResult writePool(GraphWriter &w, Operation *op) {
  FailureOr<uint32_t> x = w.tensor(op->getOperand(0));
  if (failed(x))
    return failure();
  std::optional<PoolGeometry> geometry = getPoolGeometry(op);
  if (!geometry)
    return op->emitError("oneDNN cannot express this pooling's padding");
  auto avg = dyn_cast<edge::AvgPool2DOp>(op);
  fbs::OpT &out =
      w.addOp(avg ? fbs::OpKind::AvgPool : fbs::OpKind::MaxPool, op);
  out.inputs = {*x};
  out.kernel = geometry->kernel;
  out.strides = geometry->strides;
  out.dilations = geometry->dilations;
  out.pads_begin = geometry->padsBegin;
  out.pads_end = geometry->padsEnd;
  out.count_include_pad = avg && avg.getCountIncludePad();
  out.outputs = {w.newTensor(op->getResult(0))};
  return success();
}

/// One LayerNorm op: inputs x, then gamma and beta when the op has them
/// (gamma as ones when only beta is given); epsilon as alpha.
LogicalResult writeLayerNorm(GraphWriter &w, edge::LayerNormOp norm) {
  FailureOr<uint32_t> x = w.tensor(norm.getInput());
  if (failed(x))
    return failure();
  std::vector<uint32_t> inputs{*x};
  int64_t channels =
      cast<RankedTensorType>(norm.getInput().getType()).getShape().back();
  if (ShapedType::isDynamic(channels))
    return norm.emitError("the oneDNN delegate normalizes over a static "
                          "last axis");
  if (norm.getGamma() || norm.getBeta()) {
    FailureOr<uint32_t> gamma =
        norm.getGamma() ? w.tensor(norm.getGamma())
                        : FailureOr<uint32_t>(w.constantTensor(
                              {channels}, std::vector<float>(channels, 1.0f)));
    if (failed(gamma))
      return failure();
    inputs.push_back(*gamma);
  }
  if (norm.getBeta()) {
    FailureOr<uint32_t> beta = w.tensor(norm.getBeta());
    if (failed(beta))
      return failure();
    inputs.push_back(*beta);
  }
  fbs::OpT &out = w.addOp(fbs::OpKind::LayerNorm, norm);
  out.inputs = inputs;
  out.alpha = norm.getEpsilon().convertToFloat();
  out.outputs = {w.newTensor(norm.getResult())};
  return success();
}

/// An op of one input and `kind` whose parameters `set` fills in.
LogicalResult writeUnary(GraphWriter &w, Operation *op, fbs::OpKind kind,
                         function_ref<void(fbs::OpT &)> set = {}) {
  FailureOr<uint32_t> x = w.tensor(op->getOperand(0));
  if (failed(x))
    return failure();
  fbs::OpT &out = w.addOp(kind, op);
  out.inputs = {*x};
  if (set)
    set(out);
  out.outputs = {w.newTensor(op->getResult(0))};
  return success();
}

/// A mean; the int8 global average pooling strata-edge-fuse formed reads
/// s8 and scales by in scale / out scale (its linear and quantize steps)
/// into s8.
LogicalResult writeReduceMean(GraphWriter &w, edge::ReduceMeanOp reduce) {
  return writeUnary(w, reduce, fbs::OpKind::ReduceMean, [&](fbs::OpT &out) {
    out.axes = vec(reduce.getAxes());
    SmallVector<edge::PostOpAttr> steps = edge::getPostOpSteps(reduce);
    if (steps.size() == 2 && steps[0].getKind() == edge::PostOpKind::Linear &&
        steps[1].getKind() == edge::PostOpKind::Quantize)
      out.post_ops.push_back(
          linearPostOp(steps[0].getAlphaF() / steps[1].getAlphaF()));
  });
}

LogicalResult writeSoftmax(GraphWriter &w, edge::SoftmaxOp softmax) {
  return writeUnary(w, softmax, fbs::OpKind::Softmax,
                    [&](fbs::OpT &out) { out.axis = softmax.getAxis(); });
}

LogicalResult writeLogSoftmax(GraphWriter &w, edge::LogSoftmaxOp softmax) {
  return writeUnary(w, softmax, fbs::OpKind::LogSoftmax,
                    [&](fbs::OpT &out) { out.axis = softmax.getAxis(); });
}

LogicalResult writeTranspose(GraphWriter &w, edge::TransposeOp transpose) {
  return writeUnary(w, transpose, fbs::OpKind::Transpose, [&](fbs::OpT &out) {
    out.axes = vec(transpose.getPermutation());
  });
}

LogicalResult writeSlice(GraphWriter &w, edge::SliceOp slice) {
  return writeUnary(w, slice, fbs::OpKind::Slice,
                    [&](fbs::OpT &out) { out.axes = vec(slice.getStarts()); });
}

LogicalResult writeReshape(GraphWriter &w, edge::ReshapeOp reshape) {
  return writeUnary(w, reshape, fbs::OpKind::Reshape);
}

LogicalResult writeConcat(GraphWriter &w, edge::ConcatOp concat) {
  FailureOr<std::vector<uint32_t>> inputs = w.tensorsOf(concat.getInputs());
  if (failed(inputs))
    return failure();
  fbs::OpT &out = w.addOp(fbs::OpKind::Concat, concat);
  out.inputs = std::move(*inputs);
  out.axis = concat.getAxis();
  out.outputs = {w.newTensor(concat.getResult())};
  return success();
}

/// A resize of H and W (the partitioner claims no other): its filters by
/// ONNX's names, and the two scales.
LogicalResult writeResize(GraphWriter &w, edge::ResizeOp resize) {
  return writeUnary(w, resize, fbs::OpKind::Resize, [&](fbs::OpT &out) {
    auto params = std::make_unique<fbs::ResizeParamsT>();
    params->mode = resize.getMode().str();
    params->coordinate_transformation_mode =
        resize.getCoordinateTransformationMode().str();
    params->nearest_mode = resize.getNearestMode().str();
    params->cubic_coeff_a = resize.getCubicCoeffA().convertToFloat();
    params->exclude_outside = resize.getExcludeOutside();
    ArrayRef<double> scales = *resize.getScales();
    params->scales = {scales[2], scales[3]};
    out.resize = std::move(params);
  });
}

} // namespace

void addElementwiseWriters(WriteTable &table) {
  table
      .onEach<edge::ReluOp, edge::ClipOp, edge::SigmoidOp, edge::TanhOp,
              edge::ExpOp, edge::SqrtOp, edge::AbsOp, edge::LogOp, edge::NegOp,
              edge::PowOp, edge::ActivationOp>(writeEltwise)
      .onEach<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp,
              edge::MaximumOp, edge::MinimumOp>(writeBinary)
      .onEach<edge::MaxPool2DOp, edge::AvgPool2DOp>(writePool)
      .on(writeLayerNorm)
      .on(writeReduceMean)
      .on(writeSoftmax)
      .on(writeLogSoftmax)
      .on(writeTranspose)
      .on(writeSlice)
      .on(writeReshape)
      .on(writeConcat)
      .on(writeResize);
}

} // namespace strata::onednn
