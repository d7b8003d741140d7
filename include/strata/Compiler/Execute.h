//===- Execute.h - run compiled programs in-process and compare -*- C++ -*-===//
//
// The compiler side's use of the runtime: --verify and the conformance
// runner load a freshly emitted program from memory, run it and compare its
// outputs with references produced elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_EXECUTE_H
#define STRATA_COMPILER_EXECUTE_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/TensorIO.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata {

/// Runs method `method` (the first when empty) of the program in `bytes` on
/// `inputs`; returns copies of its outputs.
runtime::Result<std::vector<runtime::OwnedTensor>>
runProgram(const std::string &bytes,
           const std::vector<runtime::OwnedTensor> &inputs,
           const std::string &method = "");

/// Seeded uniform inputs in [-1, 1) (integers in [0, 10)) matching the
/// method's input types.
runtime::Result<std::vector<runtime::OwnedTensor>>
makeRandomInputs(const std::string &bytes, uint64_t seed,
                 const std::string &method = "");

/// How far `actual` is from `expected`.
struct Comparison {
  /// Largest |actual - expected|.
  double maxAbs = 0;
  /// ||actual - expected||_2 / ||expected||_2 (0 when both are zero).
  double relL2 = 0;
  /// Elements violating |a - e| <= atol + rtol * |e| (numpy.allclose).
  int64_t mismatches = 0;
  /// Set when dtype or shape differ; the numbers are then meaningless.
  std::string typeMismatch;
};

/// Compares two tensors elementwise as doubles (NaNs match NaNs).
Comparison compareTensors(const runtime::OwnedTensor &actual,
                          const runtime::OwnedTensor &expected, double atol,
                          double rtol);

} // namespace strata

#endif // STRATA_COMPILER_EXECUTE_H
