//===- LoweringStages.cpp - the compile pipeline after quantization -------===//
//
// Lowering to edge, partitioning and preprocessing for each delegate,
// lowering to exec, memory planning and the target-kernel check: the stages
// every program goes through, also those calibration compiles to observe
// a model (lowerToExec).
//
//===----------------------------------------------------------------------===//
#include "StagePass.h"

#include "Edge/Transforms/Passes.h"
#include "Exec/IR/ExecOps.h"
#include "Exec/Transforms/Passes.h"
#include "strata/Conversion/Passes.h"
#include "strata/Pipelines/CompilePipeline.h"
#include "strata/Pipelines/Pipelines.h"
#include "strata/Support/Locations.h"

using namespace mlir;

namespace strata {
namespace {

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
  std::string spec = !options.partitionCost || options.requireDelegated ? "none"
                     : options.partitionCalibrationFile.empty()
                         ? "builtin"
                         : options.partitionCalibrationFile;
  llvm::Expected<std::optional<CostCalibration>> calibration =
      loadCostCalibration(spec, backend);
  if (!calibration)
    return module.emitError(llvm::toString(calibration.takeError()));
  return std::move(*calibration);
}

/// Each delegate backend in turn claims what the earlier ones left; with
/// --require-delegated, an op left to the portable kernels fails.
LogicalResult partitionForDelegates(ModuleOp module,
                                    const CompileOptions &options,
                                    CompileReport *report) {
  std::optional<DelegationReport> placements;
  for (const Backend *backend : options.delegateBackends) {
    FailureOr<std::optional<CostCalibration>> calibration =
        loadCostCalibration(module, options, *backend);
    if (failed(calibration))
      return failure();
    FailureOr<DelegationReport> placed =
        partition(module, *backend, *calibration ? &**calibration : nullptr,
                  options.partitionPrefix, options.statePairs);
    if (failed(placed))
      return failure();
    if (placements)
      placements->merge(std::move(*placed));
    else
      placements = std::move(*placed);
  }
  if (options.requireDelegated && placements->fallbackCount()) {
    InFlightDiagnostic diag = module.emitError()
                              << placements->fallbackCount()
                              << " ops fall back to the portable kernels "
                                 "(--require-delegated):";
    for (const DelegationReport::Placement &p : placements->ops)
      if (p.partition.empty())
        diag << " " << p.op << (p.node.empty() ? "" : " '" + p.node + "'")
             << ";";
    return failure();
  }
  if (report)
    report->delegation = std::move(placements);
  return success();
}

void addDelegation(OpPassManager &pm, const CompileOptions &options,
                   StageRecorder &stages, CompileReport *report,
                   EmitKind stopAfter) {
  if (options.delegateBackends.empty())
    return;
  stages.begin();
  addStage(pm, "strata-partition-delegates",
           "Outlines what each delegate backend claims, in priority order",
           [options, report](ModuleOp module) {
             return partitionForDelegates(module, options, report);
           });
  stages.end("partition");
  if (stopAfter == EmitKind::MLIRPartitioned)
    return;
  stages.begin();
  addStage(pm, "strata-to-backends",
           "Compiles each partition with its backend's preprocess",
           [options, report](ModuleOp module, NestedPipelineRunner runPipeline)
               -> LogicalResult {
             for (const Backend *backend : options.delegateBackends) {
               auto specs = options.compileSpecs.find(backend->getName());
               if (failed(toBackend(
                       module, *backend,
                       specs == options.compileSpecs.end() ? CompileSpecs()
                                                           : specs->second,
                       runPipeline, report ? &report->backendNotes : nullptr)))
                 return failure();
             }
             return success();
           });
  stages.end("to-backend", "edge-delegated");
}

/// Plans each method's memory, the report getting each one's figures.
void addMemoryPlanning(OpPassManager &pm, const CompileOptions &options,
                       StageRecorder &stages, CompileReport *report) {
  stages.begin();
  addStage(pm, "strata-plan-memory",
           "Plans each method's buffers into its arena",
           [alignment = options.bufferAlignment,
            report](ModuleOp module) -> LogicalResult {
             WalkResult walk = module.walk([&](exec::MethodOp method) {
               FailureOr<exec::MemoryPlanSummary> summary =
                   exec::planMemory(method, alignment);
               if (failed(summary))
                 return WalkResult::interrupt();
               if (report)
                 report->memoryPlans.push_back(
                     {method.getSymName().str(), *summary});
               return WalkResult::advance();
             });
             return failure(walk.wasInterrupted());
           });
  stages.end("plan-memory", "exec");
}

} // namespace

