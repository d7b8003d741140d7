//===- CompilePipeline.h - strata-compile as one pass pipeline --*- C++ -*-===//
//
// Everything strata-compile does between the imported hl module and the
// planned exec program is one pass pipeline, built here and registered as
// `strata-compile` so that strata-opt runs exactly what users' programs went
// through:
//
//   strata-translate --import-onnx model.onnx |
//     strata-opt --strata-compile="backend=onednn program-name=model" |
//     strata-translate --emit-program -o model.strata
//
// writes the bytes `strata-compile model.onnx -o model.strata --backend
// onednn` writes. The options are declared once, in CompilePipelineOptions:
// strata-opt parses them from the pipeline string, strata-compile lifts the
// same option objects onto its command line (exposeOnCommandLine).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PIPELINES_COMPILEPIPELINE_H
#define STRATA_PIPELINES_COMPILEPIPELINE_H

#include "strata/Pipelines/CompileOptions.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

namespace strata {

/// How activations are quantized (--quantize-activations).
enum class ActivationQuantization { Symmetric, Asymmetric };
/// How scales are chosen (--quantize-scales).
enum class ScaleForm { Float, PowerOfTwo };

/// The options of the compile pipeline, as both drivers spell them.
struct CompilePipelineOptions
    : public mlir::PassPipelineOptions<CompilePipelineOptions> {
  //===--------------------------------------------------------------------===//
  // Backends and delegation
  //===--------------------------------------------------------------------===//
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc(
          "Backend whose patterns transform the model and whose delegate "
          "takes what it supports; a comma-separated list of delegates "
          "(onednn,xnnpack) is a priority order: each claims what the "
          "earlier ones left, the first one's patterns apply "
          "(--list-backends shows them)"),
      llvm::cl::init("portable")};
  ListOption<std::string> backendOptions{
      *this, "backend-option",
      llvm::cl::desc("A compile spec of the backend's delegate: KEY=VALUE, "
                     "e.g. winograd=true, or BACKEND:KEY=VALUE for one of a "
                     "list (repeatable; --list-backends shows them)")};
  Option<std::string> tune{
      *this, "tune",
      llvm::cl::desc("Measured tuning (opt-in): time the delegate's candidate "
                     "implementations and keep the fastest, recording the "
                     "choices in FILE; a later compile with --tuning FILE "
                     "reuses them without measuring (same bytes)"),
      llvm::cl::value_desc("file")};
  Option<std::string> tuning{
      *this, "tuning",
      llvm::cl::desc("Apply the tuning records in FILE (written by --tune) "
                     "without measuring"),
      llvm::cl::value_desc("file")};
  Option<bool> requireDelegated{
      *this, "require-delegated",
      llvm::cl::desc("Fail when any op falls back to the portable kernels")};
  Option<bool> partitionCost{
      *this, "partition-cost",
      llvm::cl::desc(
          "Keep a group of supported ops on the portable kernels when the "
          "delegate's cost model prices it cheaper there, call and boundary "
          "conversions included (default on; --report lists each decision "
          "with its estimates)"),
      llvm::cl::init(true)};
  Option<std::string> partitionCalibration{
      *this, "partition-calibration",
      llvm::cl::desc("Price partitions with this calibration (written by "
                     "scripts/calibrate-partitioner.sh) instead of the "
                     "delegate's own"),
      llvm::cl::value_desc("file")};
  Option<std::string> targetKernels{
      *this, "target-kernels",
      llvm::cl::desc("The target runtime's kernel set (one name per line, "
                     "'delegate:NAME' for delegates; `strata-run "
                     "--list-kernels` prints it): refuse programs that need "
                     "anything else"),
      llvm::cl::value_desc("file")};
  Option<std::string> planOut{
      *this, "plan-out",
      llvm::cl::desc("Write the transformation plan (every pattern match, "
                     "with its apply flag) as JSON; without -o, only the plan "
                     "is written"),
      llvm::cl::value_desc("file")};
  Option<std::string> planIn{
      *this, "plan-in",
      llvm::cl::desc("Apply the matches a (possibly edited) plan enables"),
      llvm::cl::value_desc("file")};
  ListOption<std::string> patternNames{
      *this, "patterns",
      llvm::cl::desc("Run only these of the backend's patterns, by name "
                     "(--list-backends lists them)"),
      llvm::cl::value_desc("name,...")};
  Option<int64_t> bufferAlignment{
      *this, "buffer-alignment", llvm::cl::desc("Alignment of planned buffers"),
      llvm::cl::init(64)};
  ListOption<std::string> statePairs{
      *this, "state",
      llvm::cl::desc("Carry values from one call to the next, as program "
                     "state: IN=OUT (the output OUT of a call feeds the input "
                     "IN of the next), or past-present (every "
                     "past_key_values.X or past.X input from the present.X "
                     "output: a decoder's KV cache)"),
      llvm::cl::value_desc("IN=OUT,...|past-present")};
  Option<bool> stateInPlace{
      *this, "state-in-place",
      llvm::cl::desc("With --state: store each state that grows along one "
                     "axis (a KV cache) with that axis first, so each call "
                     "appends its rows in the state's buffer, no copy of the "
                     "cache per call (strata-edge-state-layout; "
                     "=false keeps the model's layout)"),
      llvm::cl::init(true)};
  Option<std::string> programName{
      *this, "program-name",
      llvm::cl::desc("Name of the exec.program (strata-compile: the model's "
                     "file or folder name)"),
      llvm::cl::init("program")};

