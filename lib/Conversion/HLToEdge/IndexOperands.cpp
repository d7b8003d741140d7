//===- IndexOperands.cpp - hl -> edge for ops with run-time indices -------===//
//
// Pad, Slice and CumSum take their indices as tensors. Slice bounds that are
// constants lower to edge.slice (Shape.cpp); everything else keeps the
// indices as i64 operands of edge.pad, edge.dynamic_slice and edge.cum_sum,
// whose kernels check at run time that the values produce the compiled
// result shape.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// `value` as an i64 tensor of the same shape (a cast when it is i32).
Value toI64(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType().isInteger(64))
    return value;
  return builder.create<edge::CastOp>(loc, type.clone(builder.getI64Type()),
                                      value);
}

/// hl.pad -> edge.pad (a padding value only in constant mode, where ONNX
/// uses it).
struct PadLowering : public OpConversionPattern<hl::PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Static, or with bounded dynamic extents and constant pads (edge.pad
    // reifies them).
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    Value value =
        op.getMode() == "constant" ? adaptor.getConstantValue() : Value();
    // Constant pads as a dense i64 constant, whatever their storage (a
    // resource from 64 bytes on): edge.pad reifies dynamic extents from it.
    Value pads = toI64(rewriter, op.getLoc(), adaptor.getPads());
    if (std::optional<SmallVector<int64_t>> known =
            getConstantInts(adaptor.getPads());
        known && !resultType.hasStaticShape())
      pads = rewriter.create<edge::ConstantOp>(
          op.getLoc(),
          DenseElementsAttr::get(
              RankedTensorType::get({static_cast<int64_t>(known->size())},
                                    rewriter.getI64Type()),
              ArrayRef<int64_t>(*known)));
    rewriter.replaceOpWithNewOp<edge::PadOp>(op, resultType, adaptor.getData(),
                                             pads, value, op.getModeAttr());
    return success();
  }
};

/// hl.slice whose bounds are not all constants -> edge.dynamic_slice.
struct DynamicSliceLowering : public OpConversionPattern<hl::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "a dynamic result");
    SmallVector<Value, 4> bounds = {adaptor.getStarts(), adaptor.getEnds(),
                                    adaptor.getAxes(), adaptor.getSteps()};
    if (llvm::all_of(bounds, [](Value v) { return getConstantInts(v); }))
      return rewriter.notifyMatchFailure(op,
                                         "constant bounds lower to edge.slice");
    SmallVector<Value, 4> i64Bounds;
    for (Value bound : bounds)
      i64Bounds.push_back(toI64(rewriter, op.getLoc(), bound));
    rewriter.replaceOpWithNewOp<edge::DynamicSliceOp>(
        op, resultType, adaptor.getData(), i64Bounds[0], i64Bounds[1],
        i64Bounds[2], i64Bounds[3]);
    return success();
  }
};

/// hl.cum_sum -> edge.cum_sum.
struct CumSumLowering : public OpConversionPattern<hl::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (resultType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs a result of rank >= 1");
    rewriter.replaceOpWithNewOp<edge::CumSumOp>(
        op, adaptor.getInput(), toI64(rewriter, op.getLoc(), adaptor.getAxis()),
        rewriter.getBoolAttr(op.getExclusive() != 0),
        rewriter.getBoolAttr(op.getReverse() != 0));
    return success();
  }
};

} // namespace

void hl_to_edge::populateIndexOperandPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<PadLowering, DynamicSliceLowering, CumSumLowering>(
      converter, patterns.getContext());
}
