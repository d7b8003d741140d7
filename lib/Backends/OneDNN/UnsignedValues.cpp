//===- UnsignedValues.cpp - the s8 values oneDNN may read as u8 -----------===//
//
// A dataflow analysis over an int8 partition (after strata-edge-fuse): the
// s8 values that are never negative and whose every reader takes u8 get
// the u8 type in the oneDNN graph, for oneDNN 2.6's faster u8 kernels.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

using namespace mlir;

namespace strata::onednn {

/// The single reader of `value`, when it has exactly one use.
static Operation *soleReader(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

void findUnsignedValues(GraphWriter &writer) {
  Block &body = writer.func.getBody().front();
  llvm::DenseSet<Value> &unsignedValues = writer.unsignedValues;
  // Non-negative s8 values: clamped at zero by the op writing them (no
  // activation function, no residual: a sum post-op accumulates into the
  // residual's bytes, which are signed), or max-pooled from one.
  auto clampedAtZero = [](Operation *op) {
    auto check = [](FloatAttr clipMin, StringAttr activation, bool residual) {
      return clipMin && clipMin.getValueAsDouble() >= 0.0 && !activation &&
             !residual;
    };
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op))
      return check(conv.getClipMinAttr(), conv.getActivationAttr(),
                   static_cast<bool>(conv.getResidual()));
    if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(op))
      return check(matmul.getClipMinAttr(), matmul.getActivationAttr(), false);
    return false;
  };
  for (Operation &op : body) {
    if (op.getNumResults() != 1 ||
        !isSigned8(op.getResult(0).getType()).value_or(false))
      continue;
    if (clampedAtZero(&op) || (isa<edge::MaxPool2DOp>(op) &&
                               unsignedValues.contains(op.getOperand(0))))
      unsignedValues.insert(op.getResult(0));
  }
  // Every reader must take u8 for the same bytes: a quantized conv's input,
  // a quantized matmul's lhs, a dequantizing reorder, a max pooling whose
  // result is u8 too. Drop the others until nothing changes.
  auto readerTakesU8 = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(user))
      return use.get() == conv.getInput() && use.get() != conv.getResidual();
    if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(user))
      return use.get() == matmul.getLhs() && use.get() != matmul.getRhs();
    if (auto dq = dyn_cast<edge::DequantizeLinearOp>(user))
      // Not where it starts an int8 global average pooling (s8 -> s8).
      return !isa_and_nonnull<edge::ReduceMeanOp>(soleReader(dq.getResult()));
    if (isa<edge::MaxPool2DOp>(user))
      return unsignedValues.contains(user->getResult(0));
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Value v : llvm::to_vector(unsignedValues)) {
      bool keep = llvm::all_of(v.getUses(), readerTakesU8);
      // A max pooling reads and writes one type.
      if (auto pool = v.getDefiningOp<edge::MaxPool2DOp>())
        keep = keep && unsignedValues.contains(pool->getOperand(0));
      if (!keep) {
        unsignedValues.erase(v);
        changed = true;
      }
    }
  }
}

} // namespace strata::onednn