  //===--------------------------------------------------------------------===//
  // Quantization
  //===--------------------------------------------------------------------===//
  Option<bool> quantize{
      *this, "quantize",
      llvm::cl::desc("Quantize to int8 at the QDQ points of the backend's "
                     "quantized patterns, calibrated on --calibration-data")};
  Option<std::string> calibrationData{
      *this, "calibration-data",
      llvm::cl::desc(
          "Representative inputs: a .npy with one sample per leading index, "
          "or a folder of .pb/.npy samples (or of folders with input_N.pb); "
          "'random' (uniform [0, 1)), 'random-uniform[:LO,HI]' or "
          "'random-normal[:MEAN,STD]' (default N(0, 1)) draw seeded samples "
          "of the input's shape"),
      llvm::cl::value_desc("dir|file.npy|random-spec")};
  Option<quantization::CalibrationMethod> calibrationMethod{
      *this, "calibration-method",
      llvm::cl::desc("How activation ranges are chosen"),
      llvm::cl::init(quantization::CalibrationMethod::MinMax),
      llvm::cl::values(
          clEnumValN(quantization::CalibrationMethod::MinMax, "minmax",
                     "the observed range (default)"),
          clEnumValN(quantization::CalibrationMethod::Percentile, "percentile",
                     "the --calibration-percentile of |x|"),
          clEnumValN(quantization::CalibrationMethod::Entropy, "entropy",
                     "the threshold of least KL divergence"),
          clEnumValN(quantization::CalibrationMethod::MSE, "mse",
                     "the threshold of least squared error"))};
  Option<double> calibrationPercentile{
      *this, "calibration-percentile",
      llvm::cl::desc("The percentile --calibration-method percentile keeps"),
      llvm::cl::init(99.99)};
  Option<int64_t> calibrationSamples{
      *this, "calibration-samples",
      llvm::cl::desc("Use at most N calibration samples (0: all)"),
      llvm::cl::init(0)};
  Option<uint64_t> calibrationSeed{
      *this, "calibration-seed",
      llvm::cl::desc("Seed of a random --calibration-data spec (0)"),
      llvm::cl::init(0)};
  Option<ActivationQuantization> quantizeActivations{
      *this, "quantize-activations",
      llvm::cl::desc("How activations are quantized"),
      llvm::cl::init(ActivationQuantization::Symmetric),
      llvm::cl::values(
          clEnumValN(ActivationQuantization::Symmetric, "symmetric",
                     "zero point 0, as TensorRT requires (default)"),
          clEnumValN(ActivationQuantization::Asymmetric, "asymmetric",
                     "a zero point per tensor"))};
  Option<ScaleForm> quantizeScales{
      *this, "quantize-scales", llvm::cl::desc("The form of the scales"),
      llvm::cl::init(ScaleForm::Float),
      llvm::cl::values(
          clEnumValN(ScaleForm::Float, "float",
                     "max|x| / 127 and the like (default)"),
          clEnumValN(ScaleForm::PowerOfTwo, "power-of-two",
                     "each scale rounded up to one; batch normalizations "
                     "folded into their convolutions first, biases rounded "
                     "to whole int32 accumulator steps: every layer is then "
                     "exact in float, so a runtime executing the exported "
                     "QDQ file reproduces the int8 program bit for bit"))};
  ListOption<std::string> quantizeSkipNodes{
      *this, "quantize-skip-nodes",
      llvm::cl::desc("ONNX node names kept in float (comma separated)")};
  ListOption<std::string> quantizeSkipOps{
      *this, "quantize-skip-ops",
      llvm::cl::desc("ONNX op types kept in float, e.g. Gemm (comma "
                     "separated)")};
  Option<int64_t> quantizeMinWeightElements{
      *this, "quantize-min-weight-elements",
      llvm::cl::desc("Keep in float the groups whose weight has fewer "
                     "elements"),
      llvm::cl::init(0)};
  Option<bool> smooth{
      *this, "smooth",
      llvm::cl::desc("SmoothQuant before quantizing: move per-channel "
                     "activation range into the weights at the backend's "
                     "smooth sites")};
  Option<double> smoothAlpha{
      *this, "smooth-alpha",
      llvm::cl::desc("SmoothQuant's migration strength in [0, 1] (0.5)"),
      llvm::cl::init(0.5)};
  Option<bool> biasCorrection{
      *this, "bias-correction",
      llvm::cl::desc("After calibration, move each quantized layer's bias by "
                     "the mean output shift its weight rounding causes "
                     "(measured on the calibration data)")};
  Option<bool> quantizeSensitivity{
      *this, "quantize-sensitivity",
      llvm::cl::desc(
          "After calibration, measure the output SQNR against the float "
          "model on the calibration data with every tensor quantized and "
          "with each quantized tensor alone (one program each), to pick "
          "what --quantize-skip-nodes should keep in float")};
  Option<double> quantizeTargetSqnr{
      *this, "quantize-target-sqnr",
      llvm::cl::desc(
          "Keep the fewest quantized tensors in float so that the output "
          "SQNR against the float model reaches DB on the held-out data "
          "(--quantize-eval-data) or else the calibration data (checked by "
          "running each choice)"),
      llvm::cl::value_desc("DB")};
  Option<double> quantizeTargetAccuracyDrop{
      *this, "quantize-target-accuracy-drop",
      llvm::cl::desc("Keep the fewest quantized tensors in float so that "
                     "top-1 accuracy on the labelled data drops by at most "
                     "PT percentage points against the float model"),
      llvm::cl::value_desc("PT")};
  Option<std::string> quantizeEvalData{
      *this, "quantize-eval-data",
      llvm::cl::desc("Held-out samples the mixed-precision targets are "
                     "judged on (as --calibration-data; default: the "
                     "calibration samples); with labels for "
                     "--quantize-target-accuracy-drop")};
  Option<std::string> quantizeEvalLabels{
      *this, "quantize-eval-labels",
      llvm::cl::desc("Their labels: a 1-D int64 .npy, one per sample")};
  Option<std::string> quantizeWeights{
      *this, "quantize-weights",
      llvm::cl::desc("Quantize every matmul's constant weight to int4 or "
                     "int8 with a scale and zero point per column and per "
                     "group of K (weight-only: activations stay f32)"),
      llvm::cl::value_desc("int4|int8")};
  Option<int64_t> weightGroupSize{
      *this, "weight-group-size",
      llvm::cl::desc("Rows of K sharing a scale under --quantize-weights (a "
                     "multiple of 8)"),
      llvm::cl::init(32)};
  ListOption<std::string> weightBits{
      *this, "weight-bits",
      llvm::cl::desc("Per ONNX node: the width of its matmul weight under "
                     "--quantize-weights (4, 8, or 0 for f32)"),
      llvm::cl::value_desc("NODE=BITS,...")};
  Option<std::string> weightActivations{
      *this, "weight-activations",
      llvm::cl::desc("Under --quantize-weights: the matmuls' activations in "
                     "f32 (default) or quantized to int8 dynamically, per "
                     "row and group of K (8da4w; integer dot products)"),
      llvm::cl::value_desc("f32|int8")};
  Option<double> weightTargetSqnr{
      *this, "weight-target-sqnr",
      llvm::cl::desc("Choose each matmul's width under --quantize-weights "
                     "(its width, 8 bits or f32) for the smallest weights "
                     "whose output SQNR against the float model reaches DB "
                     "on --calibration-data, checked on a held-out quarter "
                     "of it"),
      llvm::cl::value_desc("DB")};
  Option<double> weightTargetPerplexity{
      *this, "weight-target-perplexity",
      llvm::cl::desc("Choose each matmul's width under --quantize-weights for "
                     "the smallest weights whose perplexity on the labelled "
                     "--calibration-data (--calibration-labels) rises at most "
                     "PCT percent over the float model's, checked on a "
                     "held-out quarter of it"),
      llvm::cl::value_desc("PCT")};
  Option<std::string> calibrationLabels{
      *this, "calibration-labels",
      llvm::cl::desc("The next token each logit row of each calibration "
                     "sample predicts: an int64 .npy of the logits' shape "
                     "without the vocabulary axis, samples first; negative "
                     "labels are skipped (padding)"),
      llvm::cl::value_desc("FILE")};
  Option<bool> noProgress{*this, "no-progress",
                          llvm::cl::desc("No calibration progress bar")};

