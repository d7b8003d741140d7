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

namespace {

/// The body argument of `group` that `value` is, when the group's operand
/// there is a constant and the body uses the argument once.
std::optional<unsigned> constantArgument(hl::FusedOp group, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &group.getBody().front() || !arg.hasOneUse() ||
      !isConstant(group.getInputs()[arg.getArgNumber()]))
    return std::nullopt;
  return arg.getArgNumber();
}

/// Whether `value` is a static f32 tensor of `rank` (any when 0) whose
/// dimension `axis` (from the back when negative) is `size`.
bool hasDim(Value value, int64_t axis, int64_t size, int64_t rank = 0) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getRank() == 0 || (rank && type.getRank() != rank))
    return false;
  if (axis < 0)
    axis += type.getRank();
  return axis >= 0 && axis < type.getRank() && type.getDimSize(axis) == size;
}

/// Whether the constant `value` holds one value per channel of `channels`
/// along its last axis (every other dimension 1).
bool isPerChannel(Value value, int64_t channels) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return hasDim(value, -1, channels) && type.getNumElements() == channels;
}

/// The producer side of a site: the constants of `group` that scale its
/// output channels, when all of them do.
std::optional<SmallVector<ChannelOperand>> outputScalers(hl::FusedOp group,
                                                         int64_t channels) {
  SmallVector<ChannelOperand> divided;
  auto add = [&](Value v, int64_t axis) {
    std::optional<unsigned> index = constantArgument(group, v);
    if (!index)
      return false;
    divided.push_back({group, *index, axis});
    return true;
  };
  Value v = group.getYield()->getOperand(0);
  if (auto relu = v.getDefiningOp<hl::ReluOp>()) {
    v = relu->getOperand(0);
    if (!hasSingleUse(v))
      return std::nullopt;
  }
  if (auto sum = v.getDefiningOp<hl::AddOp>()) {
    Value x = sum->getOperand(0), c = sum->getOperand(1);
    if (!isPerChannel(c, channels) || !constantArgument(group, c))
      std::swap(x, c);
    if (!isPerChannel(c, channels) || !add(c, -1) || !hasSingleUse(x))
      return std::nullopt;
    v = x;
    // A normalization's per-channel scale and shift.
    if (auto mul = v.getDefiningOp<hl::MulOp>()) {
      Value y = mul->getOperand(0), g = mul->getOperand(1);
      if (!isPerChannel(g, channels) || !constantArgument(group, g))
        std::swap(y, g);
      if (!isPerChannel(g, channels) || !add(g, -1))
        return std::nullopt;
      return divided;
    }
  }
  if (auto matmul = v.getDefiningOp<hl::MatMulOp>()) {
    if (!hasDim(matmul->getOperand(1), 1, channels, 2) ||
        !add(matmul->getOperand(1), 1))
      return std::nullopt;
    return divided;
  }
  if (auto gemm = v.getDefiningOp<hl::GemmOp>()) {
    int64_t axis = gemm.getTransB() ? 0 : 1;
    if (!hasDim(gemm.getB(), axis, channels, 2) || !add(gemm.getB(), axis))
      return std::nullopt;
    if (Value c = gemm.getC())
      if (!isPerChannel(c, channels) || !add(c, -1))
        return std::nullopt;
    return divided;
  }
  return std::nullopt;
}

/// The weight of the linear op in `group` reading body argument `index`,
/// scaled along its input-channel axis.
std::optional<ChannelOperand> inputScaler(hl::FusedOp group, unsigned index,
                                          int64_t channels) {
  BlockArgument arg = group.getBody().front().getArgument(index);
  if (!arg.hasOneUse())
    return std::nullopt;
  Operation *user = *arg.getUsers().begin();
  Value weight;
  int64_t axis = 0;
  if (isa<hl::MatMulOp>(user) && user->getOperand(0) == arg) {
    weight = user->getOperand(1);
  } else if (auto gemm = dyn_cast<hl::GemmOp>(user);
             gemm && gemm.getA() == arg && !gemm.getTransA() &&
             gemm.getB() != arg) {
    weight = gemm.getB();
    axis = gemm.getTransB() ? 1 : 0;
  } else {
    return std::nullopt;
  }
  std::optional<unsigned> w = constantArgument(group, weight);
  if (!w || !hasDim(weight, axis, channels, 2))
    return std::nullopt;
  return ChannelOperand{group, *w, axis};
}

} // namespace

std::optional<SmoothSite> matchSmoothSite(Operation *producer) {
  auto group = dyn_cast<hl::FusedOp>(producer);
  if (!group || group->getNumResults() != 1)
    return std::nullopt;
  Value output = group->getResult(0);
  auto type = dyn_cast<RankedTensorType>(output.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2)
    return std::nullopt;
  SmoothSite site{producer, type.getDimSize(type.getRank() - 1), {}, {}, {}};
  std::optional<SmallVector<ChannelOperand>> divided =
      outputScalers(group, site.channels);
  if (!divided)
    return std::nullopt;
  site.divided = std::move(*divided);

  // Every use, through reshapes and transposes that keep the last axis
  // (a reshape keeping the last dimension keeps each element's channel).
  SmallVector<Value> pending{output};
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto transpose = dyn_cast<hl::TransposeOp>(user)) {
        std::optional<ArrayRef<int64_t>> perm = transpose.getPerm();
        int64_t last = cast<RankedTensorType>(v.getType()).getRank() - 1;
        if (!perm || perm->empty() || perm->back() != last)
          return std::nullopt;
        pending.push_back(transpose.getResult());
        continue;
      }
      if (auto reshape = dyn_cast<hl::ReshapeOp>(user)) {
        if (use.getOperandNumber() != 0 ||
            !hasDim(reshape.getResult(), -1, site.channels))
          return std::nullopt;
        pending.push_back(reshape.getResult());
        continue;
      }
      auto consumer = dyn_cast<hl::FusedOp>(user);
      if (!consumer || user->getBlock() != producer->getBlock())
        return std::nullopt;
      std::optional<ChannelOperand> weight =
          inputScaler(consumer, use.getOperandNumber(), site.channels);
      if (!weight)
        return std::nullopt;
      site.multiplied.push_back(*weight);
      if (!llvm::is_contained(site.consumers, user))
        site.consumers.push_back(user);
    }
  }
  if (site.consumers.empty())
    return std::nullopt;
  llvm::sort(site.consumers, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return site;
}

} // namespace strata::patterns
