//===- EdgeOps.cpp - edge verifiers: the backend contract -----------------===//
//
// Every verifier here checks that the result type is exactly the one the
// operands and attributes imply: backends and the portable runtime rely on
// it and never re-derive shapes.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "Edge/IR/EdgeActivationChains.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"

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

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// Emits "result shape [a] should be [b]" unless the two are equal.
static LogicalResult verifyResultShape(Operation *op,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual == expected)
    return success();
  return op->emitOpError("result shape [")
         << formatShape(actual) << "] should be [" << formatShape(expected)
         << "]";
}

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
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Conv2DOp
//===----------------------------------------------------------------------===//

/// Checks that every operand and the result share one element type (the
/// conv2d and matmul kernels take all-f32 or all-i32 operands).
static LogicalResult verifySameElementTypes(Operation *op) {
  Type expected = getElementTypeOrSelf(op->getResult(0));
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand) != expected)
      return op->emitOpError("operand element type ")
             << getElementTypeOrSelf(operand) << " differs from the result's "
             << expected;
  return success();
}

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
// Binary elementwise ops
//===----------------------------------------------------------------------===//

/// Rank-explicit broadcasting: each operand extent is the result's or 1.
static LogicalResult verifyExplicitBroadcast(Operation *op,
                                             ValueRange operands) {
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  for (Value operand : operands) {
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip_equal(shapeOf(operand), out))) {
      auto [in, res] = pair;
      if (in != res && in != 1)
        return op->emitOpError("operand extent ")
               << in << " at dimension " << i << " neither equals the "
               << "result's " << res << " nor is 1";
    }
  }
  SmallVector<int64_t> expected(shapeOf(operands.front()));
  for (Value operand : operands.drop_front()) {
    auto broadcast = broadcastShapes(expected, shapeOf(operand));
    if (failed(broadcast))
      return op->emitOpError("operands do not broadcast");
    expected = *broadcast;
  }
  return verifyResultShape(op, expected);
}
static LogicalResult verifyExplicitBroadcast(Operation *op) {
  return verifyExplicitBroadcast(op, op->getOperands());
}

/// A binary op that may carry a post-op chain: explicit broadcasting of
/// lhs and rhs, one element type for them and the result (an 8-bit result
/// after a chain ending in `quantize`), then the chain.
template <typename OpT> static LogicalResult verifyFusibleBinary(OpT op) {
  if (failed(verifyExplicitBroadcast(op, {op.getLhs(), op.getRhs()})))
    return failure();
  Type element = getElementTypeOrSelf(op.getLhs());
  SmallVector<PostOpAttr> steps = getPostOpSteps(op);
  bool quantizes =
      !steps.empty() && steps.back().getKind() == PostOpKind::Quantize;
  if (getElementTypeOrSelf(op.getRhs()) != element ||
      (!quantizes && getElementTypeOrSelf(op.getOutput()) != element))
    return op.emitOpError("requires the same element type for all operands "
                          "and results");
  return verifyPostOps(op, op.getPostOpsAttr(), op.getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish,
                        PostOpKind::Add, PostOpKind::Quantize});
}

LogicalResult AddOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult SubOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MulOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult DivOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult PowOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult MaximumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult EqualOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LessOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LessEqualOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalAndOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalOrOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalXorOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseAndOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseOrOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseXorOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult SelectOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult ModOp::verify() {
  if (!getFmod() && isa<FloatType>(getElementTypeOrSelf(getOutput())))
    return emitOpError("float remainders need 'fmod'");
  return verifyExplicitBroadcast(*this);
}

//===----------------------------------------------------------------------===//
// BitShiftOp
//===----------------------------------------------------------------------===//

LogicalResult BitShiftOp::verify() {
  if (getDirection() != "left" && getDirection() != "right")
    return emitOpError("direction must be \"left\" or \"right\", got \"")
           << getDirection() << "\"";
  return verifyExplicitBroadcast(*this);
}

//===----------------------------------------------------------------------===//
// ClipOp
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError("'min' ")
           << getMin().convertToFloat() << " exceeds 'max' "
           << getMax().convertToFloat();
  return success();
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
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  // SameOperandsAndResultElementType already requires one input.
  ArrayRef<int64_t> first = shapeOf(getInputs().front());
  int64_t rank = first.size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("'axis' ") << axis << " is outside [0, " << rank << ")";
  SmallVector<int64_t> expected(first);
  expected[axis] = 0;
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> shape = shapeOf(input);
    if (static_cast<int64_t>(shape.size()) != rank)
      return emitOpError("input ")
             << index << " has rank " << shape.size() << ", expected " << rank;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != axis && shape[dim] != first[dim])
        return emitOpError("input ")
               << index << " differs from input 0 at dimension " << dim;
    expected[axis] += shape[axis];
  }
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// ReduceMeanOp
//===----------------------------------------------------------------------===//

