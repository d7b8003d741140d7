//===- LayerNormChain.cpp - LayerNorm as exporters write it ---------------===//
//
// PyTorch exports nn.LayerNorm before opset 17 (and Strata lowers the
// opset-17 op) as nine edge ops over the last axis:
//
//   m = mean(x)  d = x - m  v = mean(d^2)  y = d / sqrt(v + eps)
//   z = y * gamma + beta
//
// each a pass over the tensor, two of them broadcasts oneDNN's JIT kernels
// do not take. The matcher finds the chain from its first mean;
// strata-edge-fuse forms it as one edge.layer_norm, which the oneDNN
// partition writer emits as one layer_normalization op.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Fusion.h"

#include "Edge/IR/EdgeConstants.h"

using namespace mlir;

namespace strata::edge {

/// The value of an f32 constant whose elements are all equal.
static std::optional<float> getScalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  std::optional<std::vector<float>> values =
      constant ? readF32Constant(constant.getValue()) : std::nullopt;
  if (!values || values->empty() || !llvm::all_equal(*values))
    return std::nullopt;
  return values->front();
}

/// The single user of `value` (one or more uses by one op), else null.
static Operation *onlyUser(Value value) {
  Operation *user = nullptr;
  for (Operation *u : value.getUsers()) {
    if (user && u != user)
      return nullptr;
    user = u;
  }
  return user;
}

/// Whether `op` is a mean over the static last axis of an f32 tensor,
/// keeping it (the other extents may be dynamic).
static bool isLastAxisMean(Operation *op) {
  auto mean = dyn_cast_or_null<ReduceMeanOp>(op);
  if (!mean || !mean.getKeepDims())
    return false;
  auto type = dyn_cast<RankedTensorType>(mean.getInput().getType());
  ArrayRef<int64_t> axes = mean.getAxes();
  return type && type.getRank() >= 1 &&
         !type.isDynamicDim(type.getRank() - 1) &&
         type.getElementType().isF32() && axes.size() == 1 &&
         (axes[0] == type.getRank() - 1 || axes[0] == -1);
}

/// A constant per-channel vector for the last axis of `x`: shape [C] or
/// [1, ..., 1, C].
static bool isChannelVector(Value v, Value x) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  int64_t channels = cast<RankedTensorType>(x.getType()).getShape().back();
  return v.getDefiningOp<ConstantOp>() && type && type.hasStaticShape() &&
         type.getRank() >= 1 && type.getShape().back() == channels &&
         type.getNumElements() == channels &&
         type.getRank() <= cast<RankedTensorType>(x.getType()).getRank();
}

std::optional<LayerNormChain> matchLayerNorm(Operation *firstMean) {
  if (!isLastAxisMean(firstMean))
    return std::nullopt;
  LayerNormChain chain;
  Value x = firstMean->getOperand(0), m = firstMean->getResult(0);
  // d = x - m.
  Operation *sub = onlyUser(m);
  if (!isa_and_nonnull<SubOp>(sub) || sub->getOperand(0) != x ||
      sub->getOperand(1) != m || sub->getResult(0).getType() != x.getType())
    return std::nullopt;
  Value d = sub->getResult(0);
  // d^2 and d / sqrt(...) are d's only readers.
  Operation *square = nullptr, *div = nullptr;
  for (Operation *u : d.getUsers()) {
    if (isa<DivOp>(u) && u->getOperand(0) == d && !div)
      div = u;
    else if (isa<MulOp>(u) && u->getOperand(0) == d && u->getOperand(1) == d)
      square = u;
    else if (isa<PowOp>(u) && u->getOperand(0) == d &&
             getScalarConstant(u->getOperand(1)) == 2.0f)
      square = u;
    else
      return std::nullopt;
  }
  if (!square || !div)
    return std::nullopt;
  Operation *varMean = onlyUser(square->getResult(0));
  if (!isLastAxisMean(varMean))
    return std::nullopt;
  Operation *plusEps = onlyUser(varMean->getResult(0));
  if (!isa_and_nonnull<AddOp>(plusEps) ||
      plusEps->getOperand(0) != varMean->getResult(0))
    return std::nullopt;
  std::optional<float> eps = getScalarConstant(plusEps->getOperand(1));
  Operation *root = onlyUser(plusEps->getResult(0));
  if (!eps || *eps < 0 || !isa_and_nonnull<SqrtOp>(root) ||
      onlyUser(root->getResult(0)) != div ||
      div->getOperand(1) != root->getResult(0))
    return std::nullopt;
  chain.ops = {firstMean, sub, square, varMean, plusEps, root, div};
  chain.input = x;
  chain.epsilon = *eps;
  chain.output = div->getResult(0);
  // Optional affine: * gamma, then + beta.
  Operation *next = chain.output.hasOneUse() ? onlyUser(chain.output) : nullptr;
  if (isa_and_nonnull<MulOp>(next) && next->getOperand(0) == chain.output &&
      isChannelVector(next->getOperand(1), x) &&
      next->getResult(0).getType() == x.getType()) {
    chain.gamma = next->getOperand(1);
    chain.ops.push_back(next);
    chain.output = next->getResult(0);
    next = chain.output.hasOneUse() ? onlyUser(chain.output) : nullptr;
  }
  if (isa_and_nonnull<AddOp>(next) && next->getOperand(0) == chain.output &&
      isChannelVector(next->getOperand(1), x) &&
      next->getResult(0).getType() == x.getType()) {
    chain.beta = next->getOperand(1);
    chain.ops.push_back(next);
    chain.output = next->getResult(0);
  }
  return chain;
}

} // namespace strata::edge
