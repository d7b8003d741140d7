//===- ShapeValues.cpp - shapes computed by the model, at compile time ----===//
//
// Exporters compute shapes at run time: Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, Range over a Shape's extent, arithmetic on extents
// (PyTorch's view(x.size(0), -1, heads, dim)). With bounded dynamic
// extents the compiler evaluates such a computation symbolically, as index
// values over the extents of the values it reads (tensor.dim, affine
// arithmetic), so that the Reshape or Range it feeds gets extents the
// planner can bound; the computation itself stays a program of small i64
// tensors (edge.shape_of and static ops) for what reads it as data, and
// dies where nothing does. docs/dynamic-shapes.md.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace strata::hl_to_edge {

namespace {

/// Evaluates 0-d and 1-d integer hl values element by element.
class ShapeEvaluator {
public:
  ShapeEvaluator(ConversionPatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  std::optional<SmallVector<OpFoldResult>> evaluate(Value value, int depth) {
    if (depth > 32)
      return std::nullopt;
    if (std::optional<SmallVector<int64_t>> ints = getConstantInts(value)) {
      SmallVector<OpFoldResult> out;
      for (int64_t v : *ints)
        out.push_back(rewriter.getIndexAttr(v));
      return out;
    }
    Operation *op = value.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto shape = dyn_cast<hl::ShapeOp>(op)) {
      Value data = rewriter.getRemappedValue(shape.getData());
      auto type = data ? dyn_cast<RankedTensorType>(data.getType())
                       : RankedTensorType();
      if (!type)
        return std::nullopt;
      int64_t rank = type.getRank();
      auto clampIndex = [&](int64_t i) {
        return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
      };
      int64_t start = clampIndex(shape.getStart());
      int64_t end = shape.getEnd() ? clampIndex(*shape.getEnd()) : rank;
      SmallVector<OpFoldResult> out;
      for (int64_t d = start; d < end; ++d)
        out.push_back(extentOf(rewriter, loc, data, d));
      return out;
    }
    if (auto gather = dyn_cast<hl::GatherOp>(op)) {
      auto data = evaluate(gather.getData(), depth + 1);
      auto indices = getConstantInts(gather.getIndices());
      if (!data || !indices || gather.getAxis() != 0)
        return std::nullopt;
      SmallVector<OpFoldResult> out;
      for (int64_t i : *indices) {
        int64_t n = data->size();
        if (i < -n || i >= n)
          return std::nullopt;
        out.push_back((*data)[i < 0 ? i + n : i]);
      }
      return out;
    }
    if (auto slice = dyn_cast<hl::SliceOp>(op)) {
      auto data = evaluate(slice.getData(), depth + 1);
      auto starts = getConstantInts(slice.getStarts());
      auto ends = getConstantInts(slice.getEnds());
      auto steps = getConstantInts(slice.getSteps());
      if (!data || !starts || !ends || starts->size() != 1 ||
          ends->size() != 1 || (steps && (*steps != SmallVector<int64_t>{1})))
        return std::nullopt;
      int64_t n = data->size();
      auto clampIndex = [&](int64_t i) {
        return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n);
      };
      int64_t begin = clampIndex(starts->front());
      int64_t end = clampIndex(ends->front());
      return SmallVector<OpFoldResult>(data->begin() + begin,
                                       data->begin() + std::max(begin, end));
    }
    if (auto concat = dyn_cast<hl::ConcatOp>(op)) {
      SmallVector<OpFoldResult> out;
      for (Value input : concat.getInputs()) {
        auto part = evaluate(input, depth + 1);
        if (!part)
          return std::nullopt;
        llvm::append_range(out, *part);
      }
      return out;
    }
    // Element-preserving: the same elements in another shape or type.
    if (isa<hl::UnsqueezeOp, hl::SqueezeOp, hl::ReshapeOp, hl::IdentityOp,
            hl::CastOp, hl::FlattenOp>(op)) {
      auto type = dyn_cast<ShapedType>(value.getType());
      auto elements =
          type ? dyn_cast<IntegerType>(type.getElementType()) : IntegerType();
      if (!elements || elements.getWidth() < 32)
        return std::nullopt;
      return evaluate(op->getOperand(0), depth + 1);
    }
    if (isa<hl::AddOp, hl::SubOp, hl::MulOp, hl::DivOp>(op)) {
      auto lhs = evaluate(op->getOperand(0), depth + 1);
      auto rhs = evaluate(op->getOperand(1), depth + 1);
      if (!lhs || !rhs)
        return std::nullopt;
      size_t n = std::max(lhs->size(), rhs->size());
      if ((lhs->size() != n && lhs->size() != 1) ||
          (rhs->size() != n && rhs->size() != 1))
        return std::nullopt;
      SmallVector<OpFoldResult> out;
      for (size_t i = 0; i < n; ++i) {
        OpFoldResult a = (*lhs)[lhs->size() == 1 ? 0 : i];
        OpFoldResult b = (*rhs)[rhs->size() == 1 ? 0 : i];
        AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
        AffineExpr s1 = rewriter.getAffineSymbolExpr(1);
        AffineExpr expr;
        if (isa<hl::AddOp>(op))
          expr = s0 + s1;
        else if (isa<hl::SubOp>(op))
          expr = s0 - s1;
        else if (isa<hl::MulOp>(op))
          expr = s0 * s1;
        else {
          // Integer division of extents: a positive constant divisor (ONNX
          // truncates; extents are non-negative, so that is floor).
          std::optional<int64_t> divisor = getConstantIntValue(b);
          if (!divisor || *divisor <= 0)
            return std::nullopt;
          expr = s0.floorDiv(*divisor);
        }
        out.push_back(affine::makeComposedFoldedAffineApply(
            rewriter, loc, AffineMap::get(0, 2, expr), {a, b}));
      }
      return out;
    }
    return std::nullopt;
  }

private:
  ConversionPatternRewriter &rewriter;
  Location loc;
};

} // namespace