void buildLoweringStages(OpPassManager &pm, const CompileOptions &options,
                         CompileReport *report, EmitKind stopAfter) {
  if (stopAfter == EmitKind::MLIRHL || stopAfter == EmitKind::ONNXQDQ ||
      stopAfter == EmitKind::Plan || stopAfter == EmitKind::MLIRHLTransformed)
    return;
  StageRecorder stages(pm, report);
  stages.begin();
  buildLowerToEdgePipeline(pm);
  if (options.quantizeWeights) {
    edge::EdgeQuantizeWeightsOptions quantize;
    quantize.bits = options.quantizeWeights->bits;
    quantize.groupSize = options.quantizeWeights->groupSize;
    quantize.nodeBits = options.quantizeWeights->nodeBits;
    quantize.activationBits = options.quantizeWeights->activationBits;
    pm.addNestedPass<func::FuncOp>(edge::createEdgeQuantizeWeights(quantize));
  }
  if (options.stateInPlace && !options.statePairs.empty()) {
    // Before partitioning: the transposes it adds compose with the model's
    // and go to the delegates with them.
    edge::EdgeStateLayoutOptions layout;
    layout.states = options.statePairs;
    pm.addNestedPass<func::FuncOp>(edge::createEdgeStateLayout(layout));
  }
  stages.end("lower-to-edge", "edge");
  if (options.expose)
    addStage(pm, "strata-expose-intermediates",
             "Makes every ONNX node's value an output (a debug build)",
             [expose = *options.expose, report](ModuleOp module) {
               std::vector<ExposedValue> scratch;
               return exposeIntermediates(module, expose,
                                          report ? report->exposed : scratch);
             });
  addDelegation(pm, options, stages, report, stopAfter);
  if (stopAfter == EmitKind::MLIREdge || stopAfter == EmitKind::MLIRPartitioned)
    return;
  stages.begin();
  ConvertEdgeToExecOptions convert;
  convert.programName = options.programName;
  pm.addPass(createConvertEdgeToExec(convert));
  // Matmuls read a transposed rhs where it lives (attention over a KV
  // cache), before the buffers are planned.
  pm.nest<exec::ProgramOp>().addNestedPass<exec::MethodOp>(
      exec::createReadTransposed());
  stages.end("lower-to-exec");
  addMemoryPlanning(pm, options, stages, report);
  if (!options.statePairs.empty() && !options.deferStateBinding)
    addStage(pm, "strata-bind-state",
             "Carries the named values from one call to the next",
             [pairs = options.statePairs](ModuleOp module) {
               for (auto program : module.getOps<exec::ProgramOp>())
                 if (failed(exec::bindStates(program, pairs)))
                   return failure();
               return success();
             });
  if (options.targetKernels)
    addStage(pm, "strata-check-target-kernels",
             "Refuses a program needing what the target runtime lacks",
             [kernels = *options.targetKernels](ModuleOp module) {
               return checkTargetKernels(module, kernels);
             });
}

LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (options.printIRAfterAll) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        // The report markers change nothing: not printed.
        /*shouldPrintAfterPass=*/
        [](Pass *pass, Operation *) {
          return !pass->getArgument().starts_with("strata-report-");
        },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  build(pm);
  return pm.run(module);
}

LogicalResult lowerToExec(ModuleOp module, const CompileOptions &options,
                          CompileReport &report, EmitKind stopAfter) {
  return runPipeline(module, options, [&](OpPassManager &pm) {
    buildLoweringStages(pm, options, &report, stopAfter);
  });
}

} // namespace strata
