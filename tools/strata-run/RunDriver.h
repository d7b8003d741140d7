//===- RunDriver.h - strata-run's options and driver ------------*- C++ -*-===//
#ifndef STRATA_TOOLS_STRATA_RUN_RUNDRIVER_H
#define STRATA_TOOLS_STRATA_RUN_RUNDRIVER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::tools {

struct RunOptions {
  std::string model;
  std::string method;              ///< Empty: "forward", else the first.
  std::vector<std::string> inputs; ///< --input files, in input order.
  std::string inputsDir;           ///< --inputs DIR (input_*.pb).
  /// --input-shape I=DxD...: the shape of random input I of a method with
  /// dynamic dimensions (else it is drawn at its bounds).
  std::vector<std::pair<size_t, std::vector<int64_t>>> inputShapes;
  std::string outputDir; ///< --output-dir.
  std::string expectDir; ///< --expect.
  double atol = 1e-4, rtol = 1e-3, relL2 = 1e-3;
  /// When set, an output passes on SQNR alone (20 log10 ||want|| /
  /// ||got - want|| >= minSQNR dB): the check for quantized programs,
  /// whose elements are off by up to a quantization step.
  std::optional<double> minSQNR;
  int bench = 0;
  /// --steps N: run the method N times in a row, its state carried from
  /// each call to the next (a stateful program), the same inputs each time;
  /// the outputs reported are the last call's.
  int steps = 1;
  /// --generate N: N tokens from --prompt with --prefill-method and
  /// --decode-method (docs/decoders.md), sampled as `sampling` says
  /// (--temperature, --top-k, --top-p, --seed).
  int64_t generate = 0;
  std::vector<int64_t> prompt;
  std::string prefillMethod, decodeMethod;
  double temperature = 0, topP = 1;
  int64_t topK = 0;
  bool profile = false;
  /// --profile-runs N: profile N runs, report each entry's median.
  int profileRuns = 1;
  /// --profile-tsv FILE: the profile also as tab-separated lines, in ns.
  std::string profileTsv;
  uint64_t seed = 0;
  bool useFileLoader = false; ///< --no-mmap.
  int threads = 0;            ///< --threads (0: each delegate's default).
  /// --delegate-option KEY=VALUE: set on every delegate that declares KEY.
  std::vector<std::string> delegateOptions;
  bool listKernels = false; ///< --list-kernels.
};

/// Parses argv; returns false (after printing why) on a usage error.
bool parseRunOptions(int argc, char **argv, RunOptions &options, bool &help);
/// Prints the usage text.
void printRunUsage();
/// Runs the program; returns the process exit status (0 pass, 1 fail).
int runProgram(const RunOptions &options);
/// Prints the kernels and delegates this runtime has, one per line (the
/// format strata-compile --target-kernels reads).
int listKernels();

} // namespace strata::tools

#endif // STRATA_TOOLS_STRATA_RUN_RUNDRIVER_H
