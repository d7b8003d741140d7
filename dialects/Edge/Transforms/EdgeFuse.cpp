//===- EdgeFuse.cpp - the strata-edge-fuse pass ---------------------------===//
//
// Parses the target's capability set from the options, forms the chains
// (FuseChains.cpp), then applies the post-op patterns (FusePostOps.cpp) in
// one sweep in program order: a pattern applicator over the ops of the
// function, each visited once, before its readers.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Fusion.h"
#include "Edge/Transforms/Passes.h"

#include "Edge/IR/EdgePostOps.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace strata::edge {
#define GEN_PASS_DEF_EDGEFUSE
#include "Edge/Transforms/Passes.h.inc"
} // namespace strata::edge

using namespace mlir;

namespace strata::edge {
namespace {

/// A pattern rewriter that records the ops it erases, so that the sweep
/// skips them.
class SweepRewriter : public PatternRewriter, RewriterBase::Listener {
public:
  explicit SweepRewriter(MLIRContext *context) : PatternRewriter(context) {
    setListener(this);
  }
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  llvm::DenseSet<Operation *> erased;
};

struct EdgeFusePass : impl::EdgeFuseBase<EdgeFusePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto fail = [&](StringRef what, StringRef name) {
      return emitError(UnknownLoc::get(context))
             << "strata-edge-fuse: unknown " << what << " '" << name << "'";
    };
    for (const std::string &name : anchors) {
      std::optional<RegisteredOperationName> op =
          RegisteredOperationName::lookup("edge." + name, context);
      if (!op)
        return fail("anchor", name);
      caps.anchors.insert(op->getTypeID());
    }
    for (const std::string &name : activations) {
      std::optional<PostOpKind> kind = symbolizePostOpKind(name);
      if (!kind || !isActivation(*kind))
        return fail("activation", name);
      caps.activations.push_back(*kind);
    }
    for (const std::string &name : fusions) {
      bool *flag = llvm::StringSwitch<bool *>(name)
                       .Case("conv-sum", &caps.convSum)
                       .Case("matmul-bias", &caps.matmulBias)
                       .Case("scale-shift", &caps.scaleShift)
                       .Case("quantize", &caps.quantize)
                       .Case("int8-global-pool", &caps.int8GlobalPool)
                       .Default(nullptr);
      if (!flag)
        return fail("fusion", name);
      *flag = true;
    }
    for (const std::string &name : chains) {
      if (name == "layer_norm") {
        caps.layerNorm = true;
        continue;
      }
      std::optional<PostOpKind> kind = symbolizePostOpKind(name);
      // relu: LeakyRelu chains, a relu whose alpha is the slope.
      if (!kind || (*kind != PostOpKind::Relu &&
                    (*kind < PostOpKind::GeluErf ||
                     *kind > PostOpKind::HardSwish)))
        return fail("chain", name);
      caps.chains.push_back(*kind);
    }
    if (chainPosition != "first" && chainPosition != "last")
      return fail("chain position", chainPosition);
    caps.chainAtEnd = chainPosition == "last";
    caps.exclusiveChains = exclusiveChains;
    RewritePatternSet set(context);
    populateEdgePostOpPatterns(set, caps);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    formChains(func, caps);
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    SweepRewriter rewriter(func.getContext());
    SmallVector<Operation *> ops = llvm::map_to_vector(
        func.getBody().front(), [](Operation &op) { return &op; });
    for (Operation *op : ops) {
      if (rewriter.erased.contains(op))
        continue;
      rewriter.setInsertionPoint(op);
      (void)applicator.matchAndRewrite(op, rewriter);
    }
  }

  FusionCapabilities caps;
  FrozenRewritePatternSet patterns;
};

} // namespace
} // namespace strata::edge
