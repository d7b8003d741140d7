//===- EdgeIndexingOps.cpp - gather, scatter, top-k, range ----------------===//
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
