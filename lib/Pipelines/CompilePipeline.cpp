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
#include "strata/Pipelines/CompilePipeline.h"

#include "StagePass.h"

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
  bool planOnly = options.emit == EmitKind::Plan;
  if (options.patterns.empty() && options.planIn.empty() &&
      options.planOut.empty() && !options.planFlags && !planOnly)
    return;
  stages.begin();
  // Patterns match static shapes: fold the exporters' shape arithmetic
  // first (lower-to-edge runs this again, finding nothing left).
  pm.addNestedPass<func::FuncOp>(hl::createRefineShapes());
  // Power-of-two scales quantize the weights that run: normalizations fold
  // into their convolutions before the patterns group them.
  if (options.quantize && options.quantize->powerOfTwoScales)
    pm.addNestedPass<func::FuncOp>(createFoldBatchNorm());
  if (planOnly) {
    addStage(
        pm, "strata-plan-backend-patterns",
        "Plans the backend's patterns, applying none",
        [options, report](ModuleOp module) -> LogicalResult {
          FailureOr<TransformationPlan> plan =
              planWithFlags(module, options.patterns, options.planIn,
                            options.planFlags ? &*options.planFlags : nullptr);
          if (failed(plan))
            return failure();
          std::string error;
          if (!options.planOut.empty() &&
              failed(writeJSONFile(options.planOut, plan->toJSON(), error)))
            return module.emitError(error);
          if (report)
            report->plan = plan->toJSON();
          return success();
        });
    stages.end("backend-patterns");
    return;
  }
  addStage(pm, "strata-apply-backend-patterns",
           "The backend's conversion, fusion and quantized patterns",
           [options, report](ModuleOp module) -> LogicalResult {
             FailureOr<TransformReport> transformed = transformInPlace(
                 module, options.patterns, options.planIn, options.planOut,
                 options.planFlags ? &*options.planFlags : nullptr);
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
               for (const quantization::BiasCorrectionSite &site :
                    quantization::findBiasCorrectionSites(module)) {
                 if (!site.subtract)
                   continue;
                 if (failed(quantization::snapBiasToAccumulator(site)))
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
  if (!options.quantize || options.emit == EmitKind::Plan ||
      options.emit == EmitKind::MLIRHLTransformed)
    return;
  const CompileOptions::Quantize &q = *options.quantize;
  // With smooth patterns in the list, SmoothQuant runs at the sites they
  // tagged, and the report says how many there were (none on a CNN).
  auto smoothed = std::make_shared<
      std::optional<std::vector<quantization::SmoothedSite>>>();
  if (llvm::any_of(options.patterns, [](const PatternDescriptor &d) {
        return d.info.phase == PatternPhase::Smooth;
      })) {
    stages.begin();
    addStage(pm, "strata-smooth", "SmoothQuant at the tagged sites",
             [options, smoothed](ModuleOp module) -> LogicalResult {
               const CompileOptions::Quantize &q = *options.quantize;
               FailureOr<std::vector<quantization::SmoothedSite>> sites =
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

/// Each matmul's weight width, chosen by running programs on the
/// calibration data, recorded on the function for the lowering's
/// strata-edge-quantize-weights.
void addWeightPrecision(OpPassManager &pm, const CompileOptions &options,
                        StageRecorder &stages, CompileReport *report) {
  EmitKind emit = options.emit;
  if (!options.weightPrecision || emit == EmitKind::Plan ||
      emit == EmitKind::MLIRHL || emit == EmitKind::MLIRHLTransformed ||
      emit == EmitKind::ONNXQDQ)
    return;
  stages.begin();
  addStage(pm, "strata-weight-precision",
           "Chooses each matmul weight's width for the output SQNR target",
           [options, report](ModuleOp module) -> LogicalResult {
             FailureOr<WeightPrecisionReport> chosen = chooseWeightPrecision(
                 module, *options.weightPrecision, options);
             if (failed(chosen))
               return failure();
             if (report)
               report->weightPrecision = std::move(*chosen);
             return success();
           });
  stages.end("weight-precision");
}

} // namespace

void buildStrataCompilePipeline(OpPassManager &pm,
                                const CompileOptions &options,
                                CompileReport *report) {
  StageRecorder stages(pm, report);
  addPromoteHalf(pm, stages, report);
  addBackendPatterns(pm, options, stages, report);
  addQuantization(pm, options, stages, report);
  addWeightPrecision(pm, options, stages, report);
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
