//===- Locations.cpp - ONNX node names carried by locations ---------------===//
#include "strata/Support/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace strata {

void collectNodeNames(Location loc, llvm::SetVector<StringRef> &names) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    names.insert(name.getName().getValue());
    collectNodeNames(name.getChildLoc(), names);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      collectNodeNames(inner, names);
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    collectNodeNames(callSite.getCallee(), names);
    collectNodeNames(callSite.getCaller(), names);
  }
}

std::string getNodeName(Location loc) {
  llvm::SetVector<StringRef> names;
  collectNodeNames(loc, names);
  return names.empty() ? "" : names.front().str();
}

} // namespace strata
