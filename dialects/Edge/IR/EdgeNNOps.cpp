//===- EdgeNNOps.cpp - convolutions, matmuls, pooling, resize -------------===//
//
// Every verifier here checks that the result type is exactly the one the
// operands and attributes imply: backends and the portable runtime rely on
// it and never re-derive shapes (EdgeOpUtils.h has the shared checks).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"
#include "EdgeOpUtils.h"

#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

/// Shape of a 2-d sliding window op over NCHW input with `channels` outputs.
static FailureOr<SmallVector<int64_t>>
inferWindowShape(Operation *op, ArrayRef<int64_t> input, int64_t channels,
                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                 bool ceilMode) {
  if (input.size() != 4)
    return op->emitOpError("input must have rank 4 (NCHW), got ")
           << input.size();
  if (failed(verifyWindowAttributes([&] { return op->emitOpError(); }, 2,
                                    kernel, strides, dilations, pads)))
    return failure();
  if (strides.empty() || dilations.empty() || pads.empty())
    return op->emitOpError("'strides', 'dilations' and 'pads' must be given");
  SmallVector<int64_t> shape = {input[0], channels};
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> extent =
        slidingWindowExtent(input[2 + i], kernel[i], strides[i], dilations[i],
                            pads[i], pads[2 + i], ceilMode);
    if (!extent)
      return op->emitOpError("window of extent ")
             << kernel[i] << " does not fit spatial dimension " << i
             << " of extent " << input[2 + i];
    shape.push_back(*extent);
  }
  return shape;
}

/// The result shape of a 2-d convolution `op` (NCHW input, OIHW weight)
/// from its window attributes, checked against its result.
template <typename ConvOp>
static FailureOr<SmallVector<int64_t>>
verifyConvWindow(ConvOp op, ArrayRef<int64_t> input, ArrayRef<int64_t> weight) {
  FailureOr<SmallVector<int64_t>> shape = inferWindowShape(
      op, input, weight[0], weight.drop_front(2), op.getStrides(),
      op.getDilations(), op.getPads(), /*ceilMode=*/false);
  if (failed(shape) || failed(verifyResultShape(op, *shape)))
    return failure();
  return shape;
}

//===----------------------------------------------------------------------===//
// Conv2DOp
//===----------------------------------------------------------------------===//

/// The channel and group invariants of a 2-d convolution (OIHW weight).
static LogicalResult verifyConvChannels(Operation *op, ArrayRef<int64_t> input,
                                        ArrayRef<int64_t> weight,
                                        int64_t group) {
  if (weight.size() != 4)
    return op->emitOpError("weight must have rank 4 (OIHW), got ")
           << weight.size();
  if (group < 1 || weight[0] % group != 0)
    return op->emitOpError("output channels ")
           << weight[0] << " are not divisible by group " << group;
  if (input.size() == 4 && input[1] != weight[1] * group)
    return op->emitOpError("input channels ")
           << input[1] << " differ from weight channels " << weight[1]
           << " x group " << group;
  return success();
}

LogicalResult Conv2DOp::verify() {
  if (failed(verifySameElementTypes(*this)))
    return failure();
  ArrayRef<int64_t> weight = shapeOf(getWeight());
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(verifyConvChannels(*this, input, weight, getGroup())))
    return failure();
  if (Value bias = getBias(); bias && shapeOf(bias) != ArrayRef(weight[0]))
    return emitOpError("bias must have shape [") << weight[0] << "]";
  auto shape = verifyConvWindow(*this, input, weight);
  if (failed(shape))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish,
                        PostOpKind::Sum, PostOpKind::Add});
}

//===----------------------------------------------------------------------===//
// DeformConv2DOp
//===----------------------------------------------------------------------===//

