//===- Vision.cpp - hl.roi_align, hl.det, hl.reverse_sequence to edge -----===//
//
// Each maps one to one onto its edge op, whose portable kernel computes it
// as ONNX Runtime does: RoiAlign's coordinate_transformation_mode becomes
// `half_pixel` (true for half_pixel, false for output_half_pixel); Det and
// ReverseSequence carry their operands over unchanged.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct RoiAlignLowering : public OpConversionPattern<hl::RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::RoiAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType roisType = getStaticType(adaptor.getRois());
    if (!resultType || !inputType || !roisType ||
        !inputType.getElementType().isF32() ||
        !roisType.getElementType().isF32())
      return op.emitOpError("needs a static f32 input and rois, got ")
             << adaptor.getInput().getType() << " and "
             << adaptor.getRois().getType();
    if (roisType.getRank() != 2 || roisType.getDimSize(1) != 4)
      return op.emitOpError("needs rois [R, 4], got ") << roisType;
    rewriter.replaceOpWithNewOp<edge::RoiAlignOp>(
        op, resultType, adaptor.getInput(), adaptor.getRois(),
        adaptor.getBatchIndices(),
        rewriter.getBoolAttr(op.getCoordinateTransformationMode() ==
                             "half_pixel"),
        op.getModeAttr(), op.getOutputHeightAttr(), op.getOutputWidthAttr(),
        op.getSamplingRatioAttr(), op.getSpatialScaleAttr());
    return success();
  }
};

struct DetLowering : public OpConversionPattern<hl::DetOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    if (!inputType || !inputType.getElementType().isF32())
      return op.emitOpError("needs a static f32 input, got ")
             << adaptor.getInput().getType();
    rewriter.replaceOpWithNewOp<edge::DetOp>(op, adaptor.getInput());
    return success();
  }
};

struct ReverseSequenceLowering
    : public OpConversionPattern<hl::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ReverseSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType lengthsType = getStaticType(adaptor.getSequenceLens());
    int64_t batchAxis = static_cast<int64_t>(op.getBatchAxis());
    if (!inputType || !lengthsType || inputType.getRank() < 2 ||
        lengthsType.getRank() != 1 ||
        lengthsType.getDimSize(0) != inputType.getDimSize(batchAxis))
      return op.emitOpError("needs an input of rank >= 2 and one sequence "
                            "length per batch entry, got ")
             << adaptor.getInput().getType() << " and "
             << adaptor.getSequenceLens().getType();
    rewriter.replaceOpWithNewOp<edge::ReverseSequenceOp>(
        op, inputType, adaptor.getInput(), adaptor.getSequenceLens(),
        op.getBatchAxisAttr(), op.getTimeAxisAttr());
    return success();
  }
};

} // namespace

void hl_to_edge::populateVisionPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<RoiAlignLowering, DetLowering, ReverseSequenceLowering>(
      converter, patterns.getContext());
}
