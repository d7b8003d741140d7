//===- RefineShapes.cpp - make hl result types static by folding ----------===//
//
// Greedy folding plus a refinement pattern that gives an op the result type
// its operands imply, static or ranked with the dynamic extents they leave
// open (the op's InferShapedTypeOpInterface, through inferRankedResultShape
// in HLShapeInference.h), run to a fixpoint; then the
// function's result types follow the returned values where the declared
// types leave room. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLShapeInference.h"
#include "HL/Transforms/Passes.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <limits>

namespace strata::hl {
#define GEN_PASS_DEF_REFINESHAPES
#include "HL/Transforms/Passes.h.inc"
} // namespace strata::hl

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

/// Gives an hl op whose first result is not statically shaped the static
/// type its operands imply. Records (and reports) an inferred shape that
/// contradicts a static extent the result already has.
struct RefineResultType : public RewritePattern {
  RefineResultType(MLIRContext *context, bool &conflict,
                   llvm::Statistic &numRefined)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        conflict(conflict), numRefined(numRefined) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<HLDialect>(op->getDialect()) ||
        op->getNumResults() == 0)
      return rewriter.notifyMatchFailure(op, "not an hl op with a result");
    Value result = op->getResult(0);
    auto type = dyn_cast<TensorType>(result.getType());
    if (!type || type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result is already static");
    // Static where the operands determine it, else ranked with dynamic
    // extents (bounded dynamic shapes): each extent the more static of the
    // inferred one and the type's.
    std::optional<SmallVector<int64_t>> shape = inferRankedResultShape(op);
    if (!shape)
      return rewriter.notifyMatchFailure(op, "operands imply no shape yet");
    if (type.hasRank() && !isCompatibleShape(type.getShape(), *shape)) {
      if (!conflict)
        op->emitOpError("operands imply the result shape ")
            << formatShape(*shape) << ", which contradicts its type "
            << result.getType();
      conflict = true;
      return failure();
    }
    if (type.hasRank()) {
      for (auto [extent, known] : llvm::zip(*shape, type.getShape()))
        if (ShapedType::isDynamic(extent))
          extent = known;
      if (ArrayRef<int64_t>(*shape) == type.getShape())
        return rewriter.notifyMatchFailure(op, "nothing more is known");
    }
    rewriter.modifyOpInPlace(op, [&] {
      result.setType(RankedTensorType::get(*shape, type.getElementType()));
      // TopK's indices share its values' shape.
      if (auto topK = dyn_cast<TopKOp>(op))
        if (auto indices = dyn_cast<TensorType>(topK.getIndices().getType());
            indices && !indices.hasStaticShape())
          topK.getIndices().setType(
              RankedTensorType::get(*shape, indices.getElementType()));
    });
    ++numRefined;
    return success();
  }

  bool &conflict;
  llvm::Statistic &numRefined;
};

/// Sets `op`'s result types to `refined`, failing when they are those
/// already (the patterns that refine every result of a multi-result op).
LogicalResult setResultTypes(Operation *op, ArrayRef<Type> refined,
                             PatternRewriter &rewriter) {
  if (llvm::equal(refined, op->getResultTypes()))
    return rewriter.notifyMatchFailure(op, "nothing more is known");
  rewriter.modifyOpInPlace(op, [&] {
    for (auto [result, type] : llvm::zip(op->getResults(), refined))
      result.setType(type);
  });
  return success();
}

