//===- NodeTestScope.cpp - which ONNX node tests are in scope -------------===//
#include "strata/Conformance/NodeTestScope.h"

#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

namespace strata {

llvm::Expected<NodeTestScope> NodeTestScope::read(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read %s",
                                   path.str().c_str());
  NodeTestScope scope;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::StringRef entry = line.split('#').first.trim();
    if (entry.empty())
      continue;
    entry = entry.split(' ').first.split('\t').first;
    if (entry.starts_with("test_"))
      scope.testPrefixes.push_back(entry.str());
    else
      scope.opTypes.insert(entry);
  }
  if (scope.opTypes.empty() && scope.testPrefixes.empty())
    return llvm::createStringError(std::errc::invalid_argument,
                                   "%s lists no entries", path.str().c_str());
  return scope;
}

namespace {

/// The first op type of `ops` that `graph` or one of its sub-graphs uses.
const std::string *findOpType(const onnx::GraphProto &graph,
                              const llvm::StringSet<> &ops) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (ops.contains(node.op_type()))
      return &node.op_type();
    for (const onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        if (const std::string *found = findOpType(attribute.g(), ops))
          return found;
      for (const onnx::GraphProto &subgraph : attribute.graphs())
        if (const std::string *found = findOpType(subgraph, ops))
          return found;
    }
  }
  return nullptr;
}

bool isNonStringTensor(const onnx::ValueInfoProto &info) {
  return info.type().has_tensor_type() &&
         info.type().tensor_type().elem_type() != onnx::TensorProto::STRING;
}

} // namespace

std::string NodeTestScope::outOfScopeReason(
    llvm::StringRef name, const onnx::ModelProto &model) const {
  for (const std::string &prefix : testPrefixes)
    if (name.starts_with(prefix))
      return "listed as out of scope (" + prefix + ")";
  for (const auto *values : {&model.graph().input(), &model.graph().output()})
    for (const onnx::ValueInfoProto &info : *values)
      if (!isNonStringTensor(info))
        return "graph value '" + info.name() +
               "' is a sequence, optional, map or string";
  if (const std::string *opType = findOpType(model.graph(), opTypes))
    return "uses out-of-scope op " + *opType;
  return "";
}

std::string NodeTestScope::outOfScopeReason(llvm::StringRef name,
                                            llvm::StringRef modelPath) const {
  auto buffer = llvm::MemoryBuffer::getFile(modelPath);
  onnx::ModelProto model;
  if (!buffer || (*buffer)->getBufferSize() > INT_MAX ||
      !model.ParseFromArray((*buffer)->getBufferStart(),
                            static_cast<int>((*buffer)->getBufferSize())))
    return "";
  return outOfScopeReason(name, model);
}

} // namespace strata
