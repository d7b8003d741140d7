//===- Attention.cpp - tensorrt attention conversions and fusions ---------===//
//
// PyTorch exports nn.MultiheadAttention with one packed in-projection
// (x @ W[E, 3E] + b[3E]) sliced into Q, K and V. TensorRT wants explicit
// Q/K/V projections (each gets its own QDQ scales), so a conversion splits
// the packed projection into three MatMul + Add pairs with the sliced
// weights. Then two fusions claim the attention: each projection with its
// head split (Reshape + Transpose), and scaled dot-product attention
// (optional scale of Q or of the scores, Q @ K^T, optional additive mask,
// Softmax, @ V).
//
//===----------------------------------------------------------------------===//
#include "TensorRTPatterns.h"

#include "Edge/IR/EdgeConstants.h"
#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"
#include "strata/Support/Locations.h"

using namespace mlir;
using namespace strata::patterns;

namespace strata::tensorrt {
namespace {

using OpList = SmallVector<Operation *>;

/// [start, end) of a unit-step slice of the last axis with constant bounds,
/// clamped to `extent`.
std::optional<std::pair<int64_t, int64_t>>
lastAxisRange(hl::SliceOp slice, int64_t extent, int64_t rank) {
  auto starts = hl::getConstantIntValues(slice.getStarts());
  auto ends = hl::getConstantIntValues(slice.getEnds());
  auto axes = hl::getConstantIntValues(slice.getAxes());
  auto steps = hl::getConstantIntValues(slice.getSteps());
  if (!starts || !ends || !axes || !steps || starts->size() != 1 ||
      ends->size() != 1 || axes->size() != 1 || steps->size() != 1 ||
      (*steps)[0] != 1)
    return std::nullopt;
  int64_t axis = (*axes)[0] < 0 ? (*axes)[0] + rank : (*axes)[0];
  if (axis != rank - 1)
    return std::nullopt;
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += extent;
    return std::clamp<int64_t>(v, 0, extent);
  };
  int64_t begin = clamp((*starts)[0]), end = clamp((*ends)[0]);
  if (begin >= end)
    return std::nullopt;
  return std::make_pair(begin, end);
}

/// MatMul(x, W[K, N]) + b[N] whose every user slices the last axis: one
/// MatMul + Add per slice, with W[:, s:e] and b[s:e].
struct SplitPackedInProjection : StrataPattern {
  SplitPackedInProjection(MLIRContext *context, const PatternInfo &info)
      : StrataPattern(context, info, hl::AddOp::getOperationName()) {}

  /// The matmul side of the add, or -1.
  static int matmulSide(Operation *add) {
    for (int side = 0; side < 2; ++side) {
      auto matmul = add->getOperand(side).getDefiningOp<hl::MatMulOp>();
      if (matmul && matmul->hasOneUse() && isConstant(matmul.getRhs()) &&
          isConstant(add->getOperand(1 - side)))
        return side;
    }
    return -1;
  }

