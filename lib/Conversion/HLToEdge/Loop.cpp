//===- Loop.cpp - hl.loop to a run-time loop ------------------------------===//
//
// ONNX Loop runs its body while the iteration number is below the trip
// count (if given) and the condition holds (if given). It becomes an
// scf.while whose carried values are the iteration number, the condition,
// the loop-carried values and one buffer per scan output:
//
//   before: scf.condition(extract(cond)) forwards every carried value;
//   after:  the body's ops cloned (the conversion legalizes them), then
//           i + 1, cond_out && i + 1 < trip count, the next carried
//           values, and each scan output's slice stored at row i of its
//           buffer (edge.scatter_nd).
//
// A scan output's buffer holds as many rows as the loop may run: the
// constant trip count, the extent the model declares for the output, or
// the user's bound (strata-compile --max-extent NODE=N), recorded in the
// function's `edge.max_trips` by node. After the loop the
// output is the rows the loop wrote, gathered by edge.range(0, trips): of
// the declared extent (the range kernel fails a call with another count),
// or value-dependent within the bound. A loop without scan outputs needs
// no bound. edge->exec makes the while a loop of the method's blocks
// (Loops.cpp there), its jump back bounded by the same count.
//
// Loop-carried values keep one static type across iterations; a value that
// grows (a sequence built by Concat) is refused, naming the node.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "Edge/IR/EdgeAttributes.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// An i64 or i1 scalar constant.
Value scalarConstant(OpBuilder &builder, Location loc, Type element,
                     int64_t value) {
  auto type = RankedTensorType::get({}, element);
  return builder.create<edge::ConstantOp>(
      loc,
      DenseElementsAttr::get(type, builder.getIntegerAttr(element, value)));
}

/// `condition && index < maxTrips` (the trip count is optional).
Value continues(OpBuilder &builder, Location loc, Value condition, Value index,
                Value maxTrips) {
  if (!maxTrips)
    return condition;
  Value below = builder.create<edge::LessOp>(loc, index, maxTrips);
  return builder.create<edge::LogicalAndOp>(loc, condition, below);
}

