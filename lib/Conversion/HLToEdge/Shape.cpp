//===- Shape.cpp - hl constants, shape ops and softmax to edge ------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

/// The extents of ONNX Reshape's `shape` over `input`, each entry a
/// constant or an extent the model computed (evaluateShapeValue): a
/// positive constant is itself, 0 copies the input's extent at its position
/// (unless `allowZero`), -1 is what remains of the element count, and a
/// computed extent is itself. The remainder cancels the dynamic extents of
/// the input that other entries copy or restate, so that it is an integer
/// expression: [batch, seq, 768] to [0, -1] gives [batch, seq * 768] with
/// no division by a run-time value. Fails where a dynamic extent cannot be
/// cancelled so.
static FailureOr<SmallVector<OpFoldResult>>
reshapeExtents(OpBuilder &builder, Location loc, Value input,
               ArrayRef<OpFoldResult> shape, bool allowZero) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> extents(shape.size());
  llvm::SmallDenseSet<int64_t> copied;
  int64_t knownStatic = 1, inferred = -1;
  bool unknownFactor = false;
  for (auto [i, entry] : llvm::enumerate(shape)) {
    std::optional<int64_t> constant = getConstantIntValue(entry);
    if (!constant) {
      // A computed extent: the input's own (cancelled) or another value's.
      extents[i] = entry;
      bool restated = false;
      for (int64_t d = 0; d < type.getRank() && !restated; ++d)
        if (type.isDynamicDim(d) && !copied.contains(d) &&
            isExtentOf(entry, input, d)) {
          copied.insert(d);
          restated = true;
        }
      unknownFactor |= !restated;
      continue;
    }
    int64_t value = *constant;
    if (value == -1) {
      if (inferred >= 0)
        return failure();
      inferred = i;
      continue;
    }
    if (value == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= type.getRank())
        return failure();
      if (type.isDynamicDim(i))
        copied.insert(i);
      else
        knownStatic *= type.getDimSize(i);
      extents[i] = extentOf(builder, loc, input, i);
      continue;
    }
    if (value < 0)
      return failure();
    knownStatic *= value;
    extents[i] = builder.getIndexAttr(value);
  }
  if (inferred < 0)
    return extents;
  // The remainder: the input's uncopied extents over the known static ones.
  if (knownStatic == 0 || unknownFactor)
    return failure();
  SmallVector<OpFoldResult> factors;
  int64_t inputStatic = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      inputStatic *= type.getDimSize(d);
    else if (!copied.contains(d))
      factors.push_back(extentOf(builder, loc, input, d));
  }
  AffineExpr remainder = builder.getAffineConstantExpr(inputStatic);
  for (size_t i = 0; i < factors.size(); ++i)
    remainder = remainder * builder.getAffineSymbolExpr(i);
  extents[inferred] = affine::makeComposedFoldedAffineApply(
      builder, loc,
      AffineMap::get(0, factors.size(), remainder.floorDiv(knownStatic)),
      factors);
  return extents;
}

