//===- EdgeReductionOps.cpp - reduction verifiers -------------------------===//
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

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The input's shape with the dimensions `reduced` says dropped, or kept
/// as 1 with `keepDims`.
static SmallVector<int64_t>
reducedShape(ArrayRef<int64_t> input, bool keepDims,
             llvm::function_ref<bool(int64_t)> reduced) {
  SmallVector<int64_t> shape;
  for (auto [dim, extent] : llvm::enumerate(input)) {
    if (!reduced(static_cast<int64_t>(dim)))
      shape.push_back(extent);
    else if (keepDims)
      shape.push_back(1);
  }
  return shape;
}

/// Shared by every reduction: sorted, unique axes inside the input's rank;
/// the result keeps the input's element type.
template <typename OpT>
static LogicalResult inferReduction(std::optional<Location> location,
                                    typename OpT::Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<OpT>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  if (!inputType)
    return emitError() << "needs a ranked input";
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (axes.empty())
    return emitError() << "'axes' must not be empty";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= inputType.getRank())
      return emitError() << "axis " << axis << " is outside [0, "
                         << inputType.getRank() << ")";
    if (i > 0 && axis <= axes[i - 1])
      return emitError() << "'axes' must be sorted and unique";
  }
  return pushTensor(
      inferred,
      reducedShape(inputType.getShape(), adaptor.getKeepDims(),
                   [&](int64_t dim) { return llvm::is_contained(axes, dim); }),
      inputType.getElementType());
}

STRATA_EDGE_INFER_WITH(ReduceMeanOp, inferReduction)
STRATA_EDGE_INFER_WITH(ReduceSumOp, inferReduction)
STRATA_EDGE_INFER_WITH(ReduceMaxOp, inferReduction)
STRATA_EDGE_INFER_WITH(ReduceMinOp, inferReduction)
STRATA_EDGE_INFER_WITH(ReduceProdOp, inferReduction)

/// reduce_mean infers its unfused type; a chain that ends in `quantize`
/// makes an 8-bit result of that shape compatible with it.
bool ReduceMeanOp::isCompatibleReturnTypes(TypeRange inferred,
                                           TypeRange actual) {
  return isCompatibleWithQuantizedResult(inferred, actual);
}

LogicalResult ReduceMeanOp::verify() {
  if (failed(verifyInferable(*this)))
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

//===----------------------------------------------------------------------===//
// ArgMaxOp, ArgMinOp
//===----------------------------------------------------------------------===//

/// The index of the extreme along `axis`: i64, the axis dropped or kept as
/// 1.
template <typename OpT>
static LogicalResult inferArgReduction(std::optional<Location> location,
                                       typename OpT::Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  RankedTensorType inputType = rankedType(adaptor.getInput());
  if (!inputType)
    return inferError(location, OpT::getOperationName())
           << "needs a ranked input";
  int64_t rank = inputType.getRank();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= rank)
    return inferError(location, OpT::getOperationName())
           << "'axis' " << axis << " is outside [0, " << rank << ")";
  return pushTensor(inferred,
                    reducedShape(inputType.getShape(), adaptor.getKeepDims(),
                                 [&](int64_t dim) { return dim == axis; }),
                    IntegerType::get(inputType.getContext(), 64));
}

STRATA_EDGE_INFER_WITH(ArgMaxOp, inferArgReduction)
STRATA_EDGE_INFER_WITH(ArgMinOp, inferArgReduction)

/// The reduced axis exists (inference) and is not empty.
template <typename OpT> static LogicalResult verifyArgReduction(OpT op) {
  if (failed(verifyInferable(op)))
    return failure();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (shapeOf(op.getInput())[axis] == 0)
    return op.emitOpError("axis ") << axis << " is empty";
  return success();
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduction(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduction(*this); }
