//===- ControlFlow.cpp - hl.scan unrolled, hl.if inlined ------------------===//
//
// hl.if with a constant condition inlines the branch taken. With a run-time
// condition whose branches yield the results' static types, both branches
// are inlined (hl ops have no side effects) and each result is a `select`
// on the condition: the price is running both branches, which is small for
// the shape-plumbing and constant branches exported models carry. Where the
// branches yield other shapes (torchvision's "no boxes: an empty result,
// else NMS"), the If becomes an `scf.if` on the condition's element, whose
// branches are converted in place; the lowering to exec makes it a branch
// of the instruction list, and only the branch taken runs
// (docs/dynamic-shapes.md, step 4).
//
// A Scan over statically shaped inputs runs a known number of iterations, so
// it unrolls: per iteration, each scanned input contributes the slice at the
// iteration's index (from the end for reverse directions), the body's ops are
// cloned with the states and slices substituted for its arguments (the
// conversion then legalizes the clones, nested scans included), and each
// scan output slice gains its unit axis back; the slices are concatenated
// at the end. Iteration counts above kMaxUnroll are refused.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

constexpr int64_t kMaxUnroll = 4096;

/// Attribute `attr` (one entry per scan input or output) or zeros.
SmallVector<int64_t> entriesOr0(std::optional<ArrayRef<int64_t>> attr,
                                size_t count) {
  if (attr && attr->size() == count)
    return SmallVector<int64_t>(*attr);
  return SmallVector<int64_t>(count, 0);
}

