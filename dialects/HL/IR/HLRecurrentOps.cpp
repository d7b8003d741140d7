//===- HLRecurrentOps.cpp - verifiers of RNN, GRU and LSTM ----------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

/// Shared checks: direction, layout, operand ranks, and W's gate extent
/// `gates * hidden_size` where both are known.
static LogicalResult verifyRecurrent(Operation *op, Value x, Value w, Value r,
                                     StringRef direction, uint64_t layout,
                                     std::optional<uint64_t> hiddenSize,
                                     int64_t gates,
                                     std::optional<ArrayAttr> activations,
                                     int64_t activationsPerDirection) {
  if (!llvm::is_contained({"forward", "reverse", "bidirectional"}, direction))
    return op->emitOpError("'direction' must be forward, reverse or "
                           "bidirectional, got '")
           << direction << "'";
  if (layout > 1)
    return op->emitOpError("'layout' must be 0 or 1");
  if (failed(verifyRank(op, x, 3, "X")) || failed(verifyRank(op, w, 3, "W")) ||
      failed(verifyRank(op, r, 3, "R")))
    return failure();
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  auto wType = dyn_cast<RankedTensorType>(w.getType());
  if (wType && !wType.isDynamicDim(0) && wType.getDimSize(0) != directions)
    return op->emitOpError("W has ")
           << wType.getDimSize(0) << " directions, expected " << directions;
  if (wType && hiddenSize && !wType.isDynamicDim(1) &&
      wType.getDimSize(1) != gates * static_cast<int64_t>(*hiddenSize))
    return op->emitOpError("W's gate dimension ")
           << wType.getDimSize(1) << " should be " << gates << " x hidden_size";
  if (activations && static_cast<int64_t>(activations->size()) !=
                         activationsPerDirection * directions)
    return op->emitOpError("'activations' has ")
           << activations->size() << " entries, expected "
           << activationsPerDirection * directions;
  return success();
}

LogicalResult RNNOp::verify() {
  return verifyRecurrent(*this, getX(), getW(), getR(), getDirection(),
                         getLayout(), getHiddenSize(), 1, getActivations(), 1);
}

LogicalResult GRUOp::verify() {
  return verifyRecurrent(*this, getX(), getW(), getR(), getDirection(),
                         getLayout(), getHiddenSize(), 3, getActivations(), 2);
}

LogicalResult LSTMOp::verify() {
  return verifyRecurrent(*this, getX(), getW(), getR(), getDirection(),
                         getLayout(), getHiddenSize(), 4, getActivations(), 3);
}
