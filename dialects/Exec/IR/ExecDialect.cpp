//===- ExecDialect.cpp - exec dialect registration ------------------------===//
#include "Exec/IR/ExecOps.h"

using namespace mlir;
using namespace strata::exec;

#include "Exec/IR/ExecOpsDialect.cpp.inc"
#include "Exec/IR/ExecInterfaces.cpp.inc"

void ExecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Exec/IR/ExecOps.cpp.inc"
      >();
}