/// `type` with the extents of `shape` where its own are dynamic: each
/// extent the more static of the two. Fails where they contradict (another
/// rank, or two different static extents).
FailureOr<Type> joinShape(TensorType type, SmallVector<int64_t> shape) {
  if (type.hasRank()) {
    if (type.getRank() != static_cast<int64_t>(shape.size()))
      return failure();
    for (auto [extent, known] : llvm::zip(shape, type.getShape())) {
      if (ShapedType::isDynamic(extent))
        extent = known;
      else if (!ShapedType::isDynamic(known) && known != extent)
        return failure();
    }
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

/// Gives the unranked results of an hl.split of a ranked input the input's
/// rank: its extents, the axis' split sizes where they are constants (an
/// even division without them). Variadic results have no shape rule of the
/// interface (it cannot know their number).
struct RefineSplitResults : public OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!input || llvm::all_of(op.getOutputs(), [](Value v) {
          auto type = dyn_cast<RankedTensorType>(v.getType());
          return type && type.hasStaticShape();
        }))
      return rewriter.notifyMatchFailure(op, "nothing to refine");
    int64_t rank = input.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    size_t count = op.getOutputs().size();
    SmallVector<int64_t> sizes(count, ShapedType::kDynamic);
    DenseIntElementsAttr split;
    if (op.getSplit() && matchPattern(op.getSplit(), m_Constant(&split)) &&
        static_cast<size_t>(split.getNumElements()) == count) {
      for (auto [i, v] : llvm::enumerate(split.getValues<int64_t>()))
        sizes[i] = v;
    } else if (!op.getSplit() && !input.isDynamicDim(axis) &&
               input.getDimSize(axis) % static_cast<int64_t>(count) == 0) {
      sizes.assign(count, input.getDimSize(axis) / static_cast<int64_t>(count));
    }
    // Each extent the more static of the inferred one and the type's.
    SmallVector<Type> refined;
    for (auto [i, result] : llvm::enumerate(op.getOutputs())) {
      auto type = cast<TensorType>(result.getType());
      SmallVector<int64_t> shape(input.getShape());
      shape[axis] = sizes[i];
      FailureOr<Type> joined = joinShape(type, shape);
      if (failed(joined))
        return rewriter.notifyMatchFailure(op, "result type differs");
      refined.push_back(*joined);
    }
    return setResultTypes(op, refined, rewriter);
  }
};

/// Gives an hl.if's results the join of what its branches yield: the rank
/// they share, each extent where both agree and open where they differ
/// (the run-time If binds it). Regions have no interface shape rule.
struct RefineIfResults : public OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    Operation *thenYield = op.getThenBranch().front().getTerminator();
    Operation *elseYield = op.getElseBranch().front().getTerminator();
    SmallVector<Type> refined;
    for (auto [result, a, b] :
         llvm::zip_equal(op.getResults(), thenYield->getOperandTypes(),
                         elseYield->getOperandTypes())) {
      auto type = cast<TensorType>(result.getType());
      auto left = dyn_cast<RankedTensorType>(a);
      auto right = dyn_cast<RankedTensorType>(b);
      if (!left || !right || left.getRank() != right.getRank() ||
          (type.hasRank() && type.getRank() != left.getRank())) {
        refined.push_back(type);
        continue;
      }
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < left.getRank(); ++d) {
        int64_t joined = left.getDimSize(d) == right.getDimSize(d)
                             ? left.getDimSize(d)
                             : ShapedType::kDynamic;
        if (ShapedType::isDynamic(joined) && type.hasRank())
          joined = type.getDimSize(d);
        shape.push_back(joined);
      }
      refined.push_back(RankedTensorType::get(shape, type.getElementType()));
    }
    return setResultTypes(op, refined, rewriter);
  }
};

/// Gives an hl.rnn / hl.gru / hl.lstm's results the shapes X and the
/// layer imply: Y [S, D, N, H] and the last states [D, N, H] in layout 0,
/// [N, S, D, H] and [N, D, H] in layout 1, with S and N X's (either may be
/// dynamic), D from the direction and H the hidden size. Multiple results
/// have no shape rule of the interface.
template <typename OpT>
struct RefineRecurrentResults : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto x = dyn_cast<RankedTensorType>(op.getX().getType());
    std::optional<uint64_t> hidden = op.getHiddenSize();
    if (!x || x.getRank() != 3 || !hidden || *hidden == 0 ||
        *hidden > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      return rewriter.notifyMatchFailure(op, "X unranked or no hidden size");
    bool batchMajor = op.getLayout() == 1;
    int64_t seq = x.getDimSize(batchMajor ? 1 : 0);
    int64_t batch = x.getDimSize(batchMajor ? 0 : 1);
    int64_t d = op.getDirection() == "bidirectional" ? 2 : 1;
    int64_t h = static_cast<int64_t>(*hidden);
    SmallVector<int64_t> y = batchMajor
                                 ? SmallVector<int64_t>{batch, seq, d, h}
                                 : SmallVector<int64_t>{seq, d, batch, h};
    SmallVector<int64_t> last = batchMajor ? SmallVector<int64_t>{batch, d, h}
                                           : SmallVector<int64_t>{d, batch, h};
    SmallVector<Type> refined;
    for (Value result : op->getResults()) {
      auto type = cast<TensorType>(result.getType());
      SmallVector<int64_t> shape = result == op.getY() ? y : last;
      FailureOr<Type> joined = joinShape(type, shape);
      if (failed(joined))
        return rewriter.notifyMatchFailure(op, "result type differs");
      refined.push_back(*joined);
    }
    return setResultTypes(op, refined, rewriter);
  }
};