struct LoopLowering : public OpConversionPattern<hl::LoopOp> {
  LoopLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {
    // Bodies may hold further loops; each level is a smaller region.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(hl::LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block &body = op.getBody().front();
    Operation *yield = body.getTerminator();
    ValueRange initial = adaptor.getInitial();
    size_t numCarried = initial.size();
    size_t numScans = op.getNumResults() - numCarried;
    if (yield->getNumOperands() != 1 + numCarried + numScans)
      return op.emitOpError("body yields ")
             << yield->getNumOperands() << " values for " << numCarried
             << " carried values and " << numScans << " scan outputs";

    // Carried values keep one static type; scan slices are static.
    for (size_t k = 0; k < numCarried; ++k) {
      auto type = dyn_cast<RankedTensorType>(initial[k].getType());
      Type next = yield->getOperand(1 + k).getType();
      if (!type || !type.hasStaticShape() || next != type)
        return op.emitOpError("loop-carried value ")
               << k << " is " << initial[k].getType() << " on entry and "
               << next
               << " after an iteration: a run-time loop carries values of "
                  "one static shape";
    }
    SmallVector<RankedTensorType> sliceTypes;
    for (size_t j = 0; j < numScans; ++j) {
      auto type = dyn_cast<RankedTensorType>(
          yield->getOperand(1 + numCarried + j).getType());
      if (!type || !type.hasStaticShape())
        return op.emitOpError("scan output ")
               << j << " has slices of type "
               << yield->getOperand(1 + numCarried + j).getType()
               << ": a run-time loop needs static slices";
      sliceTypes.push_back(type);
    }

    // The most iterations the scan buffers hold.
    Value maxTrips = adaptor.getMaxTripCount();
    std::optional<int64_t> bound;
    if (IntegerAttr given = getGivenExtentBound(op))
      bound = given.getInt();
    for (size_t j = 0; j < numScans && !bound; ++j) {
      auto type =
          dyn_cast<RankedTensorType>(op.getResult(numCarried + j).getType());
      if (type && type.getRank() > 0 && !type.isDynamicDim(0))
        bound = type.getDimSize(0);
    }
    if (maxTrips)
      if (std::optional<SmallVector<int64_t>> trips = getConstantInts(maxTrips);
          trips && trips->size() == 1)
        bound = std::min(bound.value_or(INT64_MAX),
                         std::max<int64_t>((*trips)[0], 0));
    if (numScans && !bound)
      return op.emitOpError(
          "has scan outputs that grow with a trip count known only at run "
          "time: give the most iterations with strata-compile --max-extent "
          "NODE=N");

    // Entry: iteration 0, the condition, the carried values, the buffers.
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    auto scalarI1 = RankedTensorType::get({}, i1);
    Value zero = scalarConstant(rewriter, loc, i64, 0);
    Value condition = adaptor.getCondition()
                          ? reshapeTo(rewriter, loc, adaptor.getCondition(), {})
                          : scalarConstant(rewriter, loc, i1, 1);
    SmallVector<Value> inits = {
        zero, continues(rewriter, loc, condition, zero, maxTrips)};
    llvm::append_range(inits, initial);
    for (RankedTensorType slice : sliceTypes) {
      SmallVector<int64_t> shape = {*bound};
      llvm::append_range(shape, slice.getShape());
      Type element = slice.getElementType();
      inits.push_back(rewriter.create<edge::FillOp>(
          loc, slice.clone(shape), ValueRange{},
          isa<FloatType>(element) ? Attribute(rewriter.getF64FloatAttr(0))
                                  : Attribute(rewriter.getI64IntegerAttr(0))));
    }
    SmallVector<Type> types =
        llvm::map_to_vector(inits, [](Value v) { return v.getType(); });
    auto loop = rewriter.create<scf::WhileOp>(loc, types, inits);
    std::string node = getNodeName(loc);
    auto func = op->getParentOfType<func::FuncOp>();
    if (bound && *bound > 0 && !node.empty() && func) {
      NamedAttrList bounds(
          func->getAttrOfType<DictionaryAttr>(edge::kMaxTripsAttrName));
      bounds.set(node, rewriter.getI64IntegerAttr(*bound));
      rewriter.modifyOpInPlace(func, [&] {
        func->setAttr(edge::kMaxTripsAttrName,
                      bounds.getDictionary(rewriter.getContext()));
      });
    }

    SmallVector<Location> locs(types.size(), loc);
    Block *before = rewriter.createBlock(&loop.getBefore(), {}, types, locs);
    Value flag = rewriter.create<tensor::ExtractOp>(loc, before->getArgument(1),
                                                    ValueRange{});
    rewriter.create<scf::ConditionOp>(loc, flag, before->getArguments());

    Block *after = rewriter.createBlock(&loop.getAfter(), {}, types, locs);
    IRMapping mapping;
    for (auto [index, arg] : llvm::enumerate(body.getArguments()))
      mapping.map(arg, after->getArgument(index));
    for (Operation &bodyOp : body.without_terminator())
      rewriter.clone(bodyOp, mapping);
    auto yielded = [&](size_t index) {
      return mapping.lookupOrDefault(yield->getOperand(index));
    };
    Value index = after->getArgument(0);
    Value next = rewriter.create<edge::AddOp>(
        loc, index, scalarConstant(rewriter, loc, i64, 1));
    Value conditionOut = yielded(0);
    if (conditionOut.getType() != scalarI1)
      conditionOut = reshapeTo(rewriter, loc, conditionOut, {});
    SmallVector<Value> nexts = {
        next, continues(rewriter, loc, conditionOut, next, maxTrips)};
    for (size_t k = 0; k < numCarried; ++k)
      nexts.push_back(yielded(1 + k));
    Value row = reshapeTo(rewriter, loc, index, {1, 1});
    for (auto [j, slice] : llvm::enumerate(sliceTypes)) {
      SmallVector<int64_t> shape = {1};
      llvm::append_range(shape, slice.getShape());
      Value buffer = after->getArgument(2 + numCarried + j);
      nexts.push_back(rewriter.create<edge::ScatterNDOp>(
          loc, buffer.getType(), buffer, row,
          reshapeTo(rewriter, loc, yielded(1 + numCarried + j), shape),
          rewriter.getStringAttr("none")));
    }
    rewriter.create<scf::YieldOp>(loc, nexts);

    // Results: the carried values, then each scan output's rows.
    rewriter.setInsertionPointAfter(loop);
    SmallVector<Value> results(loop.getResults().slice(2, numCarried));
    Value trips = loop.getResult(0);
    for (size_t j = 0; j < numScans; ++j) {
      auto type =
          cast<RankedTensorType>(op.getResult(numCarried + j).getType());
      bool declared = !type.isDynamicDim(0);
      auto rowsType = RankedTensorType::get(
          {declared ? type.getDimSize(0) : ShapedType::kDynamic}, i64);
      Value rows = rewriter.create<edge::RangeOp>(
          loc, rowsType, zero, trips, scalarConstant(rewriter, loc, i64, 1),
          Value(),
          declared ? IntegerAttr() : rewriter.getI64IntegerAttr(*bound));
      SmallVector<int64_t> shape = {rowsType.getDimSize(0)};
      llvm::append_range(shape, sliceTypes[j].getShape());
      results.push_back(rewriter.create<edge::GatherOp>(
          loc, sliceTypes[j].clone(shape), loop.getResult(2 + numCarried + j),
          rows, rewriter.getI64IntegerAttr(0)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void hl_to_edge::populateLoopPatterns(TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<LoopLowering>(converter, patterns.getContext());
}
