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
#include "strata/Compiler/Calibrate.h"

#include "Observation.h"
#include "QuantizedTensors.h"

#include "strata/Quantization/Observers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>

using namespace mlir;

namespace strata {
namespace {

/// The f32 results of the module's function that an op computes.
FailureOr<SmallVector<Value>> floatOutputs(ModuleOp module) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty() || std::next(funcs.begin()) != funcs.end() ||
      (*funcs.begin()).isExternal())
    return module.emitError("the sensitivity analysis needs one function "
                            "with a body");
  func::FuncOp func = *funcs.begin();
  SmallVector<Value> outputs;
  for (Value v : func.getBody().front().getTerminator()->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && type.getElementType().isF32() && v.getDefiningOp())
      outputs.push_back(v);
  }
  if (outputs.empty())
    return func.emitError("the sensitivity analysis compares f32 outputs; "
                          "this function returns none");
  return outputs;
}

} // namespace

FailureOr<QuantizationReport::Sensitivity>
measureSensitivity(ModuleOp module, const CalibrationOptions &options,
                   const CompileOptions &base) {
  FailureOr<SmallVector<Value>> outputs = floatOutputs(module);
  if (failed(outputs))
    return failure();
  std::vector<QuantizedTensor> tensors = collectQuantizedTensors(module);
  CalibrationOptions quiet = options;
  quiet.progress = false;

  // The float model's outputs on every sample (the model's outputs only:
  // a classifier's logits take 4 KB a sample).
  FailureOr<std::unique_ptr<ObservationRun>> reference =
      ObservationRun::create(module, *outputs, quiet, base);
  if (failed(reference))
    return failure();
  int64_t samples = (*reference)->samples();
  std::vector<std::vector<std::vector<float>>> expected(samples);
  for (int64_t s = 0; s < samples; ++s)
    if (failed((*reference)->sample(s, [&](size_t, const float *data,
                                           size_t n) {
          expected[s].emplace_back(data, data + n);
        })))
      return failure();

  // The output SQNR of the program keeping `pairs`.
  auto outputSQNR = [&](ArrayRef<Value> pairs) -> FailureOr<double> {
    FailureOr<std::unique_ptr<ObservationRun>> run =
        ObservationRun::create(module, *outputs, quiet, base, pairs);
    if (failed(run))
      return failure();
    quant::SQNRAccumulator sqnr;
    for (int64_t s = 0; s < samples; ++s)
      if (failed((*run)->sample(s, [&](size_t k, const float *data,
                                       size_t n) {
            const std::vector<float> &ref = expected[s][k];
            for (size_t i = 0; i < n && i < ref.size(); ++i) {
              double d = static_cast<double>(data[i]) - ref[i];
              sqnr.signal += static_cast<double>(ref[i]) * ref[i];
              sqnr.noise += d * d;
            }
          })))
        return failure();
    return sqnr.decibels();
  };

  auto pairsOf = [](const QuantizedTensor &t) {
    SmallVector<Value> pairs;
    for (mlir::quant::QuantizeCastOp qcast : t.qcasts)
      pairs.push_back(qcast.getResult());
    return pairs;
  };
  QuantizationReport::Sensitivity result;
  result.samples = samples;
  Progress progress(options.progress, tensors.size() + 1);
  SmallVector<Value> all;
  for (const QuantizedTensor &t : tensors)
    all.append(pairsOf(t));
  FailureOr<double> whole = outputSQNR(all);
  if (failed(whole))
    return failure();
  result.allQuantizedDB = *whole;
  progress.update("sensitivity", 1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    FailureOr<double> alone = outputSQNR(pairsOf(tensors[i]));
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
