//===- EdgeActivationChains.cpp - activations exporters spell out --------===//
//
// ONNX before opset 20 has no GELU and no SiLU; PyTorch writes them out:
//   - nn.GELU (ConvNeXt, ViT, Swin, BERT, GPT) as x * 0.5 * (1 + erf(x /
//     sqrt(2))), five edge ops of which the delegate would otherwise leave
//     the Erf to the portable kernels and split the partition around it;
//   - nn.SiLU (EfficientNet) as x * sigmoid(x), two passes over the tensor;
//   - nn.Hardswish (MobileNetV3) before opset 14 as x * HardSigmoid(x),
//     four edge ops: x * clip(x / 6 + 1 / 2, 0, 1); Paddle2ONNX and
//     TensorFlow's exporters as x * clip(x + 3, 0, 6) / 6.
// The matchers find each chain from its Erf, Sigmoid or Clip. The oneDNN
// partition writer emits a chain as one eltwise op (gelu_erf, swish,
// hardswish) or as a post-op of the convolution or matmul producing x;
// strata-form-quantized-ops folds SiLU and hardswish into the epilogue of
// the integer convolution or matmul producing x.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeActivationChains.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"

#include <cmath>

using namespace mlir;

namespace strata::edge {

/// Whether `value` is an f32 constant whose every element is within 1e-5
/// of `want`.
static bool isScalar(Value value, double want) {
  auto constant = value.getDefiningOp<ConstantOp>();
  std::optional<std::vector<float>> v =
      constant ? readF32Constant(constant.getValue()) : std::nullopt;
  return v && !v->empty() && llvm::all_of(*v, [&](float e) {
           return std::fabs(e - want) <= 1e-5 * std::fabs(want);
         });
}

/// The operand of binary `op` other than the splat constant `constant`
/// (either side); null when neither side is that constant.
static Value otherThanScalar(Operation *op, double constant) {
  if (isScalar(op->getOperand(1), constant))
    return op->getOperand(0);
  if (isScalar(op->getOperand(0), constant))
    return op->getOperand(1);
  return {};
}

/// The single user of `value`, when it has one use.
static Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// The operand of binary `op` other than `known`; null when `op` does not
/// read `known`.
static Value otherOperand(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

StringRef stringifyActivationKind(ActivationChain::Kind kind) {
  switch (kind) {
  case ActivationChain::Swish:
    return "swish";
  case ActivationChain::HardSwish:
    return "hardswish";
  case ActivationChain::GeluErf:
    break;
  }
  return "gelu_erf";
}

std::optional<ActivationChain::Kind> symbolizeActivationKind(StringRef name) {
  for (ActivationChain::Kind kind :
       {ActivationChain::GeluErf, ActivationChain::Swish,
        ActivationChain::HardSwish})
    if (name == stringifyActivationKind(kind))
      return kind;
  return std::nullopt;
}

std::optional<ActivationChain> matchGelu(Operation *erf) {
  if (!isa_and_nonnull<ErfOp>(erf))
    return std::nullopt;
  ActivationChain chain;
  chain.kind = ActivationChain::GeluErf;
  // x / sqrt(2), or x * (1 / sqrt(2)).
  Operation *scale = erf->getOperand(0).getDefiningOp();
  Value x;
  if (isa_and_nonnull<DivOp>(scale) && isScalar(scale->getOperand(1), M_SQRT2))
    x = scale->getOperand(0);
  else if (isa_and_nonnull<MulOp>(scale))
    x = otherThanScalar(scale, M_SQRT1_2);
  if (!x || !scale->getResult(0).hasOneUse() ||
      x.getType() != erf->getResult(0).getType())
    return std::nullopt;
  // 1 + erf(...).
  Operation *plusOne = soleUser(erf->getResult(0));
  if (!isa_and_nonnull<AddOp>(plusOne) ||
      otherThanScalar(plusOne, 1.0) != erf->getResult(0))
    return std::nullopt;
  // x * (1 + erf) * 0.5, or (x * 0.5) * (1 + erf).
  Operation *product = soleUser(plusOne->getResult(0));
  if (!isa_and_nonnull<MulOp>(product))
    return std::nullopt;
  Value factor = otherOperand(product, plusOne->getResult(0));
  chain.ops = {scale, erf, plusOne, product};
  if (factor == x) {
    Operation *half = soleUser(product->getResult(0));
    if (!isa_and_nonnull<MulOp>(half) ||
        otherThanScalar(half, 0.5) != product->getResult(0))
      return std::nullopt;
    chain.ops.push_back(half);
    chain.output = half->getResult(0);
  } else {
    Operation *half = factor ? factor.getDefiningOp() : nullptr;
    if (!isa_and_nonnull<MulOp>(half) || otherThanScalar(half, 0.5) != x ||
        !half->getResult(0).hasOneUse())
      return std::nullopt;
    chain.ops.push_back(half);
    chain.output = product->getResult(0);
  }
  if (chain.output.getType() != x.getType())
    return std::nullopt;
  chain.input = x;
  return chain;
}

/// The value of every element of f32 constant `value`, when they are equal.
static std::optional<float> splatValue(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  std::optional<std::vector<float>> v =
      constant ? readF32Constant(constant.getValue()) : std::nullopt;
  if (!v || v->empty() ||
      llvm::any_of(*v, [&](float e) { return e != v->front(); }))
    return std::nullopt;
  return v->front();
}

std::optional<LeakyReluChain> matchLeakyRelu(Operation *positive) {
  // max(x, 0) (or relu(x)) + slope * min(x, 0), in either operand order.
  Value x;
  if (isa_and_nonnull<ReluOp>(positive))
    x = positive->getOperand(0);
  else if (isa_and_nonnull<MaximumOp>(positive))
    x = otherThanScalar(positive, 0.0);
  if (!x)
    return std::nullopt;
  Operation *sum = soleUser(positive->getResult(0));
  if (!isa_and_nonnull<AddOp>(sum))
    return std::nullopt;
  Value scaledValue = otherOperand(sum, positive->getResult(0));
  Operation *scaled = scaledValue ? scaledValue.getDefiningOp() : nullptr;
  if (!isa_and_nonnull<MulOp>(scaled) || !scaledValue.hasOneUse())
    return std::nullopt;
  Operation *negative = nullptr;
  std::optional<float> slope;
  for (int i = 0; i < 2 && !negative; ++i) {
    Operation *def = scaled->getOperand(i).getDefiningOp();
    if (isa_and_nonnull<MinimumOp>(def) && otherThanScalar(def, 0.0) == x &&
        def->getResult(0).hasOneUse()) {
      negative = def;
      slope = splatValue(scaled->getOperand(1 - i));
    }
  }
  if (!negative || !slope || sum->getResult(0).getType() != x.getType() ||
      positive->getResult(0).getType() != x.getType())
    return std::nullopt;
  LeakyReluChain chain;
  chain.input = x;
  chain.output = sum->getResult(0);
  chain.slope = *slope;
  chain.ops = {positive, negative, scaled, sum};
  return chain;
}

std::optional<ActivationChain> matchSwish(Operation *sigmoid) {
  if (!isa_and_nonnull<SigmoidOp>(sigmoid))
    return std::nullopt;
  Value x = sigmoid->getOperand(0);
  Operation *product = soleUser(sigmoid->getResult(0));
  if (!isa_and_nonnull<MulOp>(product) ||
      otherOperand(product, sigmoid->getResult(0)) != x ||
      product->getResult(0).getType() != x.getType())
    return std::nullopt;
  ActivationChain chain;
  chain.kind = ActivationChain::Swish;
  chain.input = x;
  chain.output = product->getResult(0);
  chain.ops = {sigmoid, product};
  return chain;
}

/// x * clip(x + 3, 0, 6) / 6, as Paddle2ONNX and TensorFlow's exporters
/// write hardswish: the same function, divided (or multiplied by 1/6)
/// before or after the product with x.
static std::optional<ActivationChain> matchHardSwishOfSix(ClipOp bounded) {
  Operation *shift = bounded.getInput().getDefiningOp();
  if (!isa_and_nonnull<AddOp>(shift) || !shift->getResult(0).hasOneUse())
    return std::nullopt;
  Value x = otherThanScalar(shift, 3.0);
  if (!x)
    return std::nullopt;
  auto isSixth = [](Operation *op, Value of) {
    if (isa_and_nonnull<DivOp>(op))
      return op->getOperand(0) == of && isScalar(op->getOperand(1), 6.0);
    return isa_and_nonnull<MulOp>(op) && otherThanScalar(op, 1.0 / 6.0) == of;
  };
  Operation *next = soleUser(bounded.getResult());
  Operation *product = nullptr, *sixth = nullptr;
  if (isa_and_nonnull<MulOp>(next) &&
      otherOperand(next, bounded.getResult()) == x) {
    product = next;
    sixth = soleUser(product->getResult(0));
    if (!isSixth(sixth, product->getResult(0)))
      return std::nullopt;
  } else if (isSixth(next, bounded.getResult())) {
    sixth = next;
    product = soleUser(sixth->getResult(0));
    if (!isa_and_nonnull<MulOp>(product) ||
        otherOperand(product, sixth->getResult(0)) != x)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  Operation *last = product == next ? sixth : product;
  if (last->getResult(0).getType() != x.getType() ||
      shift->getResult(0).getType() != x.getType())
    return std::nullopt;
  ActivationChain chain;
  chain.kind = ActivationChain::HardSwish;
  chain.input = x;
  chain.output = last->getResult(0);
  chain.ops = {shift, bounded, next, last};
  return chain;
}

std::optional<ActivationChain> matchHardSwish(Operation *clip) {
  auto bounded = dyn_cast_or_null<ClipOp>(clip);
  if (bounded && bounded.getMin().convertToFloat() == 0.0f &&
      bounded.getMax().convertToFloat() == 6.0f)
    return matchHardSwishOfSix(bounded);
  if (!bounded || bounded.getMin().convertToFloat() != 0.0f ||
      bounded.getMax().convertToFloat() != 1.0f)
    return std::nullopt;
  // clip(x / 6 + 1 / 2, 0, 1), the products and sums either way round.
  Operation *shift = bounded.getInput().getDefiningOp();
  if (!isa_and_nonnull<AddOp>(shift) || !shift->getResult(0).hasOneUse())
    return std::nullopt;
  Value scaled = otherThanScalar(shift, 0.5);
  Operation *scale = scaled ? scaled.getDefiningOp() : nullptr;
  if (!isa_and_nonnull<MulOp>(scale) || !scaled.hasOneUse())
    return std::nullopt;
  Value x = otherThanScalar(scale, 1.0 / 6.0);
  // x * that.
  Operation *product = soleUser(bounded.getResult());
  if (!x || !isa_and_nonnull<MulOp>(product) ||
      otherOperand(product, bounded.getResult()) != x ||
      product->getResult(0).getType() != x.getType() ||
      scale->getResult(0).getType() != x.getType())
    return std::nullopt;
  ActivationChain chain;
  chain.kind = ActivationChain::HardSwish;
  chain.input = x;
  chain.output = product->getResult(0);
  chain.ops = {scale, shift, clip, product};
  return chain;
}

std::optional<ActivationChain> matchActivationOf(Value x) {
  // x feeds the chain alone: each chain reads it twice (GELU and hardswish
  // in their scaling and their product, SiLU in its sigmoid and product).
  if (std::distance(x.use_begin(), x.use_end()) != 2)
    return std::nullopt;
  for (Operation *user : x.getUsers()) {
    // x's readers may include ops without results (func.return).
    if (user->getNumResults() != 1)
      continue;
    std::optional<ActivationChain> chain = matchSwish(user);
    if (!chain && isa<MulOp>(user)) {
      Operation *shift = soleUser(user->getResult(0));
      if (isa_and_nonnull<AddOp>(shift))
        chain = matchHardSwish(soleUser(shift->getResult(0)));
    }
    if (!chain && isa<AddOp>(user))
      chain = matchHardSwish(soleUser(user->getResult(0)));
    if (!chain) {
      Operation *erf = soleUser(user->getResult(0));
      if (isa_and_nonnull<ErfOp>(erf))
        chain = matchGelu(erf);
    }
    if (chain && chain->input == x)
      return chain;
  }
  return std::nullopt;
}

} // namespace strata::edge
