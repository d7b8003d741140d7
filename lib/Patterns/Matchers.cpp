//===- Matchers.cpp - building blocks of backend patterns on hl -----------===//
#include "strata/Patterns/Matchers.h"

#include "Edge/IR/EdgeConstants.h"
#include "HL/IR/HLOps.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace strata::patterns {

bool hasSingleUse(Value value) { return value && value.hasOneUse(); }

bool isConstant(Value value) {
  return value && value.getDefiningOp<hl::ConstantOp>();
}

std::optional<float> getScalarConstant(Value value) {
  auto constant = value ? value.getDefiningOp<hl::ConstantOp>() : nullptr;
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<ElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() < 1 ||
      !elements.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(elements); dense && dense.isSplat())
    return dense.getSplatValue<float>();
  // Compared in place: this runs on every Mul/Div operand a matcher looks
  // at, weights included, and usually stops at the second element.
  std::optional<ArrayRef<char>> raw = edge::getRawConstantData(elements);
  int64_t count = elements.getNumElements();
  if (!raw || static_cast<int64_t>(raw->size()) != count * 4)
    return std::nullopt;
  auto at = [&](int64_t i) {
    float v;
    std::memcpy(&v, raw->data() + i * 4, 4);
    return v;
  };
  float first = at(0);
  for (int64_t i = 1; i < count; ++i)
    if (at(i) != first)
      return std::nullopt;
  return first;
}

static bool near(float a, float b) {
  return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::fabs(b));
}

/// For a binary op `op` with one operand a scalar constant equal to
/// `expected`, the other operand.
template <typename OpTy>
static Value otherThanScalar(Operation *op, float expected,
                             bool commutative = true) {
  auto binary = dyn_cast_or_null<OpTy>(op);
  if (!binary)
    return nullptr;
  Value lhs = binary->getOperand(0), rhs = binary->getOperand(1);
  if (auto c = getScalarConstant(rhs); c && near(*c, expected))
    return lhs;
  if (commutative)
    if (auto c = getScalarConstant(lhs); c && near(*c, expected))
      return rhs;
  return nullptr;
}

/// x * 0.5 * (1 + erf(x / sqrt(2))) ending at `root` (either association of
/// the two multiplications).
static std::optional<ActivationMatch> matchGelu(Operation *root) {
  auto outer = dyn_cast<hl::MulOp>(root);
  if (!outer)
    return std::nullopt;
  // (x * (1 + erf)) * 0.5
  Value inner = otherThanScalar<hl::MulOp>(root, 0.5f);
  auto mul = inner ? producerWithSingleUse<hl::MulOp>(inner) : nullptr;
  if (!mul)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Value x = mul->getOperand(side);
    auto plusOne = producerWithSingleUse<hl::AddOp>(mul->getOperand(1 - side));
    if (!plusOne)
      continue;
    Value erfValue = otherThanScalar<hl::AddOp>(plusOne, 1.0f);
    auto erf = erfValue ? producerWithSingleUse<hl::ErfOp>(erfValue) : nullptr;
    if (!erf)
      continue;
    auto div = producerWithSingleUse<hl::DivOp>(erf.getInput());
    if (!div || div.getOperand(0) != x ||
        !otherThanScalar<hl::DivOp>(div, std::sqrt(2.0f), false))
      continue;
    return ActivationMatch{x, {div, erf, plusOne, mul, root}, "gelu"};
  }
  return std::nullopt;
}

std::optional<ActivationMatch> matchActivation(Operation *root) {
  if (!root || root->getNumResults() != 1)
    return std::nullopt;
  auto single = [&](StringRef kind) {
    return ActivationMatch{root->getOperand(0), {root}, kind.str()};
  };
  if (isa<hl::ReluOp>(root))
    return single("relu");
  if (isa<hl::LeakyReluOp>(root))
    return single("leaky_relu");
  if (isa<hl::EluOp>(root))
    return single("elu");
  if (isa<hl::HardSwishOp>(root))
    return single("hard_swish");
  if (isa<hl::HardSigmoidOp>(root))
    return single("hard_sigmoid");
  if (auto clip = dyn_cast<hl::ClipOp>(root)) {
    std::optional<float> lo = getScalarConstant(clip.getMin());
    std::optional<float> hi = getScalarConstant(clip.getMax());
    if (lo && hi && *lo == 0.0f && *hi == 6.0f)
      return single("relu6");
    return std::nullopt;
  }
  if (auto mul = dyn_cast<hl::MulOp>(root)) {
    for (int side = 0; side < 2; ++side) {
      auto sigmoid =
          producerWithSingleUse<hl::SigmoidOp>(mul->getOperand(1 - side));
      if (sigmoid && sigmoid.getInput() == mul->getOperand(side))
        return ActivationMatch{mul->getOperand(side), {sigmoid, root}, "silu"};
    }
    return matchGelu(root);
  }
  return std::nullopt;
}

bool usedOnlyBy(Value value, ArrayRef<Operation *> users) {
  return value && !value.use_empty() &&
         llvm::all_of(value.getUsers(), [&](Operation *user) {
           return llvm::is_contained(users, user);
         });
}

std::optional<SmallVector<Operation *>>
matchConvBN(Value value, ArrayRef<Operation *> users) {
  if (!usedOnlyBy(value, users))
    return std::nullopt;
  if (auto bn = value.getDefiningOp<hl::BatchNormalizationOp>()) {
    if (bn->getNumResults() != 1)
      return std::nullopt;
    if (auto conv = producerWithSingleUse<hl::ConvOp>(bn->getOperand(0)))
      return SmallVector<Operation *>{conv, bn};
    return std::nullopt;
  }
  if (auto conv = value.getDefiningOp<hl::ConvOp>())
    return SmallVector<Operation *>{conv};
  return std::nullopt;
}

std::optional<SmallVector<Operation *>>
matchLinear(Value value, ArrayRef<Operation *> users) {
  if (!usedOnlyBy(value, users))
    return std::nullopt;
  if (auto gemm = value.getDefiningOp<hl::GemmOp>())
    return SmallVector<Operation *>{gemm};
  if (auto add = value.getDefiningOp<hl::AddOp>()) {
    for (int side = 0; side < 2; ++side) {
      auto matmul = producerWithSingleUse<hl::MatMulOp>(add->getOperand(side));
      if (matmul && isConstant(matmul.getRhs()) &&
          isConstant(add->getOperand(1 - side)))
        return SmallVector<Operation *>{matmul, add};
    }
    return std::nullopt;
  }
  if (auto matmul = value.getDefiningOp<hl::MatMulOp>())
    if (isConstant(matmul.getRhs()))
      return SmallVector<Operation *>{matmul};
  return std::nullopt;
}

} // namespace strata::patterns
