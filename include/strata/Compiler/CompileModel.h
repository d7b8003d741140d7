//===- CompileModel.h - one compilation as a library call -------*- C++ -*-===//
//
// strata-compile's compilation without its command line, for embedders
// (the Python package): the model, the compile pipeline's options spelled as
// strata-opt's `--strata-compile="..."` spells them, and the driver's input
// options spelled as strata-compile's flags; the program's bytes and the
// report back, or the diagnostics strata-compile would print.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_COMPILEMODEL_H
#define STRATA_COMPILER_COMPILEMODEL_H

#include "strata/Compiler/Verify.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace strata {

struct ImportOptions;

/// What to compile, and how.
struct CompileRequest {
  /// The ONNX model file.
  std::string modelPath;
  /// The pipeline options, as strata-opt's `--strata-compile="..."` takes
  /// them: "backend=onednn quantize=true" (empty: the defaults).
  std::string pipelineOptions;
  /// As strata-compile's --input-shape, --dim, --max-extent and
  /// --input-value take them, one entry per flag.
  std::vector<std::string> inputShapes, dims, maxExtents, inputValues;
  /// What to produce, as strata-compile's --emit spells it
  /// (emitKindNames(): "program", "plan", "mlir-hl", "mlir-hl-transformed",
  /// "mlir-partitioned", "mlir-edge", "mlir-exec" or "onnx-qdq").
  std::string emit = "program";
  /// Apply flags of a transformation plan, as the JSON `emit = "plan"`
  /// produced (empty: every match applies).
  std::string planJSON;
  /// Verify the program as --verify does (with `emit = "program"`): a
  /// failure is a failed compilation.
  bool verify = false;
  VerifyOptions verifyOptions;
};

/// A compilation's outcome.
struct CompileOutcome {
  bool ok = false;
  /// What `emit` asked for: the .strata program, the plan's JSON, MLIR
  /// text or the ONNX model's bytes.
  std::string artifact;
  /// The compile report as JSON (strata-compile --report).
  std::string reportJSON;
  /// With `verify`: VerifyResult::toJSON.
  std::string verifyJSON;
  /// What strata-compile prints to stderr: diagnostics naming the ONNX
  /// node, and notes.
  std::string diagnostics;
};

/// Parses `request`'s input options (--input-shape, --dim, --max-extent,
/// --input-value) into `options`; false after writing
/// "strata-compile: bad --FLAG: ..." to `os`.
bool parseInputOptions(const CompileRequest &request, ImportOptions &options,
                       llvm::raw_ostream &os);

/// Compiles `request` in a context of its own. Without a "backend" option,
/// the backend setBackend selected (if any) is the one used; compiling never
/// changes the selection. Planning (`emit = "plan"`) stops before
/// calibration, so it needs no calibration data.
CompileOutcome compileModel(const CompileRequest &request);

/// The program's name strata-compile gives a model: its folder's name for
/// a model.onnx in a folder of its own, else the file's stem.
std::string programNameOf(const std::string &modelPath);

} // namespace strata

#endif // STRATA_COMPILER_COMPILEMODEL_H
