//===- TensorCompare.h - compare outputs with expected tensors --*- C++ -*-===//
//
// One comparison for every tool that checks numbers (strata-run --expect,
// strata-compile --verify, the conformance runner), with numpy's allclose
// rule (equal_nan, as numpy.testing.assert_allclose uses) plus the max
// absolute and relative L2 errors. Part of StrataRuntimeIO, not the core.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_TENSORCOMPARE_H
#define STRATA_RUNTIME_TENSORCOMPARE_H

#include "strata/Runtime/Tensor.h"

#include <string>

namespace strata::runtime {

/// How far `actual` is from `expected`.
struct TensorComparison {
  /// Largest |actual - expected| over elements that are not both NaN or
  /// both the same infinity.
  double maxAbs = 0;
  /// ||actual - expected||_2 / ||expected||_2 (the plain norm of the
  /// difference when `expected` is all zeros).
  double relL2 = 0;
  /// Elements violating |a - e| <= atol + rtol * |e| (a NaN matches only a
  /// NaN, an infinity only the same infinity).
  int64_t mismatches = 0;
  /// Set when the dtypes or shapes differ; the numbers are then unset.
  std::string typeMismatch;
};

/// Element `index` of `view` as a double (NaN for an unsupported dtype).
double elementAsDouble(const TensorView &view, int64_t index);

/// Compares two tensors elementwise as doubles.
TensorComparison compareTensors(const TensorView &actual,
                                const TensorView &expected, double atol,
                                double rtol);

} // namespace strata::runtime

#endif // STRATA_RUNTIME_TENSORCOMPARE_H
