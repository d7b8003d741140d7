//===- Delegation.h - partitions, outlining and to_backend ------*- C++ -*-===//
//
// The delegation stage between edge and exec (docs/delegation.md): a backend's
// partitioner claims edge ops, claimed ops are grouped into cycle-free
// partitions, each partition is outlined into a function called through
// `edge.delegate_call`, and the backend's preprocess step turns each
// outlined function into its compiled form (blob, named data, working
// memory, debug handles).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DELEGATION_DELEGATION_H
#define STRATA_DELEGATION_DELEGATION_H

#include "strata/Backends/Backend.h"
#include "strata/Delegation/CostModel.h"

#include "Edge/IR/EdgeAttributes.h"
#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace strata {

/// Attribute names of the delegation stage: the edge dialect's own, which
/// its verifier checks (Edge/IR/EdgeAttributes.h says what each holds).
namespace delegation {
inline constexpr llvm::StringLiteral kBackendAttr = edge::kBackendAttrName;
inline constexpr llvm::StringLiteral kDelegateAttr = edge::kDelegateAttrName;
inline constexpr llvm::StringLiteral kProcessedAttr = edge::kProcessedAttrName;
inline constexpr llvm::StringLiteral kNamedDataAttr = edge::kNamedDataAttrName;
inline constexpr llvm::StringLiteral kScratchAttr = edge::kScratchAttrName;
inline constexpr llvm::StringLiteral kDebugHandlesAttr =
    edge::kDebugHandlesAttrName;
inline constexpr llvm::StringLiteral kCompileSpecsAttr =
    edge::kCompileSpecsAttrName;
} // namespace delegation

/// Where each op of the model runs, for --report and --require-delegated.
struct DelegationReport {
  struct Placement {
    std::string op;        ///< "edge.conv2d"
    std::string node;      ///< The ONNX node name (may be empty).
    std::string backend;   ///< The backend, or "portable".
    std::string partition; ///< The outlined function ("" when portable).
    OpWork work;           ///< The cost model's class and work units.
    /// Every ONNX node the op computes (more than one after a fusion).
    std::vector<std::string> nodes;
  };
  /// The cost model's verdict on one group of claimed ops.
  struct Decision {
    std::string partition; ///< The outlined function ("" when kept portable).
    std::string firstNode; ///< The ONNX node of its first op.
    int ops = 0;
    double delegateUs = 0, portableUs = 0;
    /// Bytes of the tensors crossing its boundary (converted on the way).
    double boundaryBytes = 0;
    bool delegated = true;
  };
  std::string backend;
  std::vector<Placement> ops;
  int partitions = 0;
  /// One per group of claimed ops, with estimates when a calibration
  /// priced them (`calibration` names it; empty: every group delegated).
  std::vector<Decision> decisions;
  std::string calibration;

  int delegatedCount() const;
  int fallbackCount() const;
  /// Folds in the report of a later backend's partitioning of what this
  /// one's left: its delegated ops join, its portable ops replace this
  /// report's portable ones, and the calls to earlier partitions it saw
  /// as ops are dropped.
  void merge(DelegationReport later);
  llvm::json::Value toJSON() const;
};

/// Claims, groups and outlines the ops `backend` supports in every function
/// of `module`. With a calibration, a group whose estimated delegated time
/// (its ops, the call, the conversion of what crosses its boundary) exceeds
/// its estimated portable time stays on the portable kernels. Fails when the
/// backend has no delegate. Partitions are named `namePrefix` + backend +
/// "_" + N (a program of several methods gives each method's its prefix,
/// so that their delegates and their named data keep apart).
///
/// `statePairs` (--state's entries) name the inputs a state feeds: an op
/// whose extents follow only such inputs' dynamic extents (a decode step's
/// attention over a KV cache) changes shape at every call for little work,
/// and a delegate builds its graph per shape, so it stays on the portable
/// kernels.
mlir::FailureOr<DelegationReport>
partition(mlir::ModuleOp module, const Backend &backend,
          const CostCalibration *calibration = nullptr,
          llvm::StringRef namePrefix = "",
          llvm::ArrayRef<std::string> statePairs = {});

/// Runs a pipeline on an op nested in the module being compiled: the
/// calling pass's Pass::runPipeline, so that the work runs as a dynamic
/// pipeline of that pass (verified, instrumented and printed with it).
using NestedPipelineRunner = llvm::function_ref<mlir::LogicalResult(
    mlir::OpPassManager &, mlir::Operation *)>;

/// Runs `backend`'s preprocess on each of its outlined partitions, after
/// fusing each as the backend declares (strata-edge-fuse with
/// BackendHooks::fusions, through `runPipeline`). Unknown compile spec
/// names fail, listing the known ones. Where `notes` is given, each
/// partition's PreprocessResult::notes are appended to it, prefixed with
/// the partition's name.
mlir::LogicalResult toBackend(mlir::ModuleOp module, const Backend &backend,
                              const CompileSpecs &specs,
                              NestedPipelineRunner runPipeline,
                              std::vector<std::string> *notes = nullptr);

/// Parses "key=value" items into compile specs.
mlir::FailureOr<CompileSpecs>
parseCompileSpecs(llvm::ArrayRef<std::string> items, std::string &error);

#define GEN_PASS_DECL
#include "strata/Delegation/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Delegation/Passes.h.inc"

} // namespace strata

#endif // STRATA_DELEGATION_DELEGATION_H
