//===- HLTensorOps.cpp - hl tensor and shape op verifiers -----------------===//
//
// Verifiers of the data-movement ops; their folders live in HLTensorFolds.cpp.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::verify() {
  auto outputType = dyn_cast<RankedTensorType>(getOutput().getType());
  if (outputType && outputType.getRank() != 2)
    return emitOpError("result must have rank 2, got ") << outputType.getRank();
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && (getAxis() < -*rank || getAxis() > *rank))
    return emitOpError("'axis' ")
           << getAxis() << " is outside [" << -*rank << ", " << *rank << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  std::optional<int64_t> shapeRank = rankOf(getShape());
  if (shapeRank && *shapeRank != 1)
    return emitOpError("shape operand must be 1-D, got rank ") << *shapeRank;
  if (getAllowzero() != 0 && getAllowzero() != 1)
    return emitOpError("'allowzero' must be 0 or 1");
  auto shapeType = dyn_cast<RankedTensorType>(getShape().getType());
  auto outputType = dyn_cast<RankedTensorType>(getOutput().getType());
  if (shapeType && outputType && shapeType.hasStaticShape() &&
      shapeType.getDimSize(0) != outputType.getRank())
    return emitOpError("result rank ")
           << outputType.getRank() << " differs from the shape operand's "
           << shapeType.getDimSize(0) << " entries";
  auto inputType = dyn_cast<RankedTensorType>(getData().getType());
  if (inputType && outputType && inputType.hasStaticShape() &&
      outputType.hasStaticShape() &&
      inputType.getNumElements() != outputType.getNumElements())
    return emitOpError("result has ")
           << outputType.getNumElements() << " elements, input has "
           << inputType.getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape queries
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::verify() {
  return verifyRank(*this, getOutput(), 1, "result");
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  std::optional<int64_t> rank = rankOf(getData());
  auto perm = getPerm();
  if (!perm || !rank)
    return success();
  if (static_cast<int64_t>(perm->size()) != *rank)
    return emitOpError("'perm' has ")
           << perm->size() << " entries, expected " << *rank;
  SmallVector<bool> seen(*rank, false);
  for (int64_t p : *perm) {
    if (p < 0 || p >= *rank || seen[p])
      return emitOpError("'perm' is not a permutation of [0, ") << *rank << ")";
    seen[p] = true;
  }
  auto inputType = cast<RankedTensorType>(getData().getType());
  auto outputType = dyn_cast<RankedTensorType>(getOutput().getType());
  if (!outputType)
    return success();
  SmallVector<int64_t> expected;
  for (int64_t p : *perm)
    expected.push_back(inputType.getDimSize(p));
  if (!isCompatibleShape(outputType.getShape(), expected))
    return emitOpError("result shape [")
           << formatShape(outputType.getShape()) << "] should be ["
           << formatShape(expected) << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp and SplitOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  // At least one operand: SameOperandsAndResultElementType checks it.
  int64_t axis = static_cast<int64_t>(getAxis());
  std::optional<int64_t> rank;
  for (Value input : getInputs())
    if ((rank = rankOf(input)))
      break;
  if (failed(verifyAxis(*this, axis, rank)))
    return failure();
  if (!rank)
    return success();
  int64_t a = axis < 0 ? axis + *rank : axis;
  ArrayRef<int64_t> reference;
  for (Value input : getInputs()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      continue;
    if (type.getRank() != *rank)
      return emitOpError("operands must have one rank, got ")
             << *rank << " and " << type.getRank();
    if (reference.empty()) {
      reference = type.getShape();
      continue;
    }
    for (int64_t d = 0; d < *rank; ++d)
      if (d != a && !isCompatibleShape({type.getDimSize(d)}, {reference[d]}))
        return emitOpError("operand extents differ at dimension ")
               << d << " (not the concatenation axis)";
  }
  return success();
}

