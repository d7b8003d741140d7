//===- Shape.cpp - hl constants, shape ops and softmax to edge ------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

#include <type_traits>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

struct ConstantLowering : public OpConversionPattern<hl::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(op, op.getValue());
    return success();
  }
};

/// hl.flatten, hl.reshape, hl.squeeze and hl.unsqueeze -> edge.reshape of
/// their first operand to the static result type (the shape or axes operand
/// has served its purpose once the result type is static; the constant
/// feeding it dies).
template <typename HLOp>
struct ReshapeLikeLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Value input = adaptor.getOperands().front();
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
    // Any ranked input: edge.softmax reifies its (the input's) shape.
    auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<edge::SoftmaxOp>(op, adaptor.getInput(), *axis);
    return success();
  }
};

/// hl.transpose (perm defaults to reversing the dimensions).
struct TransposeLowering : public OpConversionPattern<hl::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    SmallVector<int64_t> perm;
    if (auto given = op.getPerm())
      perm.assign(given->begin(), given->end());
    else
      for (int64_t d = type.getRank() - 1; d >= 0; --d)
        perm.push_back(d);
    rewriter.replaceOpWithNewOp<edge::TransposeOp>(op, adaptor.getData(), perm);
    return success();
  }
};

struct ConcatLowering : public OpConversionPattern<hl::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), resultType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // ONNX allows empty inputs; they contribute nothing.
    SmallVector<Value> inputs;
    for (Value input : adaptor.getInputs())
      if (getStaticType(input).getNumElements() > 0)
        inputs.push_back(input);
    if (inputs.empty())
      return rewriter.notifyMatchFailure(op, "all inputs are empty");
    rewriter.replaceOpWithNewOp<edge::ConcatOp>(op, inputs, *axis);
    return success();
  }
};

/// hl.slice with constant starts/ends/axes/steps -> edge.slice with the
/// ONNX clamping rules applied.
struct SliceLowering : public OpConversionPattern<hl::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    RankedTensorType resultType = getStaticType(op.getOutput());
    auto starts = getConstantInts(adaptor.getStarts());
    auto ends = getConstantInts(adaptor.getEnds());
    auto axes = getConstantInts(adaptor.getAxes());
    auto steps = getConstantInts(adaptor.getSteps());
    if (!starts || !ends || !axes || !steps || starts->size() != ends->size() ||
        starts->size() != axes->size() || starts->size() != steps->size())
      return rewriter.notifyMatchFailure(op, "needs constant slice bounds");
    int64_t rank = type.getRank();
    SmallVector<int64_t> begin(rank, 0), step(rank, 1);
    for (size_t i = 0; i < starts->size(); ++i) {
      FailureOr<int64_t> axis = normalizeAxis((*axes)[i], rank);
      if (failed(axis) || (*steps)[i] == 0)
        return rewriter.notifyMatchFailure(op, "bad axis or zero step");
      int64_t extent = type.getDimSize(*axis);
      int64_t start = (*starts)[i];
      if (start < 0)
        start += extent;
      // Clamp as the ONNX spec says: [0, extent] for positive steps,
      // [0, extent - 1] for negative ones.
      start = (*steps)[i] > 0 ? std::clamp<int64_t>(start, 0, extent)
                              : std::clamp<int64_t>(start, 0, extent - 1);
      begin[*axis] = start;
      step[*axis] = (*steps)[i];
    }
    if (resultType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "empty slices are not supported");
    rewriter.replaceOpWithNewOp<edge::SliceOp>(op, resultType,
                                               adaptor.getData(), begin, step);
    return success();
  }
};

/// hl.depth_to_space / hl.space_to_depth -> reshape, transpose, reshape
/// (NCHW):
///   DCR: [N, b, b, C', H, W] permuted (0, 3, 4, 1, 5, 2)
///   CRD: [N, C', b, b, H, W] permuted (0, 1, 4, 2, 5, 3)
///   space_to_depth: [N, C, H', b, W', b] permuted (0, 3, 5, 1, 2, 4)
template <typename HLOp>
struct BlockRearrangeLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs an NCHW input");
    int64_t b = static_cast<int64_t>(op.getBlocksize());
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t h = type.getDimSize(2), w = type.getDimSize(3);
    SmallVector<int64_t> split, permutation;
    if constexpr (std::is_same_v<HLOp, hl::DepthToSpaceOp>) {
      if (b < 1 || c % (b * b) != 0)
        return rewriter.notifyMatchFailure(op, "channels not divisible");
      if (op.getMode() == "DCR") {
        split = {n, b, b, c / (b * b), h, w};
        permutation = {0, 3, 4, 1, 5, 2};
      } else if (op.getMode() == "CRD") {
        split = {n, c / (b * b), b, b, h, w};
        permutation = {0, 1, 4, 2, 5, 3};
      } else {
        return rewriter.notifyMatchFailure(op, "unknown mode");
      }
    } else {
      if (b < 1 || h % b != 0 || w % b != 0)
        return rewriter.notifyMatchFailure(op, "spatial dims not divisible");
      split = {n, c, h / b, b, w / b, b};
      permutation = {0, 3, 5, 1, 2, 4};
    }
    Location loc = op.getLoc();
    Value blocks = reshapeTo(rewriter, loc, adaptor.getInput(), split);
    SmallVector<int64_t> permuted;
    for (int64_t d : permutation)
      permuted.push_back(split[d]);
    Value transposed =
        rewriter.create<edge::TransposeOp>(loc, blocks, permutation);
    rewriter.replaceOp(
        op, reshapeTo(rewriter, loc, transposed, resultType.getShape()));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateShapePatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ReshapeLikeLowering<hl::FlattenOp>,
               ReshapeLikeLowering<hl::ReshapeOp>, SoftmaxLowering,
               TransposeLowering, ConcatLowering,
               ReshapeLikeLowering<hl::SqueezeOp>,
               ReshapeLikeLowering<hl::UnsqueezeOp>, SliceLowering,
               BlockRearrangeLowering<hl::DepthToSpaceOp>,
               BlockRearrangeLowering<hl::SpaceToDepthOp>>(
      converter, patterns.getContext());
}
