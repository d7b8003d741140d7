//===- EdgeOpUtils.h - checks shared by the edge verifiers ------*- C++ -*-===//
//
// Helpers of the edge verifiers and of the ops' result type inference
// (InferTypeOpInterface): inference derives a result type from operands
// and attributes and reports malformed ones at the op's location; the
// interface's own verifier then compares the inferred and the actual type.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata::edge::detail {

/// The shape of `value`, a shaped type (every edge operand is static).
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);

/// Emits "result shape [a] should be [b]" unless `op`'s first result has
/// shape `expected`.
mlir::LogicalResult verifyResultShape(mlir::Operation *op,
                                      llvm::ArrayRef<int64_t> expected);

/// Checks that every operand and the result share one element type (the
/// conv2d and matmul kernels take all-f32 or all-i32 operands).
mlir::LogicalResult verifySameElementTypes(mlir::Operation *op);

/// The error stream of a result type inference for the op `opName`: an
/// error at `location` worded as the op's verifier words it ("'edge.x' op
/// ..."), or an inactive diagnostic when no location is given.
mlir::InFlightDiagnostic inferError(std::optional<mlir::Location> location,
                                    llvm::StringRef opName);

/// inferError bound to the op `OpT`: what a shared inference rule reports
/// through.
template <typename OpT>
auto inferErrorFor(std::optional<mlir::Location> location) {
  return [location] { return inferError(location, OpT::getOperationName()); };
}

/// The ranked tensor type of `value`, or null when it has none (a builder
/// may infer before any verifier has checked the operand types).
mlir::RankedTensorType rankedType(mlir::Value value);

/// Appends the tensor type of `shape` and `element` to `inferred`.
mlir::LogicalResult pushTensor(llvm::SmallVectorImpl<mlir::Type> &inferred,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type element);

/// Runs `op`'s result type inference for its diagnostics alone. An op's
/// verifier runs before InferTypeOpInterface compares the inferred and the
/// actual types, so a verifier that reads shapes calls this first: bad
/// operands then get one error, and the checks after it may index shapes
/// (of the inferred types, returned in `inferred` when given).
template <typename OpT>
mlir::LogicalResult
verifyInferable(OpT op, llvm::SmallVectorImpl<mlir::Type> *inferred = nullptr) {
  llvm::SmallVector<mlir::Type> types;
  return OpT::inferReturnTypes(op.getContext(), op.getLoc(),
                               typename OpT::Adaptor(op),
                               inferred ? *inferred : types);
}

} // namespace strata::edge::detail

/// Defines `OP::inferReturnTypes` (InferTypeOpAdaptor) as the shared rule
/// `RULE<OP>(location, adaptor, inferred)`: one line per op of a family.
#define STRATA_EDGE_INFER_WITH(OP, RULE)                                       \
  ::llvm::LogicalResult OP::inferReturnTypes(                                  \
      ::mlir::MLIRContext *, std::optional<::mlir::Location> location,         \
      Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {      \
    return RULE<OP>(location, adaptor, inferred);                              \
  }

#endif // STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H
