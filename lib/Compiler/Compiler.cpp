//===- Compiler.cpp - the ONNX -> .strata compilation driver --------------===//
#include "strata/Compiler/Compiler.h"

#include "Exec/IR/ExecOps.h"
#include "Exec/Transforms/Passes.h"
#include "strata/Export/ONNXExport.h"
#include "strata/Pipelines/CompilePipeline.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
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
  if (weightPrecision)
    object["weight_precision"] = weightPrecision->toJSON();
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

namespace {

/// Imports the model and runs the compile pipeline on it, up to what
/// `options.emit` asks for.
OwningOpRef<ModuleOp> importAndCompile(StringRef modelPath,
                                       const CompileOptions &options,
                                       MLIRContext &context,
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
      return nullptr;
  }
  report.countOps(*module, "hl");
  if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
        buildStrataCompilePipeline(pm, options, &report);
      })))
    return nullptr;
  return module;
}

/// Writes what `options.emit` asks for of the compiled `module`.
LogicalResult writeArtifact(ModuleOp module, const CompileOptions &options,
                            std::string &artifact, CompileReport &report) {
  if (options.emit == EmitKind::ONNXQDQ) {
    StageTimer timer(report, "export-onnx");
    if (failed(exportONNX(module, ONNXExportOptions(), artifact)))
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
    auto programs = module.getOps<exec::ProgramOp>();
    if (programs.empty())
      return module->emitError("lowering produced no exec.program");
    if (failed(emitProgram(*programs.begin(), os, options.emitOptions)))
      return failure();
  }
  os.flush();
  report.outputBytes = artifact.size();
  return success();
}

} // namespace

LogicalResult compileONNXFile(StringRef modelPath,
                              const CompileOptions &options,
                              MLIRContext &context, std::string &artifact,
                              CompileReport &report) {
  OwningOpRef<ModuleOp> module =
      importAndCompile(modelPath, options, context, report);
  if (!module)
    return failure();
  return writeArtifact(*module, options, artifact, report);
}

LogicalResult compileONNXMethods(ArrayRef<MethodSource> methods,
                                 const CompileOptions &options,
                                 MLIRContext &context, std::string &artifact,
                                 CompileReport &report) {
  if (methods.empty())
    return emitError(UnknownLoc::get(&context), "no method to compile");
  if (options.emit != EmitKind::Program && options.emit != EmitKind::MLIRExec)
    return emitError(UnknownLoc::get(&context))
           << "a program of several methods is written as a program or as "
              "mlir-exec (--emit program or mlir-exec)";
  llvm::StringSet<> names;
  for (const MethodSource &method : methods)
    if (method.name.empty() || !names.insert(method.name).second)
      return emitError(UnknownLoc::get(&context))
             << "method names must be given and distinct ('" << method.name
             << "')";
  OwningOpRef<ModuleOp> first;
  exec::ProgramOp program;
  for (const MethodSource &method : methods) {
    CompileOptions one = options;
    one.import = method.import;
    one.emit = EmitKind::MLIRExec;
    // States are bound over every method once they are one program.
    one.deferStateBinding = true;
    one.partitionPrefix = method.name + ".";
    OwningOpRef<ModuleOp> module =
        importAndCompile(method.modelPath, one, context, report);
    if (!module)
      return failure();
    auto programs = module->getOps<exec::ProgramOp>();
    if (programs.empty())
      return module->emitError("lowering produced no exec.program");
    if (!first) {
      first = std::move(module);
      program = *first->getOps<exec::ProgramOp>().begin();
      auto only = *program.getBody().getOps<exec::MethodOp>().begin();
      only.setSymName(method.name);
      continue;
    }
    StageTimer timer(report, "merge-method");
    if (failed(exec::mergeProgramInto(program, *programs.begin(), method.name)))
      return failure();
  }
  report.model = methods.front().modelPath;
  if (!options.statePairs.empty()) {
    StageTimer timer(report, "bind-state");
    if (failed(exec::bindStates(program, options.statePairs)))
      return failure();
  }
  if (failed(verify(*first)))
    return failure();
  return writeArtifact(*first, options, artifact, report);
}
} // namespace strata
