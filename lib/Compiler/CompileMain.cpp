//===- CompileMain.cpp - strata-compile's command line --------------------===//
//
// strata-compile model.onnx -o model.strata [--emit ...] [--input-shape ...]
//                [--input-value NAME=V,...] [--state IN=OUT,...]
//                [--method NAME[=MODEL] [--input-shape ...]...]...
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
#include "strata/Calibration/Execute.h"
#include "strata/Compiler/Bisect.h"
#include "strata/Compiler/CompileModel.h"
#include "strata/Compiler/Compiler.h"
#include "strata/Compiler/Diagnostics.h"
#include "strata/Compiler/HTMLReport.h"
#include "strata/Compiler/ModelGraph.h"
#include "strata/Compiler/Verify.h"
#include "strata/Pipelines/CompilePipeline.h"
#include "strata/Runtime/SampleSource.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
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
cl::opt<bool> delegateBlobsInline(
    "delegate-blobs-inline",
    cl::desc("Store delegate blobs inside the flatbuffer instead of in "
             "segments"),
    cl::cat(category));
cl::OptionCategory quantizeCategory("strata-compile quantization options");
cl::opt<bool> listBackends("list-backends",
                           cl::desc("List the backends and their patterns"),
                           cl::cat(category));
cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to write: program (default), mlir-hl, "
                      "mlir-hl-transformed (after the backend's patterns, "
                      "before quantization), mlir-partitioned (edge after "
                      "partitioning, before the "
                      "delegates compile), mlir-edge, mlir-exec, onnx-qdq "
                      "(the transformed model as ONNX, with explicit "
                      "QuantizeLinear/DequantizeLinear after --quantize), or "
                      "plan (the transformation plan as JSON)"),
             cl::init("program"), cl::cat(category));
cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Fix an input's shape: NAME=DIMS, e.g. "
                         "input=1x3x224x224 (repeatable); a range or a "
                         "symbol with its range (batch:1..8) bounds a "
                         "dynamic dimension: one program serves every "
                         "shape within the bounds (docs/dynamic-shapes.md)"),
                cl::cat(category));
cl::list<std::string>
    dimBounds("dim",
              cl::desc("Bound a symbolic dimension of the model's inputs "
                       "(an ONNX dim_param) by name: NAME=LO..HI, e.g. "
                       "batch=1..8 (repeatable); the inputs keep their "
                       "shapes otherwise"),
              cl::cat(category));
cl::list<std::string> maxExtents(
    "max-extent",
    cl::desc("Bound a value-dependent extent by node: NODE=N (repeatable). "
             "NonZero, Compress, Unique, NonMaxSuppression and TopK with a "
             "run-time k get the most their inputs could give; a smaller "
             "bound saves memory, and a call past it fails. A Range whose "
             "limit is read at run time needs one, and so does a Loop "
             "whose scan outputs grow with a run-time trip count (NODE: "
             "the Loop; N: its most iterations)"),
    cl::cat(category));
cl::list<std::string> inputValues(
    "input-value",
    cl::desc("Freeze an input to constant values: NAME=V or NAME=V,V,... "
             "(e.g. sr=16000); the input leaves the program's signature and "
             "what depends on it folds (repeatable)"),
    cl::cat(category));
cl::list<std::string> methodFlags(
    "method",
    cl::desc("Compile a program of several methods sharing their weights: "
             "one method NAME from MODEL (default: the positional model), "
             "taking the --input-shape, --dim, --max-extent and --input-value "
             "flags that follow it up to the next --method (those before the "
             "first apply to every method); e.g. --method prefill --dim "
             "seq=1..128 --method decode --input-shape input_ids=1x1 "
             "(repeatable)"),
    cl::value_desc("NAME[=MODEL.onnx]"), cl::cat(category));
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
cl::opt<uint64_t>
    constantAlignment("constant-alignment",
                      cl::desc("Alignment of constants in their segment"),
                      cl::init(64), cl::cat(category));
