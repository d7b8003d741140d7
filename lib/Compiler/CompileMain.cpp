//===- CompileMain.cpp - strata-compile's command line --------------------===//
//
// strata-compile model.onnx -o model.strata [--emit ...] [--input-shape ...]
//                [--input-value NAME=V,...]
//   [--report report.json] [--verify [--verify-data DIR] [--bisect]]
//   [--backend NAME [--backend-option K=V]... [--require-delegated]
//    [--tune FILE | --tuning FILE]
//    [--partition-cost=false | --partition-calibration FILE]]
//   [--target-kernels FILE]
//
// Outputs are written atomically (temporary file, then rename): a failed
// compile leaves no file behind and never a partial one.
//
//===----------------------------------------------------------------------===//
#include "strata/Compiler/CompileMain.h"

#include "strata/Backends/Backend.h"
#include "strata/Compiler/Bisect.h"
#include "strata/Compiler/Compiler.h"
#include "strata/Compiler/Diagnostics.h"
#include "strata/Compiler/Execute.h"
#include "strata/Compiler/HTMLReport.h"
#include "strata/Compiler/ModelGraph.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace llvm;

namespace strata {
namespace {

cl::OptionCategory category("strata-compile options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx>"),
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> backendList(
    "backend",
    cl::desc("Backend whose patterns transform the model and whose "
             "delegate takes what it supports; a comma-separated list of "
             "delegates (onednn,xnnpack) is a priority order: each claims "
             "what the earlier ones left, the first one's patterns apply "
             "(--list-backends shows them)"),
    cl::init("portable"), cl::cat(category));
cl::list<std::string> backendOptions(
    "backend-option",
    cl::desc("A compile spec of the backend's delegate: KEY=VALUE, e.g. "
             "winograd=true, or BACKEND:KEY=VALUE for one of a list "
             "(repeatable; --list-backends shows them)"),
    cl::cat(category));
cl::opt<std::string> tuneFile(
    "tune",
    cl::desc("Measured tuning (opt-in): time the delegate's candidate "
             "implementations and keep the fastest, recording the choices "
             "in FILE; a later compile with --tuning FILE reuses them "
             "without measuring (same bytes)"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> tuningFile(
    "tuning",
    cl::desc("Apply the tuning records in FILE (written by --tune) without "
             "measuring"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<bool> requireDelegated(
    "require-delegated",
    cl::desc("Fail when any op falls back to the portable kernels"),
    cl::cat(category));
cl::opt<bool> partitionCost(
    "partition-cost",
    cl::desc("Keep a group of supported ops on the portable kernels when the "
             "delegate's cost model prices it cheaper there, call and "
             "boundary conversions included (default on; --report lists each "
             "decision with its estimates)"),
    cl::init(true), cl::cat(category));
cl::opt<std::string> partitionCalibration(
    "partition-calibration",
    cl::desc("Price partitions with this calibration (written by "
             "scripts/calibrate-partitioner.sh) instead of the delegate's own"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> targetKernels(
    "target-kernels",
    cl::desc("The target runtime's kernel set (one name per line, "
             "'delegate:NAME' for delegates; `strata-run --list-kernels` "
             "prints it): refuse programs that need anything else"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<bool> delegateBlobsInline(
    "delegate-blobs-inline",
    cl::desc("Store delegate blobs inside the flatbuffer instead of in "
             "segments"),
    cl::cat(category));
cl::OptionCategory quantizeCategory("strata-compile quantization options");
cl::opt<bool> quantize(
    "quantize",
    cl::desc("Quantize to int8 at the QDQ points of the backend's quantized "
             "patterns, calibrated on --calibration-data"),
    cl::cat(quantizeCategory));
cl::opt<std::string> calibrationData(
    "calibration-data",
    cl::desc("Representative inputs: a .npy with one sample per leading "
             "index, or a folder of .pb/.npy samples (or of folders with "
             "input_N.pb); 'random' (uniform [0, 1)) or 'random-normal' "
             "(N(0, 1)) draw seeded samples of the input's shape"),
    cl::value_desc("dir|file.npy"), cl::cat(quantizeCategory));
cl::opt<std::string> calibrationMethod(
    "calibration-method",
    cl::desc("minmax (default), percentile, entropy (KL) or mse"),
    cl::init("minmax"), cl::cat(quantizeCategory));
cl::opt<double> calibrationPercentile(
    "calibration-percentile",
    cl::desc("The percentile --calibration-method percentile keeps"),
    cl::init(99.99), cl::cat(quantizeCategory));
cl::opt<int64_t> calibrationSamples(
    "calibration-samples",
    cl::desc("Use at most N calibration samples (0: all)"), cl::init(0),
    cl::cat(quantizeCategory));
cl::opt<uint64_t> calibrationSeed(
    "calibration-seed",
    cl::desc("Seed of --calibration-data random|random-normal (0)"),
    cl::init(0),
    cl::cat(quantizeCategory));
cl::opt<std::string> quantizeActivations(
    "quantize-activations",
    cl::desc("symmetric (default; zero point 0, as TensorRT requires) or "
             "asymmetric"),
    cl::init("symmetric"), cl::cat(quantizeCategory));
cl::opt<std::string> quantizeScales(
    "quantize-scales",
    cl::desc("float (default: max|x| / 127 and the like) or power-of-two "
             "(each scale rounded up to one; batch normalizations folded "
             "into their convolutions first, biases rounded to whole int32 "
             "accumulator steps: every layer is then exact in float, so a "
             "runtime executing the exported QDQ file reproduces the int8 "
             "program bit for bit, and requantization is a shift)"),
    cl::init("float"), cl::cat(quantizeCategory));
cl::list<std::string> quantizeSkipNodes(
    "quantize-skip-nodes",
    cl::desc("ONNX node names kept in float (comma separated)"),
    cl::CommaSeparated, cl::cat(quantizeCategory));
cl::list<std::string> quantizeSkipOps(
    "quantize-skip-ops",
    cl::desc("ONNX op types kept in float, e.g. Gemm (comma separated)"),
    cl::CommaSeparated, cl::cat(quantizeCategory));
cl::opt<int64_t> quantizeMinWeightElements(
    "quantize-min-weight-elements",
    cl::desc("Keep in float the groups whose weight has fewer elements"),
    cl::init(0), cl::cat(quantizeCategory));
cl::opt<bool> smooth(
    "smooth",
    cl::desc("SmoothQuant before quantizing: move per-channel activation "
             "range into the weights at the backend's smooth sites"),
    cl::cat(quantizeCategory));
cl::opt<double> smoothAlpha(
    "smooth-alpha",
    cl::desc("SmoothQuant's migration strength in [0, 1] (0.5)"),
    cl::init(0.5), cl::cat(quantizeCategory));
cl::opt<bool> biasCorrection(
    "bias-correction",
    cl::desc("After calibration, move each quantized layer's bias by the "
             "mean output shift its weight rounding causes (measured on "
             "the calibration data)"),
    cl::cat(quantizeCategory));
cl::opt<bool> quantizeSensitivity(
    "quantize-sensitivity",
    cl::desc("After calibration, measure the output SQNR against the float "
             "model on the calibration data with every tensor quantized and "
             "with each quantized tensor alone (one program each), to pick "
             "what --quantize-skip-nodes should keep in float"),
    cl::cat(quantizeCategory));
cl::opt<double> quantizeTargetSqnr(
    "quantize-target-sqnr",
    cl::desc("Keep the fewest quantized tensors in float so that the output "
             "SQNR against the float model reaches DB on the held-out data "
             "(--quantize-eval-data) or else the calibration data (checked "
             "by running each choice)"),
    cl::value_desc("DB"), cl::cat(quantizeCategory));
cl::opt<double> quantizeTargetAccuracyDrop(
    "quantize-target-accuracy-drop",
    cl::desc("Keep the fewest quantized tensors in float so that top-1 "
             "accuracy on the labelled data drops by at most PT percentage "
             "points against the float model"),
    cl::value_desc("PT"), cl::cat(quantizeCategory));
cl::opt<std::string> quantizeEvalData(
    "quantize-eval-data",
    cl::desc("Held-out samples the mixed-precision targets are judged on "
             "(as --calibration-data; default: the calibration samples); "
             "with labels for --quantize-target-accuracy-drop"),
    cl::cat(quantizeCategory));
cl::opt<std::string> quantizeEvalLabels(
    "quantize-eval-labels",
    cl::desc("Their labels: a 1-D int64 .npy, one per sample"),
    cl::cat(quantizeCategory));
cl::opt<bool> noProgress("no-progress",
                         cl::desc("No calibration progress bar"),
                         cl::cat(quantizeCategory));

cl::opt<bool> listBackends("list-backends",
                           cl::desc("List the backends and their patterns"),
                           cl::cat(category));
cl::opt<std::string> planOut(
    "plan-out",
    cl::desc("Write the transformation plan (every pattern match, with its "
             "apply flag) as JSON; without -o, only the plan is written"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string>
    planIn("plan-in",
           cl::desc("Apply the matches a (possibly edited) plan enables"),
           cl::value_desc("file"), cl::cat(category));
cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to write: program (default), mlir-hl, mlir-edge, "
                      "mlir-exec, or onnx-qdq (the transformed model as ONNX, "
                      "with explicit QuantizeLinear/DequantizeLinear after "
                      "--quantize)"),
             cl::init("program"), cl::cat(category));
cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Fix an input's shape: NAME=DIMS, e.g. "
                         "input=1x3x224x224 (repeatable)"),
                cl::cat(category));
cl::list<std::string> inputValues(
    "input-value",
    cl::desc("Freeze an input to constant values: NAME=V or NAME=V,V,... "
             "(e.g. sr=16000); the input leaves the program's signature and "
             "what depends on it folds (repeatable)"),
    cl::cat(category));
cl::opt<bool> printIRAfterAll("print-ir-after-all",
                              cl::desc("Print the IR after every pass"),
                              cl::cat(category));
cl::opt<std::string> reportPath(
    "report",
    cl::desc("Write a JSON report: stage timings, op counts per dialect, "
             "memory plans, the model graph, pattern rewrites, where each op "
             "runs, quantization figures and the bisection"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> reportHTML(
    "report-html",
    cl::desc("Write the report as one self-contained HTML page: the graph "
             "coloured by where each node runs, partitions, the memory plan, "
             "stage times, int8 SQNR per tensor, the bisection"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> reportProfile(
    "report-profile",
    cl::desc("Per-op times for the reports: a `strata-run --profile-tsv` "
             "file of this program"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<bool> verifyOutput(
    "verify",
    cl::desc("Run the compiled program against the untransformed reference "
             "(and --verify-data) and fail above tolerance"),
    cl::cat(category));
cl::opt<std::string> verifyData(
    "verify-data",
    cl::desc("A test_data_set folder (input_N.pb, output_N.pb) to verify "
             "against"),
    cl::value_desc("dir"), cl::cat(category));
cl::opt<double> verifyRelL2("verify-rel-l2",
                            cl::desc("Largest rel-L2 error --verify accepts"),
                            cl::init(1e-5), cl::cat(category));
cl::opt<unsigned> verifySeed("verify-seed",
                             cl::desc("Seed of --verify's random inputs"),
                             cl::init(0), cl::cat(category));
cl::opt<bool> bisectOnFailure(
    "bisect",
    cl::desc("When --verify fails (implied), find the first ONNX node whose "
             "value leaves the tolerance: debug builds of the reference and "
             "of the program, delegates included, expose every node's value "
             "and are compared in topological order (rel-L2 above "
             "--bisect-rel-l2; with --quantize, SQNR below --bisect-sqnr)"),
    cl::cat(category));
cl::opt<double> bisectRelL2(
    "bisect-rel-l2",
    cl::desc("The rel-L2 above which a node of a float program diverges "
             "(1e-3: a single node's value carries more rounding noise, "
             "relative to its norm, than the outputs)"),
    cl::init(1e-3), cl::cat(category));
cl::opt<double> bisectSQNR(
    "bisect-sqnr",
    cl::desc("The SQNR in dB under which a node of an int8 program diverges "
             "(20)"),
    cl::init(20.0), cl::cat(category));
cl::opt<bool> verboseDiagnostics(
    "verbose-diagnostics",
    cl::desc("Print the whole op with each error (for compiler engineers)"),
    cl::cat(category));
cl::opt<uint64_t> segmentAlignment("segment-alignment",
                                   cl::desc("Alignment of file segments"),
                                   cl::init(4096), cl::cat(category));
cl::opt<uint64_t> constantAlignment(
    "constant-alignment", cl::desc("Alignment of constants in their segment"),
    cl::init(64), cl::cat(category));
cl::opt<int64_t> bufferAlignment("buffer-alignment",
                                 cl::desc("Alignment of planned buffers"),
                                 cl::init(64), cl::cat(category));

/// Writes `bytes` to `path` through a temporary file and a rename.
bool writeAtomically(StringRef path, StringRef bytes) {
  if (path == "-") {
    outs() << bytes;
    return true;
  }
  Error error = writeToOutput(path, [&](raw_ostream &os) {
    os << bytes;
    return Error::success();
  });
  if (error) {
    errs() << "strata-compile: cannot write '" << path
           << "': " << toString(std::move(error)) << "\n";
    return false;
  }
  return true;
}

/// Compares `actual` with `expected` output by output; prints one line each.
bool reportComparison(StringRef what,
                      const std::vector<runtime::OwnedTensor> &actual,
                      const std::vector<runtime::OwnedTensor> &expected) {
  if (actual.size() != expected.size()) {
    errs() << "verify (" << what << "): " << actual.size() << " outputs vs "
           << expected.size() << " expected\n";
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < actual.size(); ++i) {
    runtime::OwnedTensor got = actual[i], want = expected[i];
    runtime::TensorComparison c =
        runtime::compareTensors(got.view(), want.view(), 0, 0);
    if (!c.typeMismatch.empty()) {
      errs() << "verify (" << what << "): output " << i << ": "
             << c.typeMismatch << "\n";
      ok = false;
      continue;
    }
    bool pass = c.relL2 <= verifyRelL2;
    outs() << "verify (" << what << "): output " << i << " max_abs "
           << format("%.3g", c.maxAbs) << " rel_l2 "
           << format("%.3g", c.relL2) << (pass ? " ok" : " FAIL") << "\n";
    ok &= pass;
  }
  return ok;
}

/// --verify: the program against the untransformed reference (the same
/// model compiled with no backend rewrites) on seeded random inputs, and
/// against --verify-data's expected outputs. The inputs of the first
/// comparison that fails go to `failing` (what --bisect runs on).
bool verifyProgram(const std::string &program, const std::string &reference,
                   std::vector<runtime::OwnedTensor> &failing) {
  auto inputs = makeRandomInputs(program, verifySeed);
  if (!inputs.ok()) {
    errs() << "verify: " << inputs.error().toString() << "\n";
    return false;
  }
  auto actual = runProgram(program, *inputs);
  auto expected = runProgram(reference, *inputs);
  if (!actual.ok() || !expected.ok()) {
    errs() << "verify: "
           << (actual.ok() ? expected.error() : actual.error()).toString()
           << "\n";
    return false;
  }
  bool ok = reportComparison("reference", *actual, *expected);
  if (!ok)
    failing = *inputs;
  if (verifyData.empty())
    return ok;
  std::vector<runtime::OwnedTensor> dataInputs, dataOutputs;
  for (auto [prefix, list] : {std::pair{"input_", &dataInputs},
                              std::pair{"output_", &dataOutputs}}) {
    for (int i = 0;; ++i) {
      SmallString<256> path(verifyData);
      sys::path::append(path, prefix + std::to_string(i) + ".pb");
      if (!sys::fs::exists(path))
        break;
      auto tensor = runtime::readTensorFile(path.str().str());
      if (!tensor.ok()) {
        errs() << "verify: " << tensor.error().toString() << "\n";
        return false;
      }
      list->push_back(std::move(*tensor));
    }
  }
  auto onData = runProgram(program, dataInputs);
  if (!onData.ok()) {
    errs() << "verify: " << onData.error().toString() << "\n";
    return false;
  }
  if (!reportComparison(verifyData, *onData, dataOutputs)) {
    if (ok)
      failing = std::move(dataInputs);
    return false;
  }
  return ok;
}

/// --list-backends: each backend with its patterns per phase.
bool printBackends(raw_ostream &os) {
  Expected<const std::vector<Backend> &> backends = discoverBackends();
  if (!backends) {
    errs() << "strata-compile: " << toString(backends.takeError()) << "\n";
    return false;
  }
  for (const Backend &backend : *backends) {
    os << backend.getName() << " (" << backend.getSource() << "): "
       << backend.getDescription() << "\n";
    for (auto [phase, list] :
         {std::pair{"conversion", backend.getConversionPatterns()},
          std::pair{"fusion", backend.getFusionPatterns()},
          std::pair{"smooth", backend.getSmoothPatterns()},
          std::pair{"quantized", backend.getQuantizedPatterns()}}) {
      if (list.empty())
        continue;
      os << "  " << phase << ":\n";
      for (const PatternDescriptor &d : list)
        os << "    " << d.info.name << " [" << d.info.priority << "] "
           << d.info.description << "\n";
    }
    const BackendHooks &hooks = backend.getHooks();
    if (hooks.delegates()) {
      os << "  delegate: " << hooks.runtimeDelegate << "\n";
      for (const CompileSpecInfo &spec : hooks.compileSpecs)
        os << "    --backend-option " << spec.name << "=" << spec.defaultValue
           << "  " << spec.description << "\n";
    }
  }
  return true;
}

/// The delegates of `--backend a,b,...`: `first` (selected, its patterns
/// apply) when it has one, then each later name, which must name a
/// delegate backend not listed before.
FailureOr<std::vector<const Backend *>>
delegateList(const Backend &first, ArrayRef<StringRef> names) {
  std::vector<const Backend *> list;
  if (first.getHooks().delegates())
    list.push_back(&first);
  if (names.size() == 1)
    return list;
  Expected<const std::vector<Backend> &> all = discoverBackends();
  if (!all) {
    errs() << "strata-compile: " << toString(all.takeError()) << "\n";
    return failure();
  }
  llvm::StringSet<> seen;
  for (StringRef name : names) {
    if (!seen.insert(name).second) {
      errs() << "strata-compile: --backend " << backendList << " names '"
             << name << "' twice\n";
      return failure();
    }
    if (name == first.getName())
      continue;
    const Backend *found = nullptr;
    for (const Backend &b : *all)
      if (b.getName() == name)
        found = &b;
    if (!found || !found->getHooks().delegates()) {
      errs() << "strata-compile: --backend " << backendList << ": '" << name
             << "' is not a backend with a delegate (--list-backends)\n";
      return failure();
    }
    list.push_back(found);
  }
  return list;
}

/// --backend-option items by backend: BACKEND:KEY=VALUE goes to that
/// backend; KEY=VALUE to the one backend of a list of one (its own check
/// names an unknown key), else to every listed backend that declares KEY
/// (none: an error naming each one's keys).
FailureOr<std::map<std::string, CompileSpecs>>
routeCompileSpecs(ArrayRef<std::string> items,
                  ArrayRef<const Backend *> backends) {
  std::map<std::string, std::vector<std::string>> perBackend;
  for (const std::string &item : items) {
    size_t colon = item.find(':'), eq = item.find('=');
    if (colon != std::string::npos && colon < eq) {
      std::string name = item.substr(0, colon);
      if (!llvm::any_of(backends, [&](const Backend *b) {
            return b->getName() == name;
          })) {
        errs() << "strata-compile: --backend-option " << item << ": '"
               << name << "' is not a listed delegate backend\n";
        return failure();
      }
      perBackend[name].push_back(item.substr(colon + 1));
      continue;
    }
    if (backends.size() == 1) {
      perBackend[backends.front()->getName()].push_back(item);
      continue;
    }
    std::string key = item.substr(0, eq);
    bool taken = false;
    std::string known;
    for (const Backend *b : backends) {
      known += (known.empty() ? "" : "; ") + b->getName() + ":";
      for (const CompileSpecInfo &spec : b->getHooks().compileSpecs) {
        known += " " + spec.name;
        if (spec.name == key) {
          perBackend[b->getName()].push_back(item);
          taken = true;
        }
      }
    }
    if (!taken) {
      errs() << "strata-compile: no listed backend has compile spec '" << key
             << "' (known: " << known << ")\n";
      return failure();
    }
  }
  std::map<std::string, CompileSpecs> specs;
  for (const auto &[name, list] : perBackend) {
    std::string error;
    FailureOr<CompileSpecs> parsed = parseCompileSpecs(list, error);
    if (failed(parsed)) {
      errs() << "strata-compile: bad --backend-option: " << error << "\n";
      return failure();
    }
    specs[name] = std::move(*parsed);
  }
  return specs;
}

} // namespace

int strataCompileMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category, &quantizeCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "strata-compile: ONNX model -> .strata program (or MLIR at a stage)\n");

  if (listBackends)
    return printBackends(outs()) ? 0 : 1;
  if (inputPath.empty() || (outputPath.empty() && planOut.empty())) {
    errs() << "strata-compile: needs a model and -o (or --plan-out); see "
              "--help\n";
    return 2;
  }
  CompileOptions options;
  SmallVector<StringRef> backendNames;
  StringRef(backendList).split(backendNames, ',');
  std::string backendName = backendNames.front().str();
  if (Error e = setBackend(backendName)) {
    errs() << "strata-compile: " << toString(std::move(e)) << "\n";
    return 2;
  }
  Expected<const Backend &> backend = getBackend();
  if (!backend) {
    errs() << "strata-compile: " << toString(backend.takeError()) << "\n";
    return 2;
  }
  options.patterns = backend->getPatterns(quantize);
  // A backend may take its QDQ placement from another one's patterns.
  const Backend *placement = &*backend;
  if (quantize && !backend->getHooks().quantizeWith.empty()) {
    Expected<const std::vector<Backend> &> all = discoverBackends();
    if (!all) {
      errs() << "strata-compile: " << toString(all.takeError()) << "\n";
      return 2;
    }
    for (const Backend &b : *all)
      if (b.getName() == backend->getHooks().quantizeWith)
        placement = &b;
    options.patterns = placement->getPatterns(true);
  }
  // --smooth-alpha alone asks for SmoothQuant too.
  bool smoothing = smooth || smoothAlpha.getNumOccurrences() > 0;
  if (quantizeScales.getNumOccurrences() && !quantize) {
    errs() << "strata-compile: --quantize-scales needs --quantize\n";
    return 2;
  }
  if (biasCorrection && !quantize) {
    errs() << "strata-compile: --bias-correction needs --quantize\n";
    return 2;
  }
  if (quantizeSensitivity && !quantize) {
    errs() << "strata-compile: --quantize-sensitivity needs --quantize\n";
    return 2;
  }
  if (smoothing && !quantize) {
    errs() << "strata-compile: --smooth and --smooth-alpha need --quantize\n";
    return 2;
  }
  bool mixed = quantizeTargetSqnr.getNumOccurrences() ||
               quantizeTargetAccuracyDrop.getNumOccurrences();
  if (mixed && !quantize) {
    errs() << "strata-compile: --quantize-target-sqnr and "
              "--quantize-target-accuracy-drop need --quantize\n";
    return 2;
  }
  if (quantizeTargetAccuracyDrop.getNumOccurrences() &&
      (quantizeEvalData.empty() || quantizeEvalLabels.empty())) {
    errs() << "strata-compile: --quantize-target-accuracy-drop needs "
              "labelled data: --quantize-eval-data and "
              "--quantize-eval-labels\n";
    return 2;
  }
  if ((!quantizeEvalData.empty() || !quantizeEvalLabels.empty()) && !mixed) {
    errs() << "strata-compile: --quantize-eval-data and "
              "--quantize-eval-labels are for --quantize-target-sqnr and "
              "--quantize-target-accuracy-drop\n";
    return 2;
  }
  if (!quantizeEvalLabels.empty() && quantizeEvalData.empty()) {
    errs() << "strata-compile: --quantize-eval-labels needs "
              "--quantize-eval-data\n";
    return 2;
  }
  if (quantizeTargetAccuracyDrop.getNumOccurrences() &&
      !(quantizeTargetAccuracyDrop >= 0 && quantizeTargetAccuracyDrop <= 100)) {
    errs() << "strata-compile: --quantize-target-accuracy-drop must be in "
              "[0, 100] percentage points\n";
    return 2;
  }
  if (quantizeTargetSqnr.getNumOccurrences() &&
      !std::isfinite(quantizeTargetSqnr.getValue())) {
    errs() << "strata-compile: --quantize-target-sqnr must be a finite "
              "number of dB\n";
    return 2;
  }
  if (quantize && smoothing && placement->getSmoothPatterns().empty()) {
    errs() << "strata-compile: backend '" << placement->getName()
           << "' has no smooth patterns to say where SmoothQuant applies "
              "(--list-backends; tensorrt has them)\n";
    return 2;
  }
  if (!(smoothAlpha >= 0 && smoothAlpha <= 1)) {
    errs() << "strata-compile: --smooth-alpha must be in [0, 1], got "
           << llvm::format("%g", smoothAlpha.getValue()) << "\n";
    return 2;
  }
  if (!smoothing)
    llvm::erase_if(options.patterns, [](const PatternDescriptor &d) {
      return d.info.phase == PatternPhase::Smooth;
    });
  if (quantize) {
    if (placement->getQuantizedPatterns().empty()) {
      errs() << "strata-compile: backend '" << backendName
             << "' has no quantized patterns to say where QDQ pairs go "
                "(--list-backends; tensorrt has them)\n";
      return 2;
    }
    std::optional<quant::CalibrationMethod> method =
        quant::parseCalibrationMethod(calibrationMethod.getValue());
    if (!method) {
      errs() << "strata-compile: unknown --calibration-method '"
             << calibrationMethod
             << "' (minmax, percentile, entropy, mse)\n";
      return 2;
    }
    if (quantizeActivations != "symmetric" &&
        quantizeActivations != "asymmetric") {
      errs() << "strata-compile: --quantize-activations takes symmetric or "
                "asymmetric, got '"
             << quantizeActivations << "'\n";
      return 2;
    }
    if (quantizeScales != "float" && quantizeScales != "power-of-two") {
      errs() << "strata-compile: --quantize-scales takes float or "
                "power-of-two, got '"
             << quantizeScales << "'\n";
      return 2;
    }
    bool symmetric = quantizeActivations == "symmetric";
    if (!symmetric && (*method == quant::CalibrationMethod::Entropy ||
                       *method == quant::CalibrationMethod::MSE)) {
      errs() << "strata-compile: --calibration-method " << calibrationMethod
             << " picks a symmetric threshold; use minmax or percentile "
                "with asymmetric activations\n";
      return 2;
    }
    if (!(calibrationPercentile > 0 && calibrationPercentile <= 100)) {
      errs() << "strata-compile: --calibration-percentile must be in (0, "
                "100]\n";
      return 2;
    }
    if (calibrationData.empty()) {
      errs() << "strata-compile: --quantize needs --calibration-data\n";
      return 2;
    }
    CompileOptions::Quantize q;
    q.activations = quantizeActivations;
    q.minWeightElements = quantizeMinWeightElements;
    q.smoothAlpha = smoothAlpha;
    q.biasCorrection = biasCorrection;
    q.sensitivity = quantizeSensitivity;
    if (quantizeTargetSqnr.getNumOccurrences())
      q.mixedPrecision.targetSqnrDB = quantizeTargetSqnr.getValue();
    if (quantizeTargetAccuracyDrop.getNumOccurrences())
      q.mixedPrecision.targetAccuracyDrop =
          quantizeTargetAccuracyDrop.getValue();
    q.mixedPrecision.evalImages = quantizeEvalData;
    q.mixedPrecision.evalLabels = quantizeEvalLabels;
    q.powerOfTwoScales = quantizeScales == "power-of-two";
    q.calibration.powerOfTwoScales = q.powerOfTwoScales;
    q.skipNodes.assign(quantizeSkipNodes.begin(), quantizeSkipNodes.end());
    q.skipOps.assign(quantizeSkipOps.begin(), quantizeSkipOps.end());
    q.calibration.dataPath = calibrationData;
    q.calibration.method = *method;
    q.calibration.percentile = calibrationPercentile;
    q.calibration.symmetric = symmetric;
    q.calibration.maxSamples = calibrationSamples;
    q.calibration.seed = calibrationSeed;
    q.calibration.progress = !noProgress;
    options.quantize = std::move(q);
  }
  FailureOr<std::vector<const Backend *>> delegates =
      delegateList(*backend, backendNames);
  if (failed(delegates))
    return 2;
  options.delegateBackends = std::move(*delegates);
  if (options.delegateBackends.empty() &&
      (!backendOptions.empty() || requireDelegated || !tuneFile.empty() ||
       !tuningFile.empty() || !partitionCalibration.empty())) {
    errs() << "strata-compile: backend '" << backendName
           << "' has no delegate (--backend-option, --require-delegated, "
              "--tune, --tuning and --partition-calibration need one)\n";
    return 2;
  }
  {
    if (!tuneFile.empty() && !tuningFile.empty()) {
      errs() << "strata-compile: --tune writes the tuning file and --tuning "
                "reads one; give one of them\n";
      return 2;
    }
    std::vector<std::string> items(backendOptions.begin(),
                                   backendOptions.end());
    if (!tuneFile.empty())
      items.insert(items.end(), {"tune=true", "tuning_file=" + tuneFile});
    if (!tuningFile.empty())
      items.push_back("tuning_file=" + tuningFile);
    FailureOr<std::map<std::string, CompileSpecs>> specs =
        routeCompileSpecs(items, options.delegateBackends);
    if (failed(specs))
      return 2;
    options.compileSpecs = std::move(*specs);
  }
  options.requireDelegated = requireDelegated;
  options.partitionCost = partitionCost;
  options.partitionCalibrationFile = partitionCalibration;
  if (!targetKernels.empty()) {
    auto file = MemoryBuffer::getFile(targetKernels);
    if (!file) {
      errs() << "strata-compile: cannot read --target-kernels '"
             << targetKernels << "': " << file.getError().message() << "\n";
      return 2;
    }
    std::set<std::string> names;
    SmallVector<StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (StringRef line : lines) {
      line = line.split('#').first.trim();
      if (!line.empty())
        names.insert(line.str());
    }
    options.targetKernels = std::move(names);
  }
  options.emitOptions.delegateBlobsInline = delegateBlobsInline;
  options.planIn = planIn;
  options.planOut = planOut;
  std::optional<EmitKind> kind = parseEmitKind(emitKind);
  if (!kind) {
    errs() << "strata-compile: unknown --emit '" << emitKind
           << "' (program, mlir-hl, mlir-edge, mlir-exec, onnx-qdq)\n";
    return 2;
  }
  options.emit = *kind;
  for (const std::string &shape : inputShapes) {
    std::string error;
    if (failed(parseInputShape(shape, options.import, error))) {
      errs() << "strata-compile: bad --input-shape: " << error << "\n";
      return 2;
    }
  }
  for (const std::string &value : inputValues) {
    std::string error;
    if (failed(parseInputValue(value, options.import, error))) {
      errs() << "strata-compile: bad --input-value: " << error << "\n";
      return 2;
    }
  }
  options.printIRAfterAll = printIRAfterAll;
  options.emitOptions.segmentAlignment = segmentAlignment;
  options.emitOptions.constantAlignment = constantAlignment;
  options.bufferAlignment = bufferAlignment;
  options.programName =
      sys::path::stem(sys::path::parent_path(inputPath).empty()
                          ? StringRef(inputPath)
                          : sys::path::filename(sys::path::parent_path(
                                inputPath)))
          .str();
  if (options.programName.empty() || options.programName == ".")
    options.programName = "program";

  MLIRContext context;
  loadCompilerDialects(context);
  NodeDiagnosticHandler diagnostics(&context, errs(), verboseDiagnostics);

  std::string artifact;
  CompileReport report;
  if (outputPath.empty()) {
    // --plan-out alone: plan, write the plan, stop.
    options.emit = EmitKind::MLIRHL;
    if (failed(compileONNXFile(inputPath, options, context, artifact, report))) {
      errs() << "strata-compile: planning '" << inputPath << "' failed\n";
      return 1;
    }
    return 0;
  }
  if (failed(compileONNXFile(inputPath, options, context, artifact, report))) {
    errs() << "strata-compile: compiling '" << inputPath << "' failed\n";
    return 1;
  }
  for (const std::string &note : report.importNotes)
    errs() << "strata-compile: note: " << note << "\n";
  if (report.quantization)
    report.quantization->print(errs());
  bool ok = true;
  // The ONNX graph, read once for --bisect and the reports.
  std::optional<std::vector<ModelGraphNode>> graph;
  auto modelGraph = [&]() -> const std::vector<ModelGraphNode> & {
    if (!graph)
      graph = readModelGraph(inputPath);
    return *graph;
  };
  std::optional<BisectReport> bisected;
  if (verifyOutput || bisectOnFailure) {
    std::string program = artifact, reference;
    CompileOptions plain = options;
    plain.emit = EmitKind::Program;
    plain.printIRAfterAll = false;
    plain.planOut.clear();
    CompileReport ignored;
    if (options.emit != EmitKind::Program &&
        failed(compileONNXFile(inputPath, plain, context, program, ignored)))
      return 1;
    if (failed(compileONNXFile(inputPath, referenceOptions(plain), context,
                               reference, ignored)))
      return 1;
    std::vector<runtime::OwnedTensor> failing;
    ok = verifyProgram(program, reference, failing);
    if (!ok && bisectOnFailure) {
      BisectOptions tolerance;
      tolerance.maxRelL2 = bisectRelL2;
      tolerance.minSQNR = bisectSQNR;
      FailureOr<BisectReport> found = failure();
      if (!failing.empty())
        found = bisect(inputPath, modelGraph(), options, context, failing,
                       tolerance);
      if (failed(found)) {
        errs() << "strata-compile: --bisect could not build or run its debug "
                  "builds\n";
        return 1;
      }
      found->print(outs());
      bisected = std::move(*found);
    }
  }
  // The reports are written also when --verify fails: they hold the
  // bisection.
  if (!reportPath.empty() || !reportHTML.empty()) {
    llvm::json::Value json = report.toJSON();
    llvm::json::Object &object = *json.getAsObject();
    object["graph"] = toJSON(modelGraph());
    if (bisected)
      object["bisect"] = bisected->toJSON();
    if (!reportProfile.empty()) {
      Expected<llvm::json::Value> profile = readProfileTSV(reportProfile);
      if (!profile) {
        errs() << "strata-compile: --report-profile: "
               << toString(profile.takeError()) << "\n";
        return 1;
      }
      object["profile"] = std::move(*profile);
    }
    if (!reportPath.empty() &&
        !writeAtomically(reportPath, formatv("{0:2}\n", json).str()))
      return 1;
    if (!reportHTML.empty() &&
        !writeAtomically(reportHTML, renderHTMLReport(json)))
      return 1;
  }
  if (!ok) {
    outs().flush();
    errs() << "strata-compile: --verify failed; no program written\n";
    return 1;
  }
  if (!writeAtomically(outputPath, artifact))
    return 1;
  return 0;
}

} // namespace strata
