//===- Reduction.cpp - ONNX reductions to hl ------------------------------===//
//
// ReduceX ops take `axes` as an operand in hl (the opset-18 form; ReduceSum
// since 13). The attribute form of older opsets becomes a constant operand.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

using namespace mlir;

namespace strata::importer {

/// Converts a ReduceX node of any opset to `OpTy`.
template <typename OpTy> static LogicalResult convertReduce(NodeContext &ctx) {
  Value axes = ctx.input(1);
  if (auto attr = ctx.getInts("axes"))
    axes = ctx.constI64(*attr);
  OpBuilder &b = ctx.builder();
  SmallVector<Value> operands = {ctx.input(0)};
  if (axes)
    operands.push_back(axes);
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("keepdims",
                     b.getI64IntegerAttr(ctx.getInt("keepdims", 1))),
      b.getNamedAttr("noop_with_empty_axes", b.getI64IntegerAttr(ctx.getInt(
                                                 "noop_with_empty_axes", 0)))};
  ctx.setOutput(0, ctx.create<OpTy>(ctx.outputType(0), operands, attrs));
  return success();
}

void populateReductionHandlers(OpTable &t) {
  t.on("ReduceSum", 1, convertReduce<hl::ReduceSumOp>);
  t.on("ReduceMean", 1, convertReduce<hl::ReduceMeanOp>);
  t.on("ReduceMax", 1, convertReduce<hl::ReduceMaxOp>);
  t.on("ReduceMin", 1, convertReduce<hl::ReduceMinOp>);
  t.on("ReduceProd", 1, convertReduce<hl::ReduceProdOp>);
  t.on("ReduceL1", 1, convertReduce<hl::ReduceL1Op>);
  t.on("ReduceL2", 1, convertReduce<hl::ReduceL2Op>);
  t.on("ReduceLogSum", 1, convertReduce<hl::ReduceLogSumOp>);
  t.on("ReduceLogSumExp", 1, convertReduce<hl::ReduceLogSumExpOp>);
  t.on("ReduceSumSquare", 1, convertReduce<hl::ReduceSumSquareOp>);
  t.on("ArgMax", 1, generic<hl::ArgMaxOp>());
  t.on("ArgMin", 1, generic<hl::ArgMinOp>());
}

} // namespace strata::importer