/// One element of a 1-d shape operand, traced to where it comes from: a
/// constant, or extent `dim` of `source`.
struct TracedExtent {
  int64_t constant = 0;
  Value source;
  int64_t dim = -1;
};

/// The elements of `value`, a 1-d integer shape, through Shape, Gather of
/// constant indices, unit-step Slices, integer Casts, Unsqueeze and Concat
/// (PyTorch's x.view(x.shape[0], 1, -1) exports as Reshape(x,
/// Concat(Unsqueeze(Gather(Shape(x), 0)), [1],
/// [-1]))); nothing when another op computes it.
std::optional<SmallVector<TracedExtent>> traceShapeElements(Value value) {
  DenseIntElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    SmallVector<TracedExtent> elements;
    for (const APInt &v : constant.getValues<APInt>())
      elements.push_back({v.getSExtValue(), Value(), -1});
    return elements;
  }
  Operation *def = value.getDefiningOp();
  if (auto shape = dyn_cast_or_null<ShapeOp>(def)) {
    auto type = dyn_cast<RankedTensorType>(shape.getData().getType());
    if (!type || shape.getStart() != 0 || shape.getEnd())
      return std::nullopt;
    SmallVector<TracedExtent> elements;
    for (int64_t d = 0; d < type.getRank(); ++d)
      elements.push_back({0, shape.getData(), d});
    return elements;
  }
  if (auto concat = dyn_cast_or_null<ConcatOp>(def)) {
    SmallVector<TracedExtent> elements;
    for (Value input : concat.getInputs()) {
      std::optional<SmallVector<TracedExtent>> part = traceShapeElements(input);
      if (!part)
        return std::nullopt;
      elements.append(*part);
    }
    return elements;
  }
  if (auto unsqueeze = dyn_cast_or_null<UnsqueezeOp>(def)) {
    std::optional<SmallVector<TracedExtent>> scalar =
        traceShapeElements(unsqueeze.getData());
    if (!scalar || scalar->size() != 1)
      return std::nullopt;
    return scalar;
  }
  // Integer casts keep extents (PaddlePaddle's exporter reads shapes as
  // i32); a unit-step slice of constant bounds picks some.
  if (auto cast = dyn_cast_or_null<CastOp>(def)) {
    auto from = dyn_cast<TensorType>(cast.getInput().getType());
    if (!from || !from.getElementType().isSignlessInteger() ||
        from.getElementType().getIntOrFloatBitWidth() < 32)
      return std::nullopt;
    return traceShapeElements(cast.getInput());
  }
  if (auto slice = dyn_cast_or_null<SliceOp>(def)) {
    std::optional<SmallVector<TracedExtent>> data =
        traceShapeElements(slice.getData());
    std::optional<SmallVector<int64_t>> starts =
        getConstantIntValues(slice.getStarts());
    std::optional<SmallVector<int64_t>> ends =
        getConstantIntValues(slice.getEnds());
    std::optional<SmallVector<int64_t>> steps =
        getConstantIntValues(slice.getSteps());
    std::optional<SmallVector<int64_t>> axes =
        getConstantIntValues(slice.getAxes());
    if (!data || !starts || !ends || !steps || !axes || starts->size() != 1 ||
        ends->size() != 1 || *steps != SmallVector<int64_t>{1} ||
        (*axes != SmallVector<int64_t>{0} && *axes != SmallVector<int64_t>{-1}))
      return std::nullopt;
    int64_t count = static_cast<int64_t>(data->size());
    auto clamp = [&](int64_t bound) {
      if (bound < 0)
        bound += count;
      return std::clamp<int64_t>(bound, 0, count);
    };
    int64_t begin = clamp(starts->front()), end = clamp(ends->front());
    return SmallVector<TracedExtent>(data->begin() + begin,
                                     data->begin() + std::max(begin, end));
  }
  if (auto gather = dyn_cast_or_null<GatherOp>(def)) {
    std::optional<SmallVector<TracedExtent>> data =
        traceShapeElements(gather.getData());
    DenseIntElementsAttr indices;
    if (!data || gather.getAxis() != 0 ||
        !matchPattern(gather.getIndices(), m_Constant(&indices)))
      return std::nullopt;
    SmallVector<TracedExtent> elements;
    int64_t count = static_cast<int64_t>(data->size());
    for (const APInt &v : indices.getValues<APInt>()) {
      int64_t index = v.getSExtValue();
      if (index < 0)
        index += count;
      if (index < 0 || index >= count)
        return std::nullopt;
      elements.push_back((*data)[index]);
    }
    return elements;
  }
  return std::nullopt;
}

