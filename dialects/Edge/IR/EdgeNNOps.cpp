//===- EdgeNNOps.cpp - convolutions, matmuls, pooling, softmax ------------===//
//
// The result type is exactly the one the operands and attributes imply:
// ops whose result follows from them infer it (InferTypeOpInterface, whose
// verifier compares it with the actual one), the others' verifiers check
// it. Backends and the portable runtime rely on it and never re-derive
// shapes (EdgeOpUtils.h has the shared helpers).
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
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

using EmitErrorFn = llvm::function_ref<InFlightDiagnostic()>;

/// Shape of a 2-d sliding window op over NCHW input with `channels` outputs.
static FailureOr<SmallVector<int64_t>>
inferWindowShape(EmitErrorFn emitError, ArrayRef<int64_t> input,
                 int64_t channels, ArrayRef<int64_t> kernel,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                 ArrayRef<int64_t> pads, bool ceilMode) {
  if (input.size() != 4)
    return emitError() << "input must have rank 4 (NCHW), got " << input.size();
  if (kernel.size() != 2)
    return emitError() << "'kernel' must have 2 entries";
  if (failed(verifyWindowAttributes(emitError, 2, kernel, strides, dilations,
                                    pads)))
    return failure();
  if (strides.empty() || dilations.empty() || pads.empty())
    return emitError() << "'strides', 'dilations' and 'pads' must be given";
  SmallVector<int64_t> shape = {input[0], channels};
  for (int i = 0; i < 2; ++i) {
    // A dynamic (bounded) extent stays dynamic; the op reifies it.
    if (ShapedType::isDynamic(input[2 + i])) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    std::optional<int64_t> extent =
        slidingWindowExtent(input[2 + i], kernel[i], strides[i], dilations[i],
                            pads[i], pads[2 + i], ceilMode);
    if (!extent)
      return emitError() << "window of extent " << kernel[i]
                         << " does not fit spatial dimension " << i
                         << " of extent " << input[2 + i];
    shape.push_back(*extent);
  }
  return shape;
}

/// The result shape of a 2-d convolution (NCHW input, OIHW weight) from its
/// window attributes.
template <typename ConvOp>
static FailureOr<SmallVector<int64_t>>
inferConvWindow(EmitErrorFn emitError, Value input, Value weight,
                typename ConvOp::Adaptor adaptor) {
  RankedTensorType inputType = rankedType(input);
  RankedTensorType weightType = rankedType(weight);
  if (!inputType || !weightType)
    return emitError() << "needs ranked input and weight";
  if (weightType.getRank() != 4)
    return emitError() << "weight must have rank 4 (OIHW), got "
                       << weightType.getRank();
  ArrayRef<int64_t> shape = weightType.getShape();
  return inferWindowShape(emitError, inputType.getShape(), shape[0],
                          shape.drop_front(2), adaptor.getStrides(),
                          adaptor.getDilations(), adaptor.getPads(),
                          /*ceilMode=*/false);
}

/// A convolution's result: the window shape with the input's element type.
template <typename ConvOp>
static LogicalResult inferConv(std::optional<Location> location,
                               typename ConvOp::Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<ConvOp>(location);
  auto shape = inferConvWindow<ConvOp>(emitError, adaptor.getInput(),
                                       adaptor.getWeight(), adaptor);
  if (failed(shape))
    return failure();
  return pushTensor(inferred, *shape, getElementTypeOrSelf(adaptor.getInput()));
}

STRATA_EDGE_INFER_WITH(Conv2DOp, inferConv)
STRATA_EDGE_INFER_WITH(DeformConv2DOp, inferConv)

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
  if (failed(verifyInferable(*this)))
    return failure();
  if (failed(verifySameElementTypes(*this)))
    return failure();
  ArrayRef<int64_t> weight = shapeOf(getWeight());
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(verifyConvChannels(*this, input, weight, getGroup())))
    return failure();
  if (Value bias = getBias(); bias && shapeOf(bias) != ArrayRef(weight[0]))
    return emitOpError("bias must have shape [") << weight[0] << "]";
  return verifyPostOps(*this, getPostOpsAttr(), getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish,
                        PostOpKind::Sum, PostOpKind::Add});
}

//===----------------------------------------------------------------------===//
// DeformConv2DOp
//===----------------------------------------------------------------------===//

