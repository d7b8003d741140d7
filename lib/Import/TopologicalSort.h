//===- TopologicalSort.h - ONNX nodes into dataflow order -------*- C++ -*-===//
//
// Private to lib/Import.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_IMPORT_TOPOLOGICALSORT_H
#define STRATA_LIB_IMPORT_TOPOLOGICALSORT_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"

#include "onnx/onnx_pb.h"

#include <string>

namespace strata::importer {

using mlir::FailureOr;

struct SortResult {
  /// Nodes (sub-graphs included) whose position changed.
  int64_t movedNodes = 0;
};

/// Reorders the nodes of `graph` and of its sub-graphs into a topological
/// order, stable where the written order already is one. `outer` names the
/// values visible from enclosing graphs. Fails, with `error` naming the
/// node, on a cycle or on an input that nothing produces.
FailureOr<SortResult> sortTopologically(onnx::GraphProto &graph,
                                        llvm::ArrayRef<std::string> outer,
                                        std::string &error);

} // namespace strata::importer

#endif // STRATA_LIB_IMPORT_TOPOLOGICALSORT_H
