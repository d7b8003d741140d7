//===- Pipelines.h - Strata's named pass pipelines --------------*- C++ -*-===//
//
// The pipelines the drivers assemble. Each is also registered under its name
// in strata-opt so that every step can be run and tested alone.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PIPELINES_PIPELINES_H
#define STRATA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace strata {

/// Options of the lowering pipelines.
struct LowerToExecOptions
    : public mlir::PassPipelineOptions<LowerToExecOptions> {
  Option<int64_t> alignment{*this, "alignment",
                            llvm::cl::desc("Byte alignment of planned buffers"),
                            llvm::cl::init(64)};
  Option<std::string> programName{*this, "program-name",
                                  llvm::cl::desc("Name of the exec.program"),
                                  llvm::cl::init("program")};
};

/// hl -> edge: legalization, then folding (constant reshapes/transposes).
void buildLowerToEdgePipeline(mlir::OpPassManager &pm);

/// edge -> exec: kernel calls, then memory planning.
void buildEdgeToExecPipeline(mlir::OpPassManager &pm,
                             const LowerToExecOptions &options);

/// hl -> planned exec: the two above in sequence.
void buildLowerToExecPipeline(mlir::OpPassManager &pm,
                              const LowerToExecOptions &options);

/// Registers `strata-lower-to-edge`, `strata-edge-to-exec` and
/// `strata-lower-to-exec` with the pass pipeline registry.
void registerPipelines();

} // namespace strata

#endif // STRATA_PIPELINES_PIPELINES_H
