//===- Support.cpp - which edge ops the XNNPACK delegate runs -------------===//
//
// The per-op check behind the xnnpack partitioner. XNNPACK (the subgraph
// API of Debian's February 2022 snapshot) is NHWC-only and has no
// transpose, concatenation, slice, batched matmul, exp, tanh or erf. The
// delegate holds every 4-d value NHWC, so it claims an op only where that
// does not change its meaning:
//
//   conv2d (constant weights; grouped, depthwise)   convolution
//   conv_transpose2d (constant weights, grouped)     deconvolution
//   matmul (constant 2-d weights, lhs not 4-d)      fully connected
//   max_pool2d, avg_pool2d                          pooling (an average
//                                                    counting padding after
//                                                    a zero constant_pad)
//   reduce_mean over H, W of a 4-d value, kept      global average pooling
//   add, sub, mul, div, maximum, minimum            broadcasting binary
//   relu, clip, sigmoid, abs, neg, floor, ceil,     unary
//   round, sqrt, pow 2 / 0.5
//   softmax over channels (4-d) or the last axis    softmax
//   reshape where NCHW and NHWC orders agree        reshape
//   concat of 2 to 6 f32 values                     constant_pad of each
//                                                    to the full extent,
//                                                    then add2 (this
//                                                    snapshot has no concat)
//   pad, constant mode, constant non-negative pads  constant_pad
//   resize, linear over H, W of a 4-d value, scales  resize_bilinear
//   the size ratios, half_pixel / align_corners /
//   asymmetric
//
// and, after --quantize (tensorrt's QDQ placement, as oneDNN's):
//
//   quantized_conv2d, s8 in and out, s8 per-channel    qs8 convolution
//   weights with zero point 0, no activation function   (+ qs8 add for a
//   (clip allowed)                                       residual)
//   quantize_linear / dequantize_linear, per tensor     convert
//   max_pool2d on s8                                     qs8 max pooling
//
//===----------------------------------------------------------------------===//
#include "XNNPACKBackend.h"

#include "Common/OpQueries.h"
#include "Edge/IR/EdgeOps.h"

using namespace mlir;

