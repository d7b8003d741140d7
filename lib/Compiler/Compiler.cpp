//===- Compiler.cpp - the ONNX -> .strata compilation driver --------------===//
#include "strata/Compiler/Compiler.h"
#include "strata/Compiler/CompilePipeline.h"
#include "strata/Export/ONNXExport.h"

#include "strata/InitAll.h"
#include "strata/Pipelines/Pipelines.h"
#include "strata/Quantization/Quantization.h"
#include "strata/Support/Locations.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSwitch.h"

#include <chrono>

using namespace mlir;

namespace strata {

std::optional<EmitKind> parseEmitKind(StringRef text) {
  return llvm::StringSwitch<std::optional<EmitKind>>(text)
      .Case("mlir-hl", EmitKind::MLIRHL)
      .Case("mlir-edge", EmitKind::MLIREdge)
      .Case("mlir-exec", EmitKind::MLIRExec)
      .Case("program", EmitKind::Program)
      .Case("onnx-qdq", EmitKind::ONNXQDQ)
      .Default(std::nullopt);
}

CompileOptions referenceOptions(CompileOptions options) {
  options.patterns.clear();
  options.planIn.clear();
  options.planOut.clear();
  options.delegateBackends.clear();
  options.targetKernels.reset();
  options.quantize.reset();
  options.expose.reset();
  return options;
}

void loadCompilerDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

llvm::json::Value CompileReport::toJSON() const {
  llvm::json::Array stageArray;
  double total = 0;
  for (const Stage &stage : stages) {
    stageArray.push_back(llvm::json::Object{
        {"name", stage.name}, {"milliseconds", stage.milliseconds}});
    total += stage.milliseconds;
  }
  llvm::json::Object counts;
  for (const auto &[stage, dialects] : opCounts) {
    llvm::json::Object perDialect;
    for (const auto &[dialect, count] : dialects)
      perDialect[dialect] = count;
    counts[stage] = std::move(perDialect);
  }
  llvm::json::Array plans;
  for (const MethodPlan &plan : memoryPlans) {
    const exec::MemoryPlanSummary &s = plan.summary;
    llvm::json::Array buffers;
    for (const exec::MemoryPlanSummary::Buffer &b : s.buffers) {
      llvm::json::Object buffer{{"offset", b.offset},
                                {"bytes", b.size},
                                {"first", b.first},
                                {"last", b.last}};
      if (!b.node.empty())
        buffer["node"] = b.node;
      if (b.input)
        buffer["input"] = true;
      if (b.output)
        buffer["output"] = true;
      buffers.push_back(std::move(buffer));
    }
    plans.push_back(llvm::json::Object{
        {"method", plan.method},
        {"instructions", s.instructions},
        {"buffers", std::move(buffers)},
        {"arena_bytes", s.arenaBytes},
        {"lower_bound_bytes", s.lowerBoundBytes},
        {"naive_bytes", s.naiveBytes},
        {"arena_over_lower_bound",
         s.lowerBoundBytes ? double(s.arenaBytes) / s.lowerBoundBytes : 1.0}});
  }
  llvm::json::Object object{
      {"model", model},
      {"stages", std::move(stageArray)},
      {"total_milliseconds", total},
      {"op_counts", std::move(counts)},
      {"memory_plans", std::move(plans)},
      {"output_bytes", static_cast<int64_t>(outputBytes)}};
  if (!importNotes.empty())
    object["import_notes"] = llvm::json::Array(importNotes);
  if (transform)
    object["transform"] = transform->toJSON();
  if (delegation)
    object["delegation"] = delegation->toJSON();
  if (quantization)
    object["quantization"] = quantization->toJSON();
  return object;
}

void CompileReport::countOps(ModuleOp module, StringRef stage) {
  std::map<std::string, int64_t> &counts = opCounts[stage.str()];
  module.walk([&](Operation *op) {
    if (op != module.getOperation())
      ++counts[op->getName().getDialectNamespace().str()];
  });
}

namespace {

/// Times a stage outside the pipeline into `report` when it goes out of
/// scope.
class StageTimer {
public:
  StageTimer(CompileReport &report, std::string name)
      : report(report), name(std::move(name)),
        start(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    report.stages.push_back({name, elapsed.count()});
  }

private:
  CompileReport &report;
  std::string name;
  std::chrono::steady_clock::time_point start;
};

LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (options.printIRAfterAll) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  build(pm);
  return pm.run(module);
}

} // namespace

LogicalResult lowerToExec(ModuleOp module, const CompileOptions &options,
                          CompileReport &report, EmitKind stopAfter) {
  return runPipeline(module, options, [&](OpPassManager &pm) {
    buildLoweringStages(pm, options, &report, stopAfter);
  });
}

LogicalResult compileONNXFile(StringRef modelPath,
                              const CompileOptions &options,
                              MLIRContext &context, std::string &artifact,
                              CompileReport &report) {
  report.model = modelPath.str();
  OwningOpRef<ModuleOp> module;
  {
    StageTimer timer(report, "import");
    module = importONNXFile(modelPath, &context, options.import);
    if (module)
      if (auto notes = (*module)->getAttrOfType<ArrayAttr>("hl.import_notes"))
        for (StringAttr note : notes.getAsRange<StringAttr>())
          report.importNotes.push_back(note.str());
    if (!module)
      return failure();
  }
  report.countOps(*module, "hl");
  if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
        buildStrataCompilePipeline(pm, options, &report);
      })))
    return failure();
  if (options.emit == EmitKind::ONNXQDQ) {
    StageTimer timer(report, "export-onnx");
    if (failed(exportONNX(*module, ONNXExportOptions(), artifact)))
      return failure();
    report.outputBytes = artifact.size();
    return success();
  }
  artifact.clear();
  llvm::raw_string_ostream os(artifact);
  if (options.emit != EmitKind::Program) {
    module->print(os);
  } else {
    StageTimer timer(report, "emit");
    auto programs = module->getOps<exec::ProgramOp>();
    if (programs.empty())
      return module->emitError("lowering produced no exec.program");
    if (failed(emitProgram(*programs.begin(), os, options.emitOptions)))
      return failure();
  }
  os.flush();
  report.outputBytes = artifact.size();
  return success();
}

} // namespace strata
