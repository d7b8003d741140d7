//===- ExecOps.h - exec dialect and operations ------------------*- C++ -*-===//
//
// The `exec` dialect: methods as instruction lists over placed buffers; maps
// 1:1 to the program buffer.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EXEC_IR_EXECOPS_H
#define STRATA_DIALECTS_EXEC_IR_EXECOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "Exec/IR/ExecOpsDialect.h.inc"

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "Exec/IR/ExecInterfaces.h.inc"
#define GET_OP_CLASSES
#include "Exec/IR/ExecOps.h.inc"
#pragma GCC diagnostic pop

namespace strata::exec {

/// Bytes a buffer of `type` occupies (element bit width rounded up to
/// bytes); `type` is statically shaped.
int64_t getBufferSizeInBytes(mlir::MemRefType type);

/// The largest value `extent` (an index value of a method: an
/// exec.dim_symbol, a constant, or affine.apply/min/max of them) takes:
/// the tighter of MLIR's ValueBoundsConstraintSet and interval arithmetic
/// over the symbols' bounds (which also covers products of symbols, which
/// affine constraints cannot). Fails when neither bounds it.
mlir::FailureOr<int64_t> getExtentBound(mlir::Value extent);

/// The bound of each dimension of `op`'s buffer: static extents as they
/// are, dynamic ones by getExtentBound. Fails (with a diagnostic on `op`)
/// when an extent has no bound.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getBoundShape(PlacedBufferOpInterface op);

/// Bytes `op`'s buffer occupies at its bound shape.
mlir::FailureOr<int64_t> getBoundSizeInBytes(PlacedBufferOpInterface op);

} // namespace strata::exec

#endif // STRATA_DIALECTS_EXEC_IR_EXECOPS_H
