//===- Pattern.cpp - pattern base classes and the hl.fused builder --------===//
#include "strata/Patterns/Pattern.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace strata {

StringRef stringifyPatternPhase(PatternPhase phase) {
  switch (phase) {
  case PatternPhase::Conversion:
    return "conversion";
  case PatternPhase::Fusion:
    return "fusion";
  case PatternPhase::Smooth:
    return "smooth";
  case PatternPhase::Quantized:
    return "quantized";
  }
  return "?";
}

StringRef stringifyQDQRole(QDQRole role) {
  switch (role) {
  case QDQRole::Activation:
    return "activation";
  case QDQRole::Weight:
    return "weight";
  case QDQRole::Residual:
    return "residual";
  case QDQRole::MatMulOperands:
    return "matmul_operands";
  }
  return "?";
}

MatchGate::~MatchGate() = default;

StrataPattern::StrataPattern(MLIRContext *context, PatternInfo info,
                             StringRef rootName)
    : RewritePattern(rootName, PatternBenefit(info.priority), context),
      info(std::move(info)) {
  setDebugName(this->info.name);
}

StrataPattern::StrataPattern(MLIRContext *context, PatternInfo info)
    : RewritePattern(MatchAnyOpTypeTag(), PatternBenefit(info.priority),
                     context),
      info(std::move(info)) {
  setDebugName(this->info.name);
}

LogicalResult StrataPattern::matchAndRewrite(Operation *op,
                                             PatternRewriter &rewriter) const {
  FailureOr<SmallVector<Operation *>> ops = matchOps(op);
  if (failed(ops))
    return failure();
  if (gate && !gate->allow(*this, op, *ops))
    return rewriter.notifyMatchFailure(op, "switched off in the plan");
  LogicalResult result = rewriteMatch(op, *ops, rewriter);
  if (gate)
    gate->finished(*this, succeeded(result));
  return result;
}

LogicalResult FusionPattern::rewriteMatch(Operation *,
                                          ArrayRef<Operation *> ops,
                                          PatternRewriter &rewriter) const {
  return fuseOps(rewriter, ops, getKind(ops));
}

FailureOr<Operation *> fuseOps(RewriterBase &rewriter,
                               ArrayRef<Operation *> ops, StringRef kind) {
  if (ops.empty())
    return failure();
  Operation *last = ops.back();
  Block *block = last->getBlock();
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  for (Operation *op : ops)
    if (op->getBlock() != block || (op != last && !op->isBeforeInBlock(last)))
      return failure();

  // Operands from outside the group, in order of first use; they must be
  // available where the group goes.
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && members.contains(def))
        continue;
      if (def && def->getBlock() == block && !def->isBeforeInBlock(last))
        return failure();
      inputs.insert(operand);
    }
  // Results used outside the group; those uses must come after it.
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults()) {
      bool usedOutside = false;
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (members.contains(user))
          continue;
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        if (ancestor && ancestor != last && ancestor->isBeforeInBlock(last))
          return failure();
        usedOutside = true;
      }
      if (usedOutside)
        outputs.push_back(result);
    }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(last);
  auto fused = rewriter.create<hl::FusedOp>(
      last->getLoc(), llvm::map_to_vector(outputs, [](Value v) {
        return v.getType();
      }),
      rewriter.getStringAttr(kind), inputs.getArrayRef(),
      /*qdq_points=*/nullptr);
  Block *body = rewriter.createBlock(
      &fused.getBody(), {},
      llvm::map_to_vector(inputs, [](Value v) { return v.getType(); }),
      llvm::map_to_vector(inputs, [](Value v) { return v.getLoc(); }));
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), body->getArguments());
  for (Operation *op : ops)
    rewriter.clone(*op, mapping);
  rewriter.create<hl::YieldOp>(
      last->getLoc(), llvm::map_to_vector(outputs, [&](Value v) {
        return mapping.lookup(v);
      }));
  for (auto [old, replacement] : llvm::zip(outputs, fused.getResults()))
    rewriter.replaceUsesWithIf(old, Value(replacement), [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(ops))
    rewriter.eraseOp(op);
  return fused.getOperation();
}

} // namespace strata
