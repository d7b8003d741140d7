//===- ImportFuzzer.cpp - libFuzzer target for the ONNX importer ----------===//
//
// Takes arbitrary bytes through what strata-compile does to a model for the
// portable kernels: parse as an onnx::ModelProto, the ONNX checker and shape
// inference, import into `hl`, verify, lower to a planned exec program and
// emit it. Every stage may refuse the input, but only with a diagnostic:
// a crash, a hang, a sanitizer report or an allocation past libFuzzer's
// -malloc_limit_mb is a defect. Built with ASan/UBSan by
// scripts/check-sanitizers.sh; scripts/fuzz.sh runs it for longer.
//
// libonnx's shape inference runs in a child process (see
// ShapeInferenceProcess.h): a fault there is a refusal of the input, not a
// crash of the fuzzer. Each one is printed as a "contained fault" line,
// which scripts/fuzz.sh counts, and the input is written to the folder
// STRATA_FUZZ_CONTAINED_DIR names, so that the defect can still be checked
// for before inference and given a better message.
//
//===----------------------------------------------------------------------===//
#include "strata/Compiler/Compiler.h"
#include "strata/Emit/ProgramEmitter.h"
#include "strata/Import/ONNXImporter.h"
#include "strata/Import/ShapeInferenceProcess.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>

using namespace mlir;

namespace {

/// Prints every diagnostic when STRATA_FUZZ_VERBOSE is set (to see why an
/// input is refused); otherwise they are dropped, as printing dominates the
/// time of a refused input.
bool verbose() {
  static const bool value = std::getenv("STRATA_FUZZ_VERBOSE") != nullptr;
  return value;
}

/// Stops the run with a libFuzzer-visible crash: the pipeline broke one of
/// its own promises rather than refusing the input.
[[noreturn]] void broken(const char *what) {
  std::fprintf(stderr, "strata-import-fuzzer: %s\n", what);
  std::abort();
}

/// Records an input on which libonnx's shape inference faulted in its
/// child process.
void recordContainedFault(const std::string &message, const uint8_t *data,
                          size_t size) {
  std::fprintf(stderr, "strata-import-fuzzer: contained fault: %s\n",
               message.c_str());
  const char *dir = std::getenv("STRATA_FUZZ_CONTAINED_DIR");
  if (!dir)
    return;
  std::string path = std::string(dir) + "/contained-" +
                     std::to_string(std::hash<std::string_view>()(
                         {reinterpret_cast<const char *>(data), size}));
  if (std::FILE *file = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, file);
    std::fclose(file);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context per input: uniqued attributes and types of earlier inputs
  // would otherwise accumulate for the whole run.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  strata::loadCompilerDialects(context);
  bool sawError = false;
  std::string lastError;
  strata::importer::ShapeInferenceProcessCounts before =
      strata::importer::getShapeInferenceProcessCounts();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      sawError = true;
      lastError = diag.str();
    }
    if (verbose())
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  // The buffer names a file in a folder that does not exist, so that
  // external data (resolved against the model's folder) can never reach
  // the files of the machine running the fuzzer.
  strata::CompileOptions options;
  // Legal models with tensors near the 2 GiB limit take seconds and
  // gigabytes to compile; the fuzzer explores small ones, and the refusal
  // path of larger ones.
  options.import.maxTensorBytes = int64_t(64) << 20;
  OwningOpRef<ModuleOp> module = strata::importONNXBytes(
      StringRef(reinterpret_cast<const char *>(data), size),
      "/nonexistent/strata-fuzz/model.onnx", &context, options.import);
  if (!module) {
    if (!sawError)
      broken("the import failed without an error diagnostic");
    strata::importer::ShapeInferenceProcessCounts after =
        strata::importer::getShapeInferenceProcessCounts();
    // The child ended other than by answering or by a signal: a sanitizer
    // report or a broken pipe in the project's own code there.
    if (after.failures != before.failures)
      broken("the shape-inference process failed");
    if (after.faults != before.faults)
      recordContainedFault(lastError, data, size);
    return 0;
  }
  if (failed(verify(*module)))
    broken("the importer returned a module that does not verify");

  strata::CompileReport report;
  if (failed(strata::lowerToExec(*module, options, report,
                                 strata::EmitKind::Program)))
    return 0;
  auto programs = module->getOps<strata::exec::ProgramOp>();
  if (programs.empty())
    broken("lowering succeeded without an exec.program");
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  (void)strata::emitProgram(*programs.begin(), os, options.emitOptions);
  return 0;
}
