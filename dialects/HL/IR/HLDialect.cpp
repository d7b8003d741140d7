//===- HLDialect.cpp - hl dialect registration ----------------------------===//
#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Quant/QuantOps.h"

using namespace mlir;
using namespace strata::hl;

#include "HL/IR/HLOpsDialect.cpp.inc"

void HLDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "HL/IR/HLOps.cpp.inc"
      >();
}

Operation *HLDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