LogicalResult DeformConv2DOp::verify() {
  ArrayRef<int64_t> weight = shapeOf(getWeight());
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (input.size() != 4)
    return emitOpError("input must have rank 4 (NCHW), got ") << input.size();
  if (failed(verifyConvChannels(*this, input, weight, getGroup())))
    return failure();
  if (shapeOf(getBias()) != ArrayRef(weight[0]))
    return emitOpError("bias must have shape [") << weight[0] << "]";
  int64_t offsetGroup = static_cast<int64_t>(getOffsetGroup());
  if (offsetGroup < 1 || input[1] % offsetGroup != 0)
    return emitOpError("offset_group ")
           << offsetGroup << " must be positive and divide the input's "
           << input[1] << " channels";
  auto shape = verifyConvWindow(*this, input, weight);
  if (failed(shape))
    return failure();
  int64_t taps = weight[2] * weight[3];
  SmallVector<int64_t, 4> offset{input[0], offsetGroup * 2 * taps, (*shape)[2],
                                 (*shape)[3]};
  if (shapeOf(getOffset()) != ArrayRef(offset))
    return emitOpError("offset must have shape [")
           << formatShape(offset) << "]";
  SmallVector<int64_t, 4> mask{input[0], offsetGroup * taps, (*shape)[2],
                               (*shape)[3]};
  if (getMask() && shapeOf(getMask()) != ArrayRef(mask))
    return emitOpError("mask must have shape [") << formatShape(mask) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose2DOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTranspose2DOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput()), weight = shapeOf(getWeight());
  if (input.size() != 4 || weight.size() != 4)
    return emitOpError("input and weight must have rank 4 (NCHW, IOHW)");
  int64_t group = static_cast<int64_t>(getGroup());
  if (group < 1 || input[1] % group != 0 || input[1] != weight[0])
    return emitOpError("input channels ")
           << input[1] << " must equal the weight's " << weight[0]
           << " and divide by group " << group;
  ArrayRef<int64_t> strides = getStrides(), dilations = getDilations();
  ArrayRef<int64_t> pads = getPads(), outputPadding = getOutputPadding();
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      outputPadding.size() != 2)
    return emitOpError("needs 2 strides, dilations and output paddings and "
                       "4 pads");
  for (int64_t i = 0; i < 2; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0 ||
        pads[i] < 0 || pads[2 + i] < 0)
      return emitOpError("strides and dilations must be positive, paddings "
                         "non-negative");
  int64_t channels = weight[1] * group;
  if (Value bias = getBias(); bias && shapeOf(bias) != ArrayRef(channels))
    return emitOpError("bias must have shape [") << channels << "]";
  SmallVector<int64_t> expected = {input[0], channels};
  for (int64_t i = 0; i < 2; ++i) {
    std::optional<int64_t> extent = transposedWindowExtent(
        input[2 + i], weight[2 + i], strides[i], dilations[i], pads[i],
        pads[2 + i], outputPadding[i]);
    if (!extent)
      return emitOpError("pads exceed spatial dimension ") << i;
    expected.push_back(*extent);
  }
  if (failed(verifyResultShape(*this, expected)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish});
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  if (failed(verifySameElementTypes(*this)))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  ArrayRef<int64_t> out = shapeOf(getOutput());
  if (lhs.size() < 2 || lhs.size() != rhs.size() || lhs.size() != out.size())
    return emitOpError("operands and result must share one rank >= 2");
  if (lhs.back() != rhs.end()[-2])
    return emitOpError("inner dimensions differ: ")
           << lhs.back() << " vs " << rhs.end()[-2];
  SmallVector<int64_t> expected;
  for (size_t i = 0; i + 2 < lhs.size(); ++i) {
    if (lhs[i] != rhs[i] && lhs[i] != 1 && rhs[i] != 1)
      return emitOpError("batch dimension ") << i << " does not broadcast";
    expected.push_back(std::max(lhs[i], rhs[i]));
  }
  expected.append({lhs.end()[-2], rhs.back()});
  if (failed(verifyResultShape(*this, expected)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish,
                        PostOpKind::Add});
}

//===----------------------------------------------------------------------===//
// QuantizedConv2DOp / QuantizedMatMulOp
//===----------------------------------------------------------------------===//

/// The 8-bit integer type a tensor stores (a `!quant.uniform` type's storage
/// as the plain `i8`/`ui8`), or null when it is not 8-bit.
static Type eightBitStorage(Value value) {
  Type element = getElementTypeOrSelf(value);
  if (auto q = dyn_cast<quant::QuantizedType>(element)) {
    if (q.getStorageTypeIntegralWidth() != 8)
      return {};
    return IntegerType::get(value.getContext(), 8,
                            q.isSigned() ? IntegerType::Signless
                                         : IntegerType::Unsigned);
  }
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer || integer.getWidth() != 8 || integer.isSigned())
    return {};
  return integer;
}

/// Checks one (values, scale, zero point) triple: 8-bit values, scale and
/// zero point of one shape, scalar or (when `channels` > 0) `[channels]`,
/// and a zero point of the values' storage type.
static LogicalResult verifyQuantOperand(Operation *op, StringRef what,
                                        Value values, Value scale,
                                        Value zeroPoint, int64_t channels) {
  Type storage = eightBitStorage(values);
  if (!storage)
    return op->emitOpError() << what << " must hold i8 or ui8 values";
  ArrayRef<int64_t> scaleShape = shapeOf(scale);
  if (shapeOf(zeroPoint) != scaleShape)
    return op->emitOpError() << what << " scale and zero point shapes differ";
  if (getElementTypeOrSelf(zeroPoint) != storage)
    return op->emitOpError()
           << what << " zero point must have the storage type " << storage;
  bool perChannel =
      scaleShape.size() == 1 && channels > 0 && scaleShape[0] == channels;
  if (!scaleShape.empty() && !perChannel)
    return op->emitOpError()
           << what << " scale must be a scalar"
           << (channels > 0 ? " or have one element per output channel" : "");
  return success();
}

