//===- Calibrate.cpp - calibration of the inserted QDQ pairs --------------===//
#include "strata/Calibration/Calibrate.h"

#include "Observation.h"
#include "OutputSQNR.h"
#include "QuantizedTensors.h"

#include "strata/Quantization/Quantization.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;

namespace strata {

llvm::json::Value QuantizationReport::toJSON() const {
  llvm::json::Array rows;
  for (const Tensor &t : tensors) {
    llvm::json::Object row{{"tensor", t.tensor},
                           {"role", t.role},
                           {"consumers", t.consumers},
                           {"min", t.min},
                           {"max", t.max}};
    row["sqnr_db"] = jsonDecibels(t.sqnrDB);
    if (t.channels > 1) {
      row["channels"] = t.channels;
    } else {
      row["scale"] = t.scale;
      row["zero_point"] = t.zeroPoint;
    }
    rows.push_back(std::move(row));
  }
  llvm::json::Object object{{"calibration_method", method},
                            {"calibration_samples", samples},
                            {"tensors", std::move(rows)}};
  if (biasCorrected)
    object["bias_corrected"] = *biasCorrected;
  if (scales)
    object["scales"] = *scales;
  if (int32Biases)
    object["int32_biases"] = *int32Biases;
  if (sensitivity) {
    llvm::json::Array rows;
    for (const Sensitivity::Row &row : sensitivity->tensors)
      rows.push_back(llvm::json::Object{
          {"tensor", row.tensor},
          {"role", row.role},
          {"consumers", row.consumers},
          {"output_sqnr_db", jsonDecibels(row.outputSqnrDB)}});
    object["sensitivity"] = llvm::json::Object{
        {"samples", sensitivity->samples},
        {"all_quantized_db", jsonDecibels(sensitivity->allQuantizedDB)},
        {"tensors", std::move(rows)}};
  }
  if (mixedPrecision) {
    const MixedPrecision &m = *mixedPrecision;
    llvm::json::Array kept;
    for (const MixedPrecision::Kept &k : m.keptFloat)
      kept.push_back(llvm::json::Object{
          {"tensor", k.tensor},
          {"role", k.role},
          {"consumers", k.consumers},
          {"alone_output_sqnr_db", jsonDecibels(k.aloneSqnrDB)},
          {"noise_share", k.noiseShare},
          {"float_work", k.floatWork},
          {"work_share", k.workShare}});
    llvm::json::Object o{
        {"tensors", m.tensors},
        {"all_int8_sqnr_db", jsonDecibels(m.allInt8SqnrDB)},
        {"sqnr_db", jsonDecibels(m.achievedSqnrDB)},
        {"all_int8_sqnr_p10_db", jsonDecibels(m.allInt8LowDecileSqnrDB)},
        {"sqnr_p10_db", jsonDecibels(m.achievedLowDecileSqnrDB)},
        {"kept_float", std::move(kept)},
        {"programs", m.programs},
        {"judged_on", m.judgedOn},
        {"sqnr_on", m.sqnrOn},
        {"choice_samples", m.chooseSamples},
        {"check_samples", m.checkSamples},
        {"margin_db", m.marginDB},
        {"random_samples", m.randomSamples}};
    if (m.checkSqnrDB)
      o["check_sqnr_db"] = jsonDecibels(*m.checkSqnrDB);
    if (m.checkLowDecileSqnrDB)
      o["check_sqnr_p10_db"] = jsonDecibels(*m.checkLowDecileSqnrDB);
    if (m.targetSqnrDB)
      o["target_sqnr_db"] = *m.targetSqnrDB;
    if (m.targetAccuracyDrop) {
      o["target_accuracy_drop"] = *m.targetAccuracyDrop;
      o["float_accuracy"] = m.floatAccuracy;
      o["all_int8_accuracy"] = m.allInt8Accuracy;
      o["accuracy"] = m.achievedAccuracy;
    }
    object["mixed_precision"] = std::move(o);
  }
  if (smoothAlpha) {
    llvm::json::Array sites;
    for (const quantization::SmoothedSite &site : smoothed)
      sites.push_back(llvm::json::Object{{"producer", site.producer},
                                         {"consumers", site.consumers},
                                         {"channels", site.channels},
                                         {"min_factor", site.minFactor},
                                         {"max_factor", site.maxFactor}});
    object["smooth"] = llvm::json::Object{{"alpha", *smoothAlpha},
                                          {"sites", std::move(sites)}};
  }
  return object;
}

void QuantizationReport::print(llvm::raw_ostream &os, size_t top) const {
  if (smoothAlpha) {
    os << "SmoothQuant (alpha " << llvm::format("%g", *smoothAlpha)
       << "): " << smoothed.size() << " sites\n";
    for (const quantization::SmoothedSite &site : smoothed)
      os << llvm::format("  s in [%.3g, %.3g]  ", site.minFactor,
                         site.maxFactor)
         << site.producer << " -> " << site.consumers << " (" << site.channels
         << " channels)\n";
  }
  if (biasCorrected)
    os << "bias correction: " << *biasCorrected << " layers\n";
  if (scales)
    os << "scales: " << *scales << ", " << int32Biases.value_or(0)
       << " biases on the int32 accumulator grid\n";
  os << "quantization: " << tensors.size() << " tensors, " << method
     << " calibration on " << samples << " samples; worst SQNR first:\n";
  for (size_t i = 0; i < tensors.size() && i < top; ++i) {
    const Tensor &t = tensors[i];
    os << llvm::format("  %7.2f dB  %-10s ", t.sqnrDB, t.role.c_str())
       << t.tensor << " -> " << t.consumers << "\n";
  }
  if (mixedPrecision) {
    const MixedPrecision &m = *mixedPrecision;
    os << "mixed precision (target";
    if (m.targetSqnrDB)
      os << llvm::format(" output SQNR >= %.1f dB", *m.targetSqnrDB);
    if (m.targetAccuracyDrop)
      os << llvm::format(" accuracy drop <= %.2f points",
                         *m.targetAccuracyDrop);
    os << ", on the " << (m.judgedOn == "eval" ? "held-out" : "calibration")
       << " samples): " << m.keptFloat.size() << " of " << m.tensors
       << " tensors in float; output SQNR on the "
       << (m.sqnrOn == "eval" ? "held-out" : "calibration") << " samples "
       << llvm::format("%.2f dB, 10th percentile sample %.2f dB (all "
                       "int8 %.2f dB, %.2f dB)",
                       m.achievedSqnrDB, m.achievedLowDecileSqnrDB,
                       m.allInt8SqnrDB, m.allInt8LowDecileSqnrDB);
    if (m.targetAccuracyDrop)
      os << llvm::format(", accuracy %.2f%% (float %.2f%%, all int8 %.2f%%)",
                         100 * m.achievedAccuracy, 100 * m.floatAccuracy,
                         100 * m.allInt8Accuracy);
    if (m.checkSqnrDB)
      os << llvm::format("; chosen on %lld of the samples, on the other %lld "
                         "%.2f dB, 10th percentile %.2f dB",
                         static_cast<long long>(m.chooseSamples),
                         static_cast<long long>(m.checkSamples), *m.checkSqnrDB,
                         m.checkLowDecileSqnrDB.value_or(*m.checkSqnrDB));
    if (m.marginDB > 0)
      os << llvm::format(" (chosen for %.2f dB)", *m.targetSqnrDB + m.marginDB);
    os << "; " << m.programs << " programs run\n";
    if (m.randomSamples)
      os << "  note: the SQNR target was judged on seeded random samples; "
            "real inputs may land under it (give samples of them)\n";
    for (const MixedPrecision::Kept &k : m.keptFloat)
      os << llvm::format("  float: %-10s ", k.role.c_str()) << k.tensor
         << " -> " << k.consumers
         << llvm::format(" (alone %.2f dB, %.0f%% of the int8 noise, %.1f%% "
                         "of the quantized work)",
                         k.aloneSqnrDB, 100 * k.noiseShare, 100 * k.workShare)
         << "\n";
  }
  if (sensitivity) {
    os << "sensitivity on " << sensitivity->samples
       << llvm::format(" samples: output SQNR %.2f dB",
                       sensitivity->allQuantizedDB)
       << " with every tensor quantized; with one alone, worst first:\n";
    for (size_t i = 0; i < sensitivity->tensors.size() && i < top; ++i) {
      const Sensitivity::Row &row = sensitivity->tensors[i];
      os << llvm::format("  %7.2f dB  %-10s ", row.outputSqnrDB,
                         row.role.c_str())
         << row.tensor << " -> " << row.consumers << "\n";
    }
  }
}

namespace {

/// SQNR of per-axis or per-tensor weights quantized as `type` says.
std::optional<QuantizationReport::Tensor>
weightReport(const QuantizedTensor &weight) {
  mlir::quant::QuantizeCastOp qcast = weight.qcasts.front();
  auto type = cast<RankedTensorType>(qcast.getType());
  std::optional<std::vector<float>> values =
      quantization::constantFloats(qcast.getArg());
  if (!values)
    return std::nullopt;
  QuantizationReport::Tensor t;
  t.tensor = weight.name();
  t.role = weight.roleName().str();
  t.consumers = weight.consumers();
  std::optional<quantization::TypeQuantization> q =
      quantization::getTypeQuantization(type.getElementType());
  if (!q)
    return std::nullopt;
  const std::vector<quantization::QuantParams> &params = q->params;
  quantization::SQNRAccumulator sqnr;
  t.channels = static_cast<int64_t>(params.size());
  if (params.size() == 1)
    t.scale = params[0].scale, t.zeroPoint = params[0].zeroPoint;
  float lo = 0, hi = 0;
  for (size_t i = 0; i < values->size(); ++i) {
    size_t c = quantization::channelOf(i, type.getShape(), q->axis);
    sqnr.add(&(*values)[i], 1, params[c]);
    lo = std::min(lo, (*values)[i]);
    hi = std::max(hi, (*values)[i]);
  }
  t.min = lo, t.max = hi;
  t.sqnrDB = sqnr.decibels();
  return t;
}

} // namespace

FailureOr<QuantizationReport> calibrate(ModuleOp module,
                                        const CalibrationOptions &options,
                                        const CompileOptions &base) {
  QuantizationReport report;
  report.method = quantization::stringifyCalibrationMethod(options.method);

  // The pairs waiting for calibration, grouped by the value observed, then
  // the fixed-range pairs (softmax, sigmoid), observed only for their SQNR.
  std::vector<QuantizedTensor> sites;
  for (QuantizedTensor &t : collectQuantizedTensors(module)) {
    if (t.role == QuantizedTensor::Role::Weight) {
      if (std::optional<QuantizationReport::Tensor> w = weightReport(t))
        report.tensors.push_back(std::move(*w));
    } else if (t.role == QuantizedTensor::Role::Fixed ||
               t.awaitsCalibration()) {
      sites.push_back(std::move(t));
    }
  }
  size_t calibrated = llvm::count_if(sites, [](const QuantizedTensor &t) {
    return t.role == QuantizedTensor::Role::Activation;
  });
  std::vector<quantization::QuantParams> params(calibrated);
  for (size_t k = calibrated; k < sites.size(); ++k) {
    std::optional<quantization::TypeQuantization> q =
        quantization::getTypeQuantization(
            cast<RankedTensorType>(sites[k].qcasts.front().getType())
                .getElementType());
    if (!q || q->params.size() != 1)
      return sites[k].qcasts.front().emitError(
          "a fixed-range quantization must be per tensor");
    params.push_back(q->params.front());
  }

  if (!sites.empty()) {
    SmallVector<Value> values;
    for (const QuantizedTensor &site : sites)
      values.push_back(site.value);
    FailureOr<std::unique_ptr<ObservationRun>> run =
        ObservationRun::create(module, values, options, base);
    if (failed(run))
      return failure();
    report.samples = (*run)->samples();

    std::vector<quantization::Observer> observers;
    for (size_t i = 0; i < sites.size(); ++i)
      observers.emplace_back(options.method, options.symmetric,
                             options.percentile);
    std::vector<quantization::SQNRAccumulator> sqnr(sites.size());
    bool histogram = observers.front().needsHistogram();
    int passes = histogram ? 3 : 2;
    // Pass 1: ranges; pass 2 (histogram methods): histograms; last: SQNR.
    for (int pass = 0; pass < passes; ++pass) {
      bool sqnrPass = pass == passes - 1;
      if (sqnrPass)
        for (size_t k = 0; k < calibrated; ++k) {
          params[k] = observers[k].params();
          if (options.powerOfTwoScales)
            params[k] = quantization::withPowerOfTwoScale(params[k]);
        }
      std::string label = "calibrating (pass " + std::to_string(pass + 1) +
                          "/" + std::to_string(passes) + ")";
      if (failed(
              (*run)->pass(label, [&](size_t k, const float *data, size_t n) {
                if (sqnrPass)
                  sqnr[k].add(data, n, params[k]);
                else if (pass == 0)
                  observers[k].observeRange(data, n);
                else if (k < calibrated)
                  observers[k].observeHistogram(data, n);
              })))
        return failure();
    }
    for (size_t k = 0; k < sites.size(); ++k) {
      QuantizationReport::Tensor t;
      t.tensor = sites[k].name();
      t.role = sites[k].roleName().str();
      t.consumers = sites[k].consumers();
      if (k < calibrated)
        for (mlir::quant::QuantizeCastOp qcast : sites[k].qcasts)
          quantization::setQuantParams(qcast, params[k]);
      t.scale = params[k].scale;
      t.zeroPoint = params[k].zeroPoint;
      t.min = observers[k].min();
      t.max = observers[k].max();
      t.sqnrDB = sqnr[k].decibels();
      report.tensors.push_back(std::move(t));
    }
  }
  std::stable_sort(
      report.tensors.begin(), report.tensors.end(),
      [](const auto &a, const auto &b) { return a.sqnrDB < b.sqnrDB; });
  return report;
}

} // namespace strata
