//===- CompilePipeline.cpp - strata-compile as one pass pipeline ----------===//
//
// The stages in the order a model meets them, each a pass in one pass
// manager: promote half precision, the backend patterns, the quantization
// steps, lowering to edge, partitioning and preprocessing for each
// delegate, lowering to exec, memory planning. The stages that drive a
// library (the pattern engine, calibration, the partitioner) are StagePasses
// around its call; with a report, report passes between the stages record
// each stage's time, the op counts and the figures the libraries return.
//
//===----------------------------------------------------------------------===//
#include "strata/Compiler/CompilePipeline.h"

#include "Edge/IR/EdgeOps.h"
#include "Exec/IR/ExecOps.h"
#include "HL/IR/HLOps.h"
#include "HL/Transforms/Passes.h"
#include "strata/Conversion/Passes.h"
#include "strata/Pipelines/Pipelines.h"
#include "strata/Quantization/Quantization.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <chrono>
#include <functional>

using namespace mlir;

namespace strata {
namespace {

/// A pipeline stage that calls into a library: the pattern engine,
/// calibration, the partitioner, a check. Fails the pipeline when `run`
/// does (its diagnostics already emitted).
class StagePass : public PassWrapper<StagePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StagePass)
  using Run = std::function<LogicalResult(ModuleOp)>;

  StagePass(StringRef argument, StringRef description, Run run)
      : argument(argument.str()), description(description.str()),
        run(std::move(run)) {}

  StringRef getArgument() const override { return argument; }
  StringRef getDescription() const override { return description; }
  StringRef getName() const override { return argument; }
  void getDependentDialects(DialectRegistry &registry) const override {
    // Calibration compiles and runs programs of the module's copies.
    registry.insert<hl::HLDialect, edge::EdgeDialect, exec::ExecDialect,
                    func::FuncDialect, arith::ArithDialect,
                    tensor::TensorDialect, mlir::quant::QuantizationDialect>();
  }
  void runOnOperation() override {
    if (failed(run(getOperation())))
      signalPassFailure();
  }

private:
  std::string argument, description;
  Run run;
};

void addStage(OpPassManager &pm, StringRef argument, StringRef description,
              StagePass::Run run) {
  pm.addPass(
      std::make_unique<StagePass>(argument, description, std::move(run)));
}

/// Records the pipeline's stages into a CompileReport: `begin` before a
/// stage's passes, `end` after them (the stage's time, and op counts under
/// `counts` when given).
class StageRecorder {
public:
  StageRecorder(OpPassManager &pm, CompileReport *report)
      : pm(pm), report(report),
        start(std::make_shared<std::chrono::steady_clock::time_point>()) {}

  // The markers are passes whether or not there is a report, so that both
  // drivers run one pipeline: nested function passes of two stages never
  // merge into one per-function pipeline.
  void begin() {
    addStage(pm, "strata-report-begin", "Starts timing a stage",
             [report = report, start = start](ModuleOp) {
               if (report)
                 *start = std::chrono::steady_clock::now();
               return success();
             });
  }
  void end(StringRef name, StringRef counts = "") {
    addStage(pm, "strata-report-end", "Records a stage's time and op counts",
             [report = report, start = start, name = name.str(),
              counts = counts.str()](ModuleOp module) {
               if (!report)
                 return success();
               std::chrono::duration<double, std::milli> elapsed =
                   std::chrono::steady_clock::now() - *start;
               report->stages.push_back({name, elapsed.count()});
               if (!counts.empty())
                 report->countOps(module, counts);
               return success();
             });
  }
  /// Op counts alone, outside a timed stage.
  void count(StringRef counts) {
    addStage(pm, "strata-report-counts", "Records op counts",
             [report = report, counts = counts.str()](ModuleOp module) {
               if (report)
                 report->countOps(module, counts);
               return success();
             });
  }

private:
  OpPassManager &pm;
  CompileReport *report;
  std::shared_ptr<std::chrono::steady_clock::time_point> start;
};

/// Half-precision models compute in f32 (the kernels' and delegates' type)
/// from here on, the program keeping their signature.
void addPromoteHalf(OpPassManager &pm, StageRecorder &stages,
                    CompileReport *report) {
  stages.begin();
  pm.addNestedPass<func::FuncOp>(hl::createPromoteHalf());
  addStage(pm, "strata-report-promoted-half",
           "Notes the values promoted from half precision",
           [report](ModuleOp module) {
             if (!report)
               return success();
             module.walk([&](func::FuncOp func) {
               auto counts = func->getAttrOfType<ArrayAttr>("hl.promoted_half");
               if (!counts)
                 return;
               report->importNotes.push_back(
                   "float16/bfloat16 computed in float32: " +
                   std::to_string(cast<IntegerAttr>(counts[0]).getInt()) +
                   " value(s) promoted, " +
                   std::to_string(cast<IntegerAttr>(counts[1]).getInt()) +
                   " cast(s) at the inputs and outputs");
             });
             return success();
           });
  stages.end("promote-half");
}

