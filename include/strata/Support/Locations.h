//===- Locations.h - ONNX node names carried by locations -------*- C++ -*-===//
//
// The importer gives every op a NameLoc with its ONNX node (or initializer)
// name; later stages fuse and nest locations. These helpers read the names
// back for diagnostics, constant symbols and debug handles.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_LOCATIONS_H
#define STRATA_SUPPORT_LOCATIONS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace strata {

/// Collects the NameLoc names inside `loc` (through fused, nested and
/// call-site locations), in order, without duplicates.
void collectNodeNames(mlir::Location loc,
                      llvm::SetVector<llvm::StringRef> &names);

/// The first node name inside `loc`, or "" when there is none.
std::string getNodeName(mlir::Location loc);

} // namespace strata

#endif // STRATA_SUPPORT_LOCATIONS_H
