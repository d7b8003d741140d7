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
/// The optional operands of a layer (null where absent).
struct RecurrentOperands {
  Value b, sequenceLens, initialH, initialC, p;
};

/// Checks that each operand whose type is ranked has the extents the layer
/// implies (`kDynamic` in `expected`: any), naming it.
static LogicalResult verifyExtents(Operation *op, Value value, StringRef name,
                                   ArrayRef<int64_t> expected) {
  auto type =
      value ? dyn_cast<RankedTensorType>(value.getType()) : RankedTensorType();
  if (!type)
    return success();
  bool fits = type.getRank() == static_cast<int64_t>(expected.size());
  for (size_t i = 0; fits && i < expected.size(); ++i)
    fits = ShapedType::isDynamic(expected[i]) || type.isDynamicDim(i) ||
           type.getDimSize(i) == expected[i];
  if (fits)
    return success();
  auto diag = op->emitOpError()
              << name << " has type " << type << ", expected extents [";
  llvm::interleave(
      expected, diag,
      [&](int64_t v) {
        if (ShapedType::isDynamic(v))
          diag << "?";
        else
          diag << v;
      },
      ", ");
  return diag << "]";
}

static LogicalResult verifyRecurrent(Operation *op, Value x, Value w, Value r,
                                     const RecurrentOperands &more,
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
  // The other operands against the extents X, R and hidden_size give
  // (unknown ones match anything).
  int64_t any = ShapedType::kDynamic;
  auto rType = dyn_cast<RankedTensorType>(r.getType());
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  int64_t h = hiddenSize ? static_cast<int64_t>(*hiddenSize)
              : rType    ? rType.getDimSize(2)
                         : any;
  int64_t in = xType ? xType.getDimSize(2) : any;
  auto times = [&](int64_t k, int64_t v) {
    return ShapedType::isDynamic(v) ? any : k * v;
  };
  SmallVector<int64_t> state = layout == 1
                                   ? SmallVector<int64_t>{any, directions, h}
                                   : SmallVector<int64_t>{directions, any, h};
  if (failed(verifyExtents(op, w, "W", {directions, times(gates, h), in})) ||
      failed(verifyExtents(op, r, "R", {directions, times(gates, h), h})) ||
      failed(
          verifyExtents(op, more.b, "B", {directions, times(2 * gates, h)})) ||
      failed(verifyExtents(op, more.sequenceLens, "sequence_lens", {any})) ||
      failed(verifyExtents(op, more.initialH, "initial_h", state)) ||
      failed(verifyExtents(op, more.initialC, "initial_c", state)) ||
      failed(verifyExtents(op, more.p, "P", {directions, times(3, h)})))
    return failure();
  return success();
}

LogicalResult RNNOp::verify() {
  return verifyRecurrent(
      *this, getX(), getW(), getR(),
      {getB(), getSequenceLens(), getInitialH(), Value(), Value()},
      getDirection(), getLayout(), getHiddenSize(), 1, getActivations(), 1);
}

LogicalResult GRUOp::verify() {
  return verifyRecurrent(
      *this, getX(), getW(), getR(),
      {getB(), getSequenceLens(), getInitialH(), Value(), Value()},
      getDirection(), getLayout(), getHiddenSize(), 3, getActivations(), 2);
}

LogicalResult LSTMOp::verify() {
  return verifyRecurrent(
      *this, getX(), getW(), getR(),
      {getB(), getSequenceLens(), getInitialH(), getInitialC(), getP()},
      getDirection(), getLayout(), getHiddenSize(), 4, getActivations(), 3);
}
