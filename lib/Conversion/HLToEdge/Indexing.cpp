//===- Indexing.cpp - hl indexing and constant-like ops to edge -----------===//
//
// With static shapes these become constants, slices, selects or gathers:
//   split             -> edge.slice per result
//   gather(_elements, _nd) -> edge.gather(_elements, _nd)
//   eye_like          -> constant
//   expand            -> add of a zero splat of the result shape
//   one_hot           -> select(indices == iota, on, off)
//   scatter_elements  -> edge.scatter_elements
//   tile              -> concat of copies per repeated axis
//   constant_of_shape -> edge.constant splat of the result type
//   trilu(x, k)       -> select(mask, x, 0) with an i1 mask over the last
//                        two dimensions (kept where j - i >= k for the
//                        upper triangle, j - i <= k for the lower); the mask
//                        is constant when k is, less_equal(k, j - i) else
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/Limits.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// The most copies a Tile lowering concatenates along one dimension.
constexpr int64_t kMaxTileCopies = 4096;

/// ConstantOfShape of extents read at run time -> edge.fill.
LogicalResult lowerToFill(hl::ConstantOfShapeOp op, RankedTensorType resultType,
                          DenseElementsAttr value,
                          ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  std::optional<SmallVector<OpFoldResult>> extents =
      evaluateShapeValue(rewriter, loc, op.getInput());
  if (!extents || static_cast<int64_t>(extents->size()) != resultType.getRank())
    return op.emitError("the shape of this ConstantOfShape is computed in a "
                        "way the compiler cannot follow to extents");
  SmallVector<Value> sizes;
  for (auto [d, extent] : llvm::enumerate(*extents))
    if (resultType.isDynamicDim(d))
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, extent));
  Attribute element = value.getValues<Attribute>()[0];
  Attribute fill;
  if (auto f = dyn_cast<FloatAttr>(element))
    fill = rewriter.getF64FloatAttr(f.getValueAsDouble());
  else if (auto i = dyn_cast<IntegerAttr>(element))
    fill = rewriter.getI64IntegerAttr(
        i.getType().isUnsignedInteger() || i.getType().isInteger(1)
            ? static_cast<int64_t>(i.getValue().getZExtValue())
            : i.getValue().getSExtValue());
  else
    return rewriter.notifyMatchFailure(op, "unsupported fill value");
  rewriter.replaceOpWithNewOp<edge::FillOp>(op, resultType, sizes, fill);
  return success();
}

/// hl.constant_of_shape with a static result -> edge.constant; with extents
/// read at run time -> edge.fill of the extents the shape operand evaluates
/// to (the Shape of a value-dependent result, say).
struct ConstantOfShapeLowering
    : public OpConversionPattern<hl::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConstantOfShapeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!resultType || !value || value.getNumElements() != 1 ||
        value.getElementType() != resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "value must be one element of "
                                             "the result's type");
    if (!resultType.hasStaticShape())
      return lowerToFill(op, resultType, value, rewriter);
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(
        op,
        DenseElementsAttr::get(resultType, value.getValues<Attribute>()[0]));
    return success();
  }
};

/// hl.range with a static result -> edge.range, which checks at run time
/// that the operands give that many elements (constant operands have been
/// folded away by shape refinement).
struct RangeLowering : public OpConversionPattern<hl::RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "a dynamic length");
    rewriter.replaceOpWithNewOp<edge::RangeOp>(
        op, resultType, adaptor.getStart(), adaptor.getLimit(),
        adaptor.getDelta());
    return success();
  }
};

/// hl.trilu -> edge.select with a mask (constant when k is).
struct TriluLowering : public OpConversionPattern<hl::TriluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs an input of rank "
                                             ">= 2");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    bool upper = op.getUpper() != 0;
    SmallVector<int64_t> maskShape(rank, 1);
    maskShape[rank - 2] = rows;
    maskShape[rank - 1] = cols;
    auto maskType = RankedTensorType::get(maskShape, rewriter.getI1Type());
    Value maskValue;
    std::optional<SmallVector<int64_t>> k =
        adaptor.getK() ? getConstantInts(adaptor.getK())
                       : std::optional(SmallVector<int64_t>{0});
    if (k && k->size() == 1) {
      // A constant k: a constant mask.
      SmallVector<bool> mask;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          mask.push_back(upper ? j - i >= k->front() : j - i <= k->front());
      maskValue = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(mask)));
    } else {
      // k known at run time: compare it with the constant j - i.
      SmallVector<int64_t> diagonal;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          diagonal.push_back(j - i);
      Value offsets = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get(maskShape, rewriter.getI64Type()),
                   ArrayRef<int64_t>(diagonal)));
      Value kValue = reshapeTo(rewriter, loc, adaptor.getK(),
                               SmallVector<int64_t>(rank, 1));
      maskValue =
          upper ? rewriter.create<edge::LessEqualOp>(loc, kValue, offsets)
                : rewriter.create<edge::LessEqualOp>(loc, offsets, kValue);
    }
    auto zeroType = RankedTensorType::get(SmallVector<int64_t>(rank, 1),
                                          type.getElementType());
    Value zero = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(
                 zeroType, rewriter.getZeroAttr(type.getElementType())));
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, maskValue,
                                                adaptor.getInput(), zero);
    return success();
  }
};