std::optional<SmallVector<OpFoldResult>>
evaluateShapeValue(ConversionPatternRewriter &rewriter, Location loc,
                   Value value) {
  return ShapeEvaluator(rewriter, loc).evaluate(value, 0);
}

/// Whether `extent` is `value`'s extent `dim` (a tensor.dim of it).
bool isExtentOf(OpFoldResult extent, Value value, int64_t dim) {
  auto read = dyn_cast_if_present<Value>(extent);
  auto dimOp = read ? read.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  return dimOp && dimOp.getSource() == value &&
         dimOp.getConstantIndex() == std::optional<int64_t>(dim);
}

} // namespace strata::hl_to_edge

namespace {

/// hl.shape of a dynamic value -> edge.shape_of (and a slice for a
/// [start, end) range): the extents at run time, for what reads them as
/// data. A static value's shape has folded to a constant before.
struct ShapeOfLowering : public OpConversionPattern<hl::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getRankedType(adaptor.getData());
    auto resultType = getStaticType(op.getOutput());
    if (!type || !resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t rank = type.getRank();
    Location loc = op.getLoc();
    Value extents = rewriter.create<edge::ShapeOfOp>(
        loc, RankedTensorType::get({rank}, rewriter.getI64Type()),
        adaptor.getData());
    int64_t count = resultType.getDimSize(0);
    if (count != rank) {
      // The I64Attr getter is unsigned: a negative start counts from the
      // end once read as signed.
      int64_t start = static_cast<int64_t>(op.getStart());
      start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
      extents = rewriter.create<edge::SliceOp>(loc, resultType, extents,
                                               ArrayRef<int64_t>{start},
                                               ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, extents);
    return success();
  }
};

/// hl.range with a dynamic length -> edge.range with that length, derived
/// from the extents its operands come from: ceil((limit - start) / delta)
/// for a constant positive delta (the kernel checks it at run time).
struct DynamicRangeLowering : public OpConversionPattern<hl::RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getRankedType(op.getOutput());
    if (!resultType || resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "a static range");
    Location loc = op.getLoc();
    auto start = evaluateShapeValue(rewriter, loc, op.getStart());
    auto limit = evaluateShapeValue(rewriter, loc, op.getLimit());
    auto delta = getConstantInts(op.getDelta());
    if (!start || !limit || !delta || start->size() != 1 ||
        limit->size() != 1 || delta->size() != 1 || delta->front() <= 0) {
      // A length read from the data: value-dependent, within the user's
      // bound.
      if (IntegerAttr bound = getGivenExtentBound(op)) {
        rewriter.replaceOpWithNewOp<edge::RangeOp>(
            op, resultType, adaptor.getStart(), adaptor.getLimit(),
            adaptor.getDelta(), Value(), bound);
        return success();
      }
      return op->emitError("a Range of dynamic length whose limit is not an "
                           "extent of a value (or whose start or positive "
                           "delta is not constant): its length depends on "
                           "the data; bound it with strata-compile "
                           "--max-extent NODE=N");
    }
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
    AffineExpr s1 = rewriter.getAffineSymbolExpr(1);
    OpFoldResult length = affine::makeComposedFoldedAffineApply(
        rewriter, loc, AffineMap::get(0, 2, (s1 - s0).ceilDiv(delta->front())),
        {start->front(), limit->front()});
    rewriter.replaceOpWithNewOp<edge::RangeOp>(
        op, resultType, adaptor.getStart(), adaptor.getLimit(),
        adaptor.getDelta(),
        getValueOrCreateConstantIndexOp(rewriter, loc, length));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateShapeValuePatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  // Before the static Range lowering, which takes static results only.
  patterns.add<ShapeOfLowering>(converter, patterns.getContext());
  patterns.add<DynamicRangeLowering>(converter, patterns.getContext(),
                                     /*benefit=*/2);
}
