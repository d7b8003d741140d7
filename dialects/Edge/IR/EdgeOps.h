//===- EdgeOps.h - edge dialect and operations ------------------*- C++ -*-===//
//
// The `edge` dialect: the core op set every backend and the portable runtime
// understand. Its verifiers are the compiler/backend contract.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEOPS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace strata::edge::detail {
/// ReifyRankedShapedTypeOpInterface for ops whose result extents are their
/// operands' (elementwise with rank-explicit broadcasting): a dynamic
/// result extent is the first operand's dynamic extent at that dimension.
mlir::LogicalResult
reifyLikeOperands(mlir::Operation *op, mlir::OpBuilder &builder,
                  mlir::ReifiedRankedShapedTypeDims &shapes);
/// Reify for a reduction over `axes` of operand 0 (kept as 1 or dropped).
mlir::LogicalResult reifyReduction(mlir::Operation *op,
                                   mlir::OpBuilder &builder,
                                   llvm::ArrayRef<int64_t> axes, bool keepDims,
                                   mlir::ReifiedRankedShapedTypeDims &shapes);
} // namespace strata::edge::detail

#include "Edge/IR/EdgeEnums.h.inc"
#include "Edge/IR/EdgeOpsDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "Edge/IR/EdgeAttrs.h.inc"

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "Edge/IR/EdgeInterfaces.h.inc"
#define GET_OP_CLASSES
#include "Edge/IR/EdgeOps.h.inc"
#pragma GCC diagnostic pop

#endif // STRATA_DIALECTS_EDGE_IR_EDGEOPS_H