/// Shared by every reduction: sorted, unique axes inside the input's rank
/// and the result shape they imply.
static LogicalResult verifyReduction(Operation *op, ArrayRef<int64_t> axes,
                                     bool keepDims) {
  ArrayRef<int64_t> input = shapeOf(op->getOperand(0));
  if (axes.empty())
    return op->emitOpError("'axes' must not be empty");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()))
      return op->emitOpError("axis ")
             << axis << " is outside [0, " << input.size() << ")";
    if (i > 0 && axis <= axes[i - 1])
      return op->emitOpError("'axes' must be sorted and unique");
  }
  SmallVector<int64_t> expected;
  for (auto [dim, extent] : llvm::enumerate(input)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      expected.push_back(extent);
    else if (keepDims)
      expected.push_back(1);
  }
  return verifyResultShape(op, expected);
}

LogicalResult ReduceMeanOp::verify() {
  if (failed(verifyReduction(*this, getAxes(), getKeepDims())))
    return failure();
  // An 8-bit input or result only with a chain that scales and quantizes
  // (an int8 global average pooling in a delegated partition).
  SmallVector<PostOpAttr> steps = getPostOpSteps(*this);
  bool quantizes =
      !steps.empty() && steps.back().getKind() == PostOpKind::Quantize;
  if (!quantizes &&
      getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("requires the same element type for all operands and "
                       "results");
  return verifyPostOps(*this, getPostOpsAttr(), {},
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::Linear,
                        PostOpKind::Quantize});
}
LogicalResult ReduceSumOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMaxOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMinOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceProdOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepDims());
}

//===----------------------------------------------------------------------===//
// ArgMaxOp, ArgMinOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyArgReduction(Operation *op, int64_t axis,
                                        bool keepDims) {
  ArrayRef<int64_t> input = shapeOf(op->getOperand(0));
  int64_t rank = input.size();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("'axis' ")
           << axis << " is outside [0, " << rank << ")";
  if (input[axis] == 0)
    return op->emitOpError("axis ") << axis << " is empty";
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      expected.push_back(input[d]);
    else if (keepDims)
      expected.push_back(1);
  }
  return verifyResultShape(op, expected);
}

LogicalResult ArgMaxOp::verify() {
  return verifyArgReduction(*this, static_cast<int64_t>(getAxis()),
                            getKeepDims());
}
LogicalResult ArgMinOp::verify() {
  return verifyArgReduction(*this, static_cast<int64_t>(getAxis()),
                            getKeepDims());
}

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

/// Checks that `axis` lies in [0, rank of `input`) and, for the *Elements
/// ops (`indices` given), that the indices have the input's rank.
static LogicalResult
verifyIndexedAxis(Operation *op, ArrayRef<int64_t> input, int64_t axis,
                  std::optional<ArrayRef<int64_t>> indices = std::nullopt) {
  int64_t rank = input.size();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("'axis' ")
           << axis << " is outside [0, " << rank << ")";
  if (indices && static_cast<int64_t>(indices->size()) != rank)
    return op->emitOpError("indices have rank ")
           << indices->size() << ", input has " << rank;
  return success();
}

LogicalResult GatherElementsOp::verify() {
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (failed(verifyIndexedAxis(*this, shapeOf(getInput()),
                               static_cast<int64_t>(getAxis()), indices)))
    return failure();
  return verifyResultShape(*this, indices);
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyIndexedAxis(*this, input, axis)))
    return failure();
  SmallVector<int64_t> expected(input.take_front(axis));
  llvm::append_range(expected, shapeOf(getIndices()));
  llvm::append_range(expected, input.drop_front(axis + 1));
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (failed(verifyIndexedAxis(*this, input, static_cast<int64_t>(getAxis()),
                               indices)))
    return failure();
  if (shapeOf(getUpdates()) != indices)
    return emitOpError("updates and indices differ in shape");
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, getReduction()))
    return emitOpError("unknown reduction '") << getReduction() << "'";
  return success();
}

LogicalResult ScatterNDOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (indices.empty() || indices.back() < 1 ||
      indices.back() > static_cast<int64_t>(input.size()))
    return emitOpError("indices [..., k] need k in [1, input rank]");
  SmallVector<int64_t> expected(indices.drop_back());
  llvm::append_range(expected, input.drop_front(indices.back()));
  if (shapeOf(getUpdates()) != ArrayRef<int64_t>(expected))
    return emitOpError("updates must have shape [")
           << formatShape(expected) << "]";
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, getReduction()))
    return emitOpError("unknown reduction '") << getReduction() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// ArgTopKOp
//===----------------------------------------------------------------------===//

LogicalResult ArgTopKOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  int64_t rank = input.size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("'axis' ") << axis << " is outside [0, " << rank << ")";
  if (static_cast<int64_t>(output.size()) != rank || output[axis] > input[axis])
    return emitOpError("result must have the input's rank and at most ")
           << input[axis] << " entries along the axis";
  SmallVector<int64_t> expected(input);
  expected[axis] = output[axis];
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// GatherNDOp
//===----------------------------------------------------------------------===//

