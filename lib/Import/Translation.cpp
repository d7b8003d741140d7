//===- Translation.cpp - the --import-onnx translation --------------------===//
//
// `strata-translate --import-onnx model.onnx [--input-shape name=1x3x8x8]
// [--coverage]`. With --coverage the report goes to stdout before any
// conversion, and the translation fails when an op type is unsupported.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

using namespace mlir;

namespace strata {

namespace {
/// A symbol: a letter or '_', then letters, digits, '_' or '.'.
bool isSymbol(StringRef name) {
  return !name.empty() &&
         (llvm::isAlpha(name.front()) || name.front() == '_') &&
         llvm::all_of(name, [](char c) {
           return llvm::isAlnum(c) || c == '_' || c == '.';
         });
}
} // namespace

LogicalResult parseInputShape(StringRef spec, ImportOptions &options,
                              std::string &error) {
  // Not a structured binding: lambdas below use both, which C++17 forbids.
  StringRef name, dims;
  std::tie(name, dims) = spec.rsplit('=');
  if (name.empty() || dims.empty()) {
    error = "expected name=DxDx..., got '" + spec.str() + "'";
    return failure();
  }
  auto bad = [&](StringRef part, StringRef why) {
    error = "bad extent '" + part.str() + "' in '" + spec.str() +
            "': " + why.str() +
            "; DIMS joins by 'x' (or ',') extents (224), ranges (1..8) and "
            "symbols with their ranges (batch:1..8), e.g. " +
            name.str() + "=batch:1..8x3x224x224";
    return failure();
  };
  SmallVector<InputDim> shape;
  SmallVector<StringRef> parts;
  // Joined by ',' where a symbol has an 'x' in its name.
  dims.split(parts, dims.contains(',') ? ',' : 'x');
  for (auto [index, part] : llvm::enumerate(parts)) {
    InputDim dim;
    StringRef symbol, range;
    if (part.contains("..")) {
      if (part.contains(':'))
        std::tie(symbol, range) = part.split(':');
      else
        range = part;
    }
    if (range.empty()) {
      // A fixed extent, or a symbol bounded elsewhere.
      if (!part.getAsInteger(10, dim.extent)) {
        if (dim.extent < 0)
          return bad(part, "an extent is not negative");
      } else if (isSymbol(part)) {
        dim.symbol = part.str();
      } else {
        return bad(part, "not an integer, a range or a symbol");
      }
      shape.push_back(dim);
      continue;
    }
    auto [low, high] = range.split("..");
    DimBounds bounds;
    if (low.getAsInteger(10, bounds.min) || high.getAsInteger(10, bounds.max) ||
        bounds.min < 0 || bounds.max < bounds.min)
      return bad(part, "a range is LO..HI with 0 <= LO <= HI");
    if (bounds.max == 0)
      return bad(part, "a range's upper bound is positive");
    if (!symbol.empty() && !isSymbol(symbol))
      return bad(part, "a symbol is a letter or '_', then letters, digits, "
                       "'_' or '.'");
    dim.symbol = symbol.empty() ? name.str() + "." + std::to_string(index)
                                : symbol.str();
    auto [it, inserted] = options.dimBounds.emplace(dim.symbol, bounds);
    if (!inserted && !(it->second == bounds)) {
      error = "symbol '" + dim.symbol + "' is bounded " +
              std::to_string(it->second.min) + ".." +
              std::to_string(it->second.max) + " and " +
              std::to_string(bounds.min) + ".." + std::to_string(bounds.max);
      return failure();
    }
    shape.push_back(dim);
  }
  options.inputShapes[name] = shape;
  return success();
}

LogicalResult parseDimBound(StringRef spec, ImportOptions &options,
                            std::string &error) {
  auto [name, range] = spec.rsplit('=');
  auto [low, high] = range.split("..");
  DimBounds bounds;
  if (!isSymbol(name) || !range.contains("..") ||
      low.getAsInteger(10, bounds.min) || high.getAsInteger(10, bounds.max) ||
      bounds.min < 0 || bounds.max < bounds.min || bounds.max == 0) {
    error = "expected NAME=LO..HI (a symbol of the model's inputs, "
            "0 <= LO <= HI, HI > 0), got '" +
            spec.str() + "'";
    return failure();
  }
  auto [it, inserted] = options.dimBounds.emplace(name.str(), bounds);
  if (!inserted && !(it->second == bounds)) {
    error = "symbol '" + name.str() + "' is bounded " +
            std::to_string(it->second.min) + ".." +
            std::to_string(it->second.max) + " and " +
            std::to_string(bounds.min) + ".." + std::to_string(bounds.max);
    return failure();
  }
  options.namedDims.insert(name.str());
  return success();
}

LogicalResult parseMaxExtent(StringRef spec, ImportOptions &options,
                             std::string &error) {
  auto [name, text] = spec.rsplit('=');
  int64_t bound = 0;
  if (name.empty() || text.getAsInteger(10, bound) || bound < 0) {
    error = "expected NODE=N (a node whose result size depends on the data, "
            "N >= 0), got '" +
            spec.str() + "'";
    return failure();
  }
  options.maxExtents[name.str()] = bound;
  return success();
}

LogicalResult parseInputValue(StringRef spec, ImportOptions &options,
                              std::string &error) {
  auto [name, list] = spec.rsplit('=');
  if (name.empty() || list.empty()) {
    error = "expected name=V or name=V,V,..., got '" + spec.str() + "'";
    return failure();
  }
  SmallVector<double> values;
  SmallVector<StringRef> parts;
  list.split(parts, ',');
  for (StringRef part : parts) {
    double value;
    if (part.trim().getAsDouble(value)) {
      error = "bad value '" + part.str() + "' in '" + spec.str() +
              "': VALUES are numbers joined by ',', e.g. " + name.str() +
              "=16000";
      return failure();
    }
    values.push_back(value);
  }
  options.inputValues[name] = values;
  return success();
}

/// Prints a coverage report; returns whether every op type is supported.
static bool printCoverage(ArrayRef<OpCoverage> coverage,
                          llvm::raw_ostream &os) {
  bool all = true;
  for (const OpCoverage &entry : coverage) {
    all &= entry.supported;
    os << (entry.supported ? "supported   " : "UNSUPPORTED ") << entry.domain
       << "::" << entry.opType << "-" << entry.opsetVersion << " x"
       << entry.nodeNames.size() << ":";
    for (const std::string &name : entry.nodeNames)
      os << " " << name;
    os << "\n";
  }
  os << (all ? "all op types supported\n" : "some op types are unsupported\n");
  return all;
}

void registerONNXImportTranslation() {
  static llvm::cl::list<std::string> inputShapes(
      "input-shape",
      llvm::cl::desc("Fix an input's shape, or bound its dynamic dims: "
                     "name=1x3x224x224, name=batch:1..8x3x224x224 "
                     "(repeatable)"));
  static llvm::cl::list<std::string> dimBounds(
      "dim", llvm::cl::desc("Bound a symbolic dimension of the model's "
                            "inputs by name: batch=1..8 (repeatable)"));
  static llvm::cl::list<std::string> maxExtents(
      "max-extent",
      llvm::cl::desc("Bound a value-dependent extent (NonZero's count, "
                     "NonMaxSuppression's selections) by node: NODE=N "
                     "(repeatable)"));
  static llvm::cl::list<std::string> inputValues(
      "input-value",
      llvm::cl::desc("Freeze an input to constant values: name=16000 or "
                     "name=1,2,3 (repeatable)"));
  static llvm::cl::opt<bool> coverage(
      "coverage",
      llvm::cl::desc("With --import-onnx: print which op types are "
                     "supported, convert nothing; fail if any is not"));
  static TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model into the hl dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        if (coverage) {
          auto report = getONNXCoverageFromBytes(
              buffer->getBuffer(), buffer->getBufferIdentifier(), context);
          if (failed(report) || !printCoverage(*report, llvm::outs()))
            return nullptr;
          return ModuleOp::create(UnknownLoc::get(context)).getOperation();
        }
        ImportOptions options;
        for (const std::string &spec : inputShapes) {
          std::string error;
          if (failed(parseInputShape(spec, options, error))) {
            emitError(UnknownLoc::get(context)) << "--input-shape: " << error;
            return nullptr;
          }
        }
        for (const std::string &spec : dimBounds) {
          std::string error;
          if (failed(parseDimBound(spec, options, error))) {
            emitError(UnknownLoc::get(context)) << "--dim: " << error;
            return nullptr;
          }
        }
        for (const std::string &spec : maxExtents) {
          std::string error;
          if (failed(parseMaxExtent(spec, options, error))) {
            emitError(UnknownLoc::get(context)) << "--max-extent: " << error;
            return nullptr;
          }
        }
        for (const std::string &spec : inputValues) {
          std::string error;
          if (failed(parseInputValue(spec, options, error))) {
            emitError(UnknownLoc::get(context)) << "--input-value: " << error;
            return nullptr;
          }
        }
        OwningOpRef<ModuleOp> module =
            importONNXBytes(buffer->getBuffer(), buffer->getBufferIdentifier(),
                            context, options);
        if (!module)
          return nullptr;
        return module.release().getOperation();
      },
      [](DialectRegistry &registry) {
        registry.insert<hl::HLDialect, func::FuncDialect>();
      });
}

} // namespace strata
