//===- Compiler.cpp - the ONNX -> .strata compilation driver --------------===//
#include "strata/Compiler/Compiler.h"
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
  llvm::json::Object object{{"model", model},
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

namespace {

/// Times a stage into `report` when it goes out of scope.
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

void countOps(ModuleOp module, CompileReport &report, StringRef stage) {
  std::map<std::string, int64_t> &counts = report.opCounts[stage.str()];
  module.walk([&](Operation *op) {
    if (op != module.getOperation())
      ++counts[op->getName().getDialectNamespace().str()];
  });
}

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

/// Refuses a program that needs a kernel or delegate the target runtime
/// lacks, naming each and the ONNX nodes that need it.
LogicalResult checkTargetKernels(ModuleOp module,
                                 const std::set<std::string> &available) {
  std::map<std::string, std::vector<std::string>> missing;
  module.walk([&](Operation *op) {
    std::string need;
    if (auto kernel = dyn_cast<exec::KernelOp>(op))
      need = kernel.getKernel().str();
    else if (auto delegate = dyn_cast<exec::DelegateOp>(op))
      need = "delegate:" + delegate.getBackend().str();
    if (need.empty() || available.count(need))
      return;
    std::string node = getNodeName(op->getLoc());
    missing[need].push_back(node.empty() ? "?" : node);
  });
  if (missing.empty())
    return success();
  InFlightDiagnostic diag =
      module.emitError("the target runtime lacks what this program needs:");
  for (const auto &[name, nodes] : missing) {
    diag << " " << name << " (";
    for (size_t i = 0; i < nodes.size() && i < 3; ++i)
      diag << (i ? ", " : "") << "'" << nodes[i] << "'";
    if (nodes.size() > 3)
      diag << ", " << nodes.size() - 3 << " more";
    diag << ");";
  }
  return failure();
}

/// The partitioner's cost calibration: the --partition-calibration file,
/// else the delegate's own; none with --partition-cost off or
/// --require-delegated (which delegates every claimed group).
FailureOr<std::optional<CostCalibration>>
loadCostCalibration(ModuleOp module, const CompileOptions &options,
                    const Backend &backend) {
  std::string spec = !options.partitionCost || options.requireDelegated
                         ? "none"
                     : options.partitionCalibrationFile.empty()
                         ? "builtin"
                         : options.partitionCalibrationFile;
  llvm::Expected<std::optional<CostCalibration>> calibration =
      loadCostCalibration(spec, backend);
  if (!calibration)
    return module.emitError(llvm::toString(calibration.takeError()));
  return std::move(*calibration);
}

} // namespace

LogicalResult lowerToExec(ModuleOp module, const CompileOptions &options,
                          CompileReport &report, EmitKind stopAfter) {
  if (stopAfter == EmitKind::MLIRHL)
    return success();
  {
    StageTimer timer(report, "lower-to-edge");
    if (failed(runPipeline(module, options, [](OpPassManager &pm) {
          buildLowerToEdgePipeline(pm);
        })))
      return failure();
  }
  countOps(module, report, "edge");
  if (options.expose &&
      failed(exposeIntermediates(module, *options.expose, report.exposed)))
    return failure();
  if (!options.delegateBackends.empty()) {
    {
      // Each backend in turn claims what the earlier ones left.
      StageTimer timer(report, "partition");
      for (const Backend *backend : options.delegateBackends) {
        FailureOr<std::optional<CostCalibration>> calibration =
            loadCostCalibration(module, options, *backend);
        if (failed(calibration))
          return failure();
        FailureOr<DelegationReport> placed = partition(
            module, *backend, *calibration ? &**calibration : nullptr);
        if (failed(placed))
          return failure();
        if (report.delegation)
          report.delegation->merge(std::move(*placed));
        else
          report.delegation = std::move(*placed);
      }
    }
    if (options.requireDelegated && report.delegation->fallbackCount()) {
      InFlightDiagnostic diag = module.emitError()
                                << report.delegation->fallbackCount()
                                << " ops fall back to the portable kernels "
                                   "(--require-delegated):";
      for (const DelegationReport::Placement &p : report.delegation->ops)
        if (p.partition.empty())
          diag << " " << p.op << (p.node.empty() ? "" : " '" + p.node + "'")
               << ";";
      return failure();
    }
    StageTimer timer(report, "to-backend");
    for (const Backend *backend : options.delegateBackends) {
      auto specs = options.compileSpecs.find(backend->getName());
      if (failed(toBackend(module, *backend,
                           specs == options.compileSpecs.end()
                               ? CompileSpecs()
                               : specs->second)))
        return failure();
    }
    countOps(module, report, "edge-delegated");
  }
  if (stopAfter == EmitKind::MLIREdge)
    return success();
  {
    StageTimer timer(report, "lower-to-exec");
    if (failed(runPipeline(module, options, [&](OpPassManager &pm) {
          ConvertEdgeToExecOptions convert;
          convert.programName = options.programName;
          pm.addPass(createConvertEdgeToExec(convert));
        })))
      return failure();
  }
  {
    // Planning runs through the same function the pass uses, so that the
    // report gets each method's figures.
    StageTimer timer(report, "plan-memory");
    WalkResult walk = module.walk([&](exec::MethodOp method) {
      FailureOr<exec::MemoryPlanSummary> summary =
          exec::planMemory(method, options.bufferAlignment);
      if (failed(summary))
        return WalkResult::interrupt();
      report.memoryPlans.push_back({method.getSymName().str(), *summary});
      return WalkResult::advance();
    });
    if (walk.wasInterrupted() || failed(verify(module)))
      return failure();
  }
  countOps(module, report, "exec");
  if (options.targetKernels)
    return checkTargetKernels(module, *options.targetKernels);
  return success();
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
  countOps(*module, report, "hl");
  {
    // Half-precision models compute in f32 (the kernels' and delegates'
    // type) from here on, the program keeping their signature.
    StageTimer timer(report, "promote-half");
    if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
          pm.addNestedPass<func::FuncOp>(hl::createPromoteHalf());
        })))
      return failure();
    module->walk([&](func::FuncOp func) {
      if (auto counts = func->getAttrOfType<ArrayAttr>("hl.promoted_half"))
        report.importNotes.push_back(
            "float16/bfloat16 computed in float32: " +
            std::to_string(cast<IntegerAttr>(counts[0]).getInt()) +
            " value(s) promoted, " +
            std::to_string(cast<IntegerAttr>(counts[1]).getInt()) +
            " cast(s) at the inputs and outputs");
    });
  }
  if (!options.patterns.empty() || !options.planIn.empty() ||
      !options.planOut.empty()) {
    StageTimer timer(report, "backend-patterns");
    // Patterns match static shapes: fold the exporters' shape arithmetic
    // first (lower-to-edge runs this again, finding nothing left).
    // Power-of-two scales quantize the weights that run: normalizations
    // fold into their convolutions before the patterns group them.
    bool foldNormalizations =
        options.quantize && options.quantize->powerOfTwoScales;
    if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
          pm.addNestedPass<func::FuncOp>(hl::createRefineShapes());
          if (foldNormalizations)
            pm.addNestedPass<func::FuncOp>(createFoldBatchNorm());
        })))
      return failure();
    FailureOr<TransformReport> transformed = transformInPlace(
        *module, options.patterns, options.planIn, options.planOut);
    if (failed(transformed))
      return failure();
    report.transform = std::move(*transformed);
    countOps(*module, report, "hl-transformed");
  }
  if (options.quantize) {
    // With smooth patterns in the list, SmoothQuant runs at the sites they
    // tagged, and the report says how many there were (none on a CNN).
    std::optional<std::vector<quant::SmoothedSite>> smoothed;
    if (llvm::any_of(options.patterns, [](const PatternDescriptor &d) {
          return d.info.phase == PatternPhase::Smooth;
        })) {
      StageTimer timer(report, "smooth");
      FailureOr<std::vector<quant::SmoothedSite>> sites =
          smoothQuant(*module, options.quantize->calibration,
                      options.quantize->smoothAlpha, options);
      if (failed(sites))
        return failure();
      smoothed = std::move(*sites);
    }
    {
      StageTimer timer(report, "insert-qdq");
      const CompileOptions::Quantize &q = *options.quantize;
      InsertQDQOptions insert;
      insert.activations = q.activations;
      insert.skipNodes = q.skipNodes;
      insert.skipOps = q.skipOps;
      insert.minWeightElements = q.minWeightElements;
      insert.powerOfTwoScales = q.powerOfTwoScales;
      if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
            pm.addNestedPass<func::FuncOp>(createInsertQDQ(insert));
          })))
        return failure();
    }
    FailureOr<QuantizationReport> calibrated = [&] {
      StageTimer timer(report, "calibrate");
      return calibrate(*module, options.quantize->calibration, options);
    }();
    if (failed(calibrated))
      return failure();
    report.quantization = std::move(*calibrated);
    if (options.quantize->biasCorrection) {
      StageTimer timer(report, "bias-correction");
      FailureOr<int64_t> corrected =
          correctBiases(*module, options.quantize->calibration, options);
      if (failed(corrected))
        return failure();
      report.quantization->biasCorrected = *corrected;
    }
    if (options.quantize->powerOfTwoScales) {
      // Every product of scales is now exact in float; with each bias a
      // whole number of accumulator steps, so is every layer's output
      // before its requantization.
      // A normalization that could not fold (its conv's output read
      // elsewhere) keeps a float shift: that layer stays inexact.
      int64_t snapped = 0;
      for (const quant::BiasCorrectionSite &site :
           quant::findBiasCorrectionSites(*module)) {
        if (!site.subtract)
          continue;
        if (failed(quant::snapBiasToAccumulator(site)))
          return failure();
        ++snapped;
      }
      report.quantization->scales = "power-of-two";
      report.quantization->int32Biases = snapped;
    }
    if (options.quantize->mixedPrecision.enabled()) {
      StageTimer timer(report, "mixed-precision");
      FailureOr<QuantizationReport::MixedPrecision> mixed =
          chooseMixedPrecision(*module, options.quantize->calibration,
                               options.quantize->mixedPrecision, options);
      if (failed(mixed))
        return failure();
      report.quantization->mixedPrecision = std::move(*mixed);
    }
    if (options.quantize->sensitivity) {
      StageTimer timer(report, "sensitivity");
      FailureOr<QuantizationReport::Sensitivity> sensitivity =
          measureSensitivity(*module, options.quantize->calibration, options);
      if (failed(sensitivity))
        return failure();
      report.quantization->sensitivity = std::move(*sensitivity);
    }
    if (smoothed) {
      report.quantization->smoothAlpha = options.quantize->smoothAlpha;
      report.quantization->smoothed = std::move(*smoothed);
    }
    countOps(*module, report, "hl-quantized");
  }
  if (options.emit == EmitKind::ONNXQDQ) {
    StageTimer timer(report, "export-onnx");
    if (failed(exportONNX(*module, ONNXExportOptions(), artifact)))
      return failure();
    report.outputBytes = artifact.size();
    return success();
  }
  if (failed(lowerToExec(*module, options, report, options.emit)))
    return failure();

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