struct ScanUnrolling : public OpConversionPattern<hl::ScanOp> {
  ScanUnrolling(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {
    // Nested scans unroll through this same pattern; each level is a
    // strictly smaller region, so the recursion ends.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(hl::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    int64_t numScanned = op.getNumScanInputs();
    int64_t numStates = static_cast<int64_t>(inputs.size()) - numScanned;
    int64_t numScanOutputs =
        static_cast<int64_t>(op.getNumResults()) - numStates;
    if (numStates < 0 || numScanOutputs < 0)
      return rewriter.notifyMatchFailure(op, "operand/result counts");
    SmallVector<int64_t> inAxes = entriesOr0(op.getScanInputAxes(), numScanned);
    SmallVector<int64_t> inDirections =
        entriesOr0(op.getScanInputDirections(), numScanned);
    SmallVector<int64_t> outAxes =
        entriesOr0(op.getScanOutputAxes(), numScanOutputs);
    SmallVector<int64_t> outDirections =
        entriesOr0(op.getScanOutputDirections(), numScanOutputs);

    // The trip count: the scanned extent, equal for every scanned input.
    int64_t trips = -1;
    for (int64_t i = 0; i < numScanned; ++i) {
      RankedTensorType type = getStaticType(inputs[numStates + i]);
      int64_t axis = inAxes[i] < 0 ? inAxes[i] + type.getRank() : inAxes[i];
      if (axis < 0 || axis >= type.getRank())
        return rewriter.notifyMatchFailure(op, "scan input axis out of range");
      inAxes[i] = axis;
      if (trips >= 0 && type.getDimSize(axis) != trips)
        return rewriter.notifyMatchFailure(op, "scanned extents differ");
      trips = type.getDimSize(axis);
    }
    if (trips < 1 || trips > kMaxUnroll)
      return rewriter.notifyMatchFailure(op, "trip count outside [1, 4096]");
    for (int64_t j = 0; j < numScanOutputs; ++j) {
      int64_t rank = getStaticType(op.getResult(numStates + j)).getRank();
      if (outAxes[j] < 0)
        outAxes[j] += rank;
      if (outAxes[j] < 0 || outAxes[j] >= rank)
        return rewriter.notifyMatchFailure(op, "scan output axis out of range");
    }

    Block &body = op.getBody().front();
    SmallVector<Value> states(inputs.take_front(numStates));
    SmallVector<SmallVector<Value>> slices(numScanOutputs);
    for (int64_t t = 0; t < trips; ++t) {
      IRMapping mapping;
      for (int64_t s = 0; s < numStates; ++s)
        mapping.map(body.getArgument(s), states[s]);
      for (int64_t i = 0; i < numScanned; ++i) {
        Value input = inputs[numStates + i];
        RankedTensorType type = getStaticType(input);
        int64_t axis = inAxes[i];
        int64_t index = inDirections[i] ? trips - 1 - t : t;
        SmallVector<int64_t> starts(type.getRank(), 0),
            steps(type.getRank(), 1);
        SmallVector<int64_t> sliceShape(type.getShape());
        starts[axis] = index;
        sliceShape[axis] = 1;
        Value slice = rewriter.create<edge::SliceOp>(
            loc, type.clone(sliceShape), input, starts, steps);
        sliceShape.erase(sliceShape.begin() + axis);
        mapping.map(body.getArgument(numStates + i),
                    reshapeTo(rewriter, loc, slice, sliceShape));
      }
      for (Operation &bodyOp : body.without_terminator())
        rewriter.clone(bodyOp, mapping);
      Operation *yield = body.getTerminator();
      for (int64_t s = 0; s < numStates; ++s)
        states[s] = mapping.lookupOrDefault(yield->getOperand(s));
      for (int64_t j = 0; j < numScanOutputs; ++j) {
        Value value = mapping.lookupOrDefault(yield->getOperand(numStates + j));
        auto type = cast<RankedTensorType>(value.getType());
        SmallVector<int64_t> withAxis(type.getShape());
        withAxis.insert(withAxis.begin() + outAxes[j], 1);
        slices[j].push_back(reshapeTo(rewriter, loc, value, withAxis));
      }
    }

    SmallVector<Value> results(states);
    for (int64_t j = 0; j < numScanOutputs; ++j) {
      if (outDirections[j])
        std::reverse(slices[j].begin(), slices[j].end());
      RankedTensorType type = getStaticType(op.getResult(numStates + j));
      results.push_back(
          slices[j].size() == 1
              ? reshapeTo(rewriter, loc, slices[j][0], type.getShape())
              : rewriter.create<edge::ConcatOp>(loc, slices[j], outAxes[j])
                    .getResult());
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Clones the ops of `region`'s single block before the rewriter's insertion
/// point and returns the values it yields.
SmallVector<Value> inlineBranch(ConversionPatternRewriter &rewriter,
                                Region &region) {
  IRMapping mapping;
  Block &block = region.front();
  for (Operation &op : block.without_terminator())
    rewriter.clone(op, mapping);
  return llvm::map_to_vector(
      block.getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// Whether both branches of `op` yield its results' types, all static: the
/// form a select on the condition can take.
bool yieldsResultTypes(hl::IfOp op) {
  for (Region *branch : {&op.getThenBranch(), &op.getElseBranch()})
    for (auto [value, result] : llvm::zip_equal(
             branch->front().getTerminator()->getOperands(), op.getResults())) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape() || value.getType() != type)
        return false;
    }
  return true;
}

/// hl.if -> scf.if on the condition's one element, the branches moved into
/// it (the conversion legalizes their ops there); each branch's hl.yield
/// becomes an scf.yield of the results' types (YieldLowering).
LogicalResult lowerToConditional(hl::IfOp op, Value condition,
                                 ConversionPatternRewriter &rewriter) {
  SmallVector<Type> resultTypes;
  for (Value result : op.getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs ranked results");
    resultTypes.push_back(type);
  }
  Location loc = op.getLoc();
  auto conditionType = cast<RankedTensorType>(condition.getType());
  SmallVector<Value> zeros(
      conditionType.getRank(),
      rewriter.create<arith::ConstantIndexOp>(loc, 0).getResult());
  Value flag = rewriter.create<tensor::ExtractOp>(loc, condition, zeros);
  auto conditional = rewriter.create<scf::IfOp>(loc, resultTypes, flag,
                                                /*withElseRegion=*/true);
  for (auto [from, to] :
       {std::pair(&op.getThenBranch(), &conditional.getThenRegion()),
        std::pair(&op.getElseBranch(), &conditional.getElseRegion())}) {
    rewriter.eraseBlock(&to->front());
    rewriter.inlineRegionBefore(*from, *to, to->end());
  }
  rewriter.replaceOp(op, conditional.getResults());
  return success();
}

/// hl.yield of a branch moved into an scf.if -> scf.yield, each value cast
/// to the result's type where the branches' shapes differ.
struct YieldLowering : public OpConversionPattern<hl::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto conditional = dyn_cast<scf::IfOp>(op->getParentOp());
    if (!conditional)
      return rewriter.notifyMatchFailure(op, "not in a run-time If");
    SmallVector<Value> values;
    for (auto [value, type] :
         llvm::zip_equal(adaptor.getOperands(), conditional.getResultTypes())) {
      if (value.getType() != type &&
          !tensor::CastOp::areCastCompatible(value.getType(), type))
        return op.emitError("a branch yields ")
               << value.getType() << " for a result of type " << type;
      values.push_back(
          value.getType() == type
              ? value
              : rewriter.create<tensor::CastOp>(op.getLoc(), type, value));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }
};

struct IfInlining : public OpConversionPattern<hl::IfOp> {
  IfInlining(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {
    // Branches may hold further ifs; each level is a smaller region.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(hl::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value condition = adaptor.getCondition();
    auto conditionType = getStaticType(condition);
    if (!conditionType || conditionType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "needs a one-element condition");
    DenseElementsAttr constant;
    if (matchPattern(condition, m_Constant(&constant))) {
      bool taken = constant.getValues<bool>()[0];
      rewriter.replaceOp(op,
                         inlineBranch(rewriter, taken ? op.getThenBranch()
                                                      : op.getElseBranch()));
      return success();
    }
    if (!yieldsResultTypes(op))
      return lowerToConditional(op, condition, rewriter);
    SmallVector<Value> thenValues = inlineBranch(rewriter, op.getThenBranch());
    SmallVector<Value> elseValues = inlineBranch(rewriter, op.getElseBranch());
    SmallVector<Value> results;
    for (auto [result, onTrue, onFalse] :
         llvm::zip_equal(op.getResults(), thenValues, elseValues)) {
      auto type = getStaticType(result);
      if (onTrue.getType() != type || onFalse.getType() != type)
        return rewriter.notifyMatchFailure(
            op, "branches yield types other than the results'");
      Value mask = reshapeTo(rewriter, op.getLoc(), condition,
                             SmallVector<int64_t>(type.getRank(), 1));
      results.push_back(
          rewriter.create<edge::SelectOp>(op.getLoc(), mask, onTrue, onFalse));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void hl_to_edge::populateControlFlowPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<ScanUnrolling, IfInlining, YieldLowering>(converter,
                                                         patterns.getContext());
}
