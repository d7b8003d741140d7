//===- EdgeDialect.cpp - edge dialect registration ------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata::edge;

#include "Edge/IR/EdgeEnums.cpp.inc"
#include "Edge/IR/EdgeInterfaces.cpp.inc"
#include "Edge/IR/EdgeOpsDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "Edge/IR/EdgeAttrs.cpp.inc"

void EdgeDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Edge/IR/EdgeAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Edge/IR/EdgeOps.cpp.inc"
      >();
}

Operation *EdgeDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
