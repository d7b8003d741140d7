//===- ReadTransposed.cpp - matmuls that read a transposed rhs in place ---===//
//
// A matmul kernel reads its rhs through a permutation (rhs_permutation)
// instead of a transpose kernel's copy of it: attention over a KV cache
// stored length-first then reads the cache where it lives.
//
//===----------------------------------------------------------------------===//
#include "Exec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

namespace strata::exec {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_READTRANSPOSED
#include "Exec/Transforms/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata::exec

using namespace mlir;
using namespace strata::exec;

namespace {

bool isKernel(Operation *op, StringRef name) {
  auto kernel = dyn_cast_or_null<KernelOp>(op);
  return kernel && kernel.getKernel() == name;
}

/// Whether an op strictly between `first` and `last` (in one block) writes
/// `buffer`.
bool writtenBetween(Operation *first, Operation *last, Value buffer) {
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode()) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      if (llvm::is_contained(kernel.getOuts(), buffer))
        return true;
      continue;
    }
    // Anything else that takes the buffer (a delegate, a loop) may write it.
    if (llvm::is_contained(op->getOperands(), buffer) || op->getNumRegions())
      return true;
  }
  return false;
}

} // namespace

int64_t strata::exec::readTransposedOperands(MethodOp method) {
  int64_t removed = 0;
  SmallVector<KernelOp> transposes;
  method.walk([&](KernelOp kernel) {
    if (kernel.getKernel() == "transpose")
      transposes.push_back(kernel);
  });
  for (KernelOp transpose : transposes) {
    if (transpose.getIns().size() != 1 || transpose.getOuts().size() != 1)
      continue;
    Value input = transpose.getIns()[0], copy = transpose.getOuts()[0];
    auto alloc = copy.getDefiningOp<AllocOp>();
    auto type = dyn_cast<MemRefType>(copy.getType());
    auto permutation = dyn_cast_or_null<DenseI64ArrayAttr>(
        transpose.getParams().get("permutation"));
    if (!alloc || !type || !type.getElementType().isF32() || !permutation)
      continue;
    // The copy: written by the transpose, read by one matmul as its rhs,
    // after it in the same block.
    KernelOp matmul;
    bool other = false;
    for (OpOperand &use : copy.getUses()) {
      Operation *user = use.getOwner();
      if (user == transpose)
        continue;
      auto reader = dyn_cast<KernelOp>(user);
      if (!matmul && isKernel(user, "matmul") && reader.getIns().size() == 2 &&
          reader.getIns()[1] == copy && reader.getIns()[0] != copy &&
          !reader.getParams().get("rhs_permutation") &&
          reader->getBlock() == transpose->getBlock() &&
          transpose->isBeforeInBlock(reader)) {
        matmul = reader;
        continue;
      }
      other = true;
    }
    if (!matmul || other || writtenBetween(transpose, matmul, input))
      continue;
    OpBuilder builder(matmul);
    NamedAttrList params(matmul.getParams());
    params.set("rhs_permutation", permutation);
    matmul.getInsMutable()[1].set(input);
    matmul.setParamsAttr(params.getDictionary(builder.getContext()));
    transpose.erase();
    if (alloc->use_empty())
      alloc.erase();
    ++removed;
  }
  return removed;
}

namespace {

struct ReadTransposedPass
    : public strata::exec::impl::ReadTransposedBase<ReadTransposedPass> {
  void runOnOperation() override { readTransposedOperands(getOperation()); }
};

} // namespace
