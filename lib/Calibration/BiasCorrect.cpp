//===- BiasCorrect.cpp - bias correction's statistics ---------------------===//
//
// The bias-correction stage of --quantize: the float model runs over the
// calibration data once to measure the mean input of every site
// (quantization::findBiasCorrectionSites; for a convolution, per input channel
// and kernel offset), then quantization::applyBiasCorrection moves each site's
// bias by the output shift its weight rounding causes. It runs after
// calibration, on the weights' final quantization.
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Calibrate.h"

#include "Observation.h"

#include "strata/Quantization/Quantization.h"

using namespace mlir;

namespace strata {

FailureOr<int64_t> correctBiases(ModuleOp module,
                                 const CalibrationOptions &options,
                                 const CompileOptions &base) {
  std::vector<quantization::BiasCorrectionSite> sites =
      quantization::findBiasCorrectionSites(module);
  if (sites.empty())
    return 0;
  // One observed value per distinct input (a block's input feeds several
  // layers).
  llvm::MapVector<Value, std::vector<size_t>> readers;
  for (size_t i = 0; i < sites.size(); ++i)
    readers[sites[i].input].push_back(i);
  SmallVector<Value> values;
  for (auto &[value, indices] : readers)
    values.push_back(value);
  FailureOr<std::unique_ptr<ObservationRun>> run =
      ObservationRun::create(module, values, options, base);
  if (failed(run))
    return failure();
  std::vector<std::vector<double>> sums;
  std::vector<double> counts(sites.size(), 0.0);
  for (const quantization::BiasCorrectionSite &site : sites)
    sums.emplace_back(site.meanSize(), 0.0);
  if (failed((*run)->pass("bias correction",
                          [&](size_t k, const float *data, size_t n) {
                            for (size_t i : (readers.begin() + k)->second)
                              sites[i].accumulate(data, n, sums[i], counts[i]);
                          })))
    return failure();
  int64_t corrected = 0;
  for (size_t i = 0; i < sites.size(); ++i) {
    if (counts[i] == 0)
      continue;
    for (double &s : sums[i])
      s /= counts[i];
    if (failed(quantization::applyBiasCorrection(sites[i], sums[i])))
      return failure();
    ++corrected;
  }
  return corrected;
}

} // namespace strata
