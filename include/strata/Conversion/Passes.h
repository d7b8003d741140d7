//===- Passes.h - conversion passes between Strata dialects -----*- C++ -*-===//
#ifndef STRATA_CONVERSION_PASSES_H
#define STRATA_CONVERSION_PASSES_H

#include "Edge/IR/EdgeOps.h"
#include "Exec/IR/ExecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {

#define GEN_PASS_DECL
#include "strata/Conversion/Passes.h.inc"

/// Adds the hl -> edge legalization patterns of every op family.
void populateHLToEdgePatterns(mlir::TypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);

/// The type converter of hl -> edge: statically shaped tensors convert to
/// themselves, anything dynamic does not convert.
void populateHLToEdgeTypeConversions(mlir::TypeConverter &typeConverter);

/// Adds the edge -> exec patterns (kernel calls and constants).
void populateEdgeToExecPatterns(mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);

/// edge.delegate_call -> allocations + exec.delegate_call.
void populateDelegateCallPatterns(mlir::TypeConverter &typeConverter,
                                  mlir::RewritePatternSet &patterns);

/// An unrealized_conversion_cast of `value` to `type`: the tensor view of
/// a buffer, or the buffer of a tensor an op converted later will give
/// (reconcile-unrealized-casts folds the pairs away after the conversion).
mlir::Value createConversionCast(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Type type, mlir::Value value);

/// The name for a new exec.dim_symbol of `op`: its ONNX node's (or its op
/// name) followed by `suffix`, made unique among its method's symbols.
std::string uniqueSymbolName(mlir::Operation *op, llvm::StringRef suffix);

/// Lowers the run-time Ifs of `method` whose branches are converted: each
/// top-level scf.if becomes exec.cond_branch to its branches' blocks, which
/// copy what they yield into the results' buffers (binding the extents
/// that differ between branches) and branch to the rest of the method.
mlir::LogicalResult lowerConditional(mlir::scf::IfOp conditional);

/// Lowers a run-time loop at the top level of a method, before its regions
/// are converted: the scf.while becomes a header block ending in
/// exec.cond_branch, a body block that moves the next carried values into
/// their buffers and branches back at most `maxTrips` times in a row (the
/// runtime's largest bound without one), and the rest of the method.
mlir::LogicalResult lowerLoop(mlir::scf::WhileOp loop,
                              std::optional<int64_t> maxTrips);

/// In a converted method: a `scatter_nd` of a buffer into a fresh one that
/// is then moved back into that buffer (a run-time loop's scan output
/// store) writes the buffer in place; the fresh buffer and the move go.
void updateLoopBuffersInPlace(exec::MethodOp method);

/// Turns a preprocessed partition (external function marked
/// edge.delegate) into an exec.delegate of `program` and erases it.
mlir::LogicalResult buildDelegate(mlir::func::FuncOp func,
                                  exec::ProgramOp program);

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/Passes.h.inc"

} // namespace strata

#endif // STRATA_CONVERSION_PASSES_H