  FailureOr<OpList> matchOps(Operation *root) const override {
    int side = matmulSide(root);
    if (side < 0)
      return failure();
    auto matmul = root->getOperand(side).getDefiningOp<hl::MatMulOp>();
    auto weightType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
    auto biasType =
        dyn_cast<RankedTensorType>(root->getOperand(1 - side).getType());
    auto resultType = dyn_cast<RankedTensorType>(root->getResult(0).getType());
    if (!weightType || !biasType || !resultType ||
        !weightType.hasStaticShape() || weightType.getRank() != 2 ||
        !weightType.getElementType().isF32() || biasType.getRank() != 1 ||
        !resultType.hasStaticShape() ||
        biasType.getDimSize(0) != weightType.getDimSize(1))
      return failure();
    int64_t extent = weightType.getDimSize(1);
    OpList ops{matmul, root};
    int64_t slices = 0;
    for (Operation *user : root->getUsers()) {
      auto slice = dyn_cast<hl::SliceOp>(user);
      if (!slice || slice.getData() != root->getResult(0) ||
          !lastAxisRange(slice, extent, resultType.getRank()) ||
          !cast<RankedTensorType>(slice.getType()).hasStaticShape())
        return failure();
      ++slices;
    }
    if (slices < 2)
      return failure();
    for (Operation *user : root->getUsers())
      ops.push_back(user);
    return ops;
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *> ops,
                             PatternRewriter &rewriter) const override {
    int side = matmulSide(root);
    auto matmul = cast<hl::MatMulOp>(ops[0]);
    Value bias = root->getOperand(1 - side);
    auto weightType = cast<RankedTensorType>(matmul.getRhs().getType());
    auto weights = edge::readF32Constant(
        matmul.getRhs().getDefiningOp<hl::ConstantOp>().getValue());
    auto biases =
        edge::readF32Constant(bias.getDefiningOp<hl::ConstantOp>().getValue());
    if (!weights || !biases)
      return rewriter.notifyMatchFailure(root, "weights are not f32 data");
    int64_t rows = weightType.getDimSize(0), cols = weightType.getDimSize(1);
    int64_t rank =
        cast<RankedTensorType>(root->getResult(0).getType()).getRank();
    std::string baseName = getNodeName(matmul->getLoc());
    for (Operation *user : ops.drop_front(2)) {
      auto slice = cast<hl::SliceOp>(user);
      auto [begin, end] = *lastAxisRange(slice, cols, rank);
      int64_t width = end - begin;
      std::vector<float> w(rows * width),
          b(biases->begin() + begin, biases->begin() + end);
      for (int64_t r = 0; r < rows; ++r)
        std::copy_n(weights->begin() + r * cols + begin, width,
                    w.begin() + r * width);
      std::string name = getNodeName(slice->getLoc());
      Location loc = slice->getLoc();
      rewriter.setInsertionPoint(slice);
      auto wType =
          RankedTensorType::get({rows, width}, weightType.getElementType());
      auto bType = RankedTensorType::get({width}, weightType.getElementType());
      Value wConst = rewriter.create<hl::ConstantOp>(
          loc, edge::makeNamedF32Constant(wType, w, name + ".weight"));
      Value bConst = rewriter.create<hl::ConstantOp>(
          loc, edge::makeNamedF32Constant(bType, b, name + ".bias"));
      Type type = slice.getType();
      Value projected =
          rewriter.create<hl::MatMulOp>(loc, type, matmul.getLhs(), wConst);
      Value withBias = rewriter.create<hl::AddOp>(loc, type, projected, bConst);
      rewriter.replaceOp(slice, withBias);
    }
    rewriter.eraseOp(root);
    rewriter.eraseOp(matmul);
    return success();
  }
};

/// A Q, K or V projection with its head split: Linear -> Reshape ->
/// Transpose.
struct MHAInProjection : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    auto transpose = dyn_cast<hl::TransposeOp>(root);
    if (!transpose)
      return failure();
    auto reshape = producerWithSingleUse<hl::ReshapeOp>(transpose.getData());
    if (!reshape || !isConstant(reshape.getShape()))
      return failure();
    std::optional<OpList> linear =
        matchLinear(reshape.getData(), {reshape.getOperation()});
    if (!linear || !isa<hl::MatMulOp>(linear->front()))
      return failure();
    OpList ops = *linear;
    ops.push_back(reshape);
    ops.push_back(root);
    return ops;
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "mha_in_projection";
  }
};

/// The op scaling `value` by a scalar constant (Mul or Div), if any.
Operation *scalarScaleOf(Value value) {
  Operation *op = value ? value.getDefiningOp() : nullptr;
  if (!op || !hasSingleUse(value) || !isa<hl::MulOp, hl::DivOp>(op))
    return nullptr;
  return getScalarConstant(op->getOperand(1)) ? op : nullptr;
}

/// [scale(Q)] -> Q @ K^T -> [scale] -> [+ mask] -> Softmax -> @ V.
struct ScaledDotProductAttention : FusionPattern {
  using FusionPattern::FusionPattern;
  FailureOr<OpList> matchOps(Operation *root) const override {
    auto output = dyn_cast<hl::MatMulOp>(root);
    if (!output)
      return failure();
    auto softmax = producerWithSingleUse<hl::SoftmaxOp>(output.getLhs());
    if (!softmax)
      return failure();
    OpList tail{softmax, root};
    Value scores = softmax.getInput();
    Operation *mask = nullptr;
    if (auto add = producerWithSingleUse<hl::AddOp>(scores)) {
      mask = add;
      scores = add->getOperand(0);
    }
    Operation *scoreScale = scalarScaleOf(scores);
    if (scoreScale)
      scores = scoreScale->getOperand(0);
    auto product = producerWithSingleUse<hl::MatMulOp>(scores);
    if (!product || isConstant(product.getRhs()))
      return failure();
    Operation *queryScale = scalarScaleOf(product.getLhs());
    OpList ops;
    if (queryScale)
      ops.push_back(queryScale);
    ops.push_back(product);
    if (scoreScale)
      ops.push_back(scoreScale);
    if (mask)
      ops.push_back(mask);
    ops.append(tail);
    return ops;
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "scaled_dot_product_attention";
  }
};

} // namespace

void appendAttentionConversions(std::vector<PatternDescriptor> &patterns) {
  patterns.push_back(describePattern<SplitPackedInProjection>(
      {"SplitPackedInProjection",
       PatternPhase::Conversion,
       2,
       {},
       "MatMul + Add of a packed Q/K/V projection, sliced: one projection "
       "per slice"}));
}

void appendAttentionFusions(std::vector<PatternDescriptor> &patterns) {
  patterns.push_back(describePattern<MHAInProjection>(
      {"MHAInProjection",
       PatternPhase::Fusion,
       4,
       {},
       "Q/K/V projection with its head split (MatMul, Add, Reshape, "
       "Transpose)"}));
  patterns.push_back(describePattern<ScaledDotProductAttention>(
      {"ScaledDotProductAttention",
       PatternPhase::Fusion,
       6,
       {},
       "[scale] Q@K^T [scale] [+mask] Softmax @V"}));
}

} // namespace strata::tensorrt
