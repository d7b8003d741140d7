//===- Execute.h - run compiled programs in-process and compare -*- C++ -*-===//
//
// The compiler side's use of the runtime: --verify and the conformance
// runner load a freshly emitted program from memory, run it and compare its
// outputs with references produced elsewhere (runtime::compareTensors).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CALIBRATION_EXECUTE_H
#define STRATA_CALIBRATION_EXECUTE_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/Program.h"
#include "strata/Runtime/TensorCompare.h"
#include "strata/Runtime/TensorIO.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata {

/// A program loaded once and run many times (calibration streams samples
/// through one).
class ProgramSession {
public:
  ~ProgramSession();
  /// Loads method `method` (the first when empty) of the program in
  /// `bytes` (copied: the session owns them).
  static runtime::Result<std::unique_ptr<ProgramSession>>
  open(std::string bytes, const std::string &method = "");

  size_t inputCount() const;
  size_t outputCount() const;
  /// The method's own input buffer `index` (its dtype and shape).
  runtime::Result<runtime::TensorView> input(size_t index);
  /// Runs on `inputs`; outputs stay readable until the next run.
  runtime::Error run(const std::vector<runtime::OwnedTensor> &inputs);
  runtime::Result<runtime::TensorView> output(size_t index);
  /// The loaded method.
  const runtime::Method &method() const;

private:
  ProgramSession();
  struct State;
  std::unique_ptr<State> state;
};

/// Runs method `method` (the first when empty) of the program in `bytes` on
/// `inputs`; returns copies of its outputs.
runtime::Result<std::vector<runtime::OwnedTensor>>
runProgram(const std::string &bytes,
           const std::vector<runtime::OwnedTensor> &inputs,
           const std::string &method = "");

/// Seeded inputs matching the method's input types: random sample 0 of
/// runtime::RandomDistribution::verifyDefault() (floating types uniform in
/// [-1, 1), booleans 0 or 1, integers in [0, 10); every byte of each element
/// written) from runtime::SampleSource.
runtime::Result<std::vector<runtime::OwnedTensor>>
makeRandomInputs(const std::string &bytes, uint64_t seed,
                 const std::string &method = "");

/// As makeRandomInputs, at the input shapes a dynamic method has when its
/// symbol `i` has extent `extents[i]` (runtime::Method::dimSymbols()).
runtime::Result<std::vector<runtime::OwnedTensor>>
makeRandomInputsAt(const std::string &bytes, uint64_t seed,
                   const std::vector<int64_t> &extents,
                   const std::string &method = "");

/// A dynamic method's symbols (empty for a static one or on error).
std::vector<runtime::Method::DimSymbol>
programDimSymbols(const std::string &bytes, const std::string &method = "");

} // namespace strata

#endif // STRATA_CALIBRATION_EXECUTE_H
