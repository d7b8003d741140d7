//===- Normalization.cpp - hl normalisations to edge arithmetic -----------===//
//
// BatchNormalization (inference) becomes x * a + b with a = scale /
// sqrt(var + eps) and b = bias - mean * a, written as edge ops on the
// constant statistics so that canonicalization folds them to two constants
// (and, after a convolution, into its weight and bias). LayerNormalization
// becomes its mean / variance arithmetic over the normalised axes; its
// optional mean and inverse deviation results come from the same values.
// InstanceNormalization and MeanVarianceNormalization standardize over their
// axes the same way; LRN sums squares over a channel window with an average
// pool.
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
    // Any extent but the channels' may be dynamic.
    RankedTensorType type = getRankedType(adaptor.getInput());
    if (!type || type.getRank() < 2 || type.isDynamicDim(1) ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input with "
                                             "static channels");
    int64_t channels = type.getDimSize(1);
    for (Value v : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                    adaptor.getVar()}) {
      RankedTensorType t = getStaticType(v);
      if (!t || t.getShape() != ArrayRef<int64_t>{channels})
        return rewriter.notifyMatchFailure(op, "statistics must be [C]");
    }
    Location loc = op.getLoc();
    Type f32 = type.getElementType();
    Value eps =
        splatConstant(rewriter, loc, f32, 1, op.getEpsilon().convertToFloat());
    Value variance = rewriter.create<edge::AddOp>(loc, adaptor.getVar(), eps);
    Value deviation = rewriter.create<edge::SqrtOp>(loc, variance);
    Value a = rewriter.create<edge::DivOp>(loc, adaptor.getScale(), deviation);
    Value meanTimesA = rewriter.create<edge::MulOp>(loc, adaptor.getMean(), a);
    Value b = rewriter.create<edge::SubOp>(loc, adaptor.getBias(), meanTimesA);
    // [C] -> [1, C, 1, ...] to broadcast over the batch and spatial axes.
    SmallVector<int64_t> channelShape(type.getRank(), 1);
    channelShape[1] = channels;
    Value scaled = rewriter.create<edge::MulOp>(
        loc, adaptor.getInput(), reshapeTo(rewriter, loc, a, channelShape));
    rewriter.replaceOpWithNewOp<edge::AddOp>(
        op, scaled, reshapeTo(rewriter, loc, b, channelShape));
    return success();
  }
};

struct LayerNormalizationLowering
    : public OpConversionPattern<hl::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getInput());
    if (!type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs f32 operands");
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
    Value mean = rewriter.create<edge::ReduceMeanOp>(loc, x, axes,
                                                     /*keep_dims=*/true);
    Value centered = rewriter.create<edge::SubOp>(loc, x, mean);
    Value squared = rewriter.create<edge::MulOp>(loc, centered, centered);
    Value variance = rewriter.create<edge::ReduceMeanOp>(loc, squared, axes,
                                                         /*keep_dims=*/true);
    Value eps = splatConstant(rewriter, loc, f32, rank,
                              op.getEpsilon().convertToFloat());
    Value deviation = rewriter.create<edge::SqrtOp>(
        loc, rewriter.create<edge::AddOp>(loc, variance, eps));
    Value normalized = rewriter.create<edge::DivOp>(loc, centered, deviation);
    Value result = rewriter.create<edge::MulOp>(
        loc, normalized, alignRank(rewriter, loc, adaptor.getScale(), rank));
    if (Value bias = adaptor.getBias())
      result = rewriter.create<edge::AddOp>(
          loc, result, alignRank(rewriter, loc, bias, rank));
    // The optional statistics results: the mean and 1 / deviation, with
    // the normalised axes kept as unit extents.
    SmallVector<Value> results = {result};
    if (op.getMean())
      results.push_back(mean);
    if (op.getInvStdDev())
      results.push_back(rewriter.create<edge::DivOp>(
          loc, splatConstant(rewriter, loc, f32, rank, 1.0), deviation));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// (x - mean) / (sqrt(var + epsilon) + stdOffset) over sorted `axes`, with
/// var = mean((x - mean)^2); f32.
Value standardize(OpBuilder &builder, Location loc, Value x,
                  ArrayRef<int64_t> axes, double epsilon, double stdOffset) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type f32 = type.getElementType();
  Value mean = builder.create<edge::ReduceMeanOp>(loc, x, axes,
                                                  /*keep_dims=*/true);
  Value centered = builder.create<edge::SubOp>(loc, x, mean);
  Value squared = builder.create<edge::MulOp>(loc, centered, centered);
  Value variance = builder.create<edge::ReduceMeanOp>(loc, squared, axes,
                                                      /*keep_dims=*/true);
  Value deviation = builder.create<edge::SqrtOp>(
      loc, builder.create<edge::AddOp>(
               loc, variance, splatConstant(builder, loc, f32, rank, epsilon)));
  if (stdOffset != 0.0)
    deviation = builder.create<edge::AddOp>(
        loc, deviation, splatConstant(builder, loc, f32, rank, stdOffset));
  return builder.create<edge::DivOp>(loc, centered, deviation);
}

