//===- Reduction.cpp - hl reductions to edge ------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// hl.reduce_mean with constant axes -> edge.reduce_mean (sorted,
/// non-negative axes); no axes means all of them unless
/// noop_with_empty_axes.
struct ReduceMeanLowering : public OpConversionPattern<hl::ReduceMeanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ReduceMeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!type || !resultType || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs static f32 shapes");
    SmallVector<int64_t> axes;
    if (Value axesOperand = adaptor.getAxes()) {
      auto values = getConstantInts(axesOperand);
      if (!values)
        return rewriter.notifyMatchFailure(op, "axes must be constant");
      for (int64_t axis : *values) {
        FailureOr<int64_t> normalized = normalizeAxis(axis, type.getRank());
        if (failed(normalized))
          return rewriter.notifyMatchFailure(op, "axis out of range");
        axes.push_back(*normalized);
      }
    }
    if (axes.empty()) {
      if (op.getNoopWithEmptyAxes()) {
        rewriter.replaceOp(op, adaptor.getData());
        return success();
      }
      for (int64_t d = 0; d < type.getRank(); ++d)
        axes.push_back(d);
    }
    llvm::sort(axes);
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    rewriter.replaceOpWithNewOp<edge::ReduceMeanOp>(
        op, resultType, adaptor.getData(), axes, op.getKeepdims() != 0);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateReductionPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceMeanLowering>(converter, patterns.getContext());
}
