//===- ONNXImporter.h - ONNX model to hl dialect ----------------*- C++ -*-===//
//
// Public API of the ONNX importer: a model file (or bytes) becomes a module
// with one `func.func @main` in the `hl` dialect. Before conversion the ONNX
// library's own checker and shape inference run; their failures, and every
// unsupported operator, are reported as MLIR diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_IMPORT_ONNXIMPORTER_H
#define STRATA_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace strata {

/// One dimension of an `--input-shape`: a fixed extent, or a dynamic one
/// with bounds, named by a symbol (the same symbol in two inputs is one
/// extent at run time).
struct InputDim {
  /// The extent, or -1 when the dimension is dynamic.
  int64_t extent = -1;
  /// A dynamic dimension's symbol: the user's, or `<input>.<index>` for an
  /// anonymous range.
  std::string symbol;
  bool isFixed() const { return extent >= 0; }
};

/// The bounds of a dynamic dimension's symbol, both inclusive.
struct DimBounds {
  int64_t min = 0, max = 0;
  bool operator==(const DimBounds &other) const {
    return min == other.min && max == other.max;
  }
};

/// Options of an ONNX import.
struct ImportOptions {
  /// Input dimensions: input name -> full shape (e.g. "input" ->
  /// {1,3,224,224}, or a dynamic batch: {batch,3,224,224}). Fixed extents
  /// replace the model's; dynamic ones become the model's symbolic
  /// dimensions (ONNX dim_params), which ONNX shape inference propagates.
  llvm::StringMap<llvm::SmallVector<InputDim>> inputShapes;
  /// The bounds of every symbol `inputShapes` names, and of the model's
  /// own symbolic dimensions (ONNX dim_params) that `namedDims` bounds.
  std::map<std::string, DimBounds> dimBounds;
  /// The symbols --dim bounded by name: each must be a dim_param of an
  /// input (or a symbol of `inputShapes`).
  std::set<std::string> namedDims;
  /// Bounds of value-dependent extents by node name (--max-extent
  /// NODE=N): NonZero's count, NonMaxSuppression's selections and the
  /// like, where the bound the compiler derives is too large or there is
  /// none. Each name must be a node of such an op.
  std::map<std::string, int64_t> maxExtents;
  /// Freezes inputs to constants: input name -> its values (a model's
  /// sample-rate or mode input, such as Silero VAD's `sr`, that an If tests).
  /// The input becomes an initializer of its declared type and shape (a
  /// scalar, or the shape --input-shape gives) and leaves the signature, so
  /// that what depends on it folds.
  llvm::StringMap<llvm::SmallVector<double>> inputValues;
  /// Runs `onnx::checker::check_model` before conversion (errors are fatal).
  bool runChecker = true;
  /// Runs `onnx::shape_inference::InferShapes` (with data propagation).
  bool runShapeInference = true;
  /// Runs it in a forked child process, so that a fault of libonnx on a
  /// malformed model becomes an error naming the node (libonnx 1.12 reads
  /// past shapes whose declared rank its inference functions do not
  /// expect). Off, it runs in this process: faster by one fork, for trusted
  /// models or callers that must not fork.
  bool containShapeInference = true;
  /// Initializers with at least this many bytes become `dense_resource`
  /// blobs; smaller ones are inline `dense<...>` so that folders see them.
  int64_t resourceThresholdBytes = 64;
  /// The most bytes one tensor may hold (an initializer, a graph input, an
  /// inferred or folded result); a model with a larger one is refused.
  /// At most kMaxTensorBytes (strata/Support/Limits.h, 2 GiB), its default.
  int64_t maxTensorBytes = int64_t(1) << 31;
};

/// Imports an ONNX model file; external data is resolved relative to the
/// file. Emits diagnostics (with node names) and returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXFile(llvm::StringRef path, mlir::MLIRContext *context,
               const ImportOptions &options = {});

/// Same from bytes in memory; `bufferName` is the file name used in
/// locations and, when it names a file, the base of external data paths.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXBytes(llvm::StringRef bytes, llvm::StringRef bufferName,
                mlir::MLIRContext *context, const ImportOptions &options = {});

/// One line of a coverage report: an op type of the model, supported or not,
/// with the names of the nodes using it.
struct OpCoverage {
  std::string domain, opType;
  int64_t opsetVersion;
  bool supported;
  std::vector<std::string> nodeNames;
};

/// Coverage report: every op type in the model (sub-graphs included),
/// supported or not, with counts and node names. Runs no checker and converts
/// nothing; fails only when the file cannot be read or parsed.
mlir::FailureOr<std::vector<OpCoverage>>
getONNXCoverage(llvm::StringRef path, mlir::MLIRContext *context);

/// Same as getONNXCoverage from bytes in memory.
mlir::FailureOr<std::vector<OpCoverage>>
getONNXCoverageFromBytes(llvm::StringRef bytes, llvm::StringRef bufferName,
                         mlir::MLIRContext *context);

/// One op type of the importer's op table and the schema versions
/// (since_version) it has handlers for; a model's node uses the largest one
/// not above its schema's.
struct SupportedOp {
  std::string domain; ///< "ai.onnx" for the default domain
  std::string opType;
  std::vector<int64_t> sinceVersions;
};

/// Every op type the importer converts, in (domain, op type) order.
std::vector<SupportedOp> getSupportedONNXOps();

/// Prints getSupportedONNXOps() one op type a line, `ai.onnx::Conv 1,11`
/// (`strata-translate --list-onnx-ops`).
void printSupportedONNXOps(llvm::raw_ostream &os);

/// Parses --dim's NAME=LO..HI into `options`: the bounds of the symbolic
/// dimension NAME, an ONNX dim_param of the model's inputs (or a symbol
/// --input-shape names), without restating the inputs' shapes.
mlir::LogicalResult parseDimBound(llvm::StringRef spec, ImportOptions &options,
                                  std::string &error);

/// Parses --max-extent's NODE=N into `options.maxExtents`.
mlir::LogicalResult parseMaxExtent(llvm::StringRef spec, ImportOptions &options,
                                   std::string &error);

/// Parses `name=DIMS` into `options.inputShapes`: DIMS joins by 'x' fixed
/// extents (`224`), anonymous ranges (`1..8`), symbols with their bounds
/// (`batch:1..8`) and symbols bounded elsewhere (`batch`), e.g.
/// `input_ids=batch:1..8xseq:8..512` (joined by ',' instead where a symbol
/// has an 'x' in its name: `ids=max_batch:1..8,16`). A symbol bounded twice
/// must be bounded alike; one never bounded is an error at import.
mlir::LogicalResult parseInputShape(llvm::StringRef spec,
                                    ImportOptions &options, std::string &error);
/// Parses `name=16000` or `name=1,2,3` into `options.inputValues`.
mlir::LogicalResult parseInputValue(llvm::StringRef spec,
                                    ImportOptions &options, std::string &error);

/// Registers the `--import-onnx` translation (with `--input-shape` and
/// `--coverage`) with mlir-translate's registry.
void registerONNXImportTranslation();

} // namespace strata

#endif // STRATA_IMPORT_ONNXIMPORTER_H