  /// Whether option `name` was given (on the command line or in the
  /// pipeline string).
  bool given(llvm::StringRef name) const;

  /// Registers every option on the top-level command line too (once;
  /// strata-compile),
  /// `--quantize*`, `--calibration*` and `--smooth*` under `quantization`,
  /// the rest under `general`. Call before parsing the command line, once.
  void exposeOnCommandLine(llvm::cl::OptionCategory &general,
                           llvm::cl::OptionCategory &quantization);

private:
  bool exposed = false;
};

/// A compilation that stops before calibration (EmitKind::Plan,
/// MLIRHLTransformed) reads no calibration data: with quantize and none
/// given, the option gets a placeholder ("random-normal") that nothing
/// reads, so that the requirement of data is met.
void omitCalibrationData(CompilePipelineOptions &pipeline, EmitKind stopAt);

/// Checks the options against each other (the table of which options need
/// which, in CompilePipeline.cpp) and against the backend registry, and
/// fills the pipeline's part of `options`: patterns, delegates and their
/// compile specs, quantization, target kernels, plan files, program name
/// and buffer alignment. The error names the options.
llvm::Error resolveCompileOptions(const CompilePipelineOptions &pipeline,
                                  CompileOptions &options);

/// The whole compile pipeline on an imported hl module, up to what
/// `options.emit` asks for (hl for mlir-hl and onnx-qdq, edge with the
/// delegates' blobs for mlir-edge, else the planned exec program). With a
/// `report`, each stage's time, op counts and figures land in it (the
/// report must outlive the pass manager's run).
void buildStrataCompilePipeline(mlir::OpPassManager &pm,
                                const CompileOptions &options,
                                CompileReport *report = nullptr);

/// The stages after quantization (lowering to edge, delegation, lowering to
/// exec, memory planning, the target-kernel check), up to `stopAfter`.
void buildLoweringStages(mlir::OpPassManager &pm, const CompileOptions &options,
                         CompileReport *report, EmitKind stopAfter);

/// Runs the pipeline `build` adds to on `module`, printing the IR after
/// every pass with `options.printIRAfterAll`.
mlir::LogicalResult
runPipeline(mlir::ModuleOp module, const CompileOptions &options,
            llvm::function_ref<void(mlir::OpPassManager &)> build);

/// Registers the `strata-compile` pipeline (CompilePipelineOptions).
void registerCompilePipeline();

} // namespace strata

#endif // STRATA_PIPELINES_COMPILEPIPELINE_H
