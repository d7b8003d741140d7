//===- Pattern.h - backend rewrite patterns with metadata -------*- C++ -*-===//
//
// A Strata pattern is an MLIR RewritePattern that also knows what it claims:
// `matchOps` returns the ops of one match (so a plan can list, enable and
// resolve matches before anything is rewritten) and `rewriteMatch` rewrites
// them. Each carries a PatternInfo: its name, phase, priority (the number of
// ops it matches) and, for quantized patterns, its QDQ points.
//
// Backends hand patterns out as PatternDescriptors (metadata plus a builder),
// so that pattern lists can be validated and listed without an MLIRContext.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PATTERNS_PATTERN_H
#define STRATA_PATTERNS_PATTERN_H

#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {

/// The pipeline stage a pattern belongs to.
enum class PatternPhase {
  /// Structural rewrites, iterated until nothing matches.
  Conversion,
  /// Operator fusions: one pass, longest first, first match claims its ops.
  Fusion,
  /// Scale migration between activations and weights (SmoothQuant).
  Smooth,
  /// Claims fused groups for int8 and declares their QDQ points.
  Quantized,
};

/// "conversion", "fusion", "smooth" or "quantized".
llvm::StringRef stringifyPatternPhase(PatternPhase phase);

/// Which value of a fused group a quantize/dequantize pair goes on.
enum class QDQRole {
  /// The data input of the group's first op (a conv/gemm/matmul input).
  Activation,
  /// The weight of the group's conv/gemm/matmul.
  Weight,
  /// The second (residual) input of the group's add.
  Residual,
  /// Every activation operand of the group's matmuls (attention: Q, K, V;
  /// the softmax probabilities inside the group get the fixed unit-range
  /// scale).
  MatMulOperands,
};
llvm::StringRef stringifyQDQRole(QDQRole role);

/// A place where quantization inserts a quantize/dequantize pair.
struct QDQPoint {
  QDQRole role;
  /// Quantization axis: -1 per tensor; for weights the output-channel axis
  /// (0 for conv and gemm weights as stored, per NVIDIA's placement rules).
  int64_t axis = -1;
};

/// A pattern's metadata.
struct PatternInfo {
  /// Unique within a backend, e.g. "ConvBNReLU".
  std::string name;
  PatternPhase phase = PatternPhase::Fusion;
  /// The (largest) number of ops a match claims. Fusions are tried in
  /// decreasing priority, ties in list order.
  unsigned priority = 1;
  /// Quantized patterns: where QDQ pairs go; empty keeps the group in float.
  std::vector<QDQPoint> qdqPoints;
  /// One line for --list-backends and the docs.
  std::string description;
};

class StrataPattern;

/// Metadata plus a builder: what a backend lists.
struct PatternDescriptor {
  PatternInfo info;
  std::function<std::unique_ptr<StrataPattern>(mlir::MLIRContext *,
                                               const PatternInfo &)>
      build;
};

/// Makes a descriptor for pattern class `P`, constructed as
/// `P(context, info)`.
template <typename P>
PatternDescriptor describePattern(PatternInfo info) {
  return {std::move(info),
          [](mlir::MLIRContext *context, const PatternInfo &info) {
            return std::unique_ptr<StrataPattern>(new P(context, info));
          }};
}

/// Decides, for the pattern engine, whether a match may be rewritten (a plan
/// can switch matches off) and hears whether the rewrite succeeded. `allow`
/// sees the ops before they change; `finished` follows every allowed match.
class MatchGate {
public:
  virtual ~MatchGate();
  virtual bool allow(const StrataPattern &pattern, mlir::Operation *root,
                     llvm::ArrayRef<mlir::Operation *> ops) = 0;
  virtual void finished(const StrataPattern &pattern, bool rewritten) = 0;
};

/// Base class of every backend pattern.
class StrataPattern : public mlir::RewritePattern {
public:
  /// A pattern rooted at ops named `rootName` (e.g. "hl.relu").
  StrataPattern(mlir::MLIRContext *context, PatternInfo info,
                llvm::StringRef rootName);
  /// A pattern whose root may be any op (the match decides).
  StrataPattern(mlir::MLIRContext *context, PatternInfo info);

  const PatternInfo &getInfo() const { return info; }

  /// The ops a match rooted at `root` claims, in program order, `root`
  /// included; failure when there is no match. Must not change the IR.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
  matchOps(mlir::Operation *root) const = 0;

  /// Rewrites a match that `matchOps(root)` returned.
  virtual mlir::LogicalResult
  rewriteMatch(mlir::Operation *root, llvm::ArrayRef<mlir::Operation *> ops,
               mlir::PatternRewriter &rewriter) const = 0;

  /// matchOps, the gate, then rewriteMatch: what MLIR's drivers call.
  mlir::LogicalResult
  matchAndRewrite(mlir::Operation *op,
                  mlir::PatternRewriter &rewriter) const final;

  void setGate(MatchGate *newGate) { gate = newGate; }

private:
  PatternInfo info;
  MatchGate *gate = nullptr;
};

/// A fusion: wraps its match in an `hl.fused` op of the kind `getKind`
/// names (the ops are moved into the body unchanged).
class FusionPattern : public StrataPattern {
public:
  using StrataPattern::StrataPattern;
  /// The group's kind, e.g. "conv_bn_relu".
  virtual std::string getKind(llvm::ArrayRef<mlir::Operation *> ops) const = 0;
  mlir::LogicalResult
  rewriteMatch(mlir::Operation *root, llvm::ArrayRef<mlir::Operation *> ops,
               mlir::PatternRewriter &rewriter) const override;
};

/// Moves `ops` (in program order, results used outside only by their last
/// users) into a new `hl.fused` op of `kind`, placed where the last op was.
/// Fails without changing anything when a value the group reads is defined
/// after the group's position or an inner result is used before it.
mlir::FailureOr<mlir::Operation *>
fuseOps(mlir::RewriterBase &rewriter, llvm::ArrayRef<mlir::Operation *> ops,
        llvm::StringRef kind);

} // namespace strata

#endif // STRATA_PATTERNS_PATTERN_H
