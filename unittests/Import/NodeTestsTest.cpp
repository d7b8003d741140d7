//===- NodeTestsTest.cpp - import every in-scope ONNX node test -----------===//
//
// Imports each model of the ONNX backend node tests (libonnx-testdata) that
// test/Import/out-of-scope.txt leaves in scope, runs the MLIR verifier (the
// importer does), and fails when fewer than 98% pass. Prints the count and
// every failure with its first diagnostic.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"
#include "strata/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

constexpr const char *kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

/// The parsed out-of-scope list: op types and test-name prefixes.
struct Scope {
  llvm::StringSet<> opTypes;
  std::vector<std::string> testPrefixes;
};

Scope readScope(const std::string &path) {
  Scope scope;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::string entry = line.substr(0, line.find('#'));
    entry.erase(std::remove_if(entry.begin(), entry.end(), ::isspace),
                entry.end());
    if (entry.empty())
      continue;
    if (llvm::StringRef(entry).starts_with("test_"))
      scope.testPrefixes.push_back(entry);
    else
      scope.opTypes.insert(entry);
  }
  return scope;
}

bool usesOpType(const onnx::GraphProto &graph, const llvm::StringSet<> &ops) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (ops.contains(node.op_type()))
      return true;
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g() && usesOpType(a.g(), ops))
        return true;
      for (const onnx::GraphProto &g : a.graphs())
        if (usesOpType(g, ops))
          return true;
    }
  }
  return false;
}

bool isPlainTensor(const onnx::ValueInfoProto &info) {
  return info.type().has_tensor_type() &&
         info.type().tensor_type().elem_type() != onnx::TensorProto::STRING;
}

/// Whether the test named `name` with `model` is in scope.
bool inScope(const std::string &name, const onnx::ModelProto &model,
             const Scope &scope) {
  for (const std::string &prefix : scope.testPrefixes)
    if (llvm::StringRef(name).starts_with(prefix))
      return false;
  for (const auto &list : {&model.graph().input(), &model.graph().output()})
    for (const onnx::ValueInfoProto &info : *list)
      if (!isPlainTensor(info))
        return false;
  return !usesOpType(model.graph(), scope.opTypes);
}

TEST(NodeTests, InScopeModelsImportAndVerify) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << "libonnx-testdata is not installed";
  Scope scope = readScope(STRATA_SOURCE_DIR "/test/Import/out-of-scope.txt");
  ASSERT_FALSE(scope.opTypes.empty()) << "cannot read out-of-scope.txt";

  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(kNodeTestDir, ec), end;
       it != end && !ec; it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());

  mlir::DialectRegistry registry;
  strata::registerAllDialects(registry);
  int total = 0, inScopeCount = 0, passed = 0;
  std::vector<std::string> failures;
  for (const std::string &name : names) {
    std::string path = std::string(kNodeTestDir) + "/" + name + "/model.onnx";
    std::ifstream file(path, std::ios::binary);
    if (!file)
      continue;
    ++total;
    onnx::ModelProto model;
    if (!model.ParseFromIstream(&file)) {
      failures.push_back(name + ": unparsable model");
      ++inScopeCount;
      continue;
    }
    if (!inScope(name, model, scope))
      continue;
    ++inScopeCount;
    mlir::MLIRContext context(registry);
    std::string firstError;
    mlir::ScopedDiagnosticHandler handler(&context,
                                          [&](mlir::Diagnostic &diag) {
                                            if (firstError.empty())
                                              firstError = diag.str();
                                            return mlir::success();
                                          });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        strata::importONNXFile(path, &context);
    if (module)
      ++passed;
    else
      failures.push_back(name + ": " + firstError);
  }

  double rate = inScopeCount ? double(passed) / inScopeCount : 0;
  std::cout << "ONNX node tests: " << total << " total, " << inScopeCount
            << " in scope, " << passed << " import and verify (" << 100.0 * rate
            << "%)\n";
  for (const std::string &failure : failures)
    std::cout << "  FAILED " << failure << "\n";
  EXPECT_GE(rate, 0.98) << failures.size() << " in-scope node tests fail";
}

} // namespace
