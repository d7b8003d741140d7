//===- FuseChains.cpp - activations and LayerNorm as one edge op ----------===//
//
// strata-edge-fuse's first sweep: GELU, SiLU, hardswish and LeakyRelu
// chains (EdgeActivationChains.h) become edge.activation, LayerNorm chains
// edge.layer_norm. Chains are found in program order from their erf,
// clip, sigmoid, maximum or first mean, as the delegates found them, and each op
// belongs to one chain at most. The formed op stands where the chain's
// first op stood (where a writer walking the program meets the chain) or,
// with chain-position=last, where its last one did.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Fusion.h"

#include "Edge/IR/EdgeActivationChains.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace strata::edge {
namespace {

/// A chain to replace: its ops (in the matcher's order, which is the order
/// their node names are listed in), input and output, and what it becomes.
struct Chain {
  SmallVector<Operation *, 9> ops;
  Value input, output;
  std::optional<ActivationChain::Kind> activation;
  std::optional<float> leakySlope;
  std::optional<LayerNormChain> layerNorm;
};

PostOpKind postOpKindOf(ActivationChain::Kind kind) {
  switch (kind) {
  case ActivationChain::Swish:
    return PostOpKind::Swish;
  case ActivationChain::HardSwish:
    return PostOpKind::HardSwish;
  case ActivationChain::GeluErf:
    break;
  }
  return PostOpKind::GeluErf;
}

/// Whether nothing but the chain's `ops` reads its `input`.
bool readOnlyBy(Value input, ArrayRef<Operation *> ops) {
  return llvm::all_of(input.getUsers(), [&](Operation *user) {
    return llvm::is_contained(ops, user);
  });
}

/// The activation chain through `op` (its erf, clip or sigmoid).
std::optional<ActivationChain> matchActivationAt(Operation *op) {
  if (isa<ErfOp>(op))
    return matchGelu(op);
  if (isa<ClipOp>(op))
    return matchHardSwish(op);
  return matchSwish(op);
}

/// Replaces `chain` by one op built by `build` at the chain's first or last
/// op; returns that op's result.
Value replaceChain(IRRewriter &rewriter, const Chain &chain, bool atEnd,
                   function_ref<Value(Location)> build) {
  Operation *first = chain.ops.front(), *last = chain.ops.front();
  for (Operation *op : chain.ops) {
    if (op->isBeforeInBlock(first))
      first = op;
    if (last->isBeforeInBlock(op))
      last = op;
  }
  rewriter.setInsertionPoint(atEnd ? last : first);
  Location loc = rewriter.getFusedLoc(llvm::map_to_vector(
      chain.ops, [](Operation *op) { return op->getLoc(); }));
  Value fused = build(loc);
  rewriter.replaceAllUsesWith(chain.output, fused);
  // Readers before writers: the last op first.
  SmallVector<Operation *> ops(chain.ops.begin(), chain.ops.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : ops)
    rewriter.eraseOp(op);
  return fused;
}

} // namespace

void formChains(func::FuncOp func, const FusionCapabilities &caps) {
  if (caps.chains.empty() && !caps.layerNorm)
    return;
  Block &body = func.getBody().front();
  std::vector<Chain> chains;
  llvm::DenseSet<Operation *> taken;
  auto claim = [&](Chain chain) {
    if (llvm::any_of(chain.ops,
                     [&](Operation *op) { return taken.contains(op); }))
      return;
    taken.insert(chain.ops.begin(), chain.ops.end());
    chains.push_back(std::move(chain));
  };
  for (Operation &op : body) {
    if (taken.contains(&op))
      continue;
    if (std::optional<ActivationChain> a = matchActivationAt(&op);
        a && llvm::is_contained(caps.chains, postOpKindOf(a->kind)) &&
        (!caps.exclusiveChains || readOnlyBy(a->input, a->ops))) {
      Chain chain;
      chain.ops.assign(a->ops.begin(), a->ops.end());
      chain.input = a->input;
      chain.output = a->output;
      chain.activation = a->kind;
      claim(std::move(chain));
      continue;
    }
    if (std::optional<LeakyReluChain> leaky;
        llvm::is_contained(caps.chains, PostOpKind::Relu) &&
        (leaky = matchLeakyRelu(&op)) &&
        (!caps.exclusiveChains || readOnlyBy(leaky->input, leaky->ops))) {
      Chain chain;
      chain.ops.assign(leaky->ops.begin(), leaky->ops.end());
      chain.input = leaky->input;
      chain.output = leaky->output;
      chain.leakySlope = leaky->slope;
      claim(std::move(chain));
      continue;
    }
    if (caps.layerNorm && isa<ReduceMeanOp>(op))
      if (std::optional<LayerNormChain> ln = matchLayerNorm(&op))
        claim({ln->ops, ln->input, ln->output, std::nullopt, std::nullopt, ln});
  }
  IRRewriter rewriter(func.getContext());
  // A chain may read what an earlier one wrote (a LayerNorm right after a
  // GELU): its operands are looked up through the earlier replacements,
  // whose ops are gone.
  IRMapping replaced;
  for (const Chain &chain : chains) {
    Value input = replaced.lookupOrDefault(chain.input);
    Value fused = replaceChain(
        rewriter, chain, caps.chainAtEnd, [&](Location loc) -> Value {
          if (chain.leakySlope)
            return rewriter.create<ActivationOp>(
                loc, input,
                PostOpAttr::get(rewriter.getContext(), PostOpKind::Relu,
                                *chain.leakySlope));
          if (chain.activation)
            return rewriter.create<ActivationOp>(
                loc, input,
                PostOpAttr::get(rewriter.getContext(),
                                postOpKindOf(*chain.activation)));
          const LayerNormChain &ln = *chain.layerNorm;
          auto lookup = [&](Value v) {
            return v ? replaced.lookupOrDefault(v) : v;
          };
          return rewriter.create<LayerNormOp>(
              loc, input, lookup(ln.gamma), lookup(ln.beta),
              rewriter.getF32FloatAttr(ln.epsilon));
        });
    replaced.map(chain.output, fused);
  }
}

} // namespace strata::edge