LogicalResult GatherNDOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  int64_t batch = static_cast<int64_t>(getBatchDims());
  int64_t rank = input.size(), indexRank = indices.size();
  if (indexRank < 1 || batch < 0 || batch >= indexRank || batch >= rank)
    return emitOpError("'batch_dims' ")
           << batch << " must be below both ranks and indices need rank >= 1";
  int64_t tuple = indices.back();
  if (tuple < 1 || batch + tuple > rank)
    return emitOpError("index tuples of length ")
           << tuple << " do not fit the input's rank " << rank;
  if (input.take_front(batch) != indices.take_front(batch))
    return emitOpError("batch dimensions of input and indices differ");
  SmallVector<int64_t> expected(indices.drop_back());
  llvm::append_range(expected, input.drop_front(batch + tuple));
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  auto type = cast<ShapedType>(getStart().getType());
  if (type.getNumElements() != 1)
    return emitOpError("start, limit and delta must hold one element, got ")
           << type;
  if (!isa<IntegerType, FloatType>(type.getElementType()) ||
      type.getElementType().isInteger(1))
    return emitOpError("needs a numeric element type, got ")
           << type.getElementType();
  if (shapeOf(getOutput()).size() != 1)
    return emitOpError("result must be 1-d, got ") << getOutput().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto isQuantized = [](Value value) {
    return isa<quant::QuantizedType>(
        cast<ShapedType>(value.getType()).getElementType());
  };
  if (isQuantized(getInput()) || isQuantized(getOutput()))
    return emitOpError("does not take quantized types: use quantize and "
                       "dequantize");
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto inputType = cast<ShapedType>(getInput().getType());
  auto outputType = cast<ShapedType>(getOutput().getType());
  if (inputType.getNumElements() != outputType.getNumElements())
    return emitOpError("result has ")
           << outputType.getNumElements() << " elements, input has "
           << inputType.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  auto type = cast<ShapedType>(getOutput().getType());
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(type);
  // A resource blob holds row-major data whatever its shape: share it.
  if (auto resource =
          dyn_cast_or_null<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> permutation = getPermutation();
  if (permutation.size() != input.size())
    return emitOpError("'permutation' has ")
           << permutation.size() << " entries, input rank is " << input.size();
  SmallVector<bool> seen(input.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= static_cast<int64_t>(input.size()) || seen[dim])
      return emitOpError("'permutation' is not a permutation of [0, ")
             << input.size() << ")";
    seen[dim] = true;
    expected.push_back(input[dim]);
  }
  return verifyResultShape(*this, expected);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getOutput().getType());
  if (llvm::equal(getPermutation(), llvm::seq<int64_t>(0, type.getRank())))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(type);
  std::optional<ArrayRef<char>> data = getRawConstantData(adaptor.getInput());
  if (!data)
    return {};
  ArrayRef<int64_t> inShape = shapeOf(getInput());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (elementBytes == 0 || static_cast<int64_t>(data->size()) !=
                               type.getNumElements() * elementBytes)
    return {};
  // Row-major strides of the input, visited in the output's order.
  int64_t rank = type.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  SmallVector<char> out(data->size());
  SmallVector<int64_t> index(rank, 0);
  ArrayRef<int64_t> outShape = type.getShape();
  for (int64_t linear = 0, n = type.getNumElements(); linear < n; ++linear) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * inStrides[getPermutation()[d]];
    std::memcpy(out.data() + linear * elementBytes,
                data->data() + source * elementBytes, elementBytes);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == outShape[d]; --d)
      index[d] = 0;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(
        type, "transposed",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            out, resource.getRawHandle().getBlob()->getDataAlignment()));
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  if (output.size() != input.size() || starts.size() != input.size() ||
      steps.size() != input.size())
    return emitOpError("'starts', 'steps' and the result need the input's "
                       "rank ")
           << input.size();
  for (size_t d = 0; d < input.size(); ++d) {
    if (steps[d] == 0)
      return emitOpError("step of dimension ") << d << " is zero";
    if (output[d] == 0)
      continue;
    int64_t last = starts[d] + (output[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= input[d] || last < 0 || last >= input[d])
      return emitOpError("dimension ")
             << d << " reads indices " << starts[d] << ".." << last
             << " outside [0, " << input[d] << ")";
  }
  return success();
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
// DelegateCallOp
//===----------------------------------------------------------------------===//

LogicalResult
DelegateCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getCalleeAttr());
  if (!callee)
    return emitOpError("calls @") << getCallee() << ", which is no function";
  if (!callee->hasAttr("strata.delegate"))
    return emitOpError("calls @")
           << getCallee() << ", which is no delegate (no strata.delegate)";
  auto type = dyn_cast<FunctionType>(callee.getFunctionType());
  if (!type || TypeRange(type.getInputs()) != getInputs().getTypes() ||
      TypeRange(type.getResults()) != getResultTypes())
    return emitOpError("types do not match @")
           << getCallee() << "'s " << callee.getFunctionType();
  return success();
}

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GET_OP_CLASSES
#include "Edge/IR/EdgeOps.cpp.inc"
#pragma GCC diagnostic pop

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
