//===- CompileOptions.cpp - one compilation's options and report ----------===//
#include "strata/Pipelines/CompileOptions.h"

#include "strata/InitAll.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace strata {

std::optional<EmitKind> parseEmitKind(StringRef text) {
  return llvm::StringSwitch<std::optional<EmitKind>>(text)
      .Case("mlir-hl", EmitKind::MLIRHL)
      .Case("mlir-edge", EmitKind::MLIREdge)
      .Case("mlir-exec", EmitKind::MLIRExec)
      .Case("program", EmitKind::Program)
      .Case("onnx-qdq", EmitKind::ONNXQDQ)
      .Case("plan", EmitKind::Plan)
      .Case("mlir-hl-transformed", EmitKind::MLIRHLTransformed)
      .Case("mlir-partitioned", EmitKind::MLIRPartitioned)
      .Default(std::nullopt);
}

StringRef emitKindNames() {
  return "program, plan, mlir-hl, mlir-hl-transformed, mlir-partitioned, "
         "mlir-edge, mlir-exec, onnx-qdq";
}

CompileOptions referenceOptions(CompileOptions options) {
  options.patterns.clear();
  options.planIn.clear();
  options.planOut.clear();
  options.planFlags.reset();
  options.delegateBackends.clear();
  options.targetKernels.reset();
  options.quantize.reset();
  options.quantizeWeights.reset();
  options.weightPrecision.reset();
  options.expose.reset();
  return options;
}

void loadCompilerDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

void CompileReport::countOps(ModuleOp module, StringRef stage) {
  std::map<std::string, int64_t> &counts = opCounts[stage.str()];
  module.walk([&](Operation *op) {
    if (op != module.getOperation())
      ++counts[op->getName().getDialectNamespace().str()];
  });
}

} // namespace strata
