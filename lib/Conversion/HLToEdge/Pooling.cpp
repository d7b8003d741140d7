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
  return reshapeTo(
      builder, loc, input,
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
    // A dynamic batch at most: the window needs the spatial extents.
    RankedTensorType inputType = getStaticButBatchType(adaptor.getInput());
    RankedTensorType resultType = getStaticButBatchType(op.getOutput());
    if (!inputType || !resultType ||
        (inputType.getRank() != 4 && inputType.getRank() != 3))
      return rewriter.notifyMatchFailure(op, "needs a 1-d or 2-d "
                                             "input");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), op.getKernelShape(),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window lifted = liftWindowTo2D(*window);
    Location loc = op.getLoc();
    Value pooled = rewriter.create<edge::MaxPool2DOp>(
        loc, liftInput(rewriter, loc, adaptor.getInput()), lifted.kernel,
        lifted.strides, lifted.dilations, lifted.pads, op.getCeilMode() != 0);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, pooled, resultType.getShape()));
    return success();
  }
};

/// hl.average_pool (1-d or 2-d) -> edge.avg_pool2d. A pool without pads of
/// its own over a zero Pad of H and W (PyTorch's AvgPool2d(padding=p) with
/// count_include_pad, as Inception-v3 has it) pools the unpadded input with
/// those pads, counted: the same values, without the copy.
struct AveragePoolLowering : public OpConversionPattern<hl::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    std::optional<ArrayRef<int64_t>> ownPads = op.getPads();
    bool countPad = op.getCountIncludePad() != 0;
    SmallVector<int64_t> takenPads;
    auto pad = op.getInput().getDefiningOp<hl::PadOp>();
    bool unpadded =
        !ownPads || llvm::all_of(*ownPads, [](int64_t v) { return v == 0; });
    if (pad && unpadded && op.getAutoPad() == "NOTSET" &&
        op.getCeilMode() == 0) {
      if (std::optional<SmallVector<int64_t>> spatial = spatialZeroPads(pad)) {
        Value data = rewriter.getRemappedValue(pad.getData());
        if (data && getStaticButBatchType(data)) {
          input = data;
          takenPads = *spatial;
          ownPads = ArrayRef<int64_t>(takenPads);
          countPad = true;
        }
      }
    }
    RankedTensorType inputType = getStaticButBatchType(input);
    RankedTensorType resultType = getStaticButBatchType(op.getOutput());
    if (!inputType || !resultType ||
        (inputType.getRank() != 4 && inputType.getRank() != 3) ||
        !inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a 1-d or 2-d f32 "
                                             "input");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), op.getKernelShape(),
        op.getStrides(), op.getDilations(), ownPads, op.getAutoPad());
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window lifted = liftWindowTo2D(*window);
    Location loc = op.getLoc();
    Value pooled = rewriter.create<edge::AvgPool2DOp>(
        loc, liftInput(rewriter, loc, input), lifted.kernel, lifted.strides,
        lifted.dilations, lifted.pads, op.getCeilMode() != 0, countPad);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, pooled, resultType.getShape()));
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
    RankedTensorType inputType = getStaticButBatchType(adaptor.getInput());
    if (!inputType)
      return rewriter.notifyMatchFailure(op, "needs static spatial extents");
    SmallVector<int64_t> axes;
    for (int64_t axis = 2; axis < inputType.getRank(); ++axis)
      axes.push_back(axis);
    if (axes.empty())
      return rewriter.notifyMatchFailure(op, "no spatial axes");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, adaptor.getInput(), axes,
                                        /*keep_dims=*/true);
    return success();
  }
};

/// hl.max_unpool -> a scatter of the values into zeros. MaxPool's indices
/// are flat positions in the (N, C, spatial...) tensor the pool read, whose
/// spatial extents are (in - 1) * stride + kernel - pads: the scatter runs
/// on that tensor flattened (zeros[numel], values[i] at indices[i]). A larger
/// `output_shape` pads it with zeros at the end of each spatial axis, as the
/// ONNX reference does.
struct MaxUnpoolLowering : public OpConversionPattern<hl::MaxUnpoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MaxUnpoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType indicesType = getStaticType(adaptor.getIndices());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (inputType.getShape() != indicesType.getShape() ||
        resultType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op,
                                         "needs indices shaped like the input");
    int64_t rank = inputType.getRank(), spatial = rank - 2;
    ArrayRef<int64_t> kernel = op.getKernelShape();
    SmallVector<int64_t> strides(spatial, 1), pads(2 * spatial, 0);
    if (auto s = op.getStrides())
      strides.assign(s->begin(), s->end());
    if (auto p = op.getPads())
      pads.assign(p->begin(), p->end());
    if (static_cast<int64_t>(kernel.size()) != spatial ||
        static_cast<int64_t>(strides.size()) != spatial ||
        static_cast<int64_t>(pads.size()) != 2 * spatial)
      return rewriter.notifyMatchFailure(op, "window attributes do not fit");
    SmallVector<int64_t> unpooled(inputType.getShape().take_front(2));
    for (int64_t d = 0; d < spatial; ++d)
      unpooled.push_back((inputType.getDimSize(d + 2) - 1) * strides[d] +
                         kernel[d] - pads[d] - pads[spatial + d]);
    SmallVector<int64_t> padding(2 * rank, 0);
    for (int64_t d = 0; d < rank; ++d) {
      padding[rank + d] = resultType.getDimSize(d) - unpooled[d];
      if (padding[rank + d] < 0 || (d < 2 && padding[rank + d] != 0))
        return rewriter.notifyMatchFailure(
            op, "output_shape is smaller than the unpooled shape");
    }

    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    int64_t count = inputType.getNumElements();
    auto unpooledType = RankedTensorType::get(unpooled, elementType);
    auto flatType =
        RankedTensorType::get({unpooledType.getNumElements()}, elementType);
    Value values = reshapeTo(rewriter, loc, adaptor.getInput(), {count});
    Value indices = reshapeTo(rewriter, loc, adaptor.getIndices(), {count});
    Value zeros = rewriter.create<edge::ConstantOp>(
        loc,
        DenseElementsAttr::get(flatType, rewriter.getZeroAttr(elementType)));
    Value result = rewriter.create<edge::ScatterElementsOp>(
        loc, zeros, indices, values, /*axis=*/0, "none");
    result = reshapeTo(rewriter, loc, result, unpooled);
    if (unpooledType != resultType) {
      auto padsType = RankedTensorType::get({2 * rank}, rewriter.getI64Type());
      Value padsValue = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(padsType, ArrayRef<int64_t>(padding)));
      result = rewriter.create<edge::PadOp>(loc, resultType, result, padsValue,
                                            Value(), "constant");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populatePoolingPatterns(TypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AveragePoolLowering, MaxUnpoolLowering,
               GlobalPoolLowering<hl::GlobalAveragePoolOp, edge::ReduceMeanOp>,
               GlobalPoolLowering<hl::GlobalMaxPoolOp, edge::ReduceMaxOp>>(
      converter, patterns.getContext());
}
