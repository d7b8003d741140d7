//===- EdgeRecurrentOps.cpp - rnn, gru and lstm ---------------------------===//
//
// One shape rule for the three recurrent layers: the results follow from
// X [S, N, I], R [D, H, G*H] and the direction, and every other operand
// must have the extents these imply (EdgeRecurrent.td).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "EdgeOpUtils.h"

#include <type_traits>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

namespace {

/// The number of gates of the layer `OpT`.
template <typename OpT> constexpr int64_t gateCount() {
  if constexpr (std::is_same_v<OpT, LSTMOp>)
    return 4;
  else if constexpr (std::is_same_v<OpT, GRUOp>)
    return 3;
  else
    return 1;
}

/// Y [S, D, N, H], Y_h [D, N, H] (and Y_c for an LSTM) from the operands.
template <typename OpT>
LogicalResult inferRecurrent(std::optional<Location> location,
                             typename OpT::Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<OpT>(location);
  StringRef direction = adaptor.getDirection();
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return emitError() << "direction must be forward, reverse or "
                          "bidirectional, got '"
                       << direction << "'";
  int64_t d = direction == "bidirectional" ? 2 : 1;
  constexpr int64_t g = gateCount<OpT>();
  RankedTensorType xType = rankedType(adaptor.getX());
  RankedTensorType rType = rankedType(adaptor.getR());
  if (!xType || !rType || xType.getRank() != 3 || rType.getRank() != 3)
    return emitError() << "X and R must have rank 3";
  ArrayRef<int64_t> x = xType.getShape(), r = rType.getShape();
  int64_t s = x[0], n = x[1], in = x[2], h = r[1];
  if (h < 1 || s < 1)
    return emitError() << "needs at least one step and one hidden unit";
  auto expect = [&](Value v, StringRef name,
                    ArrayRef<int64_t> shape) -> LogicalResult {
    RankedTensorType type = rankedType(v);
    if (!type || type.getShape() != shape) {
      auto diag = emitError();
      diag << name << " must have shape [";
      llvm::interleave(shape, diag, ",");
      diag << "]";
      return diag;
    }
    return success();
  };
  if (failed(expect(adaptor.getR(), "R", {d, h, g * h})) ||
      failed(expect(adaptor.getW(), "W", {d, in, g * h})) ||
      failed(expect(adaptor.getB(), "B", {d, 2 * g * h})) ||
      failed(expect(adaptor.getInitialH(), "initial_h", {d, n, h})))
    return failure();
  if constexpr (std::is_same_v<OpT, LSTMOp>)
    if (failed(expect(adaptor.getInitialC(), "initial_c", {d, n, h})))
      return failure();
  Type f32 = xType.getElementType();
  if (failed(pushTensor(inferred, {s, d, n, h}, f32)) ||
      failed(pushTensor(inferred, {d, n, h}, f32)))
    return failure();
  if constexpr (std::is_same_v<OpT, LSTMOp>)
    return pushTensor(inferred, {d, n, h}, f32);
  return success();
}

} // namespace

STRATA_EDGE_INFER_WITH(RNNOp, inferRecurrent)
STRATA_EDGE_INFER_WITH(GRUOp, inferRecurrent)
STRATA_EDGE_INFER_WITH(LSTMOp, inferRecurrent)

LogicalResult RNNOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  if (getActivation() != "tanh" && getActivation() != "relu")
    return emitOpError("activation must be tanh or relu, got '")
           << getActivation() << "'";
  return success();
}

LogicalResult GRUOp::verify() { return verifyInferable(*this); }

LogicalResult LSTMOp::verify() { return verifyInferable(*this); }
