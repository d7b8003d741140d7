//===- ModelGraph.cpp - the ONNX graph as the user wrote it ---------------===//
#include "strata/Compiler/ModelGraph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "onnx/onnx_pb.h"

namespace strata {

namespace {
/// Appends `graph`'s nodes to `nodes`, each after the nodes of its sub-graphs
/// (If branches, Loop and Scan bodies: the importer inlines a folded If's
/// branch, whose nodes then compute the If's results), named as the
/// importer names them.
void appendNodes(onnx::GraphProto &graph, bool isSubgraph,
                 std::vector<ModelGraphNode> &nodes,
                 llvm::StringMap<int64_t> &producer) {
  for (auto [i, node] : llvm::enumerate(*graph.mutable_node())) {
    // The importer's name for an unnamed node.
    if (node.name().empty())
      node.set_name((isSubgraph ? graph.name() + "/" : std::string()) +
                    node.op_type() + "_" + std::to_string(i));
    ModelGraphNode entry;
    auto addInput = [&](const std::string &value) {
      auto it = producer.find(value);
      if (it != producer.end() && !llvm::is_contained(entry.inputs, it->second))
        entry.inputs.push_back(it->second);
    };
    for (onnx::AttributeProto &attribute : *node.mutable_attribute()) {
      std::vector<onnx::GraphProto *> bodies;
      if (attribute.has_g())
        bodies.push_back(attribute.mutable_g());
      for (onnx::GraphProto &body : *attribute.mutable_graphs())
        bodies.push_back(&body);
      for (onnx::GraphProto *body : bodies) {
        appendNodes(*body, /*isSubgraph=*/true, nodes, producer);
        for (const onnx::ValueInfoProto &output : body->output())
          addInput(output.name());
      }
    }
    entry.name = node.name();
    entry.opType = node.op_type();
    for (const std::string &input : node.input())
      addInput(input);
    for (const std::string &output : node.output())
      producer[output] = static_cast<int64_t>(nodes.size());
    nodes.push_back(std::move(entry));
  }
}
} // namespace

std::vector<ModelGraphNode> readModelGraph(llvm::StringRef modelPath) {
  std::vector<ModelGraphNode> graph;
  auto file = llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!file || !model.ParseFromArray((*file)->getBufferStart(),
                                     (*file)->getBufferSize()))
    return graph;
  llvm::StringMap<int64_t> producer;
  appendNodes(*model.mutable_graph(), /*isSubgraph=*/false, graph, producer);
  return graph;
}

llvm::json::Value toJSON(const std::vector<ModelGraphNode> &graph) {
  llvm::json::Array nodes;
  for (const ModelGraphNode &node : graph)
    nodes.push_back(llvm::json::Object{{"name", node.name},
                                       {"op_type", node.opType},
                                       {"inputs", node.inputs}});
  return nodes;
}

} // namespace strata
