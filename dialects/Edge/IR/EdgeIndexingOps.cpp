//===- EdgeIndexingOps.cpp - gather, scatter, top-k, range ----------------===//
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
// GatherElementsOp
//===----------------------------------------------------------------------===//

/// Checks that `axis` lies in [0, rank of `input`) and, for the *Elements
/// ops (`indices` given), that the indices have the input's rank.
static LogicalResult
verifyIndexedAxis(llvm::function_ref<InFlightDiagnostic()> emitError,
                  ArrayRef<int64_t> input, int64_t axis,
                  std::optional<ArrayRef<int64_t>> indices = std::nullopt) {
  int64_t rank = input.size();
  if (axis < 0 || axis >= rank)
    return emitError() << "'axis' " << axis << " is outside [0, " << rank
                       << ")";
  if (indices && static_cast<int64_t>(indices->size()) != rank)
    return emitError() << "indices have rank " << indices->size()
                       << ", input has " << rank;
  return success();
}

/// The result of gathering from `input` by `indices`: `shape` applied to
/// the two shapes after the axis checks, with the input's element type.
template <typename OpT>
static LogicalResult
inferGathered(std::optional<Location> location, typename OpT::Adaptor adaptor,
              bool elementwise, SmallVectorImpl<Type> &inferred,
              llvm::function_ref<SmallVector<int64_t>(
                  ArrayRef<int64_t>, ArrayRef<int64_t>, int64_t)>
                  shape) {
  auto emitError = inferErrorFor<OpT>(location);
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!input || !indices)
    return emitError() << "needs ranked input and indices";
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(verifyIndexedAxis(
          emitError, input.getShape(), axis,
          elementwise ? std::optional(indices.getShape()) : std::nullopt)))
    return failure();
  return pushTensor(inferred, shape(input.getShape(), indices.getShape(), axis),
                    input.getElementType());
}

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *,
                                   std::optional<Location> location,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  return inferGathered<GatherElementsOp>(
      location, adaptor, /*elementwise=*/true, inferred,
      [](ArrayRef<int64_t>, ArrayRef<int64_t> indices, int64_t) {
        return SmallVector<int64_t>(indices);
      });
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferGathered<GatherOp>(
      location, adaptor, /*elementwise=*/false, inferred,
      [](ArrayRef<int64_t> input, ArrayRef<int64_t> indices, int64_t axis) {
        SmallVector<int64_t> shape(input.take_front(axis));
        llvm::append_range(shape, indices);
        llvm::append_range(shape, input.drop_front(axis + 1));
        return shape;
      });
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> indices = shapeOf(getIndices());
  if (failed(verifyIndexedAxis([&] { return emitOpError(); }, input,
                               static_cast<int64_t>(getAxis()), indices)))
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

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<GatherNDOp>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType indicesType = rankedType(adaptor.getIndices());
  if (!inputType || !indicesType)
    return emitError() << "needs ranked input and indices";
  ArrayRef<int64_t> input = inputType.getShape();
  ArrayRef<int64_t> indices = indicesType.getShape();
  int64_t batch = static_cast<int64_t>(adaptor.getBatchDims());
  int64_t rank = input.size(), indexRank = indices.size();
  if (indexRank < 1 || batch < 0 || batch >= indexRank || batch >= rank)
    return emitError() << "'batch_dims' " << batch
                       << " must be below both ranks and indices need rank "
                          ">= 1";
  int64_t tuple = indices.back();
  if (tuple < 1 || batch + tuple > rank)
    return emitError() << "index tuples of length " << tuple
                       << " do not fit the input's rank " << rank;
  SmallVector<int64_t> shape(indices.drop_back());
  llvm::append_range(shape, input.drop_front(batch + tuple));
  return pushTensor(inferred, shape, inputType.getElementType());
}

LogicalResult GatherNDOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  // Inference has checked the ranks and the tuple length.
  int64_t batch = static_cast<int64_t>(getBatchDims());
  if (shapeOf(getInput()).take_front(batch) !=
      shapeOf(getIndices()).take_front(batch))
    return emitOpError("batch dimensions of input and indices differ");
  return success();
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
