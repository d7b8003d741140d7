//===- ProgramEmitter.h - exec.program -> .strata bytes -----------*- C++ -*-===//
//
// Serializes a planned exec.program to the program buffer format the runtime
// loads (lib/Runtime/Schema/program.fbs, docs/program-format.md).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EMIT_PROGRAMEMITTER_H
#define STRATA_EMIT_PROGRAMEMITTER_H

#include "Exec/IR/ExecOps.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace strata {

/// Layout choices of the emitted file.
struct EmitOptions {
  /// Alignment of each segment in the file (a power of two); 4096 lets a
  /// memory-mapped file hand out page-aligned constants.
  uint64_t segmentAlignment = 4096;
  /// Alignment of each constant inside the constant segment (power of two).
  uint64_t constantAlignment = 64;
  /// Store delegate blobs inside the flatbuffer instead of in segments.
  bool delegateBlobsInline = false;
};

/// Serializes a planned exec.program (every buffer placed) to a .strata
/// buffer. Emits diagnostics and fails on unplanned or unsupported IR.
mlir::LogicalResult emitProgram(exec::ProgramOp program, llvm::raw_ostream &os,
                                const EmitOptions &options = {});

/// Registers `--emit-program` with mlir-translate's registry (input: a module
/// holding one exec.program).
void registerProgramEmitTranslation();

} // namespace strata

#endif // STRATA_EMIT_PROGRAMEMITTER_H