/// hl.split -> one edge.slice per result, at consecutive offsets given by
/// the (static) result extents.
struct SplitLowering : public OpConversionPattern<hl::SplitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getInput());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t rank = type.getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t total = 0;
    for (Value result : op.getOutputs()) {
      auto resultType = dyn_cast<RankedTensorType>(result.getType());
      if (!resultType || resultType.isDynamicDim(*axis))
        return rewriter.notifyMatchFailure(op, "needs static split sizes");
      if (resultType.getRank() != rank)
        return rewriter.notifyMatchFailure(op,
                                           "needs results of the input's rank");
      total += resultType.getDimSize(*axis);
    }
    // An axis of run-time extent: the slices' reads are checked when they
    // run (the split sizes are ONNX's contract with the extent).
    if (!type.isDynamicDim(*axis) && total != type.getDimSize(*axis))
      return rewriter.notifyMatchFailure(op, "results do not cover the axis");
    SmallVector<Value> slices;
    int64_t offset = 0;
    for (Value result : op.getOutputs()) {
      auto resultType = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
      starts[*axis] = offset;
      offset += resultType.getDimSize(*axis);
      // Dynamic extents (off the axis) are the input's.
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < rank; ++d)
        if (resultType.isDynamicDim(d))
          sizes.push_back(getValueOrCreateConstantIndexOp(
              rewriter, op.getLoc(),
              extentOf(rewriter, op.getLoc(), adaptor.getInput(), d)));
      slices.push_back(rewriter.create<edge::SliceOp>(
          op.getLoc(), resultType, adaptor.getInput(), sizes,
          rewriter.getDenseI64ArrayAttr(starts),
          rewriter.getDenseI64ArrayAttr(steps)));
    }
    rewriter.replaceOp(op, slices);
    return success();
  }
};

/// hl.gather / hl.gather_elements -> the edge op of the same meaning, the
/// axis normalised.
template <typename HLOp, typename EdgeOp>
struct AxisGatherLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getData());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, adaptor.getData(),
                                        adaptor.getIndices(), *axis);
    return success();
  }
};

/// hl.gather_nd -> edge.gather_nd.
struct GatherNDLowering : public OpConversionPattern<hl::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<edge::GatherNDOp>(
        op, adaptor.getData(), adaptor.getIndices(), op.getBatchDims());
    return success();
  }
};

/// hl.eye_like -> a constant with ones where j - i == k.
struct EyeLikeLowering : public OpConversionPattern<hl::EyeLikeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::EyeLikeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (resultType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs a 2-d result");
    if (!isFoldableSize(resultType))
      return rewriter.notifyMatchFailure(op, "result too large to fold");
    Type element = resultType.getElementType();
    Attribute zero = rewriter.getZeroAttr(element), one;
    if (auto floatType = dyn_cast<FloatType>(element))
      one = rewriter.getFloatAttr(floatType, 1.0);
    else if (auto intType = dyn_cast<IntegerType>(element))
      one = rewriter.getIntegerAttr(intType, 1);
    if (!zero || !one)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t k = static_cast<int64_t>(op.getK());
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < resultType.getDimSize(0); ++i)
      for (int64_t j = 0; j < resultType.getDimSize(1); ++j)
        values.push_back(j - i == k ? one : zero);
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(
        op, DenseElementsAttr::get(resultType, values));
    return success();
  }
};

/// hl.expand with a static result -> broadcast by adding a zero splat of
/// the result's shape (logical_or with false for i1).
struct ExpandLowering : public OpConversionPattern<hl::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    Type element = resultType.getElementType();
    if (!element.isIntOrFloat() || element.isF16() || element.isBF16())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Location loc = op.getLoc();
    Value input =
        alignRank(rewriter, loc, adaptor.getInput(), resultType.getRank());
    if (cast<RankedTensorType>(input.getType()) == resultType) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Value zero = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(resultType, rewriter.getZeroAttr(element)));
    if (element.isInteger(1))
      rewriter.replaceOpWithNewOp<edge::LogicalOrOp>(op, input, zero);
    else
      rewriter.replaceOpWithNewOp<edge::AddOp>(op, input, zero);
    return success();
  }
};

