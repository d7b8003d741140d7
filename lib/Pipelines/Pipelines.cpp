//===- Pipelines.cpp - Strata's named pass pipelines ----------------------===//
#include "strata/Pipelines/Pipelines.h"

#include "Exec/Transforms/Passes.h"
#include "HL/Transforms/Passes.h"
#include "strata/Conversion/Passes.h"
#include "strata/Quantization/Quantization.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata {

void buildLowerToEdgePipeline(OpPassManager &pm) {
  // Shape arithmetic left by exporters and expanded function bodies folds
  // away here, so that hl->edge sees static types.
  // Half-precision models compute in f32 (strata-compile runs this right
  // after import; here it finds nothing left).
  pm.addNestedPass<func::FuncOp>(hl::createPromoteHalf());
  pm.addNestedPass<func::FuncOp>(hl::createRefineShapes());
  // Weights that exporters rearrange in the graph (LSTM gates) are stored
  // rearranged.
  pm.addNestedPass<func::FuncOp>(hl::createFoldConstantData());
  pm.addPass(createConvertHLToEdge());
  pm.addPass(createCanonicalizerPass());
  // Quantized chains (after QDQ insertion, or from a QDQ model) become
  // integer ops; what does not match stays the float chain.
  pm.addNestedPass<func::FuncOp>(createFormQuantizedOps());
}

void buildEdgeToExecPipeline(OpPassManager &pm,
                             const LowerToExecOptions &options) {
  ConvertEdgeToExecOptions convert;
  convert.programName = options.programName;
  pm.addPass(createConvertEdgeToExec(convert));
  exec::PlanMemoryOptions plan;
  plan.alignment = options.alignment;
  pm.addPass(exec::createPlanMemory(plan));
}

void buildLowerToExecPipeline(OpPassManager &pm,
                              const LowerToExecOptions &options) {
  buildLowerToEdgePipeline(pm);
  buildEdgeToExecPipeline(pm, options);
}

void registerPipelines() {
  PassPipelineRegistration<>(
      "strata-lower-to-edge",
      "Refine hl shapes, legalize hl to edge and fold what became constant",
      [](OpPassManager &pm) { buildLowerToEdgePipeline(pm); });
  PassPipelineRegistration<LowerToExecOptions>(
      "strata-edge-to-exec", "Lower edge to exec kernel calls and plan memory",
      buildEdgeToExecPipeline);
  PassPipelineRegistration<LowerToExecOptions>(
      "strata-lower-to-exec",
      "Lower hl all the way to a memory-planned exec program",
      buildLowerToExecPipeline);
}

} // namespace strata
