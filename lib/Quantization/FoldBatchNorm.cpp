//===- FoldBatchNorm.cpp - batch normalization into the conv before it ----===//
//
// An inference BatchNormalization after a convolution with constant
// weights is an affine map per output channel, so it folds into the
// convolution:
//
//   f_c = scale_c / sqrt(var_c + epsilon)
//   W'[c, ...] = W[c, ...] * f_c
//   b'_c = (b_c - mean_c) * f_c + bias_c       (b = 0 without a conv bias)
//
// Quantizing the folded weight rather than the raw one is what integer
// runtimes execute (one weight, one bias per channel) and what a
// power-of-two weight scale needs: a scale cannot stay a power of two
// once a normalization's factor multiplies it.
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Quantization.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace strata {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "strata/Quantization/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {

/// The `n` f32 values of a constant vector operand ([n] or one of size n).
std::optional<std::vector<float>> channelValues(Value value, int64_t n) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != n)
    return std::nullopt;
  return quantization::constantFloats(value);
}

struct FoldIntoConv : OpRewritePattern<hl::BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(hl::BatchNormalizationOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<hl::ConvOp>();
    if (!conv || !conv->hasOneUse())
      return rewriter.notifyMatchFailure(bn, "input is not a single-use conv");
    auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    auto outType = dyn_cast<RankedTensorType>(conv.getType());
    if (!wType || !wType.hasStaticShape() || wType.getRank() < 1 ||
        !wType.getElementType().isF32() || !outType || outType.getRank() < 2)
      return rewriter.notifyMatchFailure(bn, "weight shape or type unknown");
    int64_t channels = wType.getDimSize(0);
    std::optional<std::vector<float>> w =
        quantization::constantFloats(conv.getWeight());
    std::optional<std::vector<float>> b =
        conv.getBias() ? channelValues(conv.getBias(), channels)
                       : std::vector<float>(channels, 0.0f);
    auto gamma = channelValues(bn.getScale(), channels);
    auto beta = channelValues(bn.getBias(), channels);
    auto mean = channelValues(bn.getMean(), channels);
    auto var = channelValues(bn.getVar(), channels);
    if (!w || !b || !gamma || !beta || !mean || !var)
      return rewriter.notifyMatchFailure(bn, "operands are not constants");

    double epsilon = bn.getEpsilon().convertToFloat();
    size_t inner = w->size() / channels;
    std::vector<float> bias(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double f = (*gamma)[c] / std::sqrt(double((*var)[c]) + epsilon);
      if (!std::isfinite(f))
        return rewriter.notifyMatchFailure(bn, "non-finite factor");
      for (size_t i = 0; i < inner; ++i)
        (*w)[c * inner + i] = static_cast<float>((*w)[c * inner + i] * f);
      bias[c] =
          static_cast<float>(((*b)[c] - double((*mean)[c])) * f + (*beta)[c]);
    }
    auto biasType = RankedTensorType::get({channels}, rewriter.getF32Type());
    Value weight = rewriter.create<hl::ConstantOp>(
        conv.getWeight().getLoc(),
        DenseElementsAttr::get(wType, ArrayRef<float>(*w)));
    Value biasValue = rewriter.create<hl::ConstantOp>(
        bn.getLoc(), DenseElementsAttr::get(biasType, ArrayRef<float>(bias)));
    auto folded = rewriter.create<hl::ConvOp>(
        conv.getLoc(), TypeRange{bn.getType()},
        ValueRange{conv.getInput(), weight, biasValue}, conv->getAttrs());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FoldBatchNormPass : strata::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv>(&getContext());
    GreedyRewriteConfig config;
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      return signalPassFailure();
  }
};

} // namespace
