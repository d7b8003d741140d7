//===- Plan.h - transformation plans: match, choose, apply ------*- C++ -*-===//
//
// The plan-based API of the pattern engine:
//
//   TransformationPlan plan = *getTransformationPlan(module, patterns);
//   plan.find("/layer1/layer1.0/relu_1/Relu", "ConvBNAddReLU")->apply = false;
//   TransformResult result = *applyTransformationPlan(plan);
//
// Phases run in order: conversions (repeated until nothing matches, through
// MLIR's greedy rewrite driver), fusions, smooth and quantized patterns
// (each one pass: patterns tried by decreasing priority, ties in list
// order; a match whose ops an earlier applied match claimed is skipped).
// A plan lists every match, keyed by the ONNX node name of its root op and
// the pattern's name, with an `apply` flag; the plan and the report
// serialise to JSON. The module a plan was made from is never changed.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PATTERNS_PLAN_H
#define STRATA_PATTERNS_PLAN_H

#include "strata/Patterns/Pattern.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace strata {

/// One match of one pattern.
struct PlannedMatch {
  /// ONNX node name of the match's root op ("<op>@<n>" for unnamed ops).
  std::string node;
  std::string pattern;
  PatternPhase phase = PatternPhase::Fusion;
  /// Whether applying the plan rewrites this match.
  bool apply = true;
  /// ONNX node names of every op the match claims.
  std::vector<std::string> nodes;
  /// Why `apply` is false, when the planner decided it.
  std::string reason;
};

/// Every match of a pattern list on a module, each switchable.
struct TransformationPlan {
  /// A copy of the module the plan was made from.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<PatternDescriptor> patterns;
  /// In phase order, then priority order, then program order.
  std::vector<PlannedMatch> matches;

  PlannedMatch *find(llvm::StringRef node, llvm::StringRef pattern);
  const PlannedMatch *find(llvm::StringRef node, llvm::StringRef pattern) const;

  /// {"patterns": [{name, phase, priority}], "matches": {node: {pattern:
  /// {"apply", "phase", "nodes", "reason"?}}}}
  llvm::json::Value toJSON() const;
  /// Takes the `apply` flags of `json` (as toJSON writes it). A node or
  /// pattern this plan does not have is an error naming it.
  mlir::LogicalResult updateFromJSON(const llvm::json::Value &json,
                                     std::string &error);
};

/// What applying a plan did.
struct TransformReport {
  struct PatternCount {
    std::string name;
    PatternPhase phase;
    int64_t applied = 0;
    int64_t skipped = 0;
  };
  struct Skip {
    std::string node;
    std::string pattern;
    std::string reason;
  };
  /// A rewrite that happened: the pattern and the nodes it claimed.
  struct Applied {
    std::string pattern;
    std::vector<std::string> nodes;
  };
  /// One entry per pattern, in list order.
  std::vector<PatternCount> patterns;
  std::vector<Skip> skips;
  /// In the order they were rewritten.
  std::vector<Applied> matches;
  int64_t appliedCount = 0;
  int64_t skippedCount = 0;

  /// {"applied_count", "skipped_count", "patterns": [{name, phase, applied,
  /// skipped}], "skips": [{node, pattern, reason}], "matches": [{pattern,
  /// nodes}]}
  llvm::json::Value toJSON() const;
  /// Count of applications of pattern `name` (0 when absent).
  int64_t applied(llvm::StringRef name) const;
};

/// The transformed copy and the report.
struct TransformResult {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TransformReport report;
};

/// Finds every match of `patterns` on `module`. Conversions are applied to a
/// scratch copy while planning, so that later phases list what they match
/// on the converted module; the plan keeps an untouched copy to apply to.
mlir::FailureOr<TransformationPlan>
getTransformationPlan(mlir::ModuleOp module,
                      llvm::ArrayRef<PatternDescriptor> patterns);

/// Applies the plan's enabled matches to a copy of the plan's module.
mlir::FailureOr<TransformResult>
applyTransformationPlan(const TransformationPlan &plan);

/// getTransformationPlan + applyTransformationPlan.
mlir::FailureOr<TransformResult>
transform(mlir::ModuleOp module, llvm::ArrayRef<PatternDescriptor> patterns);

/// Writes `json` (pretty-printed) to `path` through a temporary file and a
/// rename; "-" writes to stdout.
mlir::LogicalResult writeJSONFile(llvm::StringRef path,
                                  const llvm::json::Value &json,
                                  std::string &error);
/// Reads and parses the JSON file at `path`.
mlir::FailureOr<llvm::json::Value> readJSONFile(llvm::StringRef path,
                                                std::string &error);

/// Plans `patterns` on `module` and takes the apply flags of the plan file
/// `planIn` (if not empty), then those of `planFlags` (if given), as
/// updateFromJSON takes them. Errors are emitted on the module.
mlir::FailureOr<TransformationPlan>
planWithFlags(mlir::ModuleOp module, llvm::ArrayRef<PatternDescriptor> patterns,
              llvm::StringRef planIn = "",
              const llvm::json::Value *planFlags = nullptr);

/// Runs the pattern engine on `module` in place: plans with the flags of
/// `planIn` and `planFlags` (planWithFlags), writes the plan to `planOut`
/// (if not empty), applies it, and returns the report. Errors are emitted
/// on the module.
mlir::FailureOr<TransformReport>
transformInPlace(mlir::ModuleOp module,
                 llvm::ArrayRef<PatternDescriptor> patterns,
                 llvm::StringRef planIn = "", llvm::StringRef planOut = "",
                 const llvm::json::Value *planFlags = nullptr);

} // namespace strata

#endif // STRATA_PATTERNS_PLAN_H
