//===- Shape.cpp - hl constants, shape ops and softmax to edge ------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct ConstantLowering : public OpConversionPattern<hl::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(op, op.getValue());
    return success();
  }
};

/// hl.flatten and hl.reshape -> edge.reshape to the static result type (the
/// shape operand of hl.reshape has served its purpose once the result type
/// is static; the constant feeding it dies).
template <typename HLOp>
struct ReshapeLikeLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value input = adaptor.getOperands().front();
    if (!resultType || !getStaticType(input))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    rewriter.replaceOp(
        op, reshapeTo(rewriter, op.getLoc(), input, resultType.getShape()));
    return success();
  }
};

struct SoftmaxLowering : public OpConversionPattern<hl::SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<edge::SoftmaxOp>(op, adaptor.getInput(),
                                                 *axis);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateShapePatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ReshapeLikeLowering<hl::FlattenOp>,
               ReshapeLikeLowering<hl::ReshapeOp>, SoftmaxLowering>(
      converter, patterns.getContext());
}
