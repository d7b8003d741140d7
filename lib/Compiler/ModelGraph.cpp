//===- ModelGraph.cpp - the ONNX graph as the user wrote it ---------------===//
#include "strata/Compiler/ModelGraph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "onnx/onnx_pb.h"

namespace strata {

std::vector<ModelGraphNode> readModelGraph(llvm::StringRef modelPath) {
  std::vector<ModelGraphNode> graph;
  auto file = llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!file || !model.ParseFromArray((*file)->getBufferStart(),
                                     (*file)->getBufferSize()))
    return graph;
  llvm::StringMap<int64_t> producer;
  for (const onnx::NodeProto &node : model.graph().node()) {
    ModelGraphNode entry;
    // The importer's name for an unnamed node.
    entry.name = node.name().empty() ? node.op_type() + "_" +
                                           std::to_string(graph.size())
                                     : node.name();
    entry.opType = node.op_type();
    for (const std::string &input : node.input()) {
      auto it = producer.find(input);
      if (it != producer.end() &&
          llvm::find(entry.inputs, it->second) == entry.inputs.end())
        entry.inputs.push_back(it->second);
    }
    for (const std::string &output : node.output())
      producer[output] = static_cast<int64_t>(graph.size());
    graph.push_back(std::move(entry));
  }
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
