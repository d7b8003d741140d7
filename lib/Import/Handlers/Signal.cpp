//===- Signal.cpp - ONNX signal-processing operators to hl ----------------===//
//
// The result element type (`output_datatype`) is carried by the result type,
// so that attribute is dropped.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

using namespace mlir;

namespace strata::importer {

void populateSignalHandlers(OpTable &t) {
  StringRef dtype[] = {"output_datatype"};
  t.on("DFT", 17, generic<hl::DFTOp>());
  t.on("STFT", 17, generic<hl::STFTOp>({}, 4));
  t.on("HannWindow", 17, generic<hl::HannWindowOp>(dtype));
  t.on("HammingWindow", 17, generic<hl::HammingWindowOp>(dtype));
  t.on("BlackmanWindow", 17, generic<hl::BlackmanWindowOp>(dtype));
  t.on("MelWeightMatrix", 17, generic<hl::MelWeightMatrixOp>(dtype));
}

} // namespace strata::importer