/// The compile pipeline's options (backend, delegation, quantization, ...),
/// declared once in CompilePipeline.h and lifted onto this command line.
CompilePipelineOptions &pipelineOptions() {
  static CompilePipelineOptions options;
  return options;
}

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

/// Writes `json` as --report (JSON) and --report-html ask; false after
/// printing why a write failed.
bool writeReports(const llvm::json::Value &json) {
  if (!reportPath.empty() &&
      !writeAtomically(reportPath, formatv("{0:2}\n", json).str()))
    return false;
  return reportHTML.empty() ||
         writeAtomically(reportHTML, renderHTMLReport(json));
}

/// --list-backends: each backend with its patterns per phase.
bool printBackends(raw_ostream &os) {
  Expected<const std::vector<Backend> &> backends = discoverBackends();
  if (!backends) {
    errs() << "strata-compile: " << toString(backends.takeError()) << "\n";
    return false;
  }
  for (const Backend &backend : *backends) {
    os << backend.getName() << " (" << backend.getSource()
       << "): " << backend.getDescription() << "\n";
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

/// The driver's options (what to write, import shapes and values, the
/// program file's layout) into `options`; false after printing an error.
bool readDriverOptions(CompileOptions &options) {
  // With --method, each method reads its own import flags (readMethods).
  bool importFlags = methodFlags.empty();
  std::optional<EmitKind> kind = parseEmitKind(emitKind);
  if (!kind) {
    errs() << "strata-compile: unknown --emit '" << emitKind << "' ("
           << emitKindNames() << ")\n";
    return false;
  }
  options.emit = *kind;
  CompileRequest inputs;
  inputs.inputShapes = inputShapes;
  inputs.dims = dimBounds;
  inputs.maxExtents = maxExtents;
  inputs.inputValues = inputValues;
  if (importFlags && !parseInputOptions(inputs, options.import, errs()))
    return false;
  options.printIRAfterAll = printIRAfterAll;
  options.emitOptions.delegateBlobsInline = delegateBlobsInline;
  options.emitOptions.segmentAlignment = segmentAlignment;
  options.emitOptions.constantAlignment = constantAlignment;
  return true;
}

/// --method: each method's name, model and import options (the import
/// flags between its --method and the next, and those before the first);
/// false after printing an error.
bool readMethods(std::vector<MethodSource> &methods) {
  // The --method that an import flag at `position` follows (-1: none).
  auto ownerOf = [](unsigned position) {
    int owner = -1;
    for (unsigned k = 0; k < methodFlags.size(); ++k)
      if (methodFlags.getPosition(k) < position)
        owner = static_cast<int>(k);
    return owner;
  };
  for (unsigned k = 0; k < methodFlags.size(); ++k) {
    auto [name, model] = StringRef(methodFlags[k]).split('=');
    MethodSource method;
    method.name = name.str();
    method.modelPath = model.empty() ? inputPath.getValue() : model.str();
    if (method.modelPath.empty()) {
      errs() << "strata-compile: --method " << methodFlags[k]
             << " names no model and none is given\n";
      return false;
    }
    CompileRequest inputs;
    auto collect = [&](const cl::list<std::string> &flag,
                       std::vector<std::string> &list) {
      for (unsigned i = 0; i < flag.size(); ++i) {
        int owner = ownerOf(flag.getPosition(i));
        if (owner < 0 || owner == static_cast<int>(k))
          list.push_back(flag[i]);
      }
    };
    collect(inputShapes, inputs.inputShapes);
    collect(dimBounds, inputs.dims);
    collect(maxExtents, inputs.maxExtents);
    collect(inputValues, inputs.inputValues);
    if (!parseInputOptions(inputs, method.import, errs()))
      return false;
    methods.push_back(std::move(method));
  }
  return true;
}

/// strata-compile --method ...: one program of several methods.
int compileMethodsMain(const CompileOptions &options, MLIRContext &context) {
  if (verifyOutput || bisectOnFailure || !reportProfile.empty() ||
      !pipelineOptions().planOut.empty()) {
    errs() << "strata-compile: --verify, --bisect, --report-profile and "
              "--plan-out take a program of one method, not several "
              "(--method)\n";
    return 2;
  }
  if (options.weightPrecision) {
    errs() << "strata-compile: --weight-target-sqnr and "
              "--weight-target-perplexity choose on a program of one method: "
              "compile the whole-sequence model with one, then give the "
              "methods the --weight-bits flag it prints\n";
    return 2;
  }
  std::vector<MethodSource> methods;
  if (!readMethods(methods))
    return 2;
  std::string artifact;
  CompileReport report;
  if (failed(compileONNXMethods(methods, options, context, artifact, report))) {
    errs() << "strata-compile: compiling the methods failed\n";
    return 1;
  }
  for (const std::string &note : report.importNotes)
    errs() << "strata-compile: note: " << note << "\n";
  if (!reportPath.empty() || !reportHTML.empty()) {
    llvm::json::Value json = report.toJSON();
    json.getAsObject()->try_emplace(
        "graph", toJSON(readModelGraph(methods.front().modelPath)));
    if (!writeReports(json))
      return 1;
  }
  return writeAtomically(outputPath, artifact) ? 0 : 1;
}

} // namespace

int strataCompileMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  CompilePipelineOptions &pipeline = pipelineOptions();
  pipeline.exposeOnCommandLine(category, quantizeCategory);
  cl::HideUnrelatedOptions({&category, &quantizeCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "strata-compile: ONNX model -> .strata program (or MLIR at a stage)\n");

  if (listBackends)
    return printBackends(outs()) ? 0 : 1;
  bool severalMethods = !methodFlags.empty();
  if ((inputPath.empty() && !severalMethods) ||
      (outputPath.empty() && (pipeline.planOut.empty() || severalMethods))) {
    errs() << "strata-compile: needs a model and -o (or --plan-out); see "
              "--help\n";
    return 2;
  }
  if (!pipeline.given("program-name"))
    pipeline.programName = programNameOf(
        !inputPath.empty()
            ? inputPath.getValue()
            : StringRef(methodFlags.front()).split('=').second.str());
  // --plan-out alone plans and stops (below), as --emit plan does.
  if (std::optional<EmitKind> stop = parseEmitKind(emitKind))
    omitCalibrationData(pipeline, outputPath.empty() ? EmitKind::Plan : *stop);
  CompileOptions options;
  if (llvm::Error error = resolveCompileOptions(pipeline, options)) {
    errs() << "strata-compile: " << toString(std::move(error)) << "\n";
    return 2;
  }
  if (!readDriverOptions(options))
    return 2;

  MLIRContext context;
  loadCompilerDialects(context);
  NodeDiagnosticHandler diagnostics(&context, errs(), verboseDiagnostics);
  if (severalMethods)
    return compileMethodsMain(options, context);

  std::string artifact;
  CompileReport report;
  if (outputPath.empty()) {
    // --plan-out alone: plan, write the plan, stop (before calibrating).
    options.emit = EmitKind::Plan;
    if (failed(
            compileONNXFile(inputPath, options, context, artifact, report))) {
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
  if (report.weightPrecision)
    report.weightPrecision->print(errs());
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
    VerifyOptions verifyOptions;
    verifyOptions.maxRelL2 = verifyRelL2;
    verifyOptions.seed = verifySeed;
    verifyOptions.dataDir = verifyData;
    VerifyResult verified =
        verifyProgram(program, reference, verifyOptions, outs(), errs());
    ok = verified.ok;
    std::vector<runtime::OwnedTensor> &failing = verified.failing;
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
    if (!writeReports(json))
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
