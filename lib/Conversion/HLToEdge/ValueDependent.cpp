//===- ValueDependent.cpp - results sized by the data, hl -> edge ---------===//
//
// NonZero, Compress, Unique, NonMaxSuppression and TopK with a run-time k
// lower to edge ops with one value-dependent extent (`?`); their operands
// may have bounded dynamic extents themselves (a NonZero of a batch, a TopK
// over what a Compress kept). The lowering to exec bounds the extent by
// the most the operands give at their bounds (NonZero: the element count;
// NMS: batches x classes x min(max_output_boxes_per_class, boxes)), or by
// the user's smaller bound for the node (strata-compile --max-extent
// NODE=N, carried as the function's `hl.max_extents`). Memory is planned
// at the bound; the kernels report the actual extents
// (docs/dynamic-shapes.md, step 3).
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "strata/Support/Locations.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

/// The user's bound of `op`'s value-dependent extent (--max-extent NODE=N,
/// the function's `hl.max_extents`), or null: without one, the lowering to
/// exec bounds it by what the operands can give at their bounds.
IntegerAttr hl_to_edge::getGivenExtentBound(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto given = func ? func->getAttrOfType<DictionaryAttr>("hl.max_extents")
                    : DictionaryAttr();
  std::string node = getNodeName(op->getLoc());
  if (!given || node.empty())
    return nullptr;
  return given.getAs<IntegerAttr>(node);
}

/// `type` with `?` at `dim`.
static RankedTensorType withDynamicDim(RankedTensorType type, int64_t dim) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = ShapedType::kDynamic;
  return RankedTensorType::get(shape, type.getElementType());
}

/// What Compress and Unique keep of `input`: slices along `axis` (the
/// result has `?` there) or, without one, the flattened elements.
struct Selection {
  RankedTensorType type;
  IntegerAttr axis;
  /// The slices selected from (dynamic when the input's extent is).
  int64_t slices;
};
static FailureOr<Selection> selectionOf(Operation *op, RankedTensorType input,
                                        std::optional<uint64_t> axis,
                                        Builder &builder) {
  if (!axis)
    return Selection{
        RankedTensorType::get({ShapedType::kDynamic}, input.getElementType()),
        nullptr,
        input.hasStaticShape() ? input.getNumElements() : ShapedType::kDynamic};
  FailureOr<int64_t> normalized =
      normalizeAxis(static_cast<int64_t>(*axis), input.getRank());
  if (failed(normalized))
    return op->emitOpError("axis ")
           << static_cast<int64_t>(*axis) << " is out of range for " << input;
  return Selection{withDynamicDim(input, *normalized),
                   builder.getI64IntegerAttr(*normalized),
                   input.getDimSize(*normalized)};
}

namespace {

struct NonZeroLowering : public OpConversionPattern<hl::NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::NonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType input = getRankedType(adaptor.getInput());
    if (!input || !isRuntimeElementType(input.getElementType()))
      return op.emitOpError("needs a ranked input of a runtime element "
                            "type, got ")
             << adaptor.getInput().getType();
    auto type = RankedTensorType::get({input.getRank(), ShapedType::kDynamic},
                                      rewriter.getI64Type());
    rewriter.replaceOpWithNewOp<edge::NonZeroOp>(op, type, adaptor.getInput(),
                                                 getGivenExtentBound(op));
    return success();
  }
};

struct CompressLowering : public OpConversionPattern<hl::CompressOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::CompressOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType input = getRankedType(adaptor.getInput());
    RankedTensorType condition = getRankedType(adaptor.getCondition());
    if (!input || !condition || !isRuntimeElementType(input.getElementType()))
      return op.emitOpError("needs a ranked input and condition, got ")
             << adaptor.getInput().getType() << " and "
             << adaptor.getCondition().getType();
    FailureOr<Selection> selection =
        selectionOf(op, input, op.getAxis(), rewriter);
    if (failed(selection))
      return failure();
    int64_t slices = selection->slices;
    if (!ShapedType::isDynamic(slices) && !condition.isDynamicDim(0) &&
        condition.getDimSize(0) > slices)
      return op.emitOpError("condition of ")
             << condition.getDimSize(0) << " entries is longer than the "
             << slices << " slices it selects from";
    rewriter.replaceOpWithNewOp<edge::CompressOp>(
        op, selection->type, adaptor.getInput(), adaptor.getCondition(),
        selection->axis, getGivenExtentBound(op));
    return success();
  }
};