LogicalResult DeformConv2DOp::verify() {
  // Inference checks the ranks and the window; the offsets and the mask
  // cover the inferred output pixels.
  SmallVector<Type, 1> inferred;
  if (failed(verifyInferable(*this, &inferred)))
    return failure();
  ArrayRef<int64_t> weight = shapeOf(getWeight());
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = cast<RankedTensorType>(inferred[0]).getShape();
  if (failed(verifyConvChannels(*this, input, weight, getGroup())))
    return failure();
  if (shapeOf(getBias()) != ArrayRef(weight[0]))
    return emitOpError("bias must have shape [") << weight[0] << "]";
  int64_t offsetGroup = static_cast<int64_t>(getOffsetGroup());
  if (offsetGroup < 1 || input[1] % offsetGroup != 0)
    return emitOpError("offset_group ")
           << offsetGroup << " must be positive and divide the input's "
           << input[1] << " channels";
  int64_t taps = weight[2] * weight[3];
  SmallVector<int64_t, 4> offset{input[0], offsetGroup * 2 * taps, output[2],
                                 output[3]};
  if (shapeOf(getOffset()) != ArrayRef(offset))
    return emitOpError("offset must have shape [")
           << formatShape(offset) << "]";
  SmallVector<int64_t, 4> mask{input[0], offsetGroup * taps, output[2],
                               output[3]};
  if (getMask() && shapeOf(getMask()) != ArrayRef(mask))
    return emitOpError("mask must have shape [") << formatShape(mask) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose2DOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTranspose2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<ConvTranspose2DOp>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType weightType = rankedType(adaptor.getWeight());
  if (!inputType || !weightType || inputType.getRank() != 4 ||
      weightType.getRank() != 4)
    return emitError() << "input and weight must have rank 4 (NCHW, IOHW)";
  ArrayRef<int64_t> input = inputType.getShape();
  ArrayRef<int64_t> weight = weightType.getShape();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  ArrayRef<int64_t> dilations = adaptor.getDilations();
  ArrayRef<int64_t> pads = adaptor.getPads();
  ArrayRef<int64_t> outputPadding = adaptor.getOutputPadding();
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      outputPadding.size() != 2)
    return emitError() << "needs 2 strides, dilations and output paddings "
                          "and 4 pads";
  for (int64_t i = 0; i < 2; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0 ||
        pads[i] < 0 || pads[2 + i] < 0)
      return emitError() << "strides and dilations must be positive, "
                            "paddings non-negative";
  auto group = static_cast<int64_t>(adaptor.getGroup());
  std::optional<int64_t> channels =
      group < 1 ? std::nullopt : llvm::checkedMul(weight[1], group);
  if (!channels)
    return emitError() << "'group' must be positive";
  SmallVector<int64_t> shape = {input[0], *channels};
  for (int64_t i = 0; i < 2; ++i) {
    std::optional<int64_t> extent = transposedWindowExtent(
        input[2 + i], weight[2 + i], strides[i], dilations[i], pads[i],
        pads[2 + i], outputPadding[i]);
    if (!extent)
      return emitError() << "pads exceed spatial dimension " << i;
    shape.push_back(*extent);
  }
  return pushTensor(inferred, shape, inputType.getElementType());
}

LogicalResult ConvTranspose2DOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  // Inference has checked the ranks and the window attributes.
  ArrayRef<int64_t> input = shapeOf(getInput()), weight = shapeOf(getWeight());
  int64_t group = static_cast<int64_t>(getGroup());
  if (group < 1 || input[1] % group != 0 || input[1] != weight[0])
    return emitOpError("input channels ")
           << input[1] << " must equal the weight's " << weight[0]
           << " and divide by group " << group;
  int64_t channels = weight[1] * group;
  if (Value bias = getBias(); bias && shapeOf(bias) != ArrayRef(channels))
    return emitOpError("bias must have shape [") << channels << "]";
  return verifyPostOps(*this, getPostOpsAttr(), getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish});
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<MatMulOp>(location);
  RankedTensorType lhsType = rankedType(adaptor.getLhs());
  RankedTensorType rhsType = rankedType(adaptor.getRhs());
  if (!lhsType || !rhsType || lhsType.getRank() < 2 ||
      lhsType.getRank() != rhsType.getRank())
    return emitError() << "operands and result must share one rank >= 2";
  ArrayRef<int64_t> lhs = lhsType.getShape(), rhs = rhsType.getShape();
  // A dynamic extent matches any other (the kernel checks it at run time).
  if (lhs.back() != rhs.end()[-2] && !ShapedType::isDynamic(lhs.back()) &&
      !ShapedType::isDynamic(rhs.end()[-2]))
    return emitError() << "inner dimensions differ: " << lhs.back() << " vs "
                       << rhs.end()[-2];
  SmallVector<int64_t> shape;
  for (size_t i = 0; i + 2 < lhs.size(); ++i) {
    bool dynamic =
        ShapedType::isDynamic(lhs[i]) || ShapedType::isDynamic(rhs[i]);
    if (lhs[i] != rhs[i] && lhs[i] != 1 && rhs[i] != 1 && !dynamic)
      return emitError() << "batch dimension " << i << " does not broadcast";
    // 1 broadcasts; a dynamic extent against a static one is the static one.
    int64_t a = lhs[i], b = rhs[i];
    shape.push_back(a == 1 ? b : b == 1 ? a : ShapedType::isDynamic(a) ? b : a);
  }
  shape.append({lhs.end()[-2], rhs.back()});
  return pushTensor(inferred, shape, lhsType.getElementType());
}