/// hl.instance_normalization -> standardize over the spatial axes (each
/// channel's values one row), then scale and bias per channel. GroupNorm as
/// exporters write it before opset 18 (reshape to [N, groups, -1],
/// InstanceNormalization, reshape back, scale, bias) is the same rows.
struct InstanceNormalizationLowering
    : public OpConversionPattern<hl::InstanceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::InstanceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (type.getRank() < 3 || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    int64_t channels = type.getDimSize(1);
    for (Value v : {adaptor.getScale(), adaptor.getBias()}) {
      RankedTensorType t = getStaticType(v);
      if (!t || t.getShape() != ArrayRef<int64_t>{channels})
        return rewriter.notifyMatchFailure(op, "scale and bias must be [C]");
    }
    Location loc = op.getLoc();
    // Standardized as rows of [N * C, spatial] (a view): the last-axis
    // LayerNorm chain that delegates run as one layer normalization.
    int64_t spatial = 1;
    for (int64_t d = 2; d < type.getRank(); ++d)
      spatial *= type.getDimSize(d);
    Value rows = reshapeTo(rewriter, loc, adaptor.getInput(),
                           {type.getDimSize(0) * channels, spatial});
    Value normalized =
        reshapeTo(rewriter, loc,
                  standardize(rewriter, loc, rows, {1},
                              op.getEpsilon().convertToFloat(), 0.0),
                  type.getShape());
    SmallVector<int64_t> channelShape(type.getRank(), 1);
    channelShape[1] = channels;
    Value scaled = rewriter.create<edge::MulOp>(
        loc, normalized,
        reshapeTo(rewriter, loc, adaptor.getScale(), channelShape));
    rewriter.replaceOpWithNewOp<edge::AddOp>(
        op, scaled, reshapeTo(rewriter, loc, adaptor.getBias(), channelShape));
    return success();
  }
};

/// hl.mean_variance_normalization -> (x - mean) / (std + 1e-9), as the ONNX
/// function body computes it.
struct MeanVarianceNormalizationLowering
    : public OpConversionPattern<hl::MeanVarianceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MeanVarianceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    SmallVector<int64_t> axes;
    for (int64_t axis : op.getAxes()) {
      FailureOr<int64_t> normalized = normalizeAxis(axis, type.getRank());
      if (failed(normalized))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axes.push_back(*normalized);
    }
    llvm::sort(axes);
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    if (axes.empty())
      return rewriter.notifyMatchFailure(op, "no axes");
    rewriter.replaceOp(op, standardize(rewriter, op.getLoc(),
                                       adaptor.getInput(), axes, 0.0, 1e-9));
    return success();
  }
};

/// hl.lrn (NCHW) -> x / (bias + alpha / size * window_sum(x^2))^beta, the
/// channel-window sum computed as an average pool (count_include_pad) over
/// [N, 1, C, H*W] times `size`.
struct LRNLowering : public OpConversionPattern<hl::LRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (type.getRank() < 3 || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    int64_t size = static_cast<int64_t>(op.getSize());
    if (size < 1)
      return rewriter.notifyMatchFailure(op, "size must be positive");
    Location loc = op.getLoc();
    Type f32 = type.getElementType();
    int64_t rank = type.getRank();
    int64_t spatial =
        type.getNumElements() / (type.getDimSize(0) * type.getDimSize(1));
    Value x = adaptor.getInput();
    Value squared = rewriter.create<edge::MulOp>(loc, x, x);
    SmallVector<int64_t> poolShape = {type.getDimSize(0), 1, type.getDimSize(1),
                                      spatial};
    Value windows = rewriter.create<edge::AvgPool2DOp>(
        loc, reshapeTo(rewriter, loc, squared, poolShape),
        ArrayRef<int64_t>{size, 1}, ArrayRef<int64_t>{1, 1},
        ArrayRef<int64_t>{1, 1},
        ArrayRef<int64_t>{(size - 1) / 2, 0, size / 2, 0},
        /*ceil_mode=*/false, /*count_include_pad=*/true);
    Value sum = reshapeTo(rewriter, loc, windows, type.getShape());
    // bias + alpha / size * (size * mean) = bias + alpha * mean.
    Value base = rewriter.create<edge::AddOp>(
        loc,
        splatConstant(rewriter, loc, f32, rank, op.getBias().convertToFloat()),
        rewriter.create<edge::MulOp>(
            loc,
            splatConstant(rewriter, loc, f32, rank,
                          op.getAlpha().convertToFloat()),
            sum));
    Value denominator = rewriter.create<edge::PowOp>(
        loc, base,
        splatConstant(rewriter, loc, f32, rank, op.getBeta().convertToFloat()));
    rewriter.replaceOpWithNewOp<edge::DivOp>(op, x, denominator);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateNormalizationPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BatchNormalizationLowering, LayerNormalizationLowering,
               InstanceNormalizationLowering, MeanVarianceNormalizationLowering,
               LRNLowering>(converter, patterns.getContext());
}
