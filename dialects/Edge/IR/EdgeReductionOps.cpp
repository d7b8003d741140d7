//===- EdgeReductionOps.cpp - reduction verifiers -------------------------===//
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
