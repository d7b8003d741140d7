//===- Observation.h - the model run over calibration data ------*- C++ -*-===//
//
// Calibration, SmoothQuant, bias correction and the sensitivity analysis
// all need values of the model on the calibration samples. An
// ObservationRun compiles a copy of the module in which every value to
// observe is an extra output, loads it in Strata's own runtime and streams
// the samples through it, one at a time: memory does not grow with their
// number, and every pass over the data sees the same samples. The copy is
// the float model (quantize/dequantize pairs removed) unless some pairs
// are kept.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_COMPILER_OBSERVATION_H
#define STRATA_LIB_COMPILER_OBSERVATION_H

#include "strata/Pipelines/CompileOptions.h"
#include "strata/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace strata {

class ObservationRun {
public:
  ~ObservationRun();

  /// Compiles the observation program of `module` for `values` (each
  /// computed in a function body) and opens the calibration data that
  /// `options` names. `base` supplies the lowering options (its patterns
  /// and delegate are not used). Every QDQ pair is removed but those
  /// started by the `quant.qcast` results in `keepPairs`. `weights`, when
  /// given, quantizes the matmul weights after lowering to edge as
  /// --quantize-weights would.
  static mlir::FailureOr<std::unique_ptr<ObservationRun>>
  create(mlir::ModuleOp module, llvm::ArrayRef<mlir::Value> values,
         const CalibrationOptions &options, const CompileOptions &base,
         llvm::ArrayRef<mlir::Value> keepPairs = {},
         const std::optional<CompileOptions::QuantizeWeights> &weights =
             std::nullopt);

  /// The number of samples each pass runs.
  int64_t samples() const;

  /// One pass: runs every sample and calls `visit(k, data, n)` with the
  /// f32 elements of observed value k. Draws a progress bar labelled
  /// `label` when the options ask for one. Errors name the sample.
  mlir::LogicalResult
  pass(llvm::StringRef label,
       llvm::function_ref<void(size_t, const float *, size_t)> visit);

  /// Runs sample `index` alone, calling `visit` as pass() does.
  mlir::LogicalResult
  sample(int64_t index,
         llvm::function_ref<void(size_t, const float *, size_t)> visit);

private:
  ObservationRun();
  struct State;
  std::unique_ptr<State> state;
  mlir::ModuleOp module;
};

/// A progress bar on stderr, drawn only when it is a terminal and
/// `enabled`.
class Progress {
public:
  Progress(bool enabled, int64_t total);
  void update(llvm::StringRef what, int64_t done);

private:
  bool enabled;
  int64_t total;
};

} // namespace strata

#endif // STRATA_LIB_COMPILER_OBSERVATION_H
