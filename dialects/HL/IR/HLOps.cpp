//===- HLOps.cpp - hl op definitions and the NN family verifiers ---------===//
//
// Verifiers check what ONNX makes an invariant; shape rules come from
// strata/Support/ShapeInference.h so that `hl` and `edge` agree. Dynamic
// extents are accepted wherever ONNX accepts them. Conv, Gemm, MatMul and
// LayerNormalization state their forward shape rule here
// (InferShapedTypeOpInterface); the poolings share theirs
// (HLShapeInference.h).
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOps.h"
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLShapeInference.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

using Shape = SmallVector<int64_t>;

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::verify() {
  // WindowOpInterface checked the window attributes and the group.
  ArrayRef<int64_t> kernelShape = getWindowKernelShape();
  int64_t group = getWindowGroup();

  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(getWeight().getType());
  if (inputType && weightType && inputType.getRank() != weightType.getRank())
    return emitOpError("weight rank ")
           << weightType.getRank() << " differs from input rank "
           << inputType.getRank();
  if (!weightType)
    return success();
  if (!kernelShape.empty() &&
      !isCompatibleShape(weightType.getShape().drop_front(2), kernelShape))
    return emitOpError("'kernel_shape' does not match the weight's spatial "
                       "shape ")
           << formatShape(weightType.getShape().drop_front(2));
  int64_t outChannels = weightType.getDimSize(0);
  if (!ShapedType::isDynamic(outChannels) && outChannels % group != 0)
    return emitOpError("output channels ")
           << outChannels << " are not divisible by group " << group;
  if (inputType) {
    int64_t inChannels = inputType.getDimSize(1);
    int64_t perGroup = weightType.getDimSize(1);
    if (!ShapedType::isDynamic(inChannels) &&
        !ShapedType::isDynamic(perGroup) && inChannels != perGroup * group)
      return emitOpError("input channels ")
             << inChannels << " differ from weight channels " << perGroup
             << " x group " << group;
  }
  if (Value bias = getBias()) {
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (biasType && (biasType.getRank() != 1 ||
                     !isCompatibleShape(biasType.getShape(), {outChannels})))
      return emitOpError("bias must have shape [")
             << formatShape({outChannels}) << "], got ["
             << formatShape(biasType.getShape()) << "]";
  }
  return success();
}

LogicalResult ConvOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getRankedShape(operands, op.getInput());
  std::optional<Shape> weight = getStaticShape(operands, op.getWeight());
  if (!input || !weight)
    return unknownShape(shapes);
  if (weight->size() < 3)
    return misfit(location, "weight rank below 3");
  return inferSlidingWindowShape(location, *input, (*weight)[0],
                                 ArrayRef<int64_t>(*weight).drop_front(2),
                                 getWindowAttrs(op), shapes);
}

//===----------------------------------------------------------------------===//
// DeformConvOp
//===----------------------------------------------------------------------===//

