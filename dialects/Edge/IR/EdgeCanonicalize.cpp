//===- EdgeCanonicalize.cpp - canonicalization patterns of edge ops -------===//
//
// A per-output-channel scale or shift of a convolution's result is folded
// into the convolution's constant weight and bias: BatchNormalization after
// Conv, legalized to mul + add, costs nothing at run time.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace strata::edge;

namespace {

/// Splits a binary op into (convolution, constant) when one operand is a
/// single-use conv2d with constant weight (and bias, if any) and the other a
/// constant of shape [1, M, 1, 1] or [1, 1, 1, 1].
std::optional<std::pair<Conv2DOp, Value>> matchConvAndChannelConstant(
    Operation *op) {
  // Not where a fused post-op chain would be lost (strata-edge-fuse).
  if (op->hasAttr("post_ops"))
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    auto conv = op->getOperand(i).getDefiningOp<Conv2DOp>();
    Value other = op->getOperand(1 - i);
    if (!conv || !conv->hasOneUse() || conv.getPostOps() ||
        !matchPattern(other, m_Constant()) ||
        !matchPattern(conv.getWeight(), m_Constant()) ||
        (conv.getBias() && !matchPattern(conv.getBias(), m_Constant())))
      continue;
    ArrayRef<int64_t> shape = cast<ShapedType>(other.getType()).getShape();
    int64_t channels = cast<ShapedType>(conv.getType()).getDimSize(1);
    if (shape.size() == 4 && shape[0] == 1 && shape[2] == 1 &&
        shape[3] == 1 && (shape[1] == channels || shape[1] == 1))
      return std::make_pair(conv, other);
  }
  return std::nullopt;
}

Value reshape(PatternRewriter &rewriter, Location loc, Value value,
              ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  return rewriter.create<ReshapeOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), value);
}

/// Replaces `op` (a per-channel scale or shift of `conv`) by `conv` with
/// `weight` and `bias`. The folded conv computes both nodes: it carries
/// both names.
void replaceByFoldedConv(PatternRewriter &rewriter, Operation *op,
                         Conv2DOp conv, Value weight, Value bias) {
  auto folded = rewriter.create<Conv2DOp>(
      rewriter.getFusedLoc({op->getLoc(), conv.getLoc()}),
      op->getResult(0).getType(), conv.getInput(), weight, bias,
      conv.getStrides(), conv.getDilations(), conv.getPads(), conv.getGroup());
  rewriter.replaceOp(op, folded.getResult());
}

/// mul(conv2d(x, W, b), s) -> conv2d(x, W * s, b * s).
struct FoldScaleIntoConv : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto match = matchConvAndChannelConstant(op);
    if (!match)
      return rewriter.notifyMatchFailure(op, "not a conv scaled per channel");
    auto [conv, scale] = *match;
    Location loc = op.getLoc();
    int64_t scaleChannels = cast<ShapedType>(scale.getType()).getDimSize(1);
    Value weight = conv.getWeight();
    Value weightScale = reshape(rewriter, loc, scale, {scaleChannels, 1, 1, 1});
    weight = rewriter.create<MulOp>(loc, weight, weightScale);
    Value bias = conv.getBias();
    if (bias) {
      Value biasScale = reshape(rewriter, loc, scale, {scaleChannels});
      bias = rewriter.create<MulOp>(loc, bias, biasScale);
    }
    replaceByFoldedConv(rewriter, op, conv, weight, bias);
    return success();
  }
};

/// add(conv2d(x, W, b), c) -> conv2d(x, W, b + c).
struct FoldShiftIntoConv : public OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    auto match = matchConvAndChannelConstant(op);
    if (!match)
      return rewriter.notifyMatchFailure(op, "not a conv shifted per channel");
    auto [conv, shift] = *match;
    Location loc = op.getLoc();
    auto convType = cast<ShapedType>(conv.getType());
    int64_t channels = convType.getDimSize(1);
    int64_t shiftChannels = cast<ShapedType>(shift.getType()).getDimSize(1);
    auto biasType = RankedTensorType::get({channels}, convType.getElementType());
    Value bias = conv.getBias();
    if (!bias)
      bias = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(
                   biasType, rewriter.getZeroAttr(convType.getElementType())));
    Value flatShift = reshape(rewriter, loc, shift, {shiftChannels});
    bias = rewriter.create<AddOp>(loc, bias, flatShift);
    replaceByFoldedConv(rewriter, op, conv, conv.getWeight(), bias);
    return success();
  }
};

} // namespace

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldScaleIntoConv>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldShiftIntoConv>(context);
}