/// Gives an hl.reshape whose target restates extents of its own input
/// (traced through Shape -> Gather -> Unsqueeze -> Concat) the extents that
/// follow: a restated extent is the input's, and the -1 entry is the
/// quotient of the input's static extents by the target's once every
/// dynamic extent of the input is restated. PyTorch's x.view(x.shape[0],
/// 1, -1) of an [N, 1536] input is [N, 1, 1536], so the convolutions after
/// it keep static spatial extents at a dynamic batch.
struct RefineReshapeOfOwnExtents : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<TensorType>(op.getType());
    auto data = dyn_cast<RankedTensorType>(op.getData().getType());
    if (type.hasStaticShape() || !data)
      return rewriter.notifyMatchFailure(op, "static, or unranked input");
    std::optional<SmallVector<TracedExtent>> elements =
        traceShapeElements(op.getShape());
    if (!elements || (type.hasRank() &&
                      type.getRank() != static_cast<int64_t>(elements->size())))
      return rewriter.notifyMatchFailure(op, "target not traced");
    ArrayRef<int64_t> in = data.getShape();
    SmallVector<bool> restated(in.size(), false);
    SmallVector<int64_t> shape;
    std::optional<size_t> inferred;
    int64_t targetStatic = 1;
    bool targetOpen = false;
    for (auto [i, element] : llvm::enumerate(*elements)) {
      Value source = element.source;
      int64_t dim = element.dim;
      if (!source && element.constant == 0 && op.getAllowzero() == 0) {
        if (i >= in.size())
          return rewriter.notifyMatchFailure(op, "0 past the input's rank");
        source = op.getData(), dim = static_cast<int64_t>(i);
      }
      if (!source && element.constant == -1 && !inferred) {
        inferred = i;
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (!source) {
        if (element.constant < 0)
          return rewriter.notifyMatchFailure(op, "negative target entry");
        std::optional<int64_t> product =
            llvm::checkedMul(targetStatic, element.constant);
        if (!product)
          return rewriter.notifyMatchFailure(op, "target extents overflow");
        shape.push_back(element.constant);
        targetStatic = *product;
        continue;
      }
      auto sourceType = dyn_cast<RankedTensorType>(source.getType());
      int64_t extent = sourceType && dim < sourceType.getRank()
                           ? sourceType.getDimSize(dim)
                           : ShapedType::kDynamic;
      shape.push_back(extent);
      if (!ShapedType::isDynamic(extent)) {
        std::optional<int64_t> product = llvm::checkedMul(targetStatic, extent);
        if (!product)
          return rewriter.notifyMatchFailure(op, "target extents overflow");
        targetStatic = *product;
      } else if (source == op.getData() && !restated[dim])
        restated[dim] = true;
      else
        targetOpen = true;
    }
    if (inferred && !targetOpen && targetStatic > 0) {
      int64_t inputStatic = 1;
      bool allRestated = true;
      for (auto [d, extent] : llvm::enumerate(in)) {
        if (ShapedType::isDynamic(extent)) {
          allRestated &= restated[d];
        } else if (std::optional<int64_t> product =
                       llvm::checkedMul(inputStatic, extent)) {
          inputStatic = *product;
        } else {
          allRestated = false;
        }
      }
      if (allRestated && inputStatic % targetStatic == 0)
        shape[*inferred] = inputStatic / targetStatic;
    }
    FailureOr<Type> joined = joinShape(type, shape);
    if (failed(joined))
      return rewriter.notifyMatchFailure(op, "contradicts the type");
    return setResultTypes(op, {*joined}, rewriter);
  }
};

