//===- LayerFusions.cpp - tensorrt conv / linear / norm / pool fusions ----===//
//
// Each pattern claims what TensorRT runs as one kernel: a convolution with
// its BatchNormalization (folded at build time) and activation, the
// residual add of a ResNet block, the stem's max pool, a linear layer with
// its bias and activation, LayerNorm in either exported form, global
// average pooling. BatchNormalization is optional everywhere (exporters
// often fold it already); the group's kind says what it holds.
//
//===----------------------------------------------------------------------===//
#include "TensorRTPatterns.h"

#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"

using namespace mlir;
using namespace strata::patterns;

namespace strata::tensorrt {
namespace {

using OpList = SmallVector<Operation *>;

std::string convKind(bool hasBN) { return hasBN ? "conv_bn" : "conv"; }

/// What `producer` matches on an activation's input, then the activation
/// ending at `root`.
template <typename Matcher>
FailureOr<OpList> withActivation(Operation *root, Matcher producer) {
  std::optional<ActivationMatch> act = matchActivation(root);
  if (!act)
    return failure();
  std::optional<OpList> ops = producer(act->input, act->ops);
  if (!ops)
    return failure();
  ops->append(act->ops);
  return *ops;
}

/// Conv [-> BN] -> activation -> MaxPool, at the stem.
struct StemConvBNReLUMaxPool : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    auto pool = dyn_cast<hl::MaxPoolOp>(root);
    if (!pool || pool->getNumResults() != 1)
      return failure();
    Operation *actOp = pool.getInput().getDefiningOp();
    if (!actOp || !hasSingleUse(pool.getInput()))
      return failure();
    FailureOr<OpList> ops = withActivation(actOp, matchConvBN);
    if (failed(ops))
      return failure();
    ops->push_back(root);
    return ops;
  }
  std::string getKind(ArrayRef<Operation *> ops) const override {
    bool bn = isa<hl::BatchNormalizationOp>(ops[1]);
    return convKind(bn) + "_" +
           matchActivation(ops[ops.size() - 2])->kind + "_max_pool";
  }
};

/// Conv [-> BN] -> Add(residual) -> activation: a residual block's tail.
struct ConvBNAddReLU : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    std::optional<ActivationMatch> act = matchActivation(root);
    if (!act)
      return failure();
    auto add = producerWithSingleUse<hl::AddOp>(act->input);
    if (!add)
      return failure();
    // The main path is the add's first operand where both qualify (PyTorch
    // writes `out += identity`); the other operand is the residual input.
    for (int side = 0; side < 2; ++side) {
      std::optional<OpList> conv =
          matchConvBN(add->getOperand(side), {add.getOperation()});
      if (!conv || add->getOperand(side) == add->getOperand(1 - side))
        continue;
      OpList ops = *conv;
      ops.push_back(add);
      ops.append(act->ops);
      return ops;
    }
    return failure();
  }
  std::string getKind(ArrayRef<Operation *> ops) const override {
    bool bn = isa<hl::BatchNormalizationOp>(ops[1]);
    return convKind(bn) + "_add_" + matchActivation(ops.back())->kind;
  }
};

/// Conv [-> BN] -> activation.
struct ConvBNReLU : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    return withActivation(root, matchConvBN);
  }
  std::string getKind(ArrayRef<Operation *> ops) const override {
    bool bn = isa<hl::BatchNormalizationOp>(ops[1]);
    return convKind(bn) + "_" + matchActivation(ops.back())->kind;
  }
};

/// Linear (Gemm, or MatMul [+ bias]) -> activation.
struct LinearReLU : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    return withActivation(root, matchLinear);
  }
  std::string getKind(ArrayRef<Operation *> ops) const override {
    return "linear_" + matchActivation(ops.back())->kind;
  }
};

/// Conv -> BN, or a convolution alone (BatchNormalization optional).
struct ConvBN : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    if (auto bn = dyn_cast<hl::BatchNormalizationOp>(root)) {
      auto conv = producerWithSingleUse<hl::ConvOp>(bn->getOperand(0));
      if (!conv || bn->getNumResults() != 1)
        return failure();
      return OpList{conv, root};
    }
    auto conv = dyn_cast<hl::ConvOp>(root);
    if (!conv)
      return failure();
    // A conv feeding a BatchNormalization is matched at the BN.
    if (conv->hasOneUse() &&
        isa<hl::BatchNormalizationOp>(*conv->getUsers().begin()))
      return failure();
    return OpList{root};
  }
  std::string getKind(ArrayRef<Operation *> ops) const override {
    return convKind(ops.size() == 2);
  }
};

