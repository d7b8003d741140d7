//===- WriteElementwise.cpp - XNNPACK pooling, element-wise, data ops -----===//
//
// Pooling (a padded average that counts padding as a pad node first),
// global average pooling, element-wise and softmax nodes, clamps,
// hardswish (edge.activation), quantize/dequantize as converts, and the
// data movement XNNPACK has: pad, bilinear resize, reshape and concatenation
// (as pads added up).
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include "Edge/IR/EdgePostOps.h"

using namespace mlir;

namespace strata::xnnpack {
namespace {

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

LogicalResult writeConvert(GraphWriter &writer, Operation *op) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::Convert, op);
  return writer.finish(node, {op->getOperand(0)}, op);
}

LogicalResult writeGlobalAvgPool(GraphWriter &writer, edge::ReduceMeanOp op) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::GlobalAvgPool, op);
  return writer.finish(node, {op.getInput()}, op);
}

LogicalResult writeClamp(GraphWriter &writer, Operation *op) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::Clamp, op);
  if (auto clip = dyn_cast<edge::ClipOp>(op)) {
    node.output_min = clip.getMin().convertToFloat();
    node.output_max = clip.getMax().convertToFloat();
  } else {
    node.output_min = 0;
  }
  return writer.finish(node, {op->getOperand(0)}, op);
}

LogicalResult writeHardSwish(GraphWriter &writer, edge::ActivationOp op) {
  if (op.getKind().getKind() != edge::PostOpKind::HardSwish)
    return op.emitError("the XNNPACK delegate runs hardswish activations "
                        "only");
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::HardSwish, op);
  return writer.finish(node, {op.getInput()}, op);
}

LogicalResult writePad(GraphWriter &writer, edge::PadOp pad) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::ConstantPad, pad);
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
  return writer.finish(node, {pad.getInput()}, pad);
}

LogicalResult writeResize(GraphWriter &writer, edge::ResizeOp resize) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::ResizeBilinear, resize);
  ArrayRef<int64_t> out = shapeOf(resize.getOutput());
  node.new_shape = {static_cast<uint64_t>(out[2]),
                    static_cast<uint64_t>(out[3])};
  StringRef mode = resize.getCoordinateTransformationMode();
  node.flags = mode == "align_corners" ? kResizeAlignCorners
               : mode == "asymmetric"  ? kResizeAsymmetric
                                       : 0;
  return writer.finish(node, {resize.getInput()}, resize);
}

LogicalResult writeReshape(GraphWriter &writer, edge::ReshapeOp reshape) {
  fbs::NodeT &node = writer.addNode(fbs::NodeKind::Reshape, reshape);
  // A dynamic extent at its bound (the delegate sets the new shape to the
  // result's extents at each shape it builds).
  std::vector<int64_t> dims = xnnDims(shapeOf(reshape.getOutput()));
  if (ArrayRef<int64_t> slots = writer.slotsOf(reshape.getOutput());
      !slots.empty()) {
    std::vector<int64_t> order = xnnDims(slots);
    for (size_t d = 0; d < order.size(); ++d)
      if (order[d] >= 0)
        dims[d] = writer.extentBounds()[order[d]];
  }
  for (int64_t d : dims)
    node.new_shape.push_back(static_cast<uint64_t>(d));
  return writer.finish(node, {reshape.getInput()}, reshape);
}

/// A unary or binary element-wise op (or softmax); add, sub, mul and div
/// with their clamp post-ops.
LogicalResult writeElementwise(GraphWriter &writer, Operation *op) {
  fbs::NodeT &node = writer.addNode(*elementwiseKind(op), op);
  bool binary = isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp,
                    edge::MaximumOp, edge::MinimumOp>(op);
  SmallVector<Value, 2> inputs{op->getOperand(0)};
  if (binary)
    inputs.push_back(op->getOperand(1));
  return writer.finish(node, inputs, op);
}

