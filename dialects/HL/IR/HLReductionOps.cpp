//===- HLReductionOps.cpp - hl reduction verifiers -===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Shared verifier of the ReduceX ops: `axes` is 1-D with in-range entries,
/// the flags are 0 or 1, and a static result rank matches `keepdims`.
static LogicalResult verifyReduce(Operation *op, Value data, Value axes,
                                  uint64_t keepdims, uint64_t noopEmpty) {
  if (keepdims > 1 || noopEmpty > 1)
    return op->emitOpError(
        "'keepdims' and 'noop_with_empty_axes' must be 0 or 1");
  if (axes && failed(verifyRank(op, axes, 1, "axes")))
    return failure();
  std::optional<int64_t> rank = rankOf(data);
  std::optional<SmallVector<int64_t>> constAxes = getConstantInts(axes);
  if (constAxes)
    for (int64_t axis : *constAxes)
      if (failed(verifyAxis(op, axis, rank, "axes")))
        return failure();
  std::optional<int64_t> resultRank = rankOf(op->getResult(0));
  if (rank && resultRank && keepdims && *resultRank != *rank)
    return op->emitOpError("result rank ")
           << *resultRank << " differs from input rank " << *rank
           << " with keepdims = 1";
  return success();
}

#define HL_REDUCE_VERIFIER(Op)                                                 \
  LogicalResult Op::verify() {                                                 \
    return verifyReduce(*this, getData(), getAxes(), getKeepdims(),            \
                        getNoopWithEmptyAxes());                               \
  }
HL_REDUCE_VERIFIER(ReduceSumOp)
HL_REDUCE_VERIFIER(ReduceMeanOp)
HL_REDUCE_VERIFIER(ReduceMaxOp)
HL_REDUCE_VERIFIER(ReduceMinOp)
HL_REDUCE_VERIFIER(ReduceProdOp)
HL_REDUCE_VERIFIER(ReduceL1Op)
HL_REDUCE_VERIFIER(ReduceL2Op)
HL_REDUCE_VERIFIER(ReduceLogSumOp)
HL_REDUCE_VERIFIER(ReduceLogSumExpOp)
HL_REDUCE_VERIFIER(ReduceSumSquareOp)
#undef HL_REDUCE_VERIFIER

/// Shared verifier of ArgMax/ArgMin.
static LogicalResult verifyArgReduce(Operation *op, Value data, int64_t axis,
                                     uint64_t keepdims, uint64_t selectLast) {
  if (keepdims > 1 || selectLast > 1)
    return op->emitOpError("'keepdims' and 'select_last_index' must be 0 or 1");
  return verifyAxis(op, axis, rankOf(data));
}

LogicalResult ArgMaxOp::verify() {
  return verifyArgReduce(*this, getData(), getAxis(), getKeepdims(),
                         getSelectLastIndex());
}

LogicalResult ArgMinOp::verify() {
  return verifyArgReduce(*this, getData(), getAxis(), getKeepdims(),
                         getSelectLastIndex());
}