LogicalResult DeformConvOp::verify() {
  // WindowOpInterface checked the window attributes and the group.
  ArrayRef<int64_t> kernelShape = getWindowKernelShape();
  int64_t group = static_cast<int64_t>(getGroup());
  int64_t offsetGroup = static_cast<int64_t>(getOffsetGroup());
  if (offsetGroup < 1)
    return emitOpError("'offset_group' must be positive, got ") << offsetGroup;
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(getWeight().getType());
  auto offsetType = dyn_cast<RankedTensorType>(getOffset().getType());
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"input", inputType},
        {"weight", weightType},
        {"offset", offsetType}})
    if (type && type.getRank() != 4)
      return emitOpError("is 2-d: the ")
             << name << " must have rank 4, got " << type.getRank();
  if (!inputType || !weightType || !inputType.hasStaticShape() ||
      !weightType.hasStaticShape())
    return success();
  int64_t channels = inputType.getDimSize(1);
  int64_t outChannels = weightType.getDimSize(0);
  if (outChannels % group != 0 || channels != weightType.getDimSize(1) * group)
    return emitOpError("input channels ")
           << channels << " and output channels " << outChannels
           << " do not match weight " << formatShape(weightType.getShape())
           << " in " << group << " group(s)";
  if (channels % offsetGroup != 0)
    return emitOpError("input channels ")
           << channels << " are not divisible by offset_group " << offsetGroup;
  if (!kernelShape.empty() &&
      kernelShape != weightType.getShape().drop_front(2))
    return emitOpError("'kernel_shape' does not match the weight's spatial "
                       "shape ")
           << formatShape(weightType.getShape().drop_front(2));
  // Offsets and mask: one plane per tap (and direction) of each image, at
  // the result's spatial extents.
  auto resultType = dyn_cast<RankedTensorType>(getOutput().getType());
  for (auto [name, value] : {std::pair<StringRef, Value>{"offset", getOffset()},
                             {"mask", getMask()}}) {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType())
                      : RankedTensorType();
    if (!type || type.getRank() != 4)
      continue;
    bool ok = isCompatibleShape(type.getShape().take_front(1),
                                inputType.getShape().take_front(1));
    if (ok && resultType && resultType.getRank() == 4)
      ok = isCompatibleShape(type.getShape().drop_front(2),
                             resultType.getShape().drop_front(2));
    if (!ok)
      return emitOpError()
             << name << " of shape [" << formatShape(type.getShape())
             << "] does not match the input's batch and the result's "
                "spatial extents";
  }
  int64_t taps = weightType.getDimSize(2) * weightType.getDimSize(3);
  if (offsetType && !ShapedType::isDynamic(offsetType.getDimSize(1)) &&
      offsetType.getDimSize(1) != offsetGroup * 2 * taps)
    return emitOpError("offset has ")
           << offsetType.getDimSize(1) << " channels; expected offset_group x "
           << "2 x kH x kW = " << offsetGroup * 2 * taps;
  if (Value mask = getMask()) {
    auto maskType = dyn_cast<RankedTensorType>(mask.getType());
    if (maskType && (maskType.getRank() != 4 ||
                     (!ShapedType::isDynamic(maskType.getDimSize(1)) &&
                      maskType.getDimSize(1) != offsetGroup * taps)))
      return emitOpError("mask must have rank 4 and offset_group x kH x kW = ")
             << offsetGroup * taps << " channels";
  }
  if (Value bias = getBias()) {
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (biasType && (biasType.getRank() != 1 ||
                     !isCompatibleShape(biasType.getShape(), {outChannels})))
      return emitOpError("bias must have shape [")
             << outChannels << "], got [" << formatShape(biasType.getShape())
             << "]";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  auto aType = dyn_cast<RankedTensorType>(getA().getType());
  auto bType = dyn_cast<RankedTensorType>(getB().getType());
  if (aType && aType.getRank() != 2)
    return emitOpError("A must have rank 2, got ") << aType.getRank();
  if (bType && bType.getRank() != 2)
    return emitOpError("B must have rank 2, got ") << bType.getRank();
  if (getTransA() != 0 && getTransA() != 1)
    return emitOpError("'transA' must be 0 or 1");
  if (getTransB() != 0 && getTransB() != 1)
    return emitOpError("'transB' must be 0 or 1");
  if (!aType || !bType)
    return success();
  int64_t m = aType.getDimSize(getTransA() ? 1 : 0);
  int64_t kA = aType.getDimSize(getTransA() ? 0 : 1);
  int64_t kB = bType.getDimSize(getTransB() ? 1 : 0);
  int64_t n = bType.getDimSize(getTransB() ? 0 : 1);
  if (!isCompatibleShape({kA}, {kB}))
    return emitOpError("inner dimensions differ: ") << kA << " vs " << kB;
  if (Value c = getC()) {
    auto cType = dyn_cast<RankedTensorType>(c.getType());
    if (cType) {
      auto shape = broadcastShapes(cType.getShape(), {m, n});
      if (cType.getRank() > 2 || failed(shape) ||
          !isCompatibleShape(*shape, {m, n}))
        return emitOpError("C of shape [")
               << formatShape(cType.getShape()) << "] does not broadcast to ["
               << formatShape({m, n}) << "]";
    }
  }
  return success();
}

