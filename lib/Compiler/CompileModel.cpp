//===- CompileModel.cpp - one compilation as a library call ---------------===//
#include "strata/Compiler/CompileModel.h"

#include "strata/Backends/Backend.h"
#include "strata/Compiler/Compiler.h"
#include "strata/Compiler/Diagnostics.h"
#include "strata/Compiler/ModelGraph.h"
#include "strata/Pipelines/CompilePipeline.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace llvm;

namespace strata {

std::string programNameOf(const std::string &modelPath) {
  StringRef parent = sys::path::parent_path(modelPath);
  std::string name =
      sys::path::stem(parent.empty() ? StringRef(modelPath)
                                     : sys::path::filename(parent))
          .str();
  return name.empty() || name == "." ? "program" : name;
}

bool parseInputOptions(const CompileRequest &request, ImportOptions &options,
                       raw_ostream &os) {
  using Parser = LogicalResult (*)(StringRef, ImportOptions &, std::string &);
  for (auto [flag, values, parse] :
       {std::tuple<StringRef, const std::vector<std::string> *, Parser>{
            "--input-shape", &request.inputShapes, parseInputShape},
        {"--dim", &request.dims, parseDimBound},
        {"--max-extent", &request.maxExtents, parseMaxExtent},
        {"--input-value", &request.inputValues, parseInputValue}}) {
    for (const std::string &value : *values) {
      std::string error;
      if (failed(parse(value, options, error))) {
        os << "strata-compile: bad " << flag << ": " << error << "\n";
        return false;
      }
    }
  }
  return true;
}

CompileOutcome compileModel(const CompileRequest &request) {
  CompileOutcome outcome;
  raw_string_ostream diagnostics(outcome.diagnostics);
  CompilePipelineOptions pipeline;
  if (failed(pipeline.parseFromString(request.pipelineOptions, diagnostics))) {
    diagnostics << "strata-compile: bad options '" << request.pipelineOptions
                << "'\n";
    return outcome;
  }
  if (!pipeline.given("program-name"))
    pipeline.programName = programNameOf(request.modelPath);
  if (!pipeline.given("backend") && !getSelectedBackendName().empty())
    pipeline.backend = getSelectedBackendName();
  std::optional<EmitKind> emit = parseEmitKind(request.emit);
  if (!emit) {
    diagnostics << "strata-compile: unknown --emit '" << request.emit << "' ("
                << emitKindNames() << ")\n";
    return outcome;
  }
  omitCalibrationData(pipeline, *emit);
  CompileOptions options;
  if (llvm::Error error = resolveCompileOptions(pipeline, options)) {
    diagnostics << "strata-compile: " << toString(std::move(error)) << "\n";
    return outcome;
  }
  options.emit = *emit;
  if (!request.planJSON.empty()) {
    llvm::Expected<llvm::json::Value> flags =
        llvm::json::parse(request.planJSON);
    if (!flags) {
      diagnostics << "strata-compile: bad plan: " << toString(flags.takeError())
                  << "\n";
      return outcome;
    }
    options.planFlags = std::move(*flags);
  }
  if (!parseInputOptions(request, options.import, diagnostics))
    return outcome;

  MLIRContext context;
  loadCompilerDialects(context);
  NodeDiagnosticHandler handler(&context, diagnostics);
  CompileReport report;
  if (failed(compileONNXFile(request.modelPath, options, context,
                             outcome.artifact, report))) {
    diagnostics << "strata-compile: compiling '" << request.modelPath
                << "' failed\n";
    outcome.artifact.clear();
    return outcome;
  }
  for (const std::string &note : report.importNotes)
    diagnostics << "strata-compile: note: " << note << "\n";
  if (report.quantization)
    report.quantization->print(diagnostics);
  if (report.weightPrecision)
    report.weightPrecision->print(diagnostics);
  // The report strata-compile --report writes: with the model's graph.
  llvm::json::Value json = report.toJSON();
  json.getAsObject()->try_emplace("graph",
                                  toJSON(readModelGraph(request.modelPath)));
  outcome.reportJSON = formatv("{0:2}", json).str();
  if (request.verify) {
    if (options.emit != EmitKind::Program) {
      diagnostics << "strata-compile: --verify needs a program to run (emit "
                     "'program')\n";
      outcome.artifact.clear();
      return outcome;
    }
    std::string reference;
    CompileReport ignored;
    if (failed(compileONNXFile(request.modelPath, referenceOptions(options),
                               context, reference, ignored))) {
      outcome.artifact.clear();
      return outcome;
    }
    VerifyResult verified =
        verifyProgram(outcome.artifact, reference, request.verifyOptions,
                      diagnostics, diagnostics);
    outcome.verifyJSON = formatv("{0:2}", verified.toJSON()).str();
    if (!verified.ok) {
      diagnostics << "strata-compile: --verify failed; no program written\n";
      outcome.artifact.clear();
      return outcome;
    }
  }
  outcome.ok = true;
  return outcome;
}

} // namespace strata
