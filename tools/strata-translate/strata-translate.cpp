//===- strata-translate.cpp - Strata's translation driver -----------------===//
//
// mlir-translate with Strata's translations (ONNX import, program emission)
// registered through InitAll.h.
//
//===----------------------------------------------------------------------===//
#include "strata/InitAll.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  strata::registerAllTranslations();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "Strata translation driver\n"))
             ? 1
             : 0;
}
