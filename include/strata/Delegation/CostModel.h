//===- CostModel.h - what a partition costs, delegated or not ---*- C++ -*-===//
//
// The partitioner's cost model. Each edge op has a work estimate in one
// op class: multiply-adds for convolutions and matrix products, elements
// for the rest. A calibration prices a unit of work per class, for the
// portable kernels and for a delegate, from measurements on one machine
// (scripts/calibrate-partitioner.sh); a delegate call adds a fixed cost and
// the layout conversion of every tensor crossing the partition's boundary.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DELEGATION_COSTMODEL_H
#define STRATA_DELEGATION_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>

namespace strata {

class Backend;

/// The work of one edge op.
struct OpWork {
  /// "conv", "conv_depthwise", "conv_grouped", "matmul", "pool",
  /// "reduce", "normalize", "eltwise", "data", or "other".
  std::string opClass;
  /// Multiply-adds (conv*, matmul) or elements (the rest).
  double units = 0;
};

/// The work of `op` from its static shapes; zero units when a shape is not
/// static.
OpWork estimateWork(mlir::Operation *op);
/// The same, with each value's type given by `typeOf` (a partition with
/// dynamic extents is priced at its bounds).
OpWork estimateWork(mlir::Operation *op,
                    llvm::function_ref<mlir::Type(mlir::Value)> typeOf);

/// Prices of work on one machine, for the portable kernels and one
/// delegate. JSON (format "strata-partition-cost", version 1):
///
///   {"format": "strata-partition-cost", "version": 1,
///    "machine": "...", "threads": 1, "models": [...],
///    "portable": {"scale": 1.0, "op_ns": 50, "ns_per_unit": {"conv": 0.05,
///    ...}}, "delegate": {"scale": 1.0, "op_ns": 300, "ns_per_unit": {...},
///                 "call_ns": 2000, "boundary_ns_per_byte": 0.1}}
///
/// An op costs scale * (op_ns + ns_per_unit[class] * units). A class the
/// delegate side lacks is priced as on the portable side; one both lack,
/// as "other".
class CostCalibration {
public:
  /// Parses `json`; errors name `source`.
  static llvm::Expected<CostCalibration> parse(llvm::StringRef json,
                                               llvm::StringRef source);

  /// Estimated nanoseconds of `work` on the portable kernels.
  double portableNs(const OpWork &work) const;
  /// Estimated nanoseconds of `work` inside the delegate.
  double delegateNs(const OpWork &work) const;
  /// The delegate's fixed cost per call.
  double callNs() const { return call; }
  /// Converting one byte crossing a partition's boundary.
  double boundaryNsPerByte() const { return boundaryPerByte; }
  /// Where the calibration came from (a file, or the backend's built-in).
  const std::string &getSource() const { return source; }
  /// The machine it was measured on.
  const std::string &getMachine() const { return machine; }

private:
  struct Side {
    double scale = 1;
    /// Each op's fixed cost (dispatch, a primitive's start).
    double opNs = 0;
    std::map<std::string, double> nsPerUnit;
  };
  static double price(const Side &side, const Side *fallback,
                      const OpWork &work);
  Side portable, delegate;
  double call = 0, boundaryPerByte = 0;
  std::string source, machine;
};

/// The calibration `spec` names for `backend`: "none" (std::nullopt),
/// "builtin" (the backend's own, std::nullopt when it has none) or the path
/// of a calibration file. Errors name the file.
llvm::Expected<std::optional<CostCalibration>>
loadCostCalibration(llvm::StringRef spec, const Backend &backend);

} // namespace strata

#endif // STRATA_DELEGATION_COSTMODEL_H
