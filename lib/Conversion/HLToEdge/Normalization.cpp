//===- Normalization.cpp - hl normalisations to edge arithmetic -----------===//
//
// BatchNormalization (inference) becomes x * a + b with a = scale /
// sqrt(var + eps) and b = bias - mean * a, written as edge ops on the
// constant statistics so that canonicalization folds them to two constants
// (and, after a convolution, into its weight and bias). LayerNormalization
// becomes its mean / variance arithmetic over the normalised axes; its
// optional mean and inverse deviation results come from the same values.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct BatchNormalizationLowering
    : public OpConversionPattern<hl::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::BatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type || type.getRank() < 2 || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a static f32 input");
    int64_t channels = type.getDimSize(1);
    for (Value v : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                    adaptor.getVar()}) {
      RankedTensorType t = getStaticType(v);
      if (!t || t.getShape() != ArrayRef<int64_t>{channels})
        return rewriter.notifyMatchFailure(op, "statistics must be [C]");
    }
    Location loc = op.getLoc();
    Type f32 = type.getElementType();
    auto vector = RankedTensorType::get({channels}, f32);
    Value eps = splatConstant(rewriter, loc, f32, 1,
                              op.getEpsilon().convertToFloat());
    Value variance =
        rewriter.create<edge::AddOp>(loc, vector, adaptor.getVar(), eps);
    Value deviation = rewriter.create<edge::SqrtOp>(loc, variance);
    Value a = rewriter.create<edge::DivOp>(loc, vector, adaptor.getScale(),
                                           deviation);
    Value meanTimesA =
        rewriter.create<edge::MulOp>(loc, vector, adaptor.getMean(), a);
    Value b = rewriter.create<edge::SubOp>(loc, vector, adaptor.getBias(),
                                           meanTimesA);
    // [C] -> [1, C, 1, ...] to broadcast over the batch and spatial axes.
    SmallVector<int64_t> channelShape(type.getRank(), 1);
    channelShape[1] = channels;
    Value scaled = rewriter.create<edge::MulOp>(
        loc, type, adaptor.getInput(), reshapeTo(rewriter, loc, a, channelShape));
    rewriter.replaceOpWithNewOp<edge::AddOp>(
        op, type, scaled, reshapeTo(rewriter, loc, b, channelShape));
    return success();
  }
};

struct LayerNormalizationLowering
    : public OpConversionPattern<hl::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type || !type.getElementType().isF32() ||
        !getStaticType(adaptor.getScale()))
      return rewriter.notifyMatchFailure(op, "needs static f32 shapes");
    int64_t rank = type.getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    Type f32 = type.getElementType();
    SmallVector<int64_t> axes, reducedShape(type.getShape());
    for (int64_t d = *axis; d < rank; ++d) {
      axes.push_back(d);
      reducedShape[d] = 1;
    }
    auto reducedType = RankedTensorType::get(reducedShape, f32);
    for (Value statistic : {op.getMean(), op.getInvStdDev()})
      if (statistic && statistic.getType() != reducedType)
        return rewriter.notifyMatchFailure(op, "statistics must have the "
                                               "input's reduced type");
    Value x = adaptor.getInput();
    Value mean = rewriter.create<edge::ReduceMeanOp>(loc, reducedType, x, axes,
                                                     /*keep_dims=*/true);
    Value centered = rewriter.create<edge::SubOp>(loc, type, x, mean);
    Value squared = rewriter.create<edge::MulOp>(loc, type, centered, centered);
    Value variance = rewriter.create<edge::ReduceMeanOp>(
        loc, reducedType, squared, axes, /*keep_dims=*/true);
    Value eps = splatConstant(rewriter, loc, f32, rank,
                              op.getEpsilon().convertToFloat());
    Value deviation = rewriter.create<edge::SqrtOp>(
        loc, rewriter.create<edge::AddOp>(loc, reducedType, variance, eps));
    Value normalized =
        rewriter.create<edge::DivOp>(loc, type, centered, deviation);
    Value result = rewriter.create<edge::MulOp>(
        loc, type, normalized, alignRank(rewriter, loc, adaptor.getScale(), rank));
    if (Value bias = adaptor.getBias())
      result = rewriter.create<edge::AddOp>(loc, type, result,
                                            alignRank(rewriter, loc, bias, rank));
    // The optional statistics results: the mean and 1 / deviation, with
    // the normalised axes kept as unit extents.
    SmallVector<Value> results = {result};
    if (op.getMean())
      results.push_back(mean);
    if (op.getInvStdDev())
      results.push_back(rewriter.create<edge::DivOp>(
          loc, reducedType, splatConstant(rewriter, loc, f32, rank, 1.0),
          deviation));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateNormalizationPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BatchNormalizationLowering, LayerNormalizationLowering>(
      converter, patterns.getContext());
}
