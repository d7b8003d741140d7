//===- OpsetNormalization.h - ai.onnx opsets 18-21 as opset 17 --*- C++ -*-===//
//
// Private to lib/Import.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_IMPORT_OPSETNORMALIZATION_H
#define STRATA_LIB_IMPORT_OPSETNORMALIZATION_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace strata::importer {

/// The newest ai.onnx opset that libonnx (Debian's 1.12) has schemas for,
/// and the newest one the importer accepts, normalising the difference.
constexpr int kNewestCheckedOpset = 17;
constexpr int kNewestNormalizedOpset = 21;

/// The rank each value of `graph` is declared with (graph inputs,
/// value_info and outputs that carry a shape; initializers), sub-graphs not
/// included.
llvm::StringMap<int> declaredRanks(const onnx::GraphProto &graph);

/// What normalisation rewrote.
struct NormalizationResult {
  /// The model's ai.onnx opset before normalisation (0 when unchanged).
  int fromOpset = 0;
  /// The IR version before it was lowered to what libonnx checks (0 when
  /// unchanged).
  int64_t fromIRVersion = 0;
  /// op type and opset -> number of nodes rewritten into opset-17 form.
  std::map<std::string, int> rewritten;
  /// Attributes of opsets 18-21 that the importer implements but that
  /// libonnx's opset-17 schema would reject (Resize-18's `antialias`):
  /// taken off their node, named by its graph's place in the model and its
  /// first output, for the checker and shape inference, and put back by
  /// restoreDeferredAttributes.
  std::vector<std::pair<std::string, onnx::AttributeProto>> deferred;
};

/// Rewrites a model whose ai.onnx opset is 18 to 21 into opset 17, which
/// libonnx's checker and shape inference know: every node whose definition
/// changed since is replaced by its exact opset-17 equivalent (an input that
/// became an attribute or the reverse, an attribute that only has its
/// neutral value dropped, an operator defined as an ONNX function expanded
/// into its body), and the opset import lowered. Sub-graphs included.
/// Fails, with `error` naming the node and what it uses, where no exact
/// equivalent exists. A model at opset 17 or older is left alone.
mlir::FailureOr<NormalizationResult>
normalizeToCheckedOpset(onnx::ModelProto &model, std::string &error);

/// Puts the attributes that normalisation deferred back on their nodes,
/// once the checker and shape inference have run.
void restoreDeferredAttributes(onnx::ModelProto &model,
                               const NormalizationResult &result);

} // namespace strata::importer

#endif // STRATA_LIB_IMPORT_OPSETNORMALIZATION_H
