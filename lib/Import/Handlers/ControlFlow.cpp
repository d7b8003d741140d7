//===- ControlFlow.cpp - ONNX If, Loop and Scan to hl region ops ----------===//
//
// Sub-graphs become the regions of hl.if / hl.loop / hl.scan; their bodies
// are converted by the same op table and may use outer values. hl.scan has
// the opset-9 form; Scan-8 (leading batch axis) becomes a scan over the batch
// around it. An If whose condition is a constant at import is replaced by
// its taken branch.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::importer {

/// The values the single block of `region` yields.
static ValueRange yielded(Region &region) {
  return cast<hl::YieldOp>(region.front().getTerminator()).getValues();
}

/// The type of result `i`: ONNX's inferred type, else the yielded value's
/// (`yieldIndex` into `values`) when it is the more precise.
static Type resultType(NodeContext &ctx, unsigned i, ValueRange values,
                       unsigned yieldIndex) {
  Type fallback =
      yieldIndex < values.size() ? values[yieldIndex].getType() : Type();
  Type inferred =
      ctx.outputType(i, fallback ? getElementTypeOrSelf(fallback) : Type());
  if (isa<UnrankedTensorType>(inferred) && fallback &&
      isa<RankedTensorType>(fallback))
    return fallback;
  return inferred;
}

static LogicalResult convertIf(NodeContext &ctx) {
  // A condition known at import (exporters test shapes, as PyTorch's
  // conditional squeeze `If(Equal(Gather(Shape(x), 0), 1))`, which fold
  // once the input shapes are fixed): the taken branch is converted in
  // place and the other never looked at, since it need not even be valid
  // for these shapes.
  DenseElementsAttr condition;
  if (matchPattern(ctx.input(0), m_Constant(&condition)) &&
      condition.getNumElements() == 1 &&
      condition.getElementType().isInteger(1))
    return ctx.inlineSubgraph(*condition.value_begin<bool>() ? "then_branch"
                                                             : "else_branch");
  OperationState state(ctx.loc(), hl::IfOp::getOperationName());
  state.addOperands(ctx.input(0));
  Region *thenRegion = state.addRegion();
  Region *elseRegion = state.addRegion();
  if (failed(ctx.convertSubgraph("then_branch", *thenRegion)) ||
      failed(ctx.convertSubgraph("else_branch", *elseRegion)))
    return failure();
  ValueRange thenValues = yielded(*thenRegion);
  ValueRange elseValues = yielded(*elseRegion);
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    Type type = resultType(ctx, i, thenValues, i);
    if (i < elseValues.size() && elseValues[i].getType() != type &&
        i < thenValues.size() && thenValues[i].getType() == type &&
        !isa<UnrankedTensorType>(ctx.outputType(i)))
      type = ctx.outputType(i);
    else if (i < elseValues.size() && elseValues[i].getType() != type)
      type = UnrankedTensorType::get(getElementTypeOrSelf(type));
    state.addTypes(type);
  }
  Operation *op = ctx.builder().create(state);
  ctx.setOutputs(op->getResults());
  return success();
}

static LogicalResult convertLoop(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  Value maxTrip = ctx.input(0), cond = ctx.input(1);
  SmallVector<Value> initial;
  for (unsigned i = 2; i < ctx.numInputs(); ++i) {
    if (!ctx.input(i))
      return ctx.emitError() << "loop-carried input " << i - 2 << " is absent";
    initial.push_back(ctx.input(i));
  }
  OperationState state(ctx.loc(), hl::LoopOp::getOperationName());
  if (maxTrip)
    state.addOperands(maxTrip);
  if (cond)
    state.addOperands(cond);
  state.addOperands(initial);
  state.addAttribute(
      "operandSegmentSizes",
      b.getDenseI32ArrayAttr({maxTrip ? 1 : 0, cond ? 1 : 0,
                              static_cast<int32_t>(initial.size())}));
  SmallVector<Type> argTypes = {RankedTensorType::get({}, b.getI64Type()),
                                RankedTensorType::get({}, b.getI1Type())};
  for (Value v : initial)
    argTypes.push_back(v.getType());
  Region *body = state.addRegion();
  if (failed(ctx.convertSubgraph("body", *body, argTypes)))
    return failure();
  ValueRange values = yielded(*body);
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    // Carried values keep their type; scan outputs gain a leading dimension.
    Type type = ctx.outputType(i, i + 1 < values.size()
                                      ? getElementTypeOrSelf(values[i + 1])
                                      : Type());
    if (isa<UnrankedTensorType>(type) && i < initial.size())
      type = resultType(ctx, i, values, i + 1);
    state.addTypes(type);
  }
  Operation *op = b.create(state);
  ctx.setOutputs(op->getResults());
  return success();
}

