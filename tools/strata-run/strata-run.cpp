//===- strata-run.cpp - run a .strata program -----------------------------===//
//
// strata-run model.strata [--input FILE]... [--inputs DIR] [--output-dir DIR]
//            [--expect DIR [--atol A] [--rtol R] [--rel-l2 L]] [--bench N]
//            [--profile] [--method NAME] [--seed S] [--no-mmap]
// See docs/runtime.md. Exit status: 0 ran (and matched), 1 error or
// mismatch, 2 usage error.
//
//===----------------------------------------------------------------------===//
#include "RunDriver.h"

int main(int argc, char **argv) {
  strata::tools::RunOptions options;
  bool help = false;
  if (!strata::tools::parseRunOptions(argc, argv, options, help))
    return 2;
  if (help) {
    strata::tools::printRunUsage();
    return 0;
  }
  return strata::tools::runProgram(options);
}
