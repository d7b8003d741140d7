//===- Calibrate.h - calibration of the inserted QDQ pairs ------*- C++ -*-===//
//
// Calibration inside the compiler: the QDQ pairs `strata-insert-qdq` left
// for calibration are stripped from a copy of the module, every observed
// value becomes an extra output, and that float program is compiled and
// run by Strata's own runtime over the calibration samples, streaming them
// (memory is constant in their number). Observers pick each scale, which
// is written back into the quant types; a last pass measures each
// quantized tensor's SQNR for the report.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CALIBRATION_CALIBRATE_H
#define STRATA_CALIBRATION_CALIBRATE_H

#include "strata/Quantization/Quantization.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace strata {

struct CompileOptions;

struct CalibrationOptions {
  /// A .npy with one sample per leading index, one .pb/.npy sample file, or
  /// a folder of sample files (or of test_data_set-style folders holding
  /// input_N.pb for multi-input models), or seeded random samples of each
  /// input's shape (`maxSamples` of them, 16 by default): "random" draws
  /// pixel values uniform in [0, 1), "random-normal" N(0, 1) (normalized
  /// images).
  std::string dataPath;
  uint64_t seed = 0;
  quantization::CalibrationMethod method =
      quantization::CalibrationMethod::MinMax;
  double percentile = 99.99;
  bool symmetric = true;
  /// Round every calibrated scale up to a power of two.
  bool powerOfTwoScales = false;
  /// Use at most this many samples (0: all).
  int64_t maxSamples = 0;
  /// Draw a progress bar on stderr (when it is a terminal).
  bool progress = true;
};

/// Automatic mixed precision: the targets the program must meet, by
/// keeping the fewest quantized tensors in float (chooseMixedPrecision).
struct MixedPrecisionOptions {
  /// Output SQNR against the float model, dB, on the held-out samples
  /// when given, else on the calibration samples.
  std::optional<double> targetSqnrDB;
  /// Top-1 accuracy lost against the float model on the labelled data, in
  /// percentage points.
  std::optional<double> targetAccuracyDrop;
  /// Held-out samples (as for calibration), and their labels (a 1-D int64
  /// .npy; the accuracy target needs them).
  std::string evalImages, evalLabels;
  bool enabled() const { return targetSqnrDB || targetAccuracyDrop; }
};

/// Precision per matmul, chosen automatically (--weight-target-sqnr): each
/// matmul's constant weight at 4 or 8 bits or in f32, the smallest weights
/// whose program meets an output SQNR against the float model.
struct WeightPrecisionOptions {
  /// Output SQNR of every f32 output (a language model's logits) against
  /// the float model, dB: pooled over the samples and the 10th-percentile
  /// sample's own.
  double targetSqnrDB = 30;
  /// Set instead: the perplexity of the first f32 output (the logits, the
  /// vocabulary last) on the labelled tokens of `labelsPath` may rise by at
  /// most this fraction (0.01: 1%) over the float model's on the same
  /// samples, pooled over them.
  std::optional<double> targetPerplexityRise;
  /// An int64 .npy: each sample's label for each logit row, samples first
  /// (the logits' shape without the vocabulary axis); negative: skipped.
  std::string labelsPath;
  /// The narrowest width every matmul starts from (4 or 8) and the group
  /// size of K rows sharing a scale.
  int64_t bits = 4;
  int64_t groupSize = 32;
  /// 8: the programs quantize activations dynamically (--weight-activations).
  int64_t activationBits = 0;
  /// NODE=BITS fixed by hand: those nodes are not searched.
  std::vector<std::string> nodeBits;
  CalibrationOptions calibration;
};