struct UniqueLowering : public OpConversionPattern<hl::UniqueOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::UniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType input = getStaticType(adaptor.getInput());
    if (!input || input.getElementType().isInteger(1) ||
        !isRuntimeElementType(input.getElementType()) ||
        input.getElementType().isF16())
      return op.emitOpError("needs a static numeric input, got ")
             << adaptor.getInput().getType();
    FailureOr<Selection> selection =
        selectionOf(op, input, op.getAxis(), rewriter);
    if (failed(selection))
      return failure();
    Type i64 = rewriter.getI64Type();
    auto perDistinct = RankedTensorType::get({ShapedType::kDynamic}, i64);
    auto perSlice = RankedTensorType::get({selection->slices}, i64);
    rewriter.replaceOpWithNewOp<edge::UniqueOp>(
        op, TypeRange{selection->type, perDistinct, perSlice, perDistinct},
        adaptor.getInput(), selection->axis,
        rewriter.getI64IntegerAttr(static_cast<int64_t>(op.getSorted())),
        getGivenExtentBound(op));
    return success();
  }
};

struct NonMaxSuppressionLowering
    : public OpConversionPattern<hl::NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::NonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType boxes = getRankedType(adaptor.getBoxes());
    RankedTensorType scores = getRankedType(adaptor.getScores());
    auto isF32 = [](RankedTensorType type) {
      return type && type.getElementType().isF32();
    };
    if (!isF32(boxes) || !isF32(scores) || boxes.getRank() != 3 ||
        scores.getRank() != 3)
      return op.emitOpError("needs ranked f32 boxes [batch, boxes, 4] and "
                            "scores [batch, classes, boxes], got ")
             << adaptor.getBoxes().getType() << " and "
             << adaptor.getScores().getType();
    for (Value scalar :
         {adaptor.getMaxOutputBoxesPerClass(), adaptor.getIouThreshold(),
          adaptor.getScoreThreshold()}) {
      RankedTensorType type = scalar ? getStaticType(scalar) : nullptr;
      if (scalar && (!type || type.getNumElements() != 1))
        return op.emitOpError("needs one-element box counts and thresholds, "
                              "got ")
               << scalar.getType();
      if (scalar && scalar != adaptor.getMaxOutputBoxesPerClass() &&
          !type.getElementType().isF32())
        return op.emitOpError("needs f32 thresholds, got ") << type;
    }
    auto type =
        RankedTensorType::get({ShapedType::kDynamic, 3}, rewriter.getI64Type());
    rewriter.replaceOpWithNewOp<edge::NonMaxSuppressionOp>(
        op, type, adaptor.getBoxes(), adaptor.getScores(),
        adaptor.getMaxOutputBoxesPerClass(), adaptor.getIouThreshold(),
        adaptor.getScoreThreshold(),
        rewriter.getI64IntegerAttr(
            static_cast<int64_t>(op.getCenterPointBox())),
        getGivenExtentBound(op));
    return success();
  }
};

} // namespace

bool hl_to_edge::isValueDependent(Operation *op) {
  // TopK with a k that is not a constant, and results whose extent along
  // the axis is left open (a static one is the k the model was exported
  // with).
  if (auto topK = dyn_cast<hl::TopKOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(topK.getIndices().getType());
    return !getConstantInts(topK.getK()).has_value() && type &&
           !type.hasStaticShape();
  }
  // A Range whose length the user bounds (one the extents give lowers
  // with that length instead).
  if (auto range = dyn_cast<hl::RangeOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(range.getOutput().getType());
    return type && !type.hasStaticShape() && getGivenExtentBound(op);
  }
  return isa<hl::NonZeroOp, hl::CompressOp, hl::UniqueOp,
             hl::NonMaxSuppressionOp>(op);
}

void hl_to_edge::populateValueDependentPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, CompressLowering, UniqueLowering,
               NonMaxSuppressionLowering>(converter, patterns.getContext());
}
