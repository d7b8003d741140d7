//===- Compiler.cpp - the ONNX -> .strata compilation driver --------------===//
#include "strata/Compiler/Compiler.h"

#include "Exec/IR/ExecOps.h"
#include "strata/Export/ONNXExport.h"
#include "strata/Pipelines/CompilePipeline.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace mlir;

namespace strata {

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
  if (!backendNotes.empty())
    object["backend_notes"] = llvm::json::Array(backendNotes);
  if (quantization)
    object["quantization"] = quantization->toJSON();
  return object;
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

} // namespace

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
  if (options.emit == EmitKind::Plan) {
    os << llvm::formatv("{0:2}",
                        report.plan ? *report.plan : llvm::json::Value(nullptr))
       << "\n";
  } else if (options.emit != EmitKind::Program) {
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