/// The epilogue shared by the quantized ops: an f32 result without output
/// quantization or an 8-bit one with it.
static LogicalResult verifyQuantizedResult(Operation *op, Value result,
                                           Value outputScale,
                                           Value outputZeroPoint) {
  if (getElementTypeOrSelf(result).isF32())
    return outputScale ? op->emitOpError("an f32 result takes no "
                                         "'output_scale'")
                       : success();
  if (!outputScale)
    return op->emitOpError("an 8-bit result needs 'output_scale' and "
                           "'output_zero_point'");
  return verifyQuantOperand(op, "output", result, outputScale, outputZeroPoint,
                            0);
}

/// The fused activation, when present, is one the int8 kernels implement.
static LogicalResult verifyActivation(Operation *op,
                                      std::optional<StringRef> activation) {
  if (activation && !symbolizeActivationKind(*activation))
    return op->emitOpError("activation must be 'swish', 'hardswish' or "
                           "'gelu_erf', got '")
           << *activation << "'";
  return success();
}

LogicalResult QuantizedConv2DOp::verify() {
  ArrayRef<int64_t> weight = shapeOf(getWeight());
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(verifyConvChannels(*this, input, weight, getGroup())))
    return failure();
  if (failed(verifyQuantOperand(*this, "input", getInput(), getInputScale(),
                                getInputZeroPoint(), 0)) ||
      failed(verifyQuantOperand(*this, "weight", getWeight(), getWeightScale(),
                                getWeightZeroPoint(), weight[0])))
    return failure();
  if (shapeOf(getBias()) != ArrayRef(weight[0]))
    return emitOpError("bias must have shape [") << weight[0] << "]";
  if (failed(verifyQuantizedResult(*this, getOutput(), getOutputScale(),
                                   getOutputZeroPoint())) ||
      failed(verifyActivation(*this, getActivation())))
    return failure();
  if (Value residual = getResidual()) {
    if (!getResidualScale() || !getResidualZeroPoint())
      return emitOpError("a residual needs its scale and zero point");
    if (failed(verifyQuantOperand(*this, "residual", residual,
                                  getResidualScale(), getResidualZeroPoint(),
                                  0)))
      return failure();
    if (shapeOf(residual) != shapeOf(getOutput()))
      return emitOpError("residual must have the result's shape");
  }
  return verifyConvWindow(*this, input, weight);
}

LogicalResult QuantizedMatMulOp::verify() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  if (lhs.size() < 2 || (rhs.size() != 2 && rhs.size() != lhs.size()))
    return emitOpError("lhs must have rank >= 2 and rhs rank 2 or the lhs's");
  if (rhs.size() > 2 && lhs.drop_back(2) != rhs.drop_back(2))
    return emitOpError("batch extents of lhs and rhs differ");
  int64_t k = rhs.end()[-2], n = rhs.back();
  if (lhs.back() != k)
    return emitOpError("inner dimensions differ: ")
           << lhs.back() << " vs " << k;
  if (failed(verifyQuantOperand(*this, "lhs", getLhs(), getLhsScale(),
                                getLhsZeroPoint(), 0)) ||
      failed(verifyQuantOperand(*this, "rhs", getRhs(), getRhsScale(),
                                getRhsZeroPoint(), n)))
    return failure();
  if (shapeOf(getBias()) != ArrayRef(n))
    return emitOpError("bias must have shape [") << n << "]";
  if (failed(verifyQuantizedResult(*this, getOutput(), getOutputScale(),
                                   getOutputZeroPoint())) ||
      failed(verifyActivation(*this, getActivation())))
    return failure();
  SmallVector<int64_t> expected(lhs.drop_back());
  expected.push_back(n);
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// MaxPool2DOp
//===----------------------------------------------------------------------===//

/// Pooling keeps the channel count; its window attributes imply the rest.
template <typename PoolOp> static LogicalResult verifyPool2D(PoolOp op) {
  ArrayRef<int64_t> input = shapeOf(op.getInput());
  if (op.getKernel().size() != 2)
    return op.emitOpError("'kernel' must have 2 entries");
  auto shape = inferWindowShape(
      op, input, input.size() > 1 ? input[1] : 0, op.getKernel(),
      op.getStrides(), op.getDilations(), op.getPads(), op.getCeilMode());
  if (failed(shape))
    return failure();
  return verifyResultShape(op, *shape);
}

LogicalResult MaxPool2DOp::verify() {
  if (failed(verifyPool2D(*this)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), {},
                       {PostOpKind::Relu, PostOpKind::Clip});
}

//===----------------------------------------------------------------------===//
// AvgPool2DOp
//===----------------------------------------------------------------------===//