LogicalResult MatMulOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  if (failed(verifySameElementTypes(*this)))
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
/// quantization, an 8-bit one with it, or the i32 sums themselves (no
/// epilogue at all: MatMulInteger, ConvInteger).
static LogicalResult verifyQuantizedResult(Operation *op, Value result,
                                           Value outputScale,
                                           Value outputZeroPoint) {
  if (getElementTypeOrSelf(result).isSignlessInteger(32))
    return outputScale || op->getAttr("clip_min") || op->getAttr("clip_max") ||
                   op->getAttr("activation") ||
                   (isa<QuantizedConv2DOp>(op) &&
                    cast<QuantizedConv2DOp>(op).getResidual())
               ? op->emitOpError("an i32 result (the sums themselves) takes "
                                 "no requantization, residual, clamp or "
                                 "activation")
               : success();
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
  auto emitError = [&] { return emitOpError(); };
  auto shape = inferConvWindow<QuantizedConv2DOp>(emitError, getInput(),
                                                  getWeight(), Adaptor(*this));
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, *shape);
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

LogicalResult WeightQuantizedMatMulOp::verify() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), out = shapeOf(getOutput());
  int64_t bits = getBits(), group = getGroupSize();
  if (bits != 4 && bits != 8)
    return emitOpError("bits must be 4 or 8, got ") << bits;
  if (group < 1)
    return emitOpError("group_size must be positive, got ") << group;
  if (std::optional<int64_t> activations = getActivationBits();
      activations && *activations != 8)
    return emitOpError("activation_bits must be 8 (absent: f32), got ")
           << *activations;
  // Each group's int32 sum of (q - z) * p is below 255 * 127 * group_size.
  if (getActivationBits() && group > 32768)
    return emitOpError("group_size must be at most 32768 with int8 "
                       "activations (int32 sums), got ")
           << group;
  if (lhs.size() < 2 || out.size() != lhs.size())
    return emitOpError("lhs and result must share one rank >= 2");
  int64_t k = lhs.back(), n = out.back();
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n))
    return emitOpError("the inner dimension and the columns must be static");
  int64_t perWord = 32 / bits;
  if (group % perWord != 0)
    return emitOpError("group_size must be a multiple of ")
           << perWord << " at " << bits << " bits, got " << group;
  int64_t tiles = (n + kTileColumns - 1) / kTileColumns;
  int64_t groups = (k + group - 1) / group;
  SmallVector<int64_t, 3> weight = {tiles, (k + perWord - 1) / perWord,
                                    kTileColumns * 4};
  if (shapeOf(getWeight()) != ArrayRef<int64_t>(weight))
    return emitOpError("weight must have shape [")
           << tiles << ", " << weight[1] << ", " << weight[2] << "] for " << n
           << " columns of " << k << " rows at " << bits << " bits";
  SmallVector<int64_t, 3> scales = {tiles, groups, kTileColumns};
  if (shapeOf(getScales()) != ArrayRef<int64_t>(scales))
    return emitOpError("scales must have shape [")
           << tiles << ", " << groups << ", " << kTileColumns << "]";
  if (Value zeroPoints = getZeroPoints();
      zeroPoints && shapeOf(zeroPoints) != ArrayRef<int64_t>(scales))
    return emitOpError("zero_points must have the scales' shape");
  if (Value bias = getBias(); bias && shapeOf(bias) != ArrayRef(n))
    return emitOpError("bias must have shape [") << n << "]";
  for (size_t d = 0; d + 1 < lhs.size(); ++d)
    if (lhs[d] != out[d])
      return emitOpError("result must have the lhs's extents but the last");
  return success();
}

//===----------------------------------------------------------------------===//
// MaxPool2DOp
//===----------------------------------------------------------------------===//

/// Pooling keeps the channel count and element type; its window
/// attributes imply the rest.
template <typename PoolOp>
static LogicalResult inferPool2D(std::optional<Location> location,
                                 typename PoolOp::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<PoolOp>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  if (!inputType)
    return emitError() << "needs a ranked input";
  ArrayRef<int64_t> input = inputType.getShape();
  auto shape = inferWindowShape(
      emitError, input, input.size() > 1 ? input[1] : 0, adaptor.getKernel(),
      adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
      adaptor.getCeilMode());
  if (failed(shape))
    return failure();
  return pushTensor(inferred, *shape, inputType.getElementType());
}

STRATA_EDGE_INFER_WITH(MaxPool2DOp, inferPool2D)
STRATA_EDGE_INFER_WITH(AvgPool2DOp, inferPool2D)

LogicalResult MaxPool2DOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), {},
                       {PostOpKind::Relu, PostOpKind::Clip});
}

LogicalResult AvgPool2DOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  return verifyPostOps(*this, getPostOpsAttr(), {},
                       {PostOpKind::Relu, PostOpKind::Clip});
}

//===----------------------------------------------------------------------===//
// SoftmaxOp, LogSoftmaxOp
//===----------------------------------------------------------------------===//

/// Softmax and LogSoftmax: the axis is one of the input's.
static LogicalResult verifySoftmaxAxis(Operation *op, Value input,
                                       int64_t axis) {
  int64_t rank = shapeOf(input).size();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("'axis' ")
           << axis << " is outside [0, " << rank << ")";
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifySoftmaxAxis(*this, getInput(), getAxis());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxAxis(*this, getInput(), getAxis());
}