LogicalResult GemmOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> a = getRankedShape(operands, op.getA());
  std::optional<Shape> b = getRankedShape(operands, op.getB());
  if (!a || !b)
    return unknownShape(shapes);
  if (a->size() != 2 || b->size() != 2)
    return misfit(location, "operands must be matrices");
  return knownShape(
      shapes, {(*a)[op.getTransA() ? 1 : 0], (*b)[op.getTransB() ? 0 : 1]});
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  auto lhsType = dyn_cast<RankedTensorType>(getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(getRhs().getType());
  if (!lhsType || !rhsType)
    return success();
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return emitOpError("operands must have rank >= 1");
  int64_t kLhs = lhsType.getShape().back();
  int64_t kRhs = rhsType.getRank() == 1 ? rhsType.getDimSize(0)
                                        : rhsType.getShape().end()[-2];
  if (!isCompatibleShape({kLhs}, {kRhs}))
    return emitOpError("inner dimensions differ: ") << kLhs << " vs " << kRhs;
  auto batch = broadcastShapes(
      lhsType.getShape().drop_back(std::min<int64_t>(2, lhsType.getRank())),
      rhsType.getShape().drop_back(std::min<int64_t>(2, rhsType.getRank())));
  if (failed(batch))
    return emitOpError("batch dimensions do not broadcast");
  return success();
}

LogicalResult MatMulOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // numpy matmul: 1-D operands are promoted and their unit dimension
  // dropped again; batch dimensions broadcast.
  std::optional<Shape> lhs = getRankedShape(operands, op.getLhs());
  std::optional<Shape> rhs = getRankedShape(operands, op.getRhs());
  if (!lhs || !rhs)
    return unknownShape(shapes);
  if (lhs->empty() || rhs->empty())
    return misfit(location, "operands must have rank 1 or more");
  bool lhsVector = lhs->size() == 1, rhsVector = rhs->size() == 1;
  Shape l = lhsVector ? Shape{1, (*lhs)[0]} : *lhs;
  Shape r = rhsVector ? Shape{(*rhs)[0], 1} : *rhs;
  if (!isCompatibleShape(ArrayRef<int64_t>(l.back()),
                         ArrayRef<int64_t>(r[r.size() - 2])))
    return misfit(location, "contracting dimensions differ");
  FailureOr<Shape> batch = broadcastPartialShapes(
      ArrayRef<int64_t>(l).drop_back(2), ArrayRef<int64_t>(r).drop_back(2));
  if (failed(batch))
    return misfit(location, "batch dimensions do not broadcast");
  Shape result(*batch);
  if (!lhsVector)
    result.push_back(l[l.size() - 2]);
  if (!rhsVector)
    result.push_back(r.back());
  return knownShape(shapes, result);
}

//===----------------------------------------------------------------------===//
// MaxPoolOp
//===----------------------------------------------------------------------===//

