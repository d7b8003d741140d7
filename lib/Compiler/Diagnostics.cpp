//===- Diagnostics.cpp - diagnostics that name the ONNX node --------------===//
#include "strata/Compiler/Diagnostics.h"

#include "strata/Support/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace strata {

/// The file part of a location, if any.
static std::string getFileName(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return getFileName(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string file = getFileName(inner); !file.empty())
        return file;
  return "";
}

NodeDiagnosticHandler::NodeDiagnosticHandler(MLIRContext *context,
                                             llvm::raw_ostream &os,
                                             bool verbose)
    : ScopedDiagnosticHandler(context), os(os), verbose(verbose) {
  setHandler([this](Diagnostic &diagnostic) {
    print(diagnostic, /*isNote=*/false);
    for (Diagnostic &note : diagnostic.getNotes())
      print(note, /*isNote=*/true);
    return success();
  });
}

void NodeDiagnosticHandler::print(Diagnostic &diagnostic, bool isNote) {
  std::string message = diagnostic.str();
  if (isNote && !verbose &&
      StringRef(message).starts_with("see current operation"))
    return;
  std::string file = getFileName(diagnostic.getLocation());
  if (!file.empty())
    os << file << ": ";
  switch (diagnostic.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  }
  if (std::string node = getNodeName(diagnostic.getLocation()); !node.empty())
    os << "node '" << node << "': ";
  os << message << "\n";
}

} // namespace strata
