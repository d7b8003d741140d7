//===- Conformance.h - the ONNX backend node-test runner --------*- C++ -*-===//
//
// Runs ONNX backend node tests (model.onnx + test_data_set_N/{input,output}
// _N.pb, written by the ONNX project) through the whole pipeline: import,
// lower, emit, load, execute, compare. Each test runs in a child process with
// a time limit, so a crash or hang is a classified failure, not the end of
// the run.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CONFORMANCE_CONFORMANCE_H
#define STRATA_CONFORMANCE_CONFORMANCE_H

#include "strata/Conformance/NodeTestScope.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata {

/// One test's outcome.
struct ConformanceRecord {
  std::string name;
  /// "passed", "failed" or "skipped".
  std::string status;
  /// Failure class: "import", "lower", "kernel-missing", "run-error",
  /// "mismatch", "crash", "timeout"; for skips "out-of-scope".
  std::string failureClass;
  std::string message;
  /// Ops a delegate ran (with ConformanceOptions::backends).
  int delegatedOps = 0;
};

struct ConformanceOptions {
  /// Folder holding test_* folders.
  std::string root;
  /// Only tests whose name matches (llvm::Regex); empty: all.
  std::string filter;
  /// Tests out of scope (training, sequence/optional, string, random, ...)
  /// are skipped; none when unset.
  std::optional<NodeTestScope> scope;
  /// Tests skipped by name, each with a documented reason.
  std::set<std::string> skippedTests;
  double rtol = 1e-3;
  double atol = 1e-7;
  /// Seconds a single test may take.
  unsigned timeoutSeconds = 60;
  /// Delegate backends the programs are compiled for, in priority order
  /// (as `--backend a,b`); empty: the portable kernels alone.
  std::vector<std::string> backends;
  /// Where each passing test's program is written as NAME.strata (to run
  /// it again elsewhere: scripts/cross-aarch64.sh runs them on aarch64);
  /// empty: nowhere.
  std::string programsDir;
};

/// Reads a list file: one entry per line, '#' starts a comment; the first
/// word of a line is the entry.
std::set<std::string> readListFile(const std::string &path);

/// Runs one test folder in-process (no child process).
ConformanceRecord runConformanceTest(const std::string &testDir,
                                     const ConformanceOptions &options);

/// Runs every matching test, each in a child process.
std::vector<ConformanceRecord>
runConformanceSuite(const ConformanceOptions &options);

/// The JSON array of records.
llvm::json::Value toJSON(const std::vector<ConformanceRecord> &records);

} // namespace strata

#endif // STRATA_CONFORMANCE_CONFORMANCE_H