LogicalResult MaxPoolOp::verify() {
  // WindowOpInterface checked the window attributes (kernel_shape, when
  // given, has one entry per spatial dimension).
  if (getKernelShape().empty())
    return emitOpError("'kernel_shape' must not be empty");
  if (getCeilMode() != 0 && getCeilMode() != 1)
    return emitOpError("'ceil_mode' must be 0 or 1");
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("'storage_order' must be 0 or 1");
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalAveragePoolOp
//===----------------------------------------------------------------------===//

LogicalResult GlobalAveragePoolOp::verify() {
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  if (!inputType)
    return success();
  if (inputType.getRank() < 3)
    return emitOpError("input must have rank >= 3 ([N, C, D1, ...]), got ")
           << inputType.getRank();
  auto outputType = dyn_cast<RankedTensorType>(getOutput().getType());
  if (!outputType)
    return success();
  SmallVector<int64_t> expected(inputType.getShape().take_front(2));
  expected.append(inputType.getRank() - 2, 1);
  if (!isCompatibleShape(outputType.getShape(), expected))
    return emitOpError("result shape [")
           << formatShape(outputType.getShape()) << "] should be ["
           << formatShape(expected) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTransposeOp::verify() {
  // WindowOpInterface checked the window attributes and the group.
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(getWeight().getType());
  if (inputType && weightType) {
    if (inputType.getRank() != weightType.getRank())
      return emitOpError("weight rank ")
             << weightType.getRank() << " differs from input rank "
             << inputType.getRank();
    if (!isCompatibleShape({inputType.getDimSize(1)},
                           {weightType.getDimSize(0)}))
      return emitOpError("input channels ")
             << inputType.getDimSize(1) << " differ from weight dimension 0 ("
             << weightType.getDimSize(0) << ")";
  }
  for (auto attr : {getOutputPadding(), getOutputShape()}) {
    if (attr && inputType &&
        static_cast<int64_t>(attr->size()) != inputType.getRank() - 2)
      return emitOpError("'output_padding'/'output_shape' need one entry per "
                         "spatial dimension (")
             << inputType.getRank() - 2 << "), got " << attr->size();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult AveragePoolOp::verify() {
  // WindowOpInterface checked the window attributes.
  if (getKernelShape().empty())
    return emitOpError("'kernel_shape' must not be empty");
  if (getCeilMode() > 1 || getCountIncludePad() > 1)
    return emitOpError("'ceil_mode' and 'count_include_pad' must be 0 or 1");
  return success();
}

LogicalResult GlobalMaxPoolOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && *rank < 3)
    return emitOpError("input must have rank >= 3 ([N, C, D1, ...]), got ")
           << *rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

/// Checks that each of `params` is 1-D with the channel extent of `input`.
static LogicalResult verifyChannelParams(Operation *op, Value input,
                                         ValueRange params) {
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (inputType && inputType.getRank() < 2)
    return op->emitOpError("input must have rank >= 2 ([N, C, ...]), got ")
           << inputType.getRank();
  int64_t channels = inputType ? inputType.getDimSize(1) : ShapedType::kDynamic;
  for (Value param : params) {
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (type && (type.getRank() != 1 ||
                 !isCompatibleShape(type.getShape(), {channels})))
      return op->emitOpError("per-channel operands must have shape [")
             << formatShape({channels}) << "], got ["
             << formatShape(type.getShape()) << "]";
  }
  return success();
}

LogicalResult BatchNormalizationOp::verify() {
  if (getEpsilon().isNegative())
    return emitOpError("'epsilon' must not be negative");
  return verifyChannelParams(*this, getInput(),
                             {getScale(), getBias(), getMean(), getVar()});
}

LogicalResult InstanceNormalizationOp::verify() {
  return verifyChannelParams(*this, getInput(), {getScale(), getBias()});
}

LogicalResult LayerNormalizationOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyAxis(*this, axis, rank)))
    return failure();
  if (getEpsilon().isNegative())
    return emitOpError("'epsilon' must not be negative");
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  if (!inputType)
    return success();
  ArrayRef<int64_t> normShape =
      inputType.getShape().drop_front(axis < 0 ? axis + *rank : axis);
  for (Value param : {getScale(), getBias()}) {
    if (!param)
      continue;
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (!type)
      continue;
    auto shape = broadcastShapes(type.getShape(), normShape);
    if (type.getRank() > static_cast<int64_t>(normShape.size()) ||
        failed(shape) || !isCompatibleShape(*shape, normShape))
      return emitOpError("scale/bias of shape [")
             << formatShape(type.getShape())
             << "] do not broadcast to the normalised shape ["
             << formatShape(normShape) << "]";
  }
  return success();
}

LogicalResult LayerNormalizationOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // The output has the input's shape; the optional mean and inverse
  // standard deviation [d0, ..., d(axis-1), 1, ..., 1].
  std::optional<Shape> input = getStaticShape(operands, op.getInput());
  std::optional<Shape> stats = input;
  if (input) {
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), input->size());
    if (failed(axis))
      return misfit(location, "'axis' out of range");
    std::fill(stats->begin() + *axis, stats->end(), 1);
  }
  for (auto [i, count] : llvm::enumerate(op.getProperties().resultSegmentSizes))
    for (int32_t n = 0; n < count; ++n)
      shapes.push_back(input ? ShapedTypeComponents(i == 0 ? *input : *stats)
                             : ShapedTypeComponents());
  return success();
}

LogicalResult LRNOp::verify() {
  if (static_cast<int64_t>(getSize()) < 1)
    return emitOpError("'size' must be positive");
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && *rank < 3)
    return emitOpError("input must have rank >= 3 ([N, C, D1, ...]), got ")
           << *rank;
  return success();
}

LogicalResult MeanVarianceNormalizationOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  for (int64_t axis : getAxes())
    if (failed(verifyAxis(*this, axis, rank, "axes")))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  return verifyAxis(*this, getAxis(),
                    rank ? std::optional<int64_t>(std::max<int64_t>(*rank, 1))
                         : std::nullopt);
}

LogicalResult LogSoftmaxOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  return verifyAxis(*this, getAxis(),
                    rank ? std::optional<int64_t>(std::max<int64_t>(*rank, 1))
                         : std::nullopt);
}

LogicalResult HardmaxOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  return verifyAxis(*this, getAxis(),
                    rank ? std::optional<int64_t>(std::max<int64_t>(*rank, 1))
                         : std::nullopt);
}

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GET_OP_CLASSES
#include "HL/IR/HLOps.cpp.inc"
#pragma GCC diagnostic pop