/// Inlines the branch of an hl.if whose condition became a constant once
/// types were refined: PyTorch exports `squeeze(x, d)` of a possibly
/// dynamic x as `If(shape(x)[d] == 1)`, which folds only when refinement
/// makes that extent static. The shape rules then see through it, and the
/// values keep the branch's (refined) types.
struct InlineConstantIf : public OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr condition;
    if (!matchPattern(op.getCondition(), m_Constant(&condition)) ||
        condition.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "condition is not a constant");
    Region &taken = *condition.getValues<APInt>().begin() != 0
                        ? op.getThenBranch()
                        : op.getElseBranch();
    Block &block = taken.front();
    Operation *yield = block.getTerminator();
    SmallVector<Value> results(yield->getOperands());
    rewriter.inlineBlockBefore(&block, op);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// How far `end` lies past `start`, where `end` is computed from `start`
/// by adding constants, both through the same unsqueezes or reshapes:
/// a loop body's `x[i : i + 1]` (ONNX Slice of run-time bounds).
std::optional<int64_t> offsetFrom(Value end, Value start) {
  if (end == start)
    return 0;
  Operation *endOp = end.getDefiningOp();
  Operation *startOp = start.getDefiningOp();
  if (endOp && startOp && endOp->getName() == startOp->getName() &&
      isa<UnsqueezeOp, ReshapeOp>(endOp) &&
      endOp->getOperand(1) == startOp->getOperand(1) &&
      endOp->getResultTypes() == startOp->getResultTypes())
    return offsetFrom(endOp->getOperand(0), startOp->getOperand(0));
  auto add = dyn_cast_or_null<AddOp>(endOp);
  if (!add || add.getType() != start.getType())
    return std::nullopt;
  for (auto [from, step] :
       {std::pair(add->getOperand(0), add->getOperand(1)),
        std::pair(add->getOperand(1), add->getOperand(0))}) {
    DenseIntElementsAttr constant;
    if (!matchPattern(step, m_Constant(&constant)) || !constant.isSplat())
      continue;
    if (std::optional<int64_t> offset = offsetFrom(from, start))
      return *offset + constant.getSplatValue<APInt>().getSExtValue();
  }
  return std::nullopt;
}

/// Gives an hl.slice whose run-time bounds lie a constant apart (ends =
/// starts + c, step 1) the extent c along the sliced axes of static data.
/// The slice is assumed to stay inside the data: edge.dynamic_slice fails
/// a call whose bounds clamp it to fewer elements, rather than a wrong
/// shape flowing on. Only in a Loop's body (`x[i : i + 1]`), whose carried
/// values need static shapes: elsewhere a bounded dynamic program derives
/// the clamped extent at run time, which this would turn into an error.
struct RefineOffsetSlice : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<LoopOp>())
      return rewriter.notifyMatchFailure(op, "not in a loop body");
    auto data = dyn_cast<RankedTensorType>(op.getData().getType());
    auto type = dyn_cast<TensorType>(op.getType());
    DenseIntElementsAttr axes, steps;
    if (!data || !data.hasStaticShape() || !type ||
        (type.hasRank() && type.hasStaticShape()) ||
        !matchPattern(op.getAxes(), m_Constant(&axes)) ||
        !matchPattern(op.getSteps(), m_Constant(&steps)) ||
        llvm::any_of(steps.getValues<int64_t>(),
                     [](int64_t step) { return step != 1; }))
      return rewriter.notifyMatchFailure(op, "not a unit-step slice");
    std::optional<int64_t> length = offsetFrom(op.getEnds(), op.getStarts());
    if (!length || *length < 0)
      return rewriter.notifyMatchFailure(op, "bounds not a constant apart");
    SmallVector<int64_t> shape(data.getShape());
    for (int64_t axis : axes.getValues<int64_t>()) {
      if (axis < 0)
        axis += data.getRank();
      if (axis < 0 || axis >= data.getRank() || *length > shape[axis])
        return rewriter.notifyMatchFailure(op, "axis or length out of range");
      shape[axis] = *length;
    }
    if (type.hasRank() && !isCompatibleShape(type.getShape(), shape))
      return rewriter.notifyMatchFailure(op, "contradicts the result type");
    rewriter.modifyOpInPlace(op, [&] {
      op.getResult().setType(
          RankedTensorType::get(shape, type.getElementType()));
    });
    return success();
  }
};

