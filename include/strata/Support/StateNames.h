//===- StateNames.h - names shared by the state stages ----------*- C++ -*-===//
//
// What the edge stage that lays out a growing state, the lowering to exec
// and the binding of states agree on: how `--state past-present` pairs an
// input with its output, and the attribute that records a state's stored
// layout on its way from the edge function to the program.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_STATENAMES_H
#define STRATA_SUPPORT_STATENAMES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace strata {

/// A dictionary on a func.func (and then its exec.method) from an input's or
/// output's model name to the permutation it is stored in: stored dimension
/// `d` is the model's dimension `permutation[d]`.
inline constexpr llvm::StringLiteral kStatePermutationsAttr =
    "strata.state_permutations";

/// The output that feeds `input` at the next call under `past-present`:
/// `past_key_values.X` and `past.X` pair with `present.X`.
inline std::optional<std::string> presentNameFor(llvm::StringRef input) {
  for (llvm::StringRef prefix : {"past_key_values.", "past."})
    if (input.starts_with(prefix) && input.size() > prefix.size())
      return ("present." + input.drop_front(prefix.size())).str();
  return std::nullopt;
}

/// A --state entry other than past-present: `IN=OUT`, both names given;
/// std::nullopt otherwise.
inline std::optional<std::pair<llvm::StringRef, llvm::StringRef>>
parseStatePair(llvm::StringRef spec) {
  auto [input, output] = spec.split('=');
  if (input.empty() || output.empty())
    return std::nullopt;
  return std::make_pair(input, output);
}

/// Whether the input named `name` is fed from a state under `specs` (the
/// --state entries: IN=OUT, or past-present).
inline bool isStateInput(llvm::StringRef name,
                         llvm::ArrayRef<std::string> specs) {
  for (const std::string &spec : specs) {
    if (spec == "past-present") {
      if (presentNameFor(name))
        return true;
    } else if (auto pair = parseStatePair(spec); pair && pair->first == name) {
      return true;
    }
  }
  return false;
}

} // namespace strata

#endif // STRATA_SUPPORT_STATENAMES_H