namespace strata::xnnpack {

using backends::isF32Tensor;
using backends::shapeOf;

static bool isConstant(Value v) {
  return static_cast<bool>(v.getDefiningOp<edge::ConstantOp>());
}

/// Whether a value's elements are in the same order NCHW and NHWC (not
/// 4-d, or one channel, or one pixel): a reshape may read or write it.
static bool layoutFree(ArrayRef<int64_t> shape) {
  return shape.size() != 4 || shape[1] == 1 || shape[2] * shape[3] == 1;
}

static bool isS8Tensor(Type type) {
  return backends::isSigned8(type) == std::optional(true);
}

/// A per-tensor quantization: a positive scalar scale, an s8 zero point.
static bool isPerTensor(Value scale, Value zeroPoint) {
  std::optional<std::vector<float>> s = backends::getFloatConstant(scale);
  std::optional<std::vector<int64_t>> z = backends::getIntConstant(zeroPoint);
  return s && s->size() == 1 && s->front() > 0.f && z && z->size() == 1 &&
         z->front() >= -128 && z->front() <= 127;
}

/// An int8 convolution XNNPACK runs as qs8 with per-channel weights.
static bool supportsQuantizedConv(edge::QuantizedConv2DOp conv) {
  if (!isS8Tensor(conv.getInput().getType()) ||
      !isS8Tensor(conv.getWeight().getType()) || !isS8Tensor(conv.getType()) ||
      conv.getActivation() || shapeOf(conv.getInput()).size() != 4 ||
      !conv.getOutputScale() ||
      !isPerTensor(conv.getInputScale(), conv.getInputZeroPoint()) ||
      !isPerTensor(conv.getOutputScale(), conv.getOutputZeroPoint()) ||
      !backends::getFloatConstant(conv.getBias()))
    return false;
  if (conv.getResidual() &&
      (!isS8Tensor(conv.getResidual().getType()) ||
       !isPerTensor(conv.getResidualScale(), conv.getResidualZeroPoint())))
    return false;
  std::optional<std::vector<int64_t>> weights =
      backends::getIntConstant(conv.getWeight());
  std::optional<std::vector<int64_t>> zeroPoints =
      backends::getIntConstant(conv.getWeightZeroPoint());
  std::optional<std::vector<float>> scales =
      backends::getFloatConstant(conv.getWeightScale());
  if (!weights || !zeroPoints || !scales ||
      llvm::any_of(*zeroPoints, [](int64_t z) { return z != 0; }))
    return false;
  // A negative scale (a folded batch norm) is its channel's weights
  // negated, which -128 cannot be.
  int64_t channels = shapeOf(conv.getWeight())[0];
  int64_t perChannel = static_cast<int64_t>(weights->size()) / channels;
  for (int64_t c = 0; c < channels; ++c) {
    float s = (*scales)[scales->size() == 1 ? 0 : c];
    if (s == 0.f)
      return false;
    if (s < 0.f)
      for (int64_t i = 0; i < perChannel; ++i)
        if ((*weights)[c * perChannel + i] == -128)
          return false;
  }
  return true;
}

/// A constant pad whose pads are constant and not negative.
static bool supportsPad(edge::PadOp pad) {
  std::optional<std::vector<int64_t>> pads =
      backends::getIntConstant(pad.getPads());
  return pad.getMode() == "constant" && isF32Tensor(pad.getInput().getType()) &&
         isF32Tensor(pad.getType()) && pads &&
         llvm::all_of(*pads, [](int64_t p) { return p >= 0; }) &&
         (!pad.getValue() || backends::getScalarConstant(pad.getValue()));
}

/// A bilinear resize of H and W with the scales the sizes imply (XNNPACK
/// takes the new size, not the scales).
static bool supportsResize(edge::ResizeOp resize) {
  ArrayRef<int64_t> in = shapeOf(resize.getInput()),
                    out = shapeOf(resize.getOutput());
  StringRef mode = resize.getCoordinateTransformationMode();
  std::optional<ArrayRef<double>> scales = resize.getScales();
  if (in.size() != 4 || resize.getMode() != "linear" || resize.getAntialias() ||
      resize.getDynamicRoi() || resize.getDynamicScales() || !scales ||
      scales->size() != 4 || in[0] != out[0] || in[1] != out[1] ||
      !isF32Tensor(resize.getType()))
    return false;
  // pytorch_half_pixel differs from half_pixel only for a length of one.
  bool halfPixel = mode == "half_pixel" ||
                   (mode == "pytorch_half_pixel" && out[2] > 1 && out[3] > 1);
  if (!halfPixel && mode != "align_corners" && mode != "asymmetric")
    return false;
  for (int i = 2; i < 4; ++i)
    if ((*scales)[i] != static_cast<double>(out[i]) / in[i])
      return false;
  return (*scales)[0] == 1 && (*scales)[1] == 1;
}

/// Each input of a concatenation is padded to the result's extent and the
/// paddings added: the cost grows with the input count (DenseNet's
/// concatenations of up to 32 inputs stay portable; Inception's have up to
/// 6).
constexpr size_t kMaxConcatInputs = 6;

static bool supportsF32Rules(Operation *op);

/// Whether `type` is an f32 tensor (rank 1 to 6) whose one dynamic
/// extent, if any, is the leading one (the batch) and whose static extents
/// are positive.
static bool isBatchDynamicF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isF32() || tensor.getRank() < 1 ||
      tensor.getRank() > 6)
    return false;
  ArrayRef<int64_t> shape = tensor.getShape();
  return (ShapedType::isDynamic(shape[0]) || shape[0] > 0) &&
         llvm::all_of(shape.drop_front(), [](int64_t d) { return d > 0; });
}

/// The ops with a dynamic batch the delegate takes (docs/delegation.md,
/// "Dynamic extents"): the delegate builds a runtime at each call's batch,
/// so every node parameter (pads, a reshape's new shape, a concatenation's
/// offsets) must not depend on it: f32 tensors dynamic only in their
/// leading extent, the ops whose parameters read the others.
static bool supportsDynamicOp(Operation *op) {
  if (!backends::isDynamicCandidate(op, isBatchDynamicF32))
    return false;
  // Each input is padded to the result's extent along the axis: a batch
  // axis would make the paddings dynamic.
  if (auto concat = dyn_cast<edge::ConcatOp>(op))
    return concat.getAxis() != 0 && concat.getInputs().size() >= 2 &&
           concat.getInputs().size() <= kMaxConcatInputs;
  return supportsF32Rules(op);
}

