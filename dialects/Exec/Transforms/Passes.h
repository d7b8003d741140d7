//===- Passes.h - exec transformation passes --------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_EXEC_TRANSFORMS_PASSES_H
#define STRATA_DIALECTS_EXEC_TRANSFORMS_PASSES_H

#include "Exec/IR/ExecOps.h"

#include "mlir/Pass/Pass.h"

#include <string>
#include <vector>

namespace strata::exec {

#define GEN_PASS_DECL
#include "Exec/Transforms/Passes.h.inc"

/// Byte counts of one method's memory plan.
struct MemoryPlanSummary {
  /// Bytes of arena 0 after planning.
  int64_t arenaBytes = 0;
  /// The largest total of simultaneously live (aligned) buffer bytes: no
  /// plan can use less.
  int64_t lowerBoundBytes = 0;
  /// The sum of all (aligned) buffer sizes: a plan that shares nothing.
  int64_t naiveBytes = 0;
  /// Each buffer's place in the arena and its lifetime, in instruction
  /// indices (inputs live from 0, outputs to the last instruction).
  struct Buffer {
    int64_t offset = 0, size = 0, first = 0, last = 0;
    /// The node whose value it holds, when its location names one.
    std::string node;
    bool input = false, output = false;
  };
  std::vector<Buffer> buffers;
  /// The number of instructions.
  int64_t instructions = 0;
};

/// Plans `method`'s buffers into arena 0 (see the pass description) and sets
/// the placements and `arena_sizes`. Fails if `alignment` is not a power of
/// two or a buffer is already placed.
mlir::FailureOr<MemoryPlanSummary> planMemory(MethodOp method,
                                              int64_t alignment);

/// The bindState pass's work on `program` (see its description): `pairs`
/// as "IN=OUT" or "past-present".
mlir::LogicalResult bindStates(ProgramOp program,
                               llvm::ArrayRef<std::string> pairs);

/// Moves `from`'s method into `into` as method `methodName` (it must be
/// `from`'s only method), with what it refers to: a constant equal in type
/// and bytes to one `into` has is stored once (its references renamed), a
/// constant or delegate whose name `into` already uses for other contents
/// is renamed `methodName.NAME`. `from` is left empty.
mlir::LogicalResult mergeProgramInto(ProgramOp into, ProgramOp from,
                                     llvm::StringRef methodName);

/// The readTransposed pass's work on `method` (see its description);
/// returns the number of transposes removed.
int64_t readTransposedOperands(MethodOp method);

#define GEN_PASS_REGISTRATION
#include "Exec/Transforms/Passes.h.inc"

} // namespace strata::exec

#endif // STRATA_DIALECTS_EXEC_TRANSFORMS_PASSES_H
