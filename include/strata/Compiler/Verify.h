//===- Verify.h - a program against its reference (--verify) ----*- C++ -*-===//
//
// strata-compile --verify as a library call: the compiled program run
// against the untransformed reference (the same model compiled with no
// backend rewrites, CompileOptions' referenceOptions) on seeded random
// inputs (a dynamic program at its smallest, largest and an odd shape), and
// against a test_data_set folder's expected outputs.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_VERIFY_H
#define STRATA_COMPILER_VERIFY_H

#include "strata/Runtime/TensorIO.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace strata {

struct VerifyOptions {
  /// The largest rel-L2 error accepted per output.
  double maxRelL2 = 1e-5;
  /// Seed of the random inputs.
  uint64_t seed = 0;
  /// A test_data_set folder (input_N.pb, output_N.pb), or empty.
  std::string dataDir;
};

/// What verifyProgram compared.
struct VerifyResult {
  struct Comparison {
    /// "reference", "reference at batch=3", or the data folder.
    std::string against;
    unsigned output = 0;
    double maxAbs = 0, relL2 = 0;
    bool pass = false;
  };
  bool ok = false;
  std::vector<Comparison> comparisons;
  /// The inputs of the first comparison that failed (what --bisect runs).
  std::vector<runtime::OwnedTensor> failing;

  /// {"ok", "comparisons": [{against, output, max_abs, rel_l2, pass}]}
  llvm::json::Value toJSON() const;
};

/// Runs `program` against `reference` (both .strata bytes) and the data
/// folder as --verify does, printing a line per output to `out` ("verify
/// (reference): output 0 max_abs 1e-07 rel_l2 2e-08 ok") and problems to
/// `err`.
VerifyResult verifyProgram(const std::string &program,
                           const std::string &reference,
                           const VerifyOptions &options, llvm::raw_ostream &out,
                           llvm::raw_ostream &err);

} // namespace strata

#endif // STRATA_COMPILER_VERIFY_H