LogicalResult writePool(GraphWriter &writer, Operation *op) {
  std::optional<backends::PoolGeometry> g = backends::getPoolGeometry(op);
  if (!g)
    return op->emitError("XNNPACK cannot express this pooling window");
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  Value input = op->getOperand(0);
  FailureOr<uint32_t> inputTensor = writer.tensor(input);
  if (failed(inputTensor))
    return failure();
  // An average that counts padding: zeros padded first, then a window
  // over the padded input alone (XNNPACK leaves padding out).
  auto avg = dyn_cast<edge::AvgPool2DOp>(op);
  bool padFirst = avg && avg.getCountIncludePad() &&
                  (llvm::any_of(g->padsBegin, [](int64_t p) { return p; }) ||
                   llvm::any_of(g->padsEnd, [](int64_t p) { return p; }));
  if (padFirst) {
    fbs::NodeT &pad = writer.addNode(fbs::NodeKind::ConstantPad, op);
    ArrayRef<int64_t> in = shapeOf(input); // NCHW
    pad.pre_pads = {0, static_cast<uint64_t>(g->padsBegin[0]),
                    static_cast<uint64_t>(g->padsBegin[1]), 0};
    pad.post_pads = {0, static_cast<uint64_t>(g->padsEnd[0]),
                     static_cast<uint64_t>(g->padsEnd[1]), 0};
    pad.inputs = {*inputTensor};
    pad.outputs = {writer.intermediateTensor(
        {in[0], in[2] + g->padsBegin[0] + g->padsEnd[0],
         in[3] + g->padsBegin[1] + g->padsEnd[1], in[1]},
        input)};
    inputTensor = pad.outputs[0];
    g->padsBegin = {0, 0};
    g->padsEnd = {0, 0};
  }
  fbs::NodeT &node =
      writer.addNode(isa<edge::MaxPool2DOp>(op) ? fbs::NodeKind::MaxPool
                                                : fbs::NodeKind::AvgPool,
                     op);
  node.inputs = {*inputTensor};
  node.pads = {u32(g->padsBegin[0]), u32(g->padsEnd[1]), u32(g->padsEnd[0]),
               u32(g->padsBegin[1])};
  node.kernel = {u32(g->kernel[0]), u32(g->kernel[1])};
  node.strides = {u32(g->strides[0]), u32(g->strides[1])};
  node.dilations = {u32(g->dilations[0]), u32(g->dilations[1])};
  return writer.finish(node, {}, op);
}

/// A concatenation as XNNPACK can compute it: each input padded with
/// zeros to the result's extent at its offset, the paddings added (exact
/// in f32: x + 0 = x).
LogicalResult writeConcat(GraphWriter &writer, edge::ConcatOp concat) {
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
    fbs::NodeT &pad = writer.addNode(fbs::NodeKind::ConstantPad, concat);
    pad.pre_pads.assign(rank, 0);
    pad.post_pads.assign(rank, 0);
    pad.pre_pads[xnnAxis] = offset;
    pad.post_pads[xnnAxis] = dims[xnnAxis] - offset - in[xnnAxis];
    offset += in[xnnAxis];
    FailureOr<uint32_t> t = writer.tensor(input);
    if (failed(t))
      return failure();
    pad.inputs = {*t};
    padded.push_back(writer.intermediateTensor(dims, concat.getOutput()));
    pad.outputs = {padded.back()};
  }
  uint32_t sum = padded[0];
  for (size_t i = 1; i < padded.size(); ++i) {
    fbs::NodeT &add = writer.addNode(fbs::NodeKind::Add, concat);
    add.inputs = {sum, padded[i]};
    if (i + 1 == padded.size()) {
      add.outputs = {writer.defineTensor(concat.getOutput())};
    } else {
      sum = writer.intermediateTensor(dims, concat.getOutput());
      add.outputs = {sum};
    }
  }
  return success();
}

} // namespace

void addElementwiseWriters(WriteTable &table) {
  table.onEach<edge::MaxPool2DOp, edge::AvgPool2DOp>(writePool)
      .on(writeConcat)
      .onEach<edge::QuantizeLinearOp, edge::DequantizeLinearOp>(writeConvert)
      .on(writeGlobalAvgPool)
      .onEach<edge::ReluOp, edge::ClipOp>(writeClamp)
      .on(writeHardSwish)
      .on(writePad)
      .on(writeResize)
      .on(writeReshape)
      .onEach<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp,
              edge::MaximumOp, edge::MinimumOp, edge::SigmoidOp, edge::AbsOp,
              edge::NegOp, edge::FloorOp, edge::CeilOp, edge::RoundOp,
              edge::SqrtOp, edge::SoftmaxOp, edge::PowOp>(writeElementwise);
}

} // namespace strata::xnnpack
