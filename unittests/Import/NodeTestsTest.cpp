//===- NodeTestsTest.cpp - import every in-scope ONNX node test -----------===//
//
// Imports each model of the ONNX backend node tests (libonnx-testdata) that
// test/Import/out-of-scope.txt leaves in scope, runs the MLIR verifier (the
// importer does), and fails when fewer than 98% pass. Prints the count and
// every failure with its first diagnostic.
//
//===----------------------------------------------------------------------===//
#include "strata/Conformance/NodeTestScope.h"
#include "strata/Import/ONNXImporter.h"
#include "strata/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
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

TEST(NodeTests, InScopeModelsImportAndVerify) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << "libonnx-testdata is not installed";
  auto scope = strata::NodeTestScope::read(STRATA_SOURCE_DIR
                                           "/test/Import/out-of-scope.txt");
  ASSERT_TRUE(bool(scope)) << llvm::toString(scope.takeError());

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
    if (!scope->outOfScopeReason(name, model).empty())
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
