//===- Quant.cpp - ONNX quantisation and integer operators to hl ----------===//
#include "../ImportContext.h"

using namespace mlir;

namespace strata::importer {

void populateQuantHandlers(OpTable &t) {
  t.on("QuantizeLinear", 10, generic<hl::QuantizeLinearOp>());
  t.on("DequantizeLinear", 10, generic<hl::DequantizeLinearOp>());
  t.on("DynamicQuantizeLinear", 11, generic<hl::DynamicQuantizeLinearOp>());
  t.on("MatMulInteger", 10, generic<hl::MatMulIntegerOp>({}, 4));
  t.on("ConvInteger", 10, generic<hl::ConvIntegerOp>({}, 4));
  t.on("QLinearMatMul", 10, generic<hl::QLinearMatMulOp>());
  t.on("QLinearConv", 10, generic<hl::QLinearConvOp>());
}

} // namespace strata::importer
