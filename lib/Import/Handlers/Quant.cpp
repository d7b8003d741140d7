//===- Quant.cpp - ONNX quantisation and integer operators to hl ----------===//
#include "../ImportContext.h"

using namespace mlir;

namespace strata::importer {

/// ONNX Runtime's MatMulNBits: the node as hl.matmul_nbits, without g_idx
/// (rows of K in another order than their blocks'), whose weights become
/// the edge op's at lowering.
static LogicalResult matMulNBits(NodeContext &ctx) {
  if (ctx.input(4))
    return ctx.emitError() << "g_idx (rows of K assigned to blocks out of "
                              "order) is not supported";
  int64_t bits = ctx.getInt("bits", 4);
  if (bits != 4 && bits != 8)
    return ctx.emitError() << "bits = " << bits << " is not supported (4 or 8)";
  const onnx::AttributeProto *k = ctx.attr("K"), *n = ctx.attr("N"),
                             *block = ctx.attr("block_size");
  if (!k || !n || !block)
    return ctx.emitError() << "needs the attributes K, N and block_size";
  OpBuilder &b = ctx.builder();
  const onnx::AttributeProto *level = ctx.attr("accuracy_level");
  Value product = ctx.create<hl::MatMulNBitsOp>(
      ctx.outputType(0), ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3),
      ctx.input(5), b.getI64IntegerAttr(k->i()), b.getI64IntegerAttr(n->i()),
      b.getI64IntegerAttr(bits), b.getI64IntegerAttr(block->i()),
      level ? b.getI64IntegerAttr(level->i()) : IntegerAttr());
  ctx.setOutput(0, product);
  return success();
}

void populateQuantHandlers(OpTable &t) {
  t.on("MatMulNBits", 1, matMulNBits, "com.microsoft");
  t.on("QuantizeLinear", 10, generic<hl::QuantizeLinearOp>());
  t.on("DequantizeLinear", 10, generic<hl::DequantizeLinearOp>());
  t.on("DynamicQuantizeLinear", 11, generic<hl::DynamicQuantizeLinearOp>());
  t.on("MatMulInteger", 10, generic<hl::MatMulIntegerOp>({}, 4));
  t.on("ConvInteger", 10, generic<hl::ConvIntegerOp>({}, 4));
  t.on("QLinearMatMul", 10, generic<hl::QLinearMatMulOp>());
  t.on("QLinearConv", 10, generic<hl::QLinearConvOp>());
}

} // namespace strata::importer