/// Sets `func`'s result types to the returned values' types where those are
/// refinements of the declared ones. A declared static type stays.
LogicalResult updateResultTypes(func::FuncOp func) {
  if (func.isExternal())
    return success();
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
  if (!ret)
    return success();
  SmallVector<Type> results(func.getResultTypes());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Type actual = value.getType();
    if (actual == results[i])
      continue;
    auto declared = dyn_cast<TensorType>(results[i]);
    auto refined = dyn_cast<RankedTensorType>(actual);
    if (!declared || !refined || declared.hasStaticShape() ||
        (declared.hasRank() &&
         !isCompatibleShape(refined.getShape(), declared.getShape())))
      return ret.emitOpError("result ")
             << i << " has type " << actual
             << ", which contradicts the declared result type " << results[i];
    results[i] = refined;
  }
  func.setType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), results));
  return success();
}

/// Ops with a 1-d result whose length follows from run-time scalars and
/// whose lowering checks that length at run time (edge.range fails the call
/// on any other count), so a length demanded downstream may be assumed.
bool isCheckedLengthSource(Operation *op) {
  return isa<RangeOp, HannWindowOp, HammingWindowOp, BlackmanWindowOp>(op);
}

/// Whether `op`'s result has the extents of its operands (elementwise ops,
/// casts, broadcasting ops).
bool keepsOperandExtents(Operation *op) {
  return op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
         op->hasTrait<OpTrait::SameOperandsAndResultShape>() ||
         op->hasTrait<OpTrait::ResultsBroadcastableShape>();
}

/// The length that the uses of the 1-d `value` demand: the first static
/// 1-d type reached through ops that keep their operands' extents (a graph
/// output's declared static type reaches the value through the cast or op
/// that produces it). Through a broadcasting op a demanded L != 1 could also
/// be met by a length of 1; the run-time check of the source catches that.
std::optional<int64_t> demandedLength(Value value, DenseSet<Value> &visited) {
  if (!visited.insert(value).second)
    return std::nullopt;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (!isa_and_nonnull<HLDialect>(user->getDialect()) ||
        user->getNumResults() != 1 || !keepsOperandExtents(user))
      continue;
    auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    if (!type || type.getRank() != 1)
      continue;
    if (!type.isDynamicDim(0))
      return type.getDimSize(0);
    if (auto length = demandedLength(user->getResult(0), visited))
      return length;
  }
  return std::nullopt;
}

struct RefineShapesPass
    : public strata::hl::impl::RefineShapesBase<RefineShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool conflict = false;
    RewritePatternSet patterns(&getContext());
    patterns.add<RefineResultType>(&getContext(), conflict, numRefined);
    patterns.add<RefineSplitResults, RefineIfResults, RefineOffsetSlice,
                 InlineConstantIf, RefineReshapeOfOwnExtents,
                 RefineRecurrentResults<RNNOp>, RefineRecurrentResults<GRUOp>,
                 RefineRecurrentResults<LSTMOp>>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    // Refinement only turns dynamic extents static and folding only shrinks
    // the IR, so the driver reaches a fixpoint; no iteration bound needed.
    config.maxIterations = GreedyRewriteConfig::kNoLimit;
    // Forward refinement to a fixpoint; then give checked-length sources
    // that stayed dynamic the length their uses demand, and go again. Each
    // round makes one more source static, so this ends.
    while (true) {
      if (failed(applyPatternsAndFoldGreedily(func, frozen, config)) ||
          conflict)
        return signalPassFailure();
      Operation *assumed = nullptr;
      func.walk([&](Operation *op) {
        if (!isCheckedLengthSource(op))
          return WalkResult::advance();
        auto type = dyn_cast<TensorType>(op->getResult(0).getType());
        if (!type || (type.hasRank() && type.getRank() != 1) ||
            type.hasStaticShape())
          return WalkResult::advance();
        DenseSet<Value> visited;
        std::optional<int64_t> length =
            demandedLength(op->getResult(0), visited);
        if (!length || *length < 0)
          return WalkResult::advance();
        op->getResult(0).setType(
            RankedTensorType::get({*length}, type.getElementType()));
        assumed = op;
        return WalkResult::interrupt();
      });
      if (!assumed)
        break;
      ++numAssumed;
    }
    if (failed(updateResultTypes(func)))
      return signalPassFailure();
  }
};

} // namespace