/// Gemm, or MatMul by a constant weight [+ constant bias].
struct Linear : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    if (isa<hl::GemmOp>(root))
      return OpList{root};
    if (isa<hl::AddOp>(root)) {
      // Matched through the value the add produces; the add must be the
      // matmul's only user, which matchLinear checks.
      for (int side = 0; side < 2; ++side) {
        auto matmul = root->getOperand(side).getDefiningOp<hl::MatMulOp>();
        if (matmul && hasSingleUse(matmul) && isConstant(matmul.getRhs()) &&
            isConstant(root->getOperand(1 - side)))
          return OpList{matmul, root};
      }
      return failure();
    }
    auto matmul = dyn_cast<hl::MatMulOp>(root);
    if (!matmul || !isConstant(matmul.getRhs()))
      return failure();
    // A matmul feeding its bias add is matched at the add.
    if (matmul->hasOneUse())
      if (auto add = dyn_cast<hl::AddOp>(*matmul->getUsers().begin()))
        if (succeeded(matchOps(add)))
          return failure();
    return OpList{root};
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "linear";
  }
};

/// LayerNormalization, or the chain opset < 17 exporters emit:
/// d = x - mean(x); y = d / sqrt(mean(d^2) + eps) [* gamma + beta].
struct LayerNorm : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    if (isa<hl::LayerNormalizationOp>(root))
      return OpList{root};
    OpList affine;
    Operation *divOp = root;
    // Optional affine tail: (... * gamma) + beta.
    if (auto add = dyn_cast<hl::AddOp>(root)) {
      auto mul = producerWithSingleUse<hl::MulOp>(add->getOperand(0));
      if (!mul || !isConstant(add->getOperand(1)) ||
          !isConstant(mul->getOperand(1)))
        return failure();
      divOp = mul->getOperand(0).getDefiningOp();
      if (!divOp || !hasSingleUse(mul->getOperand(0)))
        return failure();
      affine = {mul, add};
    }
    auto div = dyn_cast<hl::DivOp>(divOp);
    if (!div)
      return failure();
    // A chain with an affine tail is matched at the tail's add.
    if (affine.empty() && div->hasOneUse())
      if (auto mul = dyn_cast<hl::MulOp>(*div->getUsers().begin()))
        if (mul->hasOneUse())
          if (auto add = dyn_cast<hl::AddOp>(*mul->getUsers().begin()))
            if (succeeded(matchOps(add)))
              return failure();
    auto sqrt = producerWithSingleUse<hl::SqrtOp>(div.getOperand(1));
    auto addEps = sqrt ? producerWithSingleUse<hl::AddOp>(sqrt.getInput())
                       : nullptr;
    if (!addEps || !getScalarConstant(addEps->getOperand(1)))
      return failure();
    auto variance =
        producerWithSingleUse<hl::ReduceMeanOp>(addEps->getOperand(0));
    auto pow = variance ? producerWithSingleUse<hl::PowOp>(
                              variance->getOperand(0))
                        : nullptr;
    std::optional<float> exponent =
        pow ? getScalarConstant(pow->getOperand(1)) : std::nullopt;
    if (!exponent || *exponent != 2.0f)
      return failure();
    auto sub = pow->getOperand(0).getDefiningOp<hl::SubOp>();
    // d feeds the square and the division, nothing else.
    if (!sub || sub->getOperand(0) == sub->getOperand(1) ||
        div.getOperand(0) != sub.getResult() ||
        !llvm::hasNItems(sub->getUses(), 2))
      return failure();
    auto mean = producerWithSingleUse<hl::ReduceMeanOp>(sub->getOperand(1));
    if (!mean || mean->getOperand(0) != sub->getOperand(0))
      return failure();
    OpList ops{mean, sub, pow, variance, addEps, sqrt, div};
    ops.append(affine);
    return ops;
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "layer_norm";
  }
};

/// Global average pooling (the classifier head's pool).
struct GlobalAveragePool : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    if (!isa<hl::GlobalAveragePoolOp>(root))
      return failure();
    return OpList{root};
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "global_average_pool";
  }
};

} // namespace

template <typename P>
static void addFusion(std::vector<PatternDescriptor> &patterns,
                      const char *name, unsigned priority,
                      const char *description) {
  patterns.push_back(describePattern<P>(
      {name, PatternPhase::Fusion, priority, {}, description}));
}

void appendLayerFusions(std::vector<PatternDescriptor> &patterns) {
  addFusion<StemConvBNReLUMaxPool>(patterns, "StemConvBNReLUMaxPool", 4,
                                   "Conv [BN] activation MaxPool");
  addFusion<ConvBNAddReLU>(patterns, "ConvBNAddReLU", 4,
                           "Conv [BN] Add(residual) activation");
  addFusion<ConvBNReLU>(patterns, "ConvBNReLU", 3,
                        "Conv [BN] activation (ReLU, ReLU6, LeakyRelu, Elu, "
                        "GELU, SiLU, HardSwish, HardSigmoid)");
  addFusion<LinearReLU>(patterns, "LinearReLU", 2,
                        "Gemm or MatMul [+bias], then an activation");
  addFusion<ConvBN>(patterns, "ConvBN", 2, "Conv [BN]");
  addFusion<Linear>(patterns, "Linear", 2, "Gemm, or MatMul [+bias]");
  addFusion<LayerNorm>(patterns, "LayerNorm", 9,
                       "LayerNormalization, or its "
                       "ReduceMean/Sub/Pow/Sqrt/Div chain");
  addFusion<GlobalAveragePool>(patterns, "GlobalAveragePool", 1,
                               "GlobalAveragePool");
}

} // namespace strata::tensorrt