LogicalResult SplitOp::verify() {
  if (getOutputs().empty())
    return emitOpError("needs at least one result");
  std::optional<int64_t> rank = rankOf(getInput());
  if (failed(verifyAxis(*this, static_cast<int64_t>(getAxis()), rank)))
    return failure();
  if (getSplit() && failed(verifyRank(*this, getSplit(), 1, "split")))
    return failure();
  if (auto split = getConstantInts(getSplit())) {
    if (split->size() != getOutputs().size())
      return emitOpError("'split' has ") << split->size() << " entries for "
                                         << getOutputs().size() << " results";
    if (llvm::any_of(*split, [](int64_t v) { return v < 0; }))
      return emitOpError("'split' entries must not be negative");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  int64_t length = ShapedType::kDynamic;
  for (Value v : {getStarts(), getEnds(), getAxes(), getSteps()}) {
    if (failed(verifyRank(*this, v, 1, "starts/ends/axes/steps")))
      return failure();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.isDynamicDim(0))
      continue;
    if (!ShapedType::isDynamic(length) && length != type.getDimSize(0))
      return emitOpError("starts/ends/axes/steps must have one length");
    length = type.getDimSize(0);
  }
  if (auto steps = getConstantInts(getSteps()))
    if (llvm::is_contained(*steps, 0))
      return emitOpError("'steps' must not contain 0");
  if (auto axes = getConstantInts(getAxes()))
    for (int64_t axis : *axes)
      if (failed(verifyAxis(*this, axis, rankOf(getData()), "axes")))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  std::optional<int64_t> rank = rankOf(getData());
  if (rank && *rank == 0)
    return emitOpError("data must have rank >= 1");
  if (failed(verifyAxis(*this, static_cast<int64_t>(getAxis()), rank)))
    return failure();
  std::optional<int64_t> indicesRank = rankOf(getIndices());
  std::optional<int64_t> resultRank = rankOf(getOutput());
  if (rank && indicesRank && resultRank &&
      *resultRank != *rank + *indicesRank - 1)
    return emitOpError("result rank ")
           << *resultRank << " should be " << *rank + *indicesRank - 1;
  return success();
}

LogicalResult GatherElementsOp::verify() {
  std::optional<int64_t> rank = rankOf(getData());
  std::optional<int64_t> indicesRank = rankOf(getIndices());
  if (rank && indicesRank && *rank != *indicesRank)
    return emitOpError("data and indices must have one rank");
  return verifyAxis(*this, static_cast<int64_t>(getAxis()), rank);
}

LogicalResult GatherNDOp::verify() {
  std::optional<int64_t> rank = rankOf(getData());
  std::optional<int64_t> indicesRank = rankOf(getIndices());
  int64_t batchDims = static_cast<int64_t>(getBatchDims());
  if (batchDims < 0)
    return emitOpError("'batch_dims' must not be negative");
  if ((rank && batchDims >= *rank) ||
      (indicesRank && batchDims >= *indicesRank))
    return emitOpError("'batch_dims' must be less than both operand ranks");
  auto indicesType = dyn_cast<RankedTensorType>(getIndices().getType());
  if (rank && indicesType && !indicesType.isDynamicDim(*indicesRank - 1) &&
      indicesType.getShape().back() > *rank - batchDims)
    return emitOpError("index tuples of length ")
           << indicesType.getShape().back() << " exceed data rank " << *rank
           << " - batch_dims";
  if (indicesType && !indicesType.isDynamicDim(*indicesRank - 1) &&
      indicesType.getShape().back() < 1)
    return emitOpError("index tuples must have at least one entry");
  return success();
}

/// Checks a scatter `reduction` attribute.
static LogicalResult verifyReduction(Operation *op, StringRef reduction) {
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, reduction))
    return op->emitOpError("'reduction' must be none, add, mul, max or min, "
                           "got '")
           << reduction << "'";
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  std::optional<int64_t> rank = rankOf(getData());
  std::optional<int64_t> indicesRank = rankOf(getIndices());
  if (rank && indicesRank && *rank != *indicesRank)
    return emitOpError("data and indices must have one rank");
  if (failed(verifyAxis(*this, static_cast<int64_t>(getAxis()), rank)))
    return failure();
  return verifyReduction(*this, getReduction());
}

LogicalResult ScatterNDOp::verify() {
  return verifyReduction(*this, getReduction());
}