/// What the search chose and measured (chooseWeightPrecision).
struct WeightPrecisionReport {
  struct Node {
    /// The ONNX node of the matmul, its (first) weight's extents, its
    /// matmuls (a recurrent layer has several), the chosen width (0: f32)
    /// and whether --weight-bits fixed it.
    std::string node;
    int64_t k = 0, n = 0, matmuls = 0, bits = 0;
    bool fixed = false;
    /// The output SQNR with this node alone at the narrowest width (every
    /// other matmul f32), and its stored bytes at the chosen width.
    double aloneDB = 0;
    int64_t bytes = 0;
  };
  std::vector<Node> nodes;
  double targetSqnrDB = 0;
  /// A perplexity target (WeightPrecisionOptions): the rise allowed and
  /// the rises measured (fractions of the float model's perplexity on the
  /// same samples), with the float model's perplexities and the labelled
  /// tokens of the choice and check samples; the margin is then a
  /// fraction too, taken off the target on the choice samples.
  std::optional<double> targetPerplexityRise;
  double narrowestRise = 0, chosenRise = 0;
  /// The chosen program's 90% upper bound on the choice samples (what the
  /// choice was judged by).
  double chosenRiseBound = 0;
  std::optional<double> checkRise;
  double floatPerplexity = 0, checkFloatPerplexity = 0;
  int64_t chooseTokens = 0, checkTokens = 0;
  /// The margin the held-out check added to the target on the choice
  /// samples (0 when the first choice held).
  double marginDB = 0;
  /// Every searched node at the narrowest width, on the choice samples.
  double narrowestDB = 0, narrowestLowDecileDB = 0;
  /// The chosen program on the choice samples and on the check samples (a
  /// quarter of the calibration samples the choice never saw).
  double chosenDB = 0, chosenLowDecileDB = 0;
  std::optional<double> checkDB, checkLowDecileDB;
  int64_t chooseSamples = 0, checkSamples = 0;
  /// Judged on seeded random samples (a random spec).
  bool randomSamples = false;
  /// Bytes of the matmul weights: chosen, all narrowest, all f32.
  int64_t bytes = 0, narrowestBytes = 0, floatBytes = 0;
  int64_t programs = 0;

  /// The choice as --weight-bits takes it: "NODE=BITS,...".
  std::string weightBitsFlag() const;
  llvm::json::Value toJSON() const;
  void print(llvm::raw_ostream &os) const;
};

/// What calibration measured.
struct QuantizationReport {
  struct Tensor {
    /// The ONNX node producing the tensor (or the graph input's name).
    std::string tensor;
    /// "activation", "weight" or "fixed" (a fixed-range output such as a
    /// sigmoid's, quantized without calibration), and the groups reading it.
    std::string role;
    std::string consumers;
    double scale = 0;
    int64_t zeroPoint = 0;
    /// Per-channel weights: the number of scales.
    int64_t channels = 1;
    double min = 0, max = 0;
    /// 20 log10(||x|| / ||x - q(x)||) over the calibration data.
    double sqnrDB = 0;
  };
  std::string method;
  int64_t samples = 0;
  /// SmoothQuant (--smooth): its alpha and the sites it rescaled.
  std::optional<double> smoothAlpha;
  std::vector<quantization::SmoothedSite> smoothed;
  /// Bias correction (--bias-correction): the layers corrected.
  std::optional<int64_t> biasCorrected;
  /// --quantize-scales power-of-two: that name, and the biases rounded to
  /// whole accumulator steps.
  std::optional<std::string> scales;
  std::optional<int64_t> int32Biases;
  /// Worst SQNR first.
  std::vector<Tensor> tensors;

  /// --quantize-sensitivity: the model's output SQNR against the float
  /// model over the calibration samples, with every tensor quantized (the
  /// int8 program) and with each quantized tensor alone.
  struct Sensitivity {
    int64_t samples = 0;
    double allQuantizedDB = 0;
    struct Row {
      std::string tensor, role, consumers;
      /// 20 log10(||y|| / ||y - y_q||) over every f32 output.
      double outputSqnrDB = 0;
    };
    /// Worst first.
    std::vector<Row> tensors;
  };
  std::optional<Sensitivity> sensitivity;

