//===- Pooling.cpp - hl pooling ops to edge -------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// [N, C, L] -> [N, C, 1, L]: 1-d pooling runs as 2-d with a unit height.
RankedTensorType liftTo2D(RankedTensorType type) {
  if (type.getRank() != 3)
    return type;
  return RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)},
      type.getElementType());
}

Value liftInput(OpBuilder &builder, Location loc, Value input) {
  return reshapeTo(builder, loc, input,
                   liftTo2D(cast<RankedTensorType>(input.getType())).getShape());
}

/// hl.max_pool (1-d or 2-d, without the indices result) -> edge.max_pool2d.
struct MaxPoolLowering : public OpConversionPattern<hl::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getIndices())
      return rewriter.notifyMatchFailure(op, "the indices result is not "
                                             "supported");
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !resultType ||
        (inputType.getRank() != 4 && inputType.getRank() != 3))
      return rewriter.notifyMatchFailure(op, "needs a static 1-d or 2-d "
                                             "input");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), op.getKernelShape(),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window lifted = liftWindowTo2D(*window);
    Location loc = op.getLoc();
    Value pooled = rewriter.create<edge::MaxPool2DOp>(
        loc, liftTo2D(resultType), liftInput(rewriter, loc, adaptor.getInput()),
        lifted.kernel, lifted.strides, lifted.dilations, lifted.pads,
        op.getCeilMode() != 0);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, pooled,
                                     resultType.getShape()));
    return success();
  }
};

/// hl.average_pool (1-d or 2-d) -> edge.avg_pool2d.
struct AveragePoolLowering : public OpConversionPattern<hl::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !resultType ||
        (inputType.getRank() != 4 && inputType.getRank() != 3) ||
        !inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a static 1-d or 2-d f32 "
                                             "input");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), op.getKernelShape(),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window lifted = liftWindowTo2D(*window);
    Location loc = op.getLoc();
    Value pooled = rewriter.create<edge::AvgPool2DOp>(
        loc, liftTo2D(resultType), liftInput(rewriter, loc, adaptor.getInput()),
        lifted.kernel, lifted.strides, lifted.dilations, lifted.pads,
        op.getCeilMode() != 0, op.getCountIncludePad() != 0);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, pooled,
                                     resultType.getShape()));
    return success();
  }
};

/// hl.global_average_pool -> edge.reduce_mean over the spatial axes.
/// Global pooling is a reduction over the spatial axes with kept dims.
template <typename HLOp, typename EdgeOp>
struct GlobalPoolLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    SmallVector<int64_t> axes;
    for (int64_t axis = 2; axis < inputType.getRank(); ++axis)
      axes.push_back(axis);
    if (axes.empty())
      return rewriter.notifyMatchFailure(op, "no spatial axes");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, resultType, adaptor.getInput(),
                                        axes, /*keep_dims=*/true);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populatePoolingPatterns(TypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AveragePoolLowering,
               GlobalPoolLowering<hl::GlobalAveragePoolOp, edge::ReduceMeanOp>,
               GlobalPoolLowering<hl::GlobalMaxPoolOp, edge::ReduceMaxOp>>(
      converter, patterns.getContext());
}
