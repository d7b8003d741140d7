//===- TopologicalSort.cpp - ONNX nodes into dataflow order ---------------===//
//
// ONNX requires a graph's nodes in topological order, but ONNX Runtime
// accepts any order and some exporters (and hand-edited models) write them
// out of order. The importer sorts them first, as ONNX Runtime's graph
// resolution does, keeping the written order among nodes that are ready at
// the same time, and reports a true cycle or a value nothing produces with
// the node's name. A sub-graph's uses of outer values count as inputs of the
// node that owns the sub-graph.
//
//===----------------------------------------------------------------------===//
#include "TopologicalSort.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <queue>

using mlir::failure;

namespace strata::importer {

/// Adds to `names` every value that the nodes of `graph` (and of its nested
/// sub-graphs) read but that `graph` itself does not define: the outer-scope
/// values the graph captures.
static void collectCapturedNames(const onnx::GraphProto &graph,
                                 llvm::StringSet<> &names) {
  llvm::StringSet<> defined;
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer())
    defined.insert(init.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      defined.insert(output);
  auto use = [&](llvm::StringRef name) {
    if (!name.empty() && !defined.contains(name))
      names.insert(name);
  };
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      use(input);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      llvm::StringSet<> inner;
      if (attr.has_g())
        collectCapturedNames(attr.g(), inner);
      for (const onnx::GraphProto &g : attr.graphs())
        collectCapturedNames(g, inner);
      for (const auto &entry : inner)
        use(entry.getKey());
    }
  }
}

FailureOr<SortResult> sortTopologically(onnx::GraphProto &graph,
                                        llvm::ArrayRef<std::string> outer,
                                        std::string &error) {
  SortResult result;
  int numNodes = graph.node_size();
  // What each node reads: its inputs and its sub-graphs' captured values.
  std::vector<llvm::SmallVector<std::string, 4>> reads(numNodes);
  for (int i = 0; i < numNodes; ++i) {
    onnx::NodeProto *node = graph.mutable_node(i);
    llvm::StringSet<> captured;
    for (onnx::AttributeProto &attr : *node->mutable_attribute()) {
      std::vector<onnx::GraphProto *> bodies;
      if (attr.has_g())
        bodies.push_back(attr.mutable_g());
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        bodies.push_back(&g);
      for (onnx::GraphProto *body : bodies) {
        collectCapturedNames(*body, captured);
        // The body sees every value of this graph and the outer ones.
        std::vector<std::string> visible(outer.begin(), outer.end());
        for (const onnx::ValueInfoProto &input : graph.input())
          visible.push_back(input.name());
        for (const onnx::TensorProto &init : graph.initializer())
          visible.push_back(init.name());
        for (const onnx::NodeProto &n : graph.node())
          for (const std::string &output : n.output())
            visible.push_back(output);
        FailureOr<SortResult> inner = sortTopologically(*body, visible, error);
        if (failed(inner))
          return failure();
        result.movedNodes += inner->movedNodes;
      }
    }
    for (const std::string &input : node->input())
      if (!input.empty())
        reads[i].push_back(input);
    for (const auto &entry : captured)
      reads[i].push_back(entry.getKey().str());
  }

  llvm::StringMap<int> producer;
  for (int i = 0; i < numNodes; ++i)
    for (const std::string &output : graph.node(i).output())
      if (!output.empty())
        producer.try_emplace(output, i);
  llvm::StringSet<> available;
  for (const std::string &name : outer)
    available.insert(name);
  for (const onnx::ValueInfoProto &input : graph.input())
    available.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer())
    available.insert(init.name());

  // Kahn's algorithm, taking the earliest ready node first.
  std::vector<int> pending(numNodes, 0);
  std::vector<llvm::SmallVector<int, 2>> consumers(numNodes);
  for (int i = 0; i < numNodes; ++i) {
    for (const std::string &name : reads[i]) {
      if (available.contains(name))
        continue;
      auto it = producer.find(name);
      if (it == producer.end()) {
        const onnx::NodeProto &node = graph.node(i);
        error = "node '" + node.name() + "' (" + node.op_type() + "): input '" +
                name +
                "' is not produced by any node, initializer or graph input";
        return failure();
      }
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<int> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int consumer : consumers[i])
      if (--pending[consumer] == 0)
        ready.push(consumer);
  }
  if (static_cast<int>(order.size()) != numNodes) {
    // Every node left over waits on another left-over node: walk from the
    // first one through waiting producers until a node repeats, which lies
    // on a cycle.
    auto waitsOn = [&](int i) -> std::pair<int, const std::string *> {
      for (const std::string &name : reads[i]) {
        auto it = producer.find(name);
        if (!available.contains(name) && it != producer.end() &&
            pending[it->second] != 0)
          return {it->second, &name};
      }
      return {-1, nullptr};
    };
    int current = 0;
    while (pending[current] == 0)
      ++current;
    std::vector<bool> seen(numNodes, false);
    while (!seen[current]) {
      seen[current] = true;
      current = waitsOn(current).first;
    }
    auto [from, name] = waitsOn(current);
    const onnx::NodeProto &node = graph.node(current);
    error = "node '" + node.name() + "' (" + node.op_type() + "): input '" +
            *name + "' comes from node '" + graph.node(from).name() +
            "', which depends on this node's outputs: the graph has a cycle";
    return failure();
  }
  for (int i = 0; i < numNodes; ++i)
    if (order[i] != i)
      ++result.movedNodes;
  if (result.movedNodes == 0)
    return result;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  sorted.Reserve(numNodes);
  for (int i : order)
    sorted.Add()->Swap(graph.mutable_node(i));
  graph.mutable_node()->Swap(&sorted);
  return result;
}

} // namespace strata::importer
