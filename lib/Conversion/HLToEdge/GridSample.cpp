//===- GridSample.cpp - hl.grid_sample to edge ----------------------------===//
//
// 2-d GridSample maps one to one onto edge.grid_sample (its portable kernel
// samples as ONNX Runtime does); the volumetric form has no edge op.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct GridSampleLowering : public OpConversionPattern<hl::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType gridType = getStaticType(adaptor.getGrid());
    if (inputType.getRank() != 4 || !inputType.getElementType().isF32() ||
        !gridType.getElementType().isF32())
      return rewriter.notifyMatchFailure(
          op, "needs an f32 [N, C, H, W] input and grid (the volumetric "
              "form is not supported)");
    rewriter.replaceOpWithNewOp<edge::GridSampleOp>(
        op, adaptor.getInput(), adaptor.getGrid(),
        rewriter.getBoolAttr(op.getAlignCorners() != 0), op.getModeAttr(),
        op.getPaddingModeAttr());
    return success();
  }
};

} // namespace

void hl_to_edge::populateGridSamplePatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(converter, patterns.getContext());
}