void addBackendPatterns(OpPassManager &pm, const CompileOptions &options,
                        StageRecorder &stages, CompileReport *report) {
  if (options.patterns.empty() && options.planIn.empty() &&
      options.planOut.empty())
    return;
  stages.begin();
  // Patterns match static shapes: fold the exporters' shape arithmetic
  // first (lower-to-edge runs this again, finding nothing left).
  pm.addNestedPass<func::FuncOp>(hl::createRefineShapes());
  // Power-of-two scales quantize the weights that run: normalizations fold
  // into their convolutions before the patterns group them.
  if (options.quantize && options.quantize->powerOfTwoScales)
    pm.addNestedPass<func::FuncOp>(createFoldBatchNorm());
  addStage(pm, "strata-apply-backend-patterns",
           "The backend's conversion, fusion and quantized patterns",
           [options, report](ModuleOp module) -> LogicalResult {
             FailureOr<TransformReport> transformed = transformInPlace(
                 module, options.patterns, options.planIn, options.planOut);
             if (failed(transformed))
               return failure();
             if (report)
               report->transform = std::move(*transformed);
             return success();
           });
  stages.end("backend-patterns", "hl-transformed");
}

/// The steps after calibration, each with the calibration data: bias
/// correction, power-of-two bias snapping, automatic mixed precision and
/// the sensitivity measurement.
void addQuantizationRefinements(OpPassManager &pm,
                                const CompileOptions &options,
                                StageRecorder &stages, CompileReport *report) {
  const CompileOptions::Quantize &q = *options.quantize;
  if (q.biasCorrection) {
    stages.begin();
    addStage(pm, "strata-bias-correction",
             "Moves each quantized layer's bias by its rounding's mean shift",
             [options, report](ModuleOp module) -> LogicalResult {
               FailureOr<int64_t> corrected = correctBiases(
                   module, options.quantize->calibration, options);
               if (failed(corrected))
                 return failure();
               if (report && report->quantization)
                 report->quantization->biasCorrected = *corrected;
               return success();
             });
    stages.end("bias-correction");
  }
  if (q.powerOfTwoScales)
    // Every product of scales is now exact in float; with each bias a whole
    // number of accumulator steps, so is every layer's output before its
    // requantization. A normalization that could not fold (its conv's
    // output read elsewhere) keeps a float shift: that layer stays inexact.
    addStage(pm, "strata-snap-biases",
             "Rounds each bias to whole int32 accumulator steps",
             [report](ModuleOp module) -> LogicalResult {
               int64_t snapped = 0;
               for (const quant::BiasCorrectionSite &site :
                    quant::findBiasCorrectionSites(module)) {
                 if (!site.subtract)
                   continue;
                 if (failed(quant::snapBiasToAccumulator(site)))
                   return failure();
                 ++snapped;
               }
               if (report && report->quantization) {
                 report->quantization->scales = "power-of-two";
                 report->quantization->int32Biases = snapped;
               }
               return success();
             });
  if (q.mixedPrecision.enabled()) {
    stages.begin();
    addStage(pm, "strata-mixed-precision",
             "Keeps the fewest quantized tensors in float to meet the target",
             [options, report](ModuleOp module) -> LogicalResult {
               const CompileOptions::Quantize &q = *options.quantize;
               FailureOr<QuantizationReport::MixedPrecision> mixed =
                   chooseMixedPrecision(module, q.calibration, q.mixedPrecision,
                                        options);
               if (failed(mixed))
                 return failure();
               if (report && report->quantization)
                 report->quantization->mixedPrecision = std::move(*mixed);
               return success();
             });
    stages.end("mixed-precision");
  }
  if (q.sensitivity) {
    stages.begin();
    addStage(pm, "strata-quantize-sensitivity",
             "Measures each quantized tensor's cost at the outputs",
             [options, report](ModuleOp module) -> LogicalResult {
               FailureOr<QuantizationReport::Sensitivity> sensitivity =
                   measureSensitivity(module, options.quantize->calibration,
                                      options);
               if (failed(sensitivity))
                 return failure();
               if (report && report->quantization)
                 report->quantization->sensitivity = std::move(*sensitivity);
               return success();
             });
    stages.end("sensitivity");
  }
}