//===----------------------------------------------------------------------===//
// Squeeze, unsqueeze, expand, tile, pad
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::verify() {
  if (!getAxes())
    return success();
  if (failed(verifyRank(*this, getAxes(), 1, "axes")))
    return failure();
  auto inputType = dyn_cast<RankedTensorType>(getData().getType());
  auto axes = getConstantInts(getAxes());
  if (!inputType || !axes)
    return success();
  for (int64_t axis : *axes) {
    if (failed(verifyAxis(*this, axis, inputType.getRank(), "axes")))
      return failure();
    int64_t extent =
        inputType.getDimSize(axis < 0 ? axis + inputType.getRank() : axis);
    if (!ShapedType::isDynamic(extent) && extent != 1)
      return emitOpError("cannot squeeze dimension ")
             << axis << " of extent " << extent;
  }
  return success();
}

LogicalResult UnsqueezeOp::verify() {
  if (failed(verifyRank(*this, getAxes(), 1, "axes")))
    return failure();
  std::optional<int64_t> rank = rankOf(getData());
  std::optional<int64_t> resultRank = rankOf(getOutput());
  auto axes = getConstantInts(getAxes());
  if (!axes || !rank)
    return success();
  int64_t expected = *rank + static_cast<int64_t>(axes->size());
  for (int64_t axis : *axes)
    if (failed(verifyAxis(*this, axis, expected, "axes")))
      return failure();
  if (resultRank && *resultRank != expected)
    return emitOpError("result rank ")
           << *resultRank << " should be " << expected;
  return success();
}

LogicalResult ExpandOp::verify() {
  return verifyRank(*this, getShape(), 1, "shape");
}

LogicalResult TileOp::verify() {
  if (failed(verifyRank(*this, getRepeats(), 1, "repeats")))
    return failure();
  auto repeatsType = dyn_cast<RankedTensorType>(getRepeats().getType());
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && repeatsType && !repeatsType.isDynamicDim(0) &&
      repeatsType.getDimSize(0) != *rank)
    return emitOpError("'repeats' has ")
           << repeatsType.getDimSize(0) << " entries, expected " << *rank;
  return success();
}

LogicalResult PadOp::verify() {
  if (!llvm::is_contained({"constant", "reflect", "edge", "wrap"}, getMode()))
    return emitOpError("'mode' must be constant, reflect, edge or wrap, got '")
           << getMode() << "'";
  if (failed(verifyRank(*this, getPads(), 1, "pads")))
    return failure();
  auto padsType = dyn_cast<RankedTensorType>(getPads().getType());
  std::optional<int64_t> rank = rankOf(getData());
  if (rank && padsType && !padsType.isDynamicDim(0) &&
      padsType.getDimSize(0) != 2 * *rank)
    return emitOpError("'pads' has ")
           << padsType.getDimSize(0) << " entries, expected " << 2 * *rank;
  if (Value value = getConstantValue()) {
    auto type = cast<ShapedType>(value.getType());
    if (type.hasStaticShape() && type.getNumElements() != 1)
      return emitOpError("'constant_value' must be a scalar");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

LogicalResult ConstantOfShapeOp::verify() {
  if (getValue().getNumElements() != 1)
    return emitOpError("'value' must hold exactly one element");
  if (getValue().getElementType() != getElementTypeOrSelf(getOutput()))
    return emitOpError("result element type differs from the value's ")
           << getValue().getElementType();
  return verifyRank(*this, getInput(), 1, "shape operand");
}

LogicalResult RangeOp::verify() {
  for (Value v : {getStart(), getLimit(), getDelta()}) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && type.getNumElements() != 1)
      return emitOpError("start, limit and delta must be scalars");
  }
  return verifyRank(*this, getOutput(), 1, "result");
}

LogicalResult TriluOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && *rank < 2)
    return emitOpError("input must have rank >= 2, got ") << *rank;
  if (getUpper() > 1)
    return emitOpError("'upper' must be 0 or 1");
  return success();
}

LogicalResult OneHotOp::verify() {
  auto valuesType = dyn_cast<RankedTensorType>(getValues().getType());
  if (valuesType && (valuesType.getRank() != 1 ||
                     !isCompatibleShape(valuesType.getShape(), {2})))
    return emitOpError("'values' must have shape [2]");
  auto depthType = dyn_cast<RankedTensorType>(getDepth().getType());
  if (depthType && depthType.hasStaticShape() &&
      depthType.getNumElements() != 1)
    return emitOpError("'depth' must be a scalar");
  return verifyAxis(*this, static_cast<int64_t>(getAxis()),
                    rankOf(getIndices()), "axis", 1);
}
