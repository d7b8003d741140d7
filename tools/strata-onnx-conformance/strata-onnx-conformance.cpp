//===- strata-onnx-conformance.cpp - run the ONNX node tests --------------===//
//
// strata-onnx-conformance DIR [--json out.json] [--filter REGEX]
//   [--out-of-scope FILE] [--skip FILE] [--min-passed N]
// Prints a line per failure and closes with "N passed, M failed, K skipped".
//
//===----------------------------------------------------------------------===//
#include "strata/Conformance/Conformance.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

static cl::opt<std::string> root(cl::Positional, cl::Required,
                                 cl::desc("<node test folder>"));
static cl::opt<std::string> jsonPath("json", cl::desc("Write records as JSON"));
static cl::opt<std::string> filter("filter", cl::desc("Only matching tests"));
static cl::opt<std::string>
    outOfScope("out-of-scope",
               cl::desc("Out-of-scope list (test/Import/out-of-scope.txt)"));
static cl::opt<std::string> skipList("skip", cl::desc("File of skipped tests"));
static cl::opt<std::string> backendList(
    "backend",
    cl::desc("Compile for these delegate backends (a,b: a priority list, as "
             "strata-compile's --backend); default: portable kernels only"));
static cl::opt<std::string> programsDir(
    "programs-dir",
    cl::desc("Write each passing test's program to DIR/NAME.strata"));
static cl::opt<unsigned>
    minPassed("min-passed",
              cl::desc("Fail when fewer tests pass (the CI floor)"),
              cl::init(0));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "ONNX backend node-test runner\n");
  strata::ConformanceOptions options;
  options.root = root;
  options.filter = filter;
  options.programsDir = programsDir;
  if (!programsDir.empty())
    if (std::error_code ec = sys::fs::create_directories(programsDir)) {
      errs() << "strata-onnx-conformance: cannot create " << programsDir << ": "
             << ec.message() << "\n";
      return 1;
    }
  if (!outOfScope.empty()) {
    auto scope = strata::NodeTestScope::read(outOfScope);
    if (!scope) {
      errs() << "strata-onnx-conformance: " << toString(scope.takeError())
             << "\n";
      return 1;
    }
    options.scope = std::move(*scope);
  }
  if (!skipList.empty())
    options.skippedTests = strata::readListFile(skipList);
  if (!backendList.empty()) {
    SmallVector<StringRef> names;
    StringRef(backendList).split(names, ',');
    for (StringRef name : names)
      options.backends.push_back(name.str());
  }
  std::vector<strata::ConformanceRecord> records =
      strata::runConformanceSuite(options);

  std::map<std::string, int> counts, classes;
  int delegatedPasses = 0;
  for (const strata::ConformanceRecord &record : records) {
    ++counts[record.status];
    if (record.status == "passed" && record.delegatedOps > 0)
      ++delegatedPasses;
    if (record.status == "failed") {
      ++classes[record.failureClass];
      outs() << "FAILED " << record.name << " [" << record.failureClass << "] "
             << StringRef(record.message).split('\n').first << "\n";
    }
  }
  for (const auto &[failureClass, count] : classes)
    outs() << "failure class " << failureClass << ": " << count << "\n";
  if (!jsonPath.empty()) {
    Error error = writeToOutput(jsonPath, [&](raw_ostream &os) {
      os << formatv("{0:2}", strata::toJSON(records)) << "\n";
      return Error::success();
    });
    if (error) {
      errs() << "cannot write " << jsonPath << ": "
             << toString(std::move(error)) << "\n";
      return 1;
    }
  }
  if (!backendList.empty())
    outs() << "delegated (" << backendList << "): " << delegatedPasses
           << " of the passed tests ran ops on a delegate\n";
  outs() << "conformance: " << counts["passed"] << " passed, "
         << counts["failed"] << " failed, " << counts["skipped"]
         << " skipped\n";
  if (unsigned(counts["passed"]) < minPassed) {
    errs() << "conformance: " << counts["passed"]
           << " passed is below the floor of " << minPassed << "\n";
    return 1;
  }
  return 0;
}