/// hl.one_hot with a static result -> select(hit, on, off), where `hit`
/// compares the indices (with a unit axis inserted) against constants
/// 0..depth-1 and, for negative indices, -depth..-1. The depth is the
/// result's extent along the axis.
struct OneHotLowering : public OpConversionPattern<hl::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType indicesType = getStaticType(adaptor.getIndices());
    RankedTensorType resultType = getStaticType(op.getOutput());
    RankedTensorType valuesType = getStaticType(adaptor.getValues());
    if (valuesType.getNumElements() != 2 ||
        resultType.getRank() != indicesType.getRank() + 1)
      return rewriter.notifyMatchFailure(
          op, "needs two values and a result of rank indices + 1");
    int64_t rank = resultType.getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Type indexElement = indicesType.getElementType();
    if (!(indexElement.isF32() || indexElement.isF64() ||
          indexElement.isInteger(32) || indexElement.isInteger(64)))
      return rewriter.notifyMatchFailure(op, "unsupported index type");
    int64_t depth = resultType.getDimSize(*axis);
    if (depth > kMaxFoldedElements)
      return rewriter.notifyMatchFailure(op, "depth too large to fold");
    Location loc = op.getLoc();
    // Constants k + offset for k in [0, depth) along the axis.
    SmallVector<int64_t> iotaShape(rank, 1);
    iotaShape[*axis] = depth;
    auto iotaType = RankedTensorType::get(iotaShape, indexElement);
    auto iota = [&](int64_t offset) -> Value {
      SmallVector<Attribute> values;
      for (int64_t k = 0; k < depth; ++k) {
        if (auto floatType = dyn_cast<FloatType>(indexElement))
          values.push_back(rewriter.getFloatAttr(floatType, k + offset));
        else
          values.push_back(rewriter.getIntegerAttr(indexElement, k + offset));
      }
      return rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(iotaType, values));
    };
    SmallVector<int64_t> expandedShape(indicesType.getShape());
    expandedShape.insert(expandedShape.begin() + *axis, 1);
    Value indices =
        reshapeTo(rewriter, loc, adaptor.getIndices(), expandedShape);
    Value hit = rewriter.create<edge::LogicalOrOp>(
        loc, rewriter.create<edge::EqualOp>(loc, indices, iota(0)),
        rewriter.create<edge::EqualOp>(loc, indices, iota(-depth)));
    // values = [off, on], each reshaped to [1, ..., 1].
    Value values = reshapeTo(rewriter, loc, adaptor.getValues(), {2});
    auto pick = [&](int64_t index) {
      Value one = rewriter.create<edge::SliceOp>(
          loc, RankedTensorType::get({1}, valuesType.getElementType()), values,
          ArrayRef<int64_t>{index}, ArrayRef<int64_t>{1});
      return reshapeTo(rewriter, loc, one, SmallVector<int64_t>(rank, 1));
    };
    rewriter.replaceOpWithNewOp<edge::SelectOp>(op, hit, pick(1), pick(0));
    return success();
  }
};

/// hl.scatter_elements (ONNX Scatter too) -> edge.scatter_elements.
struct ScatterElementsLowering
    : public OpConversionPattern<hl::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    if (type != getStaticType(op.getOutput()))
      return rewriter.notifyMatchFailure(op,
                                         "needs a result of the input's type");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<edge::ScatterElementsOp>(
        op, adaptor.getData(), adaptor.getIndices(), adaptor.getUpdates(),
        *axis, op.getReduction());
    return success();
  }
};

/// hl.scatter_nd -> edge.scatter_nd, one to one (static shapes).
struct ScatterNDLowering : public OpConversionPattern<hl::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    if (type != getStaticType(op.getOutput()))
      return rewriter.notifyMatchFailure(op,
                                         "needs a result of the input's type");
    rewriter.replaceOpWithNewOp<edge::ScatterNDOp>(
        op, adaptor.getData(), adaptor.getIndices(), adaptor.getUpdates(),
        op.getReduction());
    return success();
  }
};

/// hl.tile -> concat of copies along every repeated axis. The repeats
/// follow from the static shapes (result = input * repeats per dimension),
/// so they need not be constant.
struct TileLowering : public OpConversionPattern<hl::TileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (type.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op,
                                         "needs a result of the input's rank");
    Location loc = op.getLoc();
    Value result = adaptor.getInput();
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t in = type.getDimSize(d), out = resultType.getDimSize(d);
      if (in == out)
        continue;
      if (in == 0 || out % in != 0)
        return rewriter.notifyMatchFailure(op, "result is not a multiple");
      // One concat operand per copy.
      if (out / in > kMaxTileCopies)
        return rewriter.notifyMatchFailure(op, "too many copies");
      shape[d] = out;
      SmallVector<Value> copies(out / in, result);
      result = rewriter.create<edge::ConcatOp>(loc, copies, d);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateIndexingPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns
      .add<ConstantOfShapeLowering, TriluLowering, SplitLowering,
           AxisGatherLowering<hl::GatherElementsOp, edge::GatherElementsOp>,
           AxisGatherLowering<hl::GatherOp, edge::GatherOp>, GatherNDLowering,
           EyeLikeLowering, ExpandLowering, OneHotLowering, RangeLowering,
           ScatterElementsLowering, ScatterNDLowering, TileLowering>(
          converter, patterns.getContext());
}
