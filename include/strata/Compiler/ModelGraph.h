//===- ModelGraph.h - the ONNX graph as the user wrote it -------*- C++ -*-===//
//
// The nodes of a model's graph in their (topological) file order, each node's
// sub-graphs (If branches, Loop and Scan bodies) before it, with their op
// types and the nodes that feed them: what --bisect orders its comparison by
// and what the HTML report draws.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_MODELGRAPH_H
#define STRATA_COMPILER_MODELGRAPH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace strata {

struct ModelGraphNode {
  /// The node's name ("<op type>_<index>" when the file leaves it empty).
  std::string name;
  std::string opType;
  /// The nodes whose outputs it reads, by index in the graph's node list (for
  /// a node with sub-graphs, also those computing the sub-graphs' outputs).
  std::vector<int64_t> inputs;
};

/// The graph's nodes, sub-graphs' included; empty when the file does not
/// parse.
std::vector<ModelGraphNode> readModelGraph(llvm::StringRef modelPath);

/// [{"name", "op_type", "inputs": [index...]}].
llvm::json::Value toJSON(const std::vector<ModelGraphNode> &graph);

} // namespace strata

#endif // STRATA_COMPILER_MODELGRAPH_H
