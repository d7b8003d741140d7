//===- OutputSQNR.h - a program's outputs against the float model -*- C++
//-*-===//
//
// The sensitivity analysis and automatic mixed precision both ask how far
// a program that keeps some quantized tensors' QDQ pairs lands from the
// float model: the float model's outputs on every calibration sample are
// computed once, then each program's are compared against them as an
// output SQNR over every f32 output and sample.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_COMPILER_OUTPUTSQNR_H
#define STRATA_LIB_COMPILER_OUTPUTSQNR_H

#include "strata/Pipelines/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace strata {

/// The f32 results of the module's one function that an op computes;
/// `what` names the caller in errors.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
floatOutputs(mlir::ModuleOp module, llvm::StringRef what);

/// A figure in dB for a JSON report, null where infinite (an exact tensor,
/// output or program).
llvm::json::Value jsonDecibels(double v);

/// The rank (1-based, from the worst) of the sample figure OutputSQNR
/// reports as the 10th percentile of `n` samples (below).
size_t lowDecileRank(size_t n);

class OutputSQNR {
public:
  /// Runs the float model (every pair removed) over the calibration samples
  /// `options` names and keeps its outputs (a classifier's logits take 4 KB
  /// a sample).
  static mlir::FailureOr<std::unique_ptr<OutputSQNR>>
  create(mlir::ModuleOp module, llvm::StringRef what,
         const CalibrationOptions &options, const CompileOptions &base);

  /// 10 log10(sum y^2 / sum (y - y_q)^2) over every output and sample of
  /// the program keeping the pairs started by `keepPairs`.
  mlir::FailureOr<double> measure(llvm::ArrayRef<mlir::Value> keepPairs);

  /// Which samples a figure is over. A search that chooses on the samples
  /// it is judged on overfits them: it chooses on `Choose` and checks its
  /// choice on `Check`, every fourth sample (3, 7, ...), which it never
  /// ranks on. With fewer than 4 samples `Check` is empty and `Choose`
  /// is every sample.
  enum class Fold { All, Choose, Check };
  /// A search whose check samples miss its target raises the target on
  /// its choice samples and searches again, at most this many rounds.
  static constexpr int kCheckRounds = 8;
  /// The margin after a round whose check samples reached only `checkDB`
  /// (the lower of their pooled and 10th-percentile figures) against
  /// `targetDB`: the shortfall and 0.1 dB, at most 2 dB a round, so that
  /// one outlier among the check samples does not cost the margin its
  /// whole shortfall when less will do.
  static double raisedMargin(double marginDB, double targetDB, double checkDB) {
    return marginDB + std::min(targetDB - checkDB + 0.1, 2.0);
  }
  bool inFold(int64_t sample, Fold fold) const;
  int64_t foldSize(Fold fold) const;

  /// The pooled figure of `measure`, and the 10th percentile of the
  /// samples' own figures (each over every output of one sample) as a
  /// lower bound at 90% confidence: the k-th worst sample, k the largest
  /// rank that at least k of n samples fall under the true 10th
  /// percentile with probability 0.9 (binomial; the worst sample below 22
  /// samples, the 4th worst of 75). A search judged by the nearest-rank
  /// percentile of a few samples overfits them: on held-out images the
  /// 10th percentile landed 0.3 dB under targets that 25 check samples met.
  struct Figures {
    double pooledDB = 0, lowDecileDB = 0;
    /// With labels (setLabels): the summed negative log-likelihood of the
    /// labelled tokens under output 0, the float model's on the same
    /// samples, and their count.
    double nll = 0, floatNll = 0;
    int64_t tokens = 0;
    /// An upper bound at 90% confidence on the mean rise of the negative
    /// log-likelihood per token: over the samples' own means (a sample's
    /// tokens are not independent), their mean plus the one-sided 90%
    /// quantile of Student's t times their standard error (1.28 for many
    /// samples, 1.89 for three): a choice judged by the pooled rise alone
    /// rests on the mean of a few hundred tokens.
    double nllRiseBound = 0;
    /// The perplexity's rise over the float model's at that bound.
    double perplexityRiseBound() const {
      return tokens ? std::exp(nllRiseBound) - 1 : 0;
    }
    /// The perplexity's rise over the float model's (0.01: 1%).
    double perplexityRise() const {
      return tokens ? std::exp((nll - floatNll) / tokens) - 1 : 0;
    }
    /// The float model's perplexity on these samples.
    double floatPerplexity() const {
      return tokens ? std::exp(floatNll / tokens) : 0;
    }
  };
  /// Reads the labels of a perplexity (WeightPrecisionOptions::labelsPath):
  /// an int64 .npy, samples first, one label for each row of output 0 (its
  /// last axis the vocabulary); negative labels are skipped. `what` names
  /// the caller in errors.
  mlir::LogicalResult setLabels(llvm::StringRef path, llvm::StringRef what);
  bool hasLabels() const { return !labels.empty(); }
  /// Over the samples of `fold`; `weights`, when given, compiles the
  /// program with those matmul weights quantized.
  mlir::FailureOr<Figures>
  measureSamples(llvm::ArrayRef<mlir::Value> keepPairs, Fold fold = Fold::All,
                 const std::optional<CompileOptions::QuantizeWeights> &weights =
                     std::nullopt);

  llvm::ArrayRef<mlir::Value> outputs() const { return outputs_; }
  int64_t samples() const { return static_cast<int64_t>(expected.size()); }

private:
  OutputSQNR(mlir::ModuleOp module, const CalibrationOptions &options,
             const CompileOptions &base);
  mlir::ModuleOp module;
  const CalibrationOptions &options;
  const CompileOptions &base;
  llvm::SmallVector<mlir::Value> outputs_;
  std::vector<std::vector<std::vector<float>>> expected;
  /// setLabels: each sample's labels, the vocabulary, and the float
  /// model's summed negative log-likelihood and labelled tokens.
  std::vector<std::vector<int64_t>> labels;
  int64_t vocabulary = 0;
  std::vector<double> floatNll;
  std::vector<int64_t> labelled;
};

} // namespace strata

#endif // STRATA_LIB_COMPILER_OUTPUTSQNR_H
