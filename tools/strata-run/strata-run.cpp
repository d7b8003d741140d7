//===- strata-run.cpp - run a .strata program -----------------------------===//
//
// Placeholder until the runtime lands: reports that execution is not built.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/Error.h"

#include <cstdio>

int main(int, char **) {
  strata::runtime::Error error(strata::runtime::ErrorCode::NotSupported,
                               "program execution is not implemented yet");
  std::fprintf(stderr, "strata-run: %s\n", error.toString().c_str());
  return 1;
}
