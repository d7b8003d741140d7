//===- NodeTestScope.h - which ONNX node tests are in scope -----*- C++ -*-===//
//
// The one reader of test/Import/out-of-scope.txt, shared by the conformance
// runner and the importer's node-test gtest, so both count the same tests.
// A test is out of scope when its name starts with a listed `test_` prefix,
// when its model uses a listed op type (in any graph or sub-graph), or when
// a graph input or output is not a non-string tensor (sequence, optional and
// map types, strings).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_CONFORMANCE_NODETESTSCOPE_H
#define STRATA_CONFORMANCE_NODETESTSCOPE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace strata {

class NodeTestScope {
public:
  /// Reads an out-of-scope list: one entry per line, `#` starts a comment;
  /// an entry starting with `test_` is a test-name prefix, any other entry an
  /// ONNX op type. Fails when the file cannot be read or lists nothing.
  static llvm::Expected<NodeTestScope> read(llvm::StringRef path);

  /// Why the test `name` (whose model is `model`) is out of scope; empty
  /// when it is in scope.
  std::string outOfScopeReason(llvm::StringRef name,
                               const onnx::ModelProto &model) const;

  /// Reads `modelPath` and answers as above; a model that does not parse is
  /// in scope (it must fail, not be skipped).
  std::string outOfScopeReason(llvm::StringRef name,
                               llvm::StringRef modelPath) const;

private:
  llvm::StringSet<> opTypes;
  std::vector<std::string> testPrefixes;
};

} // namespace strata

#endif // STRATA_CONFORMANCE_NODETESTSCOPE_H
