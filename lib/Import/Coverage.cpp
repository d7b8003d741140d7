//===- Coverage.cpp - which op types of a model the importer supports -----===//
//
// The coverage report (strata-translate --coverage, getONNXCoverage) and the
// list of unsupported operators a normal import reports all at once come
// from here: every (domain, op_type, schema since_version) of the model,
// sub-graphs included, looked up in the op table; and the list of every op
// type the table converts (strata-translate --list-onnx-ops).
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"

#include "ImportContext.h"
#include "strata/Import/ONNXChecks.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <limits>
#include <map>
#include <tuple>
#include <unistd.h>

using namespace mlir;
using namespace strata::importer;

namespace strata {

/// Collects coverage of `graph` and its sub-graphs into `table`.
static void collectCoverage(
    const onnx::GraphProto &graph, const std::map<std::string, int> &opsets,
    std::map<std::tuple<std::string, std::string, int64_t>, size_t> &index,
    std::vector<OpCoverage> &table) {
  for (const onnx::NodeProto &node : graph.node()) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    auto opset = opsets.find(domain);
    int64_t version = opset == opsets.end() ? 0 : opset->second;
    // The schema's since_version; -1 when libonnx knows no such operator.
    int64_t since = -1;
    if (opset != opsets.end())
      since =
          getSchemaSinceVersion(domain, node.op_type(), version).value_or(-1);
    int64_t key = since >= 0 ? since : version;
    for (const onnx::AttributeProto &a : node.attribute()) {
      for (const onnx::GraphProto &g : a.graphs())
        collectCoverage(g, opsets, index, table);
      if (a.has_g())
        collectCoverage(a.g(), opsets, index, table);
    }
    auto [it, inserted] =
        index.try_emplace({domain, node.op_type(), key}, table.size());
    if (inserted)
      table.emplace_back();
    OpCoverage &entry = table[it->second];
    if (entry.nodeNames.empty()) {
      entry.domain = domain.empty() ? "ai.onnx" : domain;
      entry.opType = node.op_type();
      entry.opsetVersion = key;
      entry.supported =
          since >= 0 &&
          getOpTable().lookup(domain, node.op_type(), since) != nullptr;
    }
    entry.nodeNames.push_back(node.name());
  }
}

std::vector<OpCoverage> importer::modelCoverage(const onnx::ModelProto &model) {
  std::map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()] = opset.version();
  std::map<std::tuple<std::string, std::string, int64_t>, size_t> index;
  std::vector<OpCoverage> result;
  collectCoverage(model.graph(), opsets, index, result);
  return result;
}

std::vector<SupportedOp> getSupportedONNXOps() {
  std::vector<SupportedOp> result;
  for (const auto &[key, versions] : getOpTable().entries()) {
    SupportedOp &op = result.emplace_back();
    op.domain = key.first.empty() ? "ai.onnx" : key.first;
    op.opType = key.second;
    for (const auto &entry : versions)
      op.sinceVersions.push_back(entry.first);
  }
  return result;
}

void printSupportedONNXOps(llvm::raw_ostream &os) {
  for (const SupportedOp &op : getSupportedONNXOps()) {
    os << op.domain << "::" << op.opType << " ";
    llvm::interleave(op.sinceVersions, os, ",");
    os << "\n";
  }
}

LogicalResult
importer::parseModel(google::protobuf::io::ZeroCopyInputStream &in,
                     onnx::ModelProto &model, Location loc) {
  google::protobuf::io::CodedInputStream coded(&in);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return emitError(loc) << "cannot parse the file as an ONNX ModelProto "
                             "(truncated, corrupt or not an ONNX model)";
  return success();
}

FailureOr<std::vector<OpCoverage>>
getONNXCoverageFromBytes(StringRef bytes, StringRef bufferName,
                         MLIRContext *context) {
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream in(bytes.data(), bytes.size());
  if (failed(parseModel(in, model,
                        FileLineColLoc::get(context, bufferName, 0, 0))))
    return failure();
  return modelCoverage(model);
}

FailureOr<std::vector<OpCoverage>> getONNXCoverage(StringRef path,
                                                   MLIRContext *context) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  int fd = ::open(path.str().c_str(), O_RDONLY);
  if (fd < 0)
    return emitError(loc) << "cannot open '" << path << "'", failure();
  onnx::ModelProto model;
  google::protobuf::io::FileInputStream in(fd, 1 << 20);
  LogicalResult parsed = parseModel(in, model, loc);
  ::close(fd);
  if (failed(parsed))
    return failure();
  return modelCoverage(model);
}

} // namespace strata