  /// Automatic mixed precision: the targets, the program's figures with
  /// every tensor in int8 and with the choice, and what stayed float and
  /// why.
  struct MixedPrecision {
    std::optional<double> targetSqnrDB, targetAccuracyDrop;
    int64_t tensors = 0;
    /// Pooled over the samples, and the 10th percentile of the samples'
    /// own figures (an SQNR target holds on both).
    double allInt8SqnrDB = 0, achievedSqnrDB = 0;
    double allInt8LowDecileSqnrDB = 0, achievedLowDecileSqnrDB = 0;
    /// With labelled data (fractions).
    double floatAccuracy = 0, allInt8Accuracy = 0, achievedAccuracy = 0;
    struct Kept {
      std::string tensor, role, consumers;
      /// The output SQNR with this tensor's pairs alone, its share of the
      /// all-int8 program's output noise (sum of the alone noises), and
      /// the multiply-adds of the ops reading it, which run in float.
      double aloneSqnrDB = 0, noiseShare = 0, workShare = 0;
      int64_t floatWork = 0;
    };
    std::vector<Kept> keptFloat;
    /// An SQNR target is chosen on three quarters of its samples and
    /// checked on the rest (every fourth): their figures, and the margin
    /// added to the target on the choice samples while the check missed.
    std::optional<double> checkSqnrDB, checkLowDecileSqnrDB;
    double marginDB = 0;
    int64_t chooseSamples = 0, checkSamples = 0;
    /// The SQNR was judged on seeded random samples (a random spec), which
    /// say nothing of how real inputs fare.
    bool randomSamples = false;
    /// Programs compiled and run to decide.
    int64_t programs = 0;
    /// The samples the targets were judged on, and those the SQNR figures
    /// are over: "calibration" or "eval" (the held-out samples).
    std::string judgedOn, sqnrOn;
  };
  std::optional<MixedPrecision> mixedPrecision;

  llvm::json::Value toJSON() const;
  /// The `top` worst tensors as a table.
  void print(llvm::raw_ostream &os, size_t top = 10) const;
};

/// SmoothQuant's stage: measures the per-channel range of every site a
/// smooth pattern tagged in `module` over the calibration data, then
/// migrates scales with `alpha` (quantization::applySmoothQuant).
mlir::FailureOr<std::vector<quantization::SmoothedSite>>
smoothQuant(mlir::ModuleOp module, const CalibrationOptions &options,
            double alpha, const CompileOptions &base);

/// Bias correction (--bias-correction): measures the mean input of every
/// quantized layer with a bias or batch normalization over the calibration
/// data and moves the bias by the output shift the weight rounding causes
/// (quantization::applyBiasCorrection). Returns the number of layers corrected.
mlir::FailureOr<int64_t> correctBiases(mlir::ModuleOp module,
                                       const CalibrationOptions &options,
                                       const CompileOptions &base);

/// The sensitivity analysis (--quantize-sensitivity), after calibration
/// and bias correction: the outputs of `module` with all its QDQ pairs, and
/// with each quantized tensor's pairs alone, against the float model's on
/// the calibration samples. Compiles and runs one program per quantized
/// tensor; holds the float outputs of every sample.
mlir::FailureOr<QuantizationReport::Sensitivity>
measureSensitivity(mlir::ModuleOp module, const CalibrationOptions &options,
                   const CompileOptions &base);

/// Automatic mixed precision (--quantize-target-sqnr,
/// --quantize-target-accuracy-drop), after calibration and bias correction:
/// measures the program with every tensor quantized and, while it misses
/// the target, keeps tensors in float, ranked by the output noise each
/// causes alone per multiply-add it would move to float, checking the
/// combination by running it; then requantizes every float tensor the
/// target does not need. Removes the float tensors' pairs from `module`.
mlir::FailureOr<QuantizationReport::MixedPrecision>
chooseMixedPrecision(mlir::ModuleOp module, const CalibrationOptions &options,
                     const MixedPrecisionOptions &targets,
                     const CompileOptions &base);

/// Precision per matmul (--weight-target-sqnr), on the hl module before
/// lowering: compiles the module with each matmul's weight at the
/// narrowest width alone, ranks the widenings (4 to 8 bits, 8 bits to f32)
/// by output noise removed per byte added, widens until the program meets
/// the target on three quarters of the calibration samples, narrows back
/// what the target does not need, and checks the choice on the remaining
/// quarter, raising the target on the choice samples by the shortfall
/// while the check misses. Every figure is measured by running a program.
/// Records the choice on the function as `strata.weight_bits` (a
/// dictionary of node name to width), which strata-edge-quantize-weights
/// reads.
mlir::FailureOr<WeightPrecisionReport>
chooseWeightPrecision(mlir::ModuleOp module,
                      const WeightPrecisionOptions &options,
                      const CompileOptions &base);

/// Calibrates every `strata.observe` QDQ pair in `module` (hl, after
/// strata-insert-qdq). `base` supplies the lowering options of the
/// calibration program (its patterns and delegate are not used).
mlir::FailureOr<QuantizationReport> calibrate(mlir::ModuleOp module,
                                              const CalibrationOptions &options,
                                              const CompileOptions &base);

} // namespace strata

#endif // STRATA_CALIBRATION_CALIBRATE_H
