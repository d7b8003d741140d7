//===- Quantized.cpp - tensorrt QDQ points of each fused group ------------===//
//
// NVIDIA's placement rules for explicit quantization: the inputs of
// convolutions, GEMMs and matrix products are quantized (activations per
// tensor, weights per output channel), their outputs are not (TensorRT fuses
// the following activation and requantizes itself); the residual input of
// a fused add is quantized so the add runs in int8; pooling is quantized on
// its input; LayerNorm stays in float. Each quantized pattern claims fused
// groups of some kinds and records the resolved points on the group as
// `qdq_points = [{input = i, role = "...", axis = a}]`, which the QDQ
// insertion pass reads.
//
//===----------------------------------------------------------------------===//
#include "TensorRTPatterns.h"

#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"

using namespace mlir;

namespace strata::tensorrt {
namespace {

using OpList = SmallVector<Operation *>;

/// The body argument index `value` is, or -1.
int64_t argIndex(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg ? static_cast<int64_t>(arg.getArgNumber()) : -1;
}

/// The output-channel axis of a weight operand of `op`.
int64_t weightAxis(Operation *op) {
  if (auto gemm = dyn_cast<hl::GemmOp>(op))
    return gemm.getTransB() ? 0 : 1;
  if (isa<hl::MatMulOp>(op))
    if (auto type = dyn_cast<RankedTensorType>(op->getOperand(1).getType()))
      return type.getRank() - 1;
  return 0; // conv: [M, C/group, k...]
}

struct QuantizedGroup : StrataPattern {
  QuantizedGroup(MLIRContext *context, const PatternInfo &info,
                 std::function<bool(StringRef)> claims)
      : StrataPattern(context, info, hl::FusedOp::getOperationName()),
        claims(std::move(claims)) {}

  FailureOr<OpList> matchOps(Operation *root) const override {
    auto fused = cast<hl::FusedOp>(root);
    if (fused.getQdqPoints() || !claims(fused.getKind()))
      return failure();
    return OpList{root};
  }

  /// Resolves the declared roles to operand indices of `fused`.
  SmallVector<Attribute> resolve(hl::FusedOp fused, Builder &b) const {
    Block &body = fused.getBody().front();
    SmallVector<Attribute> points;
    llvm::DenseSet<int64_t> seen;
    auto add = [&](int64_t input, const QDQPoint &point, int64_t axis) {
      if (input < 0 || !seen.insert(input).second)
        return;
      SmallVector<NamedAttribute> fields{
          b.getNamedAttr("input", b.getI64IntegerAttr(input)),
          b.getNamedAttr("role", b.getStringAttr(stringifyQDQRole(point.role)))};
      if (axis >= 0)
        fields.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(axis)));
      points.push_back(b.getDictionaryAttr(fields));
    };
    Operation *linear = nullptr;
    for (Operation &op : body)
      if (isa<hl::ConvOp, hl::GemmOp, hl::MatMulOp>(op)) {
        linear = &op;
        break;
      }
    for (const QDQPoint &point : getInfo().qdqPoints) {
      switch (point.role) {
      case QDQRole::Activation: {
        Operation *first = linear ? linear : &body.front();
        if (first->getNumOperands() > 0)
          add(argIndex(first->getOperand(0)), point, -1);
        break;
      }
      case QDQRole::Weight:
        if (linear)
          add(argIndex(linear->getOperand(1)), point,
              point.axis < 0 ? -1 : weightAxis(linear));
        break;
      case QDQRole::Residual:
        for (Operation &op : body)
          if (auto sum = dyn_cast<hl::AddOp>(op))
            for (Value operand : sum->getOperands())
              add(argIndex(operand), point, -1);
        break;
      case QDQRole::MatMulOperands:
        for (Operation &op : body)
          if (isa<hl::MatMulOp>(op))
            for (Value operand : op.getOperands()) {
              Operation *def = operand.getDefiningOp();
              if (def && isa<hl::MulOp, hl::DivOp>(def))
                operand = def->getOperand(0);
              int64_t index = argIndex(operand);
              if (index >= 0 && !patterns::isConstant(fused.getInputs()[index]))
                add(index, point, -1);
            }
        break;
      }
    }
    return points;
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *>,
                             PatternRewriter &rewriter) const override {
    auto fused = cast<hl::FusedOp>(root);
    SmallVector<Attribute> points = resolve(fused, rewriter);
    rewriter.modifyOpInPlace(
        fused, [&] { fused.setQdqPointsAttr(rewriter.getArrayAttr(points)); });
    return success();
  }

private:
  std::function<bool(StringRef)> claims;
};

PatternDescriptor quantized(std::string name, std::vector<QDQPoint> points,
                            std::string description,
                            std::function<bool(StringRef)> claims) {
  PatternInfo info{std::move(name), PatternPhase::Quantized, 1,
                   std::move(points), std::move(description)};
  return {std::move(info),
          [claims](MLIRContext *context, const PatternInfo &info) {
            return std::make_unique<QuantizedGroup>(context, info, claims);
          }};
}

} // namespace

std::vector<PatternDescriptor> getQuantizedPatterns() {
  const QDQPoint activation{QDQRole::Activation};
  const QDQPoint weight{QDQRole::Weight, 0};
  const QDQPoint residual{QDQRole::Residual};
  auto isConvAdd = [](StringRef kind) {
    return kind.starts_with("conv") && kind.contains("_add_");
  };
  return {
      quantized("QuantizedConvAdd", {activation, weight, residual},
                "conv groups with a residual add: input, weight (per "
                "channel), residual",
                isConvAdd),
      quantized("QuantizedConv", {activation, weight},
                "conv groups: input, weight (per output channel)",
                [=](StringRef kind) {
                  return kind.starts_with("conv") && !isConvAdd(kind);
                }),
      quantized("QuantizedLinear", {activation, weight},
                "linear groups: input, weight (per output channel)",
                [](StringRef kind) { return kind.starts_with("linear"); }),
      quantized("QuantizedMHAInProjection", {activation, weight},
                "attention projections: input, weight (per output channel)",
                [](StringRef kind) { return kind == "mha_in_projection"; }),
      quantized("QuantizedAttention", {{QDQRole::MatMulOperands}},
                "attention: Q, K and V (the matmul operands)",
                [](StringRef kind) {
                  return kind == "scaled_dot_product_attention";
                }),
      quantized("QuantizedGlobalAveragePool", {activation},
                "global average pooling: its input",
                [](StringRef kind) { return kind == "global_average_pool"; }),
      quantized("FloatLayerNorm", {},
                "LayerNorm stays in float (no QDQ points)",
                [](StringRef kind) { return kind == "layer_norm"; }),
  };
}

} // namespace strata::tensorrt
