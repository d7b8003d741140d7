//===- Indexing.cpp - hl trilu and constant_of_shape to edge --------------===//
//
// Both become constants or selects once shapes are static:
//   constant_of_shape -> edge.constant splat of the result type
//   trilu(x, k)       -> select(mask, x, 0) with a constant i1 mask over the
//                        last two dimensions (kept where j - i >= k for the
//                        upper triangle, j - i <= k for the lower)
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// hl.constant_of_shape with a static result -> edge.constant.
struct ConstantOfShapeLowering
    : public OpConversionPattern<hl::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static result");
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value || value.getNumElements() != 1 ||
        value.getElementType() != resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "value must be one element of "
                                             "the result's type");
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(
        op, DenseElementsAttr::get(resultType,
                                   value.getValues<Attribute>()[0]));
    return success();
  }
};

/// hl.trilu with a constant (or absent) k -> edge.select with a mask.
struct TriluLowering : public OpConversionPattern<hl::TriluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs a static input of rank "
                                             ">= 2");
    int64_t k = 0;
    if (Value kOperand = adaptor.getK()) {
      auto values = getConstantInts(kOperand);
      if (!values || values->size() != 1)
        return rewriter.notifyMatchFailure(op, "k must be a constant");
      k = values->front();
    }
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    bool upper = op.getUpper() != 0;
    SmallVector<bool> mask;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        mask.push_back(upper ? j - i >= k : j - i <= k);
    SmallVector<int64_t> maskShape(rank, 1);
    maskShape[rank - 2] = rows;
    maskShape[rank - 1] = cols;
    Value maskValue = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(
                 RankedTensorType::get(maskShape, rewriter.getI1Type()),
                 ArrayRef<bool>(mask)));
    auto zeroType = RankedTensorType::get(SmallVector<int64_t>(rank, 1),
                                          type.getElementType());
    Value zero = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(
                 zeroType, rewriter.getZeroAttr(type.getElementType())));
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, type, maskValue,
                                                adaptor.getInput(), zero);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateIndexingPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns.add<ConstantOfShapeLowering, TriluLowering>(converter,
                                                       patterns.getContext());
}