static LogicalResult convertScan(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  OperationState state(ctx.loc(), hl::ScanOp::getOperationName());
  SmallVector<Value> inputs = ctx.presentInputs();
  state.addOperands(inputs);
  int64_t scanInputs = ctx.getInt("num_scan_inputs", 0);
  state.addAttribute("num_scan_inputs", b.getI64IntegerAttr(scanInputs));
  for (StringRef name : {"scan_input_axes", "scan_input_directions",
                         "scan_output_axes", "scan_output_directions"})
    if (auto values = ctx.getInts(name))
      state.addAttribute(name, b.getDenseI64ArrayAttr(*values));
  // States keep their types; a scanned input's slice drops the scan axis.
  SmallVector<Type> argTypes;
  int64_t states = static_cast<int64_t>(inputs.size()) - scanInputs;
  for (auto [i, v] : llvm::enumerate(inputs))
    argTypes.push_back(
        static_cast<int64_t>(i) < states
            ? v.getType()
            : Type(UnrankedTensorType::get(getElementTypeOrSelf(v.getType()))));
  Region *body = state.addRegion();
  if (failed(ctx.convertSubgraph("body", *body, argTypes)))
    return failure();
  ValueRange values = yielded(*body);
  for (unsigned i = 0; i < ctx.numOutputs(); ++i)
    state.addTypes(ctx.outputType(
        i, i < values.size() ? getElementTypeOrSelf(values[i]) : Type()));
  Operation *op = b.create(state);
  ctx.setOutputs(op->getResults());
  return success();
}

/// `type` without its leading (batch) dimension; unranked stays unranked.
static Type dropLeadingDim(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || ranked.getRank() == 0)
    return UnrankedTensorType::get(getElementTypeOrSelf(type));
  return RankedTensorType::get(ranked.getShape().drop_front(),
                               ranked.getElementType());
}

/// Scan-8: every operand has a leading batch axis and the body runs per
/// batch element. The exact opset-9 equivalent is an outer hl.scan over the
/// batch axis (no states, every operand scanned) whose body runs the
/// opset-9 hl.scan on one batch element. `sequence_lens` is not supported.
static LogicalResult convertScan8(NodeContext &ctx) {
  if (ctx.input(0))
    return ctx.emitError() << "the sequence_lens input is not supported";
  OpBuilder &b = ctx.builder();
  SmallVector<Value> inputs;
  for (unsigned i = 1; i < ctx.numInputs(); ++i)
    inputs.push_back(ctx.input(i));
  int64_t scanInputs = ctx.getInt("num_scan_inputs", 0);
  int64_t all = inputs.size();
  OperationState outer(ctx.loc(), hl::ScanOp::getOperationName());
  outer.addOperands(inputs);
  outer.addAttribute("num_scan_inputs", b.getI64IntegerAttr(all));
  Block *batchBody = new Block();
  outer.addRegion()->push_back(batchBody);
  SmallVector<Type> sliceTypes;
  for (Value v : inputs)
    sliceTypes.push_back(dropLeadingDim(v.getType()));
  for (Type t : sliceTypes)
    batchBody->addArgument(t, ctx.loc());
  SmallVector<Type> resultTypes, sliceResultTypes;
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    resultTypes.push_back(ctx.outputType(i));
    sliceResultTypes.push_back(dropLeadingDim(resultTypes.back()));
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(batchBody);
    OperationState inner(ctx.loc(), hl::ScanOp::getOperationName());
    inner.addOperands(batchBody->getArguments());
    inner.addAttribute("num_scan_inputs", b.getI64IntegerAttr(scanInputs));
    if (auto directions = ctx.getInts("directions"))
      inner.addAttribute("scan_input_directions",
                         b.getDenseI64ArrayAttr(*directions));
    SmallVector<Type> argTypes;
    for (auto [i, t] : llvm::enumerate(sliceTypes))
      argTypes.push_back(
          static_cast<int64_t>(i) < all - scanInputs ? t : dropLeadingDim(t));
    if (failed(ctx.convertSubgraph("body", *inner.addRegion(), argTypes)))
      return failure();
    inner.addTypes(sliceResultTypes);
    Operation *innerOp = b.create(inner);
    b.create<hl::YieldOp>(ctx.loc(), innerOp->getResults());
  }
  outer.addTypes(resultTypes);
  Operation *op = b.create(outer);
  ctx.setOutputs(op->getResults());
  return success();
}

void populateControlFlowHandlers(OpTable &t) {
  t.on("If", 1, convertIf);
  t.on("Loop", 1, convertLoop);
  t.on("Scan", 8, convertScan8);
  t.on("Scan", 9, convertScan);
}

} // namespace strata::importer
