//===- Sensitivity.cpp - how much each quantized tensor costs the output --===//
//
// The sensitivity analysis of --quantize-sensitivity: the model's outputs
// with every QDQ pair in place (the int8 program's arithmetic), and with
// one quantized tensor's pairs alone, against the float model's, over the
// calibration samples. The per-tensor SQNR of the accuracy report says how
// much a tensor loses; this says how much of that reaches the output,
// which is what picks the float-fallback list.
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Calibrate.h"

#include "Observation.h"
#include "OutputSQNR.h"
#include "QuantizedTensors.h"

#include <algorithm>

using namespace mlir;

namespace strata {

FailureOr<QuantizationReport::Sensitivity>
measureSensitivity(ModuleOp module, const CalibrationOptions &options,
                   const CompileOptions &base) {
  std::vector<QuantizedTensor> tensors = collectQuantizedTensors(module);
  CalibrationOptions quiet = options;
  quiet.progress = false;
  FailureOr<std::unique_ptr<OutputSQNR>> judge =
      OutputSQNR::create(module, "the sensitivity analysis", quiet, base);
  if (failed(judge))
    return failure();

  QuantizationReport::Sensitivity result;
  result.samples = (*judge)->samples();
  Progress progress(options.progress, tensors.size() + 1);
  SmallVector<Value> all;
  for (const QuantizedTensor &t : tensors)
    all.append(t.pairs());
  FailureOr<double> whole = (*judge)->measure(all);
  if (failed(whole))
    return failure();
  result.allQuantizedDB = *whole;
  progress.update("sensitivity", 1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    FailureOr<double> alone = (*judge)->measure(tensors[i].pairs());
    if (failed(alone))
      return failure();
    result.tensors.push_back({tensors[i].name(), tensors[i].roleName().str(),
                              tensors[i].consumers(), *alone});
    progress.update("sensitivity", i + 2);
  }
  std::stable_sort(result.tensors.begin(), result.tensors.end(),
                   [](const auto &a, const auto &b) {
                     return a.outputSqnrDB < b.outputSqnrDB;
                   });
  return result;
}

} // namespace strata
