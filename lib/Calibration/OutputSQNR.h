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

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace strata {

struct CalibrationOptions;
struct CompileOptions;

/// The f32 results of the module's one function that an op computes;
/// `what` names the caller in errors.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
floatOutputs(mlir::ModuleOp module, llvm::StringRef what);

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

  /// The pooled figure of `measure`, and the 10th percentile of the
  /// samples' own figures (each over every output of one sample; nearest
  /// rank, so the worst sample's when there are fewer than 10): the SQNR
  /// that nine samples in ten reach.
  struct Figures {
    double pooledDB = 0, lowDecileDB = 0;
  };
  mlir::FailureOr<Figures>
  measureSamples(llvm::ArrayRef<mlir::Value> keepPairs);

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
};

} // namespace strata

#endif // STRATA_LIB_COMPILER_OUTPUTSQNR_H
