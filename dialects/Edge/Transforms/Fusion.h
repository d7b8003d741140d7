//===- Fusion.h - what strata-edge-fuse fuses, and its parts ----*- C++ -*-===//
//
// The capability set a delegate declares (parsed from the pass options),
// the two sweeps of strata-edge-fuse (FuseChains.cpp, FusePostOps.cpp) and
// the LayerNorm chain matcher (LayerNormChain.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_TRANSFORMS_FUSION_H
#define STRATA_DIALECTS_EDGE_TRANSFORMS_FUSION_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

namespace strata::edge {

/// What a target fuses (see the strata-edge-fuse description).
struct FusionCapabilities {
  /// Ops that take post-ops.
  llvm::DenseSet<mlir::TypeID> anchors;
  /// Activations an anchor takes (relu ... hardswish).
  llvm::SmallVector<PostOpKind> activations;
  bool convSum = false, matmulBias = false, scaleShift = false,
       quantize = false, int8GlobalPool = false;
  /// Activation chains formed as edge.activation, and LayerNorm.
  llvm::SmallVector<PostOpKind> chains;
  bool layerNorm = false;
  /// Formed chains stand at their last op (else their first).
  bool chainAtEnd = false;
  /// Only chains whose input nothing else reads.
  bool exclusiveChains = false;

  bool isAnchor(mlir::Operation *op) const {
    return anchors.contains(op->getName().getTypeID());
  }
  bool takesActivation(PostOpKind kind) const {
    return llvm::is_contained(activations, kind);
  }
};

/// Sweep 1: forms edge.activation and edge.layer_norm from the chains
/// `caps` names, in program order.
void formChains(mlir::func::FuncOp func, const FusionCapabilities &caps);

/// Sweep 2's patterns: each anchor op takes the chain its result feeds as
/// post-ops. They decide on program order (a residual must be defined
/// before the convolution), so strata-edge-fuse applies them in one sweep
/// in program order, each op before its readers.
void populateEdgePostOpPatterns(mlir::RewritePatternSet &patterns,
                                const FusionCapabilities &caps);

/// LayerNorm over the last axis as exporters write it: mean, subtract,
/// square (pow 2 or d * d), mean, add epsilon, sqrt, divide, then
/// optionally * gamma and + beta (constant vectors).
struct LayerNormChain {
  mlir::Value input, output, gamma, beta;
  float epsilon = 0;
  llvm::SmallVector<mlir::Operation *, 9> ops;
};
/// The chain starting at edge.reduce_mean `firstMean`, when it is one whose
/// intermediate values have no other readers.
std::optional<LayerNormChain> matchLayerNorm(mlir::Operation *firstMean);

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_TRANSFORMS_FUSION_H
