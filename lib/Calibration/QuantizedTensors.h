//===- QuantizedTensors.h - the quantized tensors of a module ---*- C++ -*-===//
//
// The QDQ pairs of a module after strata-insert-qdq, grouped the way
// calibration and the reports count them: one activation per observed
// value (every pair behind the same scale-keeping chain), one fixed-range
// output per value, one weight per pair. Shared by calibration and the
// sensitivity analysis, with the names the reports give them.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_COMPILER_QUANTIZEDTENSORS_H
#define STRATA_LIB_COMPILER_QUANTIZEDTENSORS_H

#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace strata {

struct QuantizedTensor {
  enum class Role { Activation, Fixed, Weight };
  Role role;
  /// The value whose range decides the scale (a weight: the constant).
  mlir::Value value;
  /// The pairs quantizing it.
  llvm::SmallVector<mlir::quant::QuantizeCastOp> qcasts;

  /// "activation", "fixed" or "weight".
  llvm::StringRef roleName() const;
  /// The ONNX node producing the value, or the graph input's name.
  std::string name() const;
  /// The groups reading the pairs.
  std::string consumers() const;
  /// The pairs, by their quant.qcast results (what an ObservationRun keeps).
  llvm::SmallVector<mlir::Value> pairs() const;
  /// Whether calibration is still to pick the scale (a pair marked
  /// strata.observe; calibration then sets every pair's).
  bool awaitsCalibration() const;
};

/// Activations (in the order first met), then fixed-range outputs, then
/// weights (the pairs of constants), before and after calibration.
std::vector<QuantizedTensor> collectQuantizedTensors(mlir::ModuleOp module);

} // namespace strata

#endif // STRATA_LIB_COMPILER_QUANTIZEDTENSORS_H
