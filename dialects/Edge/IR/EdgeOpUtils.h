//===- EdgeOpUtils.h - checks shared by the edge verifiers ------*- C++ -*-===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

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

} // namespace strata::edge::detail

#endif // STRATA_DIALECTS_EDGE_IR_EDGEOPUTILS_H
