//===- Execute.h - run compiled programs in-process and compare -*- C++ -*-===//
//
// The compiler side's use of the runtime: --verify and the conformance
// runner load a freshly emitted program from memory, run it and compare its
// outputs with references produced elsewhere (runtime::compareTensors).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_EXECUTE_H
#define STRATA_COMPILER_EXECUTE_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/TensorCompare.h"
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

} // namespace strata

#endif // STRATA_COMPILER_EXECUTE_H