LogicalResult AvgPool2DOp::verify() {
  if (failed(verifyPool2D(*this)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), {},
                       {PostOpKind::Relu, PostOpKind::Clip});
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("'axis' ") << axis << " is outside [0, " << rank << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

/// Checks that `value` is one of `allowed`, naming the attribute otherwise.
static LogicalResult verifyOneOf(Operation *op, StringRef name, StringRef value,
                                 ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  return op->emitOpError("'")
         << name << "' must be one of " << llvm::join(allowed, ", ")
         << ", got '" << value << "'";
}

/// Checks a run-time vector operand: rank 1 with `entries` elements.
static LogicalResult verifyVectorOperand(Operation *op, Value value,
                                         StringRef name, int64_t entries) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() == 1 && shape[0] == entries &&
      getElementTypeOrSelf(value).isF32())
    return success();
  return op->emitOpError("'") << name << "' operand must be tensor<" << entries
                              << "xf32>, got " << value.getType();
}

/// Checks per-axis scales against the input and result extents.
static LogicalResult verifyStaticScales(Operation *op, ArrayRef<double> scales,
                                        ArrayRef<int64_t> input,
                                        ArrayRef<int64_t> output) {
  int64_t rank = input.size();
  if (static_cast<int64_t>(scales.size()) != rank)
    return op->emitOpError("'scales' has ")
           << scales.size() << " entries, expected " << rank;
  for (int64_t d = 0; d < rank; ++d) {
    if (!(scales[d] > 0) || !std::isfinite(scales[d]))
      return op->emitOpError("scale ")
             << scales[d] << " of axis " << d << " must be positive and finite";
    // floor(scale * in) per the ONNX shape rule; keep_aspect_ratio_policy
    // rounds instead, so allow anything within one.
    if (std::abs(static_cast<double>(output[d]) - scales[d] * input[d]) >=
        1.0 + 1e-6)
      return op->emitOpError("result extent ")
             << output[d] << " of axis " << d << " does not match scale "
             << scales[d] << " times input extent " << input[d];
  }
  return success();
}

LogicalResult GridSampleOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyOneOf(op, "mode", getMode(),
                         {"bilinear", "nearest", "bicubic"})) ||
      failed(verifyOneOf(op, "padding_mode", getPaddingMode(),
                         {"zeros", "border", "reflection"})))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput()), grid = shapeOf(getGrid());
  if (input.size() != 4 || grid.size() != 4 || grid[3] != 2 ||
      grid[0] != input[0])
    return emitOpError("needs an [N, C, H, W] input and an [N, H_out, W_out, "
                       "2] grid");
  SmallVector<int64_t, 4> expected{input[0], input[1], grid[1], grid[2]};
  return verifyResultShape(*this, expected);
}

LogicalResult ResizeOp::verify() {
  Operation *op = getOperation();
  if (failed(
          verifyOneOf(op, "mode", getMode(), {"nearest", "linear", "cubic"})) ||
      failed(verifyOneOf(op, "coordinate_transformation_mode",
                         getCoordinateTransformationMode(),
                         {"half_pixel", "half_pixel_symmetric",
                          "pytorch_half_pixel", "align_corners", "asymmetric",
                          "tf_half_pixel_for_nn", "tf_crop_and_resize"})) ||
      failed(verifyOneOf(
          op, "nearest_mode", getNearestMode(),
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})))
    return failure();
  if (getAntialias() && getMode() == "nearest")
    return emitOpError("'antialias' needs linear or cubic mode");
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  int64_t rank = input.size();
  if (static_cast<int64_t>(output.size()) != rank)
    return emitOpError("result rank ")
           << output.size() << " differs from the input rank " << rank;

  if (getScales().has_value() == (getDynamicScales() != nullptr))
    return emitOpError("needs exactly one of the 'scales' attribute and the "
                       "'scales' operand");
  if (Value scales = getDynamicScales()) {
    if (failed(verifyVectorOperand(op, scales, "scales", rank)))
      return failure();
  } else if (failed(verifyStaticScales(op, *getScales(), input, output))) {
    return failure();
  }

  bool crop = getCoordinateTransformationMode() == "tf_crop_and_resize";
  bool hasRoi = getRoi().has_value() || getDynamicRoi();
  if (!crop && hasRoi)
    return emitOpError("a region of interest needs 'tf_crop_and_resize'");
  if (crop && getRoi().has_value() == (getDynamicRoi() != nullptr))
    return emitOpError("'tf_crop_and_resize' needs exactly one of the 'roi' "
                       "attribute and the 'roi' operand");
  if (Value roi = getDynamicRoi())
    return verifyVectorOperand(op, roi, "roi", 2 * rank);
  if (crop && static_cast<int64_t>(getRoi()->size()) != 2 * rank)
    return emitOpError("'roi' has ")
           << getRoi()->size() << " entries, expected " << 2 * rank;
  return success();
}