bool supportsOp(Operation *op) {
  if (backends::hasDynamicShape(op))
    return supportsDynamicOp(op);
  if (auto pad = dyn_cast<edge::PadOp>(op))
    return supportsPad(pad);
  if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op))
    return supportsQuantizedConv(conv);
  if (auto q = dyn_cast<edge::QuantizeLinearOp>(op))
    return isF32Tensor(q.getInput().getType()) && isS8Tensor(q.getType()) &&
           isPerTensor(q.getScale(), q.getZeroPoint());
  if (auto dq = dyn_cast<edge::DequantizeLinearOp>(op))
    return isS8Tensor(dq.getInput().getType()) && isF32Tensor(dq.getType()) &&
           !isConstant(dq.getInput()) &&
           isPerTensor(dq.getScale(), dq.getZeroPoint());
  if (isa<edge::MaxPool2DOp>(op) && isS8Tensor(op->getOperand(0).getType()) &&
      isS8Tensor(op->getResult(0).getType())) {
    std::optional<backends::PoolGeometry> g = backends::getPoolGeometry(op);
    return g && g->kernel[0] * g->kernel[1] > 1;
  }
  if (auto resize = dyn_cast<edge::ResizeOp>(op))
    return supportsResize(resize);
  if (auto concat = dyn_cast<edge::ConcatOp>(op))
    return concat.getInputs().size() >= 2 &&
           concat.getInputs().size() <= kMaxConcatInputs &&
           llvm::all_of(op->getOperandTypes(), isF32Tensor) &&
           isF32Tensor(concat.getType());
  if (!backends::isF32Op(op))
    return false;
  return supportsF32Rules(op);
}

/// The rules of the f32 ops past their tensors' checks (static or, in
/// supportsDynamicOp, dynamic only in the batch).
static bool supportsF32Rules(Operation *op) {
  // Weights are laid out for XNNPACK at compile time.
  if (auto conv = dyn_cast<edge::Conv2DOp>(op))
    return shapeOf(conv.getInput()).size() == 4 &&
           isConstant(conv.getWeight()) &&
           (!conv.getBias() || isConstant(conv.getBias()));
  // XNNPACK adds output padding below its upsampling (the stride).
  if (auto deconv = dyn_cast<edge::ConvTranspose2DOp>(op)) {
    ArrayRef<int64_t> padding = deconv.getOutputPadding(),
                      strides = deconv.getStrides();
    return shapeOf(deconv.getInput()).size() == 4 &&
           isConstant(deconv.getWeight()) &&
           (!deconv.getBias() || isConstant(deconv.getBias())) &&
           padding[0] < strides[0] && padding[1] < strides[1];
  }
  if (auto matmul = dyn_cast<edge::MatMulOp>(op)) {
    ArrayRef<int64_t> lhs = shapeOf(matmul.getLhs()),
                      rhs = shapeOf(matmul.getRhs());
    return lhs.size() != 4 && isConstant(matmul.getRhs()) &&
           llvm::all_of(rhs.drop_back(2), [](int64_t d) { return d == 1; });
  }
  // XNNPACK pools windows of more than one element.
  if (isa<edge::MaxPool2DOp>(op)) {
    std::optional<backends::PoolGeometry> g = backends::getPoolGeometry(op);
    return g && g->kernel[0] * g->kernel[1] > 1;
  }
  // XNNPACK divides by the elements inside the input and has no
  // dilation; an average counting padding pads with zeros first
  // (getPoolGeometry refuses the ceil-mode padding it would count).
  if (isa<edge::AvgPool2DOp>(op)) {
    std::optional<backends::PoolGeometry> g = backends::getPoolGeometry(op);
    return g && g->kernel[0] * g->kernel[1] > 1 &&
           g->dilations == std::vector<int64_t>{1, 1};
  }
  if (auto mean = dyn_cast<edge::ReduceMeanOp>(op))
    return shapeOf(mean.getInput()).size() == 4 && mean.getKeepDims() &&
           mean.getAxes() == ArrayRef<int64_t>{2, 3};
  if (auto softmax = dyn_cast<edge::SoftmaxOp>(op)) {
    int64_t rank = shapeOf(softmax.getInput()).size();
    int64_t axis = static_cast<int64_t>(softmax.getAxis());
    if (axis < 0)
      axis += rank;
    return axis == (rank == 4 ? 1 : rank - 1);
  }
  if (auto reshape = dyn_cast<edge::ReshapeOp>(op))
    return layoutFree(shapeOf(reshape.getInput())) &&
           layoutFree(shapeOf(reshape.getOutput()));
  if (isa<edge::ReluOp, edge::ClipOp, edge::SigmoidOp, edge::AbsOp, edge::NegOp,
          edge::FloorOp, edge::CeilOp, edge::RoundOp, edge::SqrtOp>(op))
    return true;
  if (isa<edge::PowOp>(op)) {
    std::optional<float> exponent =
        backends::getScalarConstant(op->getOperand(1));
    return exponent && (*exponent == 2.f || *exponent == 0.5f) &&
           shapeOf(op->getOperand(0)) == shapeOf(op->getResult(0));
  }
  if (isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp, edge::MaximumOp,
          edge::MinimumOp>(op))
    return shapeOf(op->getOperand(0)).size() ==
           shapeOf(op->getOperand(1)).size();
  return false;
}

} // namespace strata::xnnpack
