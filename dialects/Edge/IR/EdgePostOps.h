//===- EdgePostOps.h - fused post-op chains on edge ops ---------*- C++ -*-===//
//
// The verifier shared by the ops that carry a `post_ops` chain
// (EdgePostOps.td) and small queries the delegate writers ask of it.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEPOSTOPS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEPOSTOPS_H

#include "Edge/IR/EdgeOps.h"

#include <initializer_list>

namespace strata::edge {

/// Checks `op`'s chain `postOps` (may be null): every step one of
/// `allowed`, as many `sum`/`add` steps as `postOperands` (a `sum` operand
/// of the result's type, an `add` operand of the result's rank and
/// extents equal to the result's or 1), `clip` bounds ordered, `quantize`
/// only last and only into an 8-bit result.
mlir::LogicalResult verifyPostOps(mlir::Operation *op, mlir::ArrayAttr postOps,
                                  mlir::ValueRange postOperands,
                                  std::initializer_list<PostOpKind> allowed);

/// The return type compatibility of an op whose chain may end in
/// `quantize`: the `inferred` (unfused) type, or an 8-bit type of its shape
/// (the verifier checks that the chain quantizes).
bool isCompatibleWithQuantizedResult(mlir::TypeRange inferred,
                                     mlir::TypeRange actual);

/// The steps of `op`'s `post_ops` chain; empty where it has none.
llvm::SmallVector<PostOpAttr> getPostOpSteps(mlir::Operation *op);

/// Whether `kind` is an activation function (relu ... hardswish).
inline bool isActivation(PostOpKind kind) {
  return kind <= PostOpKind::HardSwish;
}

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGEPOSTOPS_H
