//===- strata-translate.cpp - Strata's translation driver -----------------===//
//
// mlir-translate with Strata's translations (ONNX import, program emission)
// registered through InitAll.h; `strata-translate --list-onnx-ops` prints
// the op types the ONNX importer converts (ai.onnx::Conv 1,11: op type and
// the since_versions of its handlers), reads no input and translates nothing.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"
#include "strata/InitAll.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  // mlir-translate reads an input and runs one translation; this listing
  // has neither, so it is answered before mlir-translate's option parsing.
  if (argc == 2 && llvm::StringRef(argv[1]) == "--list-onnx-ops") {
    strata::printSupportedONNXOps(llvm::outs());
    return 0;
  }
  strata::registerAllTranslations();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv,
             "Strata translation driver\n\n"
             "  strata-translate --list-onnx-ops: the op types the ONNX "
             "importer converts, one a line (ai.onnx::Conv 1,11)\n"))
             ? 1
             : 0;
}