/// hl.flatten, hl.reshape, hl.squeeze and hl.unsqueeze -> edge.reshape of
/// their first operand to the result type (the shape or axes operand has
/// served its purpose once the result type is known; the constant feeding
/// it dies). A dynamic result extent follows from the input's: Flatten's
/// are products, Squeeze's and Unsqueeze's correspond once unit extents are
/// set aside, Reshape's follow its constant `shape` (reshapeExtents).
template <typename HLOp>
struct ReshapeLikeLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    Value input = adaptor.getOperands().front();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    // A fixed shape from a dynamic input holds at one input shape only (an
    // exporter that baked the batch into the model's Reshape).
    if constexpr (std::is_same_v<HLOp, hl::ReshapeOp> ||
                  std::is_same_v<HLOp, hl::FlattenOp>)
      if (resultType.hasStaticShape() && !inputType.hasStaticShape())
        return op->emitError("reshapes an input with dynamic extents, ")
               << inputType << ", to the fixed shape " << resultType
               << ", which holds at one input shape only: the model fixes "
                  "this shape (export it with dynamic axes), or compile "
                  "for one shape with --input-shape NAME=DIMS";
    if (resultType.hasStaticShape() || (!std::is_same_v<HLOp, hl::FlattenOp> &&
                                        !std::is_same_v<HLOp, hl::ReshapeOp>)) {
      rewriter.replaceOp(
          op, reshapeTo(rewriter, loc, input, resultType.getShape()));
      return success();
    }
    SmallVector<OpFoldResult> extents;
    if constexpr (std::is_same_v<HLOp, hl::FlattenOp>) {
      int64_t axis = op.getAxis();
      if (axis < 0)
        axis += inputType.getRank();
      if (axis < 0 || axis > inputType.getRank())
        return rewriter.notifyMatchFailure(op, "axis out of range");
      SmallVector<OpFoldResult> outer, inner;
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        (d < axis ? outer : inner).push_back(extentOf(rewriter, loc, input, d));
      extents = {productOf(rewriter, loc, outer),
                 productOf(rewriter, loc, inner)};
    } else if constexpr (std::is_same_v<HLOp, hl::ReshapeOp>) {
      // The target: constant, or computed from extents by the model.
      std::optional<SmallVector<OpFoldResult>> shape =
          evaluateShapeValue(rewriter, loc, op.getShape());
      FailureOr<SmallVector<OpFoldResult>> resolved = failure();
      if (shape && static_cast<int64_t>(shape->size()) == resultType.getRank())
        resolved = reshapeExtents(rewriter, loc, input, *shape,
                                  op.getAllowzero() != 0);
      if (failed(resolved))
        return op->emitError("a reshape to ")
               << resultType
               << " whose dynamic extents its shape operand does not give "
                  "as constants, copies (0), the remainder (-1) of the "
                  "input's or extents computed from shapes has no run-time "
                  "shape rule yet";
      extents = std::move(*resolved);
    }
    rewriter.replaceOp(op, reshapeToExtents(rewriter, loc, input,
                                            resultType.getShape(), extents));
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
    auto type = dyn_cast<RankedTensorType>(adaptor.getData().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
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
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), resultType.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // ONNX allows empty inputs (a static extent 0); they contribute nothing.
    SmallVector<Value> inputs;
    for (Value input : adaptor.getInputs())
      if (!llvm::is_contained(cast<ShapedType>(input.getType()).getShape(), 0))
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
    RankedTensorType type = getRankedType(adaptor.getData());
    RankedTensorType resultType = getRankedType(op.getOutput());
    if (!type || !resultType || resultType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    auto starts = getConstantInts(adaptor.getStarts());
    auto axes = getConstantInts(adaptor.getAxes());
    auto steps = getConstantInts(adaptor.getSteps());
    // Ends are constants, or (with dynamic shapes) extents the model
    // computed, as in PyTorch's mask[:seq, :seq].
    std::optional<SmallVector<OpFoldResult>> ends;
    if (auto constant = getConstantInts(adaptor.getEnds())) {
      ends.emplace();
      for (int64_t end : *constant)
        ends->push_back(rewriter.getIndexAttr(end));
    } else if (!resultType.hasStaticShape()) {
      ends = evaluateShapeValue(rewriter, loc, op.getEnds());
    }
    if (!starts || !ends || !axes || !steps || starts->size() != ends->size() ||
        starts->size() != axes->size() || starts->size() != steps->size())
      return rewriter.notifyMatchFailure(op, "needs constant slice bounds");
    int64_t rank = type.getRank();
    SmallVector<int64_t> begin(rank, 0), step(rank, 1);
    // Each dimension's extent in the result: the input's (not sliced).
    SmallVector<OpFoldResult> extents;
    for (int64_t d = 0; d < rank; ++d)
      extents.push_back(extentOf(rewriter, loc, adaptor.getData(), d));
    for (size_t i = 0; i < starts->size(); ++i) {
      FailureOr<int64_t> axis = normalizeAxis((*axes)[i], rank);
      if (failed(axis) || (*steps)[i] == 0)
        return rewriter.notifyMatchFailure(op, "bad axis or zero step");
      std::optional<int64_t> end = getConstantIntValue((*ends)[i]);
      if (!type.isDynamicDim(*axis) && end) {
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
        extents[*axis] = rewriter.getIndexAttr(resultType.getDimSize(*axis));
        continue;
      }
      // A dynamic extent or a computed end: a forward slice from a constant
      // start, max(min(end, extent) - start, 0) elements.
      int64_t start = (*starts)[i];
      if ((*steps)[i] != 1 || start < 0)
        return op->emitError("a slice of dimension ")
               << *axis << " of " << type
               << " with a computed end or a dynamic extent needs a constant "
                  "non-negative start and step 1";
      OpFoldResult endExtent = (*ends)[i];
      AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
      AffineExpr s1 = rewriter.getAffineSymbolExpr(1);
      if (end && *end < 0)
        endExtent = affine::makeComposedFoldedAffineApply(
            rewriter, loc, AffineMap::get(0, 1, s0 + *end), {extents[*axis]});
      OpFoldResult kept = affine::makeComposedFoldedAffineMin(
          rewriter, loc, AffineMap::get(0, 2, {s0, s1}, getContext()),
          {endExtent, extents[*axis]});
      extents[*axis] = affine::makeComposedFoldedAffineMax(
          rewriter, loc,
          AffineMap::get(0, 1, {s0 - start, rewriter.getAffineConstantExpr(0)},
                         getContext()),
          {kept});
      begin[*axis] = start;
    }
    if (llvm::is_contained(resultType.getShape(), 0))
      return rewriter.notifyMatchFailure(op, "empty slices are not supported");
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      if (resultType.isDynamicDim(d))
        sizes.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, extents[d]));
    rewriter.replaceOpWithNewOp<edge::SliceOp>(
        op, resultType, adaptor.getData(), sizes,
        rewriter.getDenseI64ArrayAttr(begin),
        rewriter.getDenseI64ArrayAttr(step));
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