void addQuantization(OpPassManager &pm, const CompileOptions &options,
                     StageRecorder &stages, CompileReport *report) {
  if (!options.quantize)
    return;
  const CompileOptions::Quantize &q = *options.quantize;
  // With smooth patterns in the list, SmoothQuant runs at the sites they
  // tagged, and the report says how many there were (none on a CNN).
  auto smoothed =
      std::make_shared<std::optional<std::vector<quant::SmoothedSite>>>();
  if (llvm::any_of(options.patterns, [](const PatternDescriptor &d) {
        return d.info.phase == PatternPhase::Smooth;
      })) {
    stages.begin();
    addStage(pm, "strata-smooth", "SmoothQuant at the tagged sites",
             [options, smoothed](ModuleOp module) -> LogicalResult {
               const CompileOptions::Quantize &q = *options.quantize;
               FailureOr<std::vector<quant::SmoothedSite>> sites =
                   smoothQuant(module, q.calibration, q.smoothAlpha, options);
               if (failed(sites))
                 return failure();
               *smoothed = std::move(*sites);
               return success();
             });
    stages.end("smooth");
  }
  stages.begin();
  InsertQDQOptions insert;
  insert.activations = q.activations;
  insert.skipNodes = q.skipNodes;
  insert.skipOps = q.skipOps;
  insert.minWeightElements = q.minWeightElements;
  insert.powerOfTwoScales = q.powerOfTwoScales;
  pm.addNestedPass<func::FuncOp>(createInsertQDQ(insert));
  stages.end("insert-qdq");
  stages.begin();
  addStage(pm, "strata-calibrate", "Calibrates the inserted QDQ pairs",
           [options, report](ModuleOp module) -> LogicalResult {
             FailureOr<QuantizationReport> calibrated =
                 calibrate(module, options.quantize->calibration, options);
             if (failed(calibrated))
               return failure();
             if (report)
               report->quantization = std::move(*calibrated);
             return success();
           });
  stages.end("calibrate");
  addQuantizationRefinements(pm, options, stages, report);
  addStage(pm, "strata-report-smoothed", "Notes the SmoothQuant sites",
           [options, smoothed, report](ModuleOp) {
             if (report && *smoothed && report->quantization) {
               report->quantization->smoothAlpha =
                   options.quantize->smoothAlpha;
               report->quantization->smoothed = std::move(**smoothed);
             }
             return success();
           });
  stages.count("hl-quantized");
}

} // namespace

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
        partition(module, *backend, *calibration ? &**calibration : nullptr);
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
                   StageRecorder &stages, CompileReport *report) {
  if (options.delegateBackends.empty())
    return;
  stages.begin();
  addStage(pm, "strata-partition-delegates",
           "Outlines what each delegate backend claims, in priority order",
           [options, report](ModuleOp module) {
             return partitionForDelegates(module, options, report);
           });
  stages.end("partition");
  stages.begin();
  addStage(pm, "strata-to-backends",
           "Compiles each partition with its backend's preprocess",
           [options](ModuleOp module) -> LogicalResult {
             for (const Backend *backend : options.delegateBackends) {
               auto specs = options.compileSpecs.find(backend->getName());
               if (failed(toBackend(module, *backend,
                                    specs == options.compileSpecs.end()
                                        ? CompileSpecs()
                                        : specs->second)))
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
  if (stopAfter == EmitKind::MLIRHL || stopAfter == EmitKind::ONNXQDQ)
    return;
  StageRecorder stages(pm, report);
  stages.begin();
  buildLowerToEdgePipeline(pm);
  stages.end("lower-to-edge", "edge");
  if (options.expose)
    addStage(pm, "strata-expose-intermediates",
             "Makes every ONNX node's value an output (a debug build)",
             [expose = *options.expose, report](ModuleOp module) {
               std::vector<ExposedValue> scratch;
               return exposeIntermediates(module, expose,
                                          report ? report->exposed : scratch);
             });
  addDelegation(pm, options, stages, report);
  if (stopAfter == EmitKind::MLIREdge)
    return;
  stages.begin();
  ConvertEdgeToExecOptions convert;
  convert.programName = options.programName;
  pm.addPass(createConvertEdgeToExec(convert));
  stages.end("lower-to-exec");
  addMemoryPlanning(pm, options, stages, report);
  if (options.targetKernels)
    addStage(pm, "strata-check-target-kernels",
             "Refuses a program needing what the target runtime lacks",
             [kernels = *options.targetKernels](ModuleOp module) {
               return checkTargetKernels(module, kernels);
             });
}

void buildStrataCompilePipeline(OpPassManager &pm,
                                const CompileOptions &options,
                                CompileReport *report) {
  StageRecorder stages(pm, report);
  addPromoteHalf(pm, stages, report);
  addBackendPatterns(pm, options, stages, report);
  addQuantization(pm, options, stages, report);
  buildLoweringStages(pm, options, report, options.emit);
}

void registerCompilePipeline() {
  registerPassPipeline(
      "strata-compile",
      "Everything strata-compile runs between import and emission: the "
      "backend's patterns, quantization, lowering, delegation and memory "
      "planning (its options are strata-compile's)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        CompilePipelineOptions pipeline;
        if (failed(pipeline.parseFromString(text)))
          return failure();
        CompileOptions options;
        if (llvm::Error error = resolveCompileOptions(pipeline, options))
          return errorHandler("strata-compile: " +
                              llvm::toString(std::move(error)));
        buildStrataCompilePipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(CompilePipelineOptions());
      });
}

} // namespace strata
