//===- strata-opt.cpp - Strata's pass driver ------------------------------===//
//
// mlir-opt with Strata's dialects, passes and pipelines registered.
//
//===----------------------------------------------------------------------===//
#include "strata/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  strata::registerAllDialects(registry);
  strata::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Strata optimizer driver: run passes on .mlir files\n",
      registry));
}
