//===- OutputSQNR.cpp - a program's outputs against the float model -------===//
#include "OutputSQNR.h"

#include "Observation.h"

#include "strata/Calibration/Calibrate.h"
#include "strata/Quantization/Observers.h"
#include "strata/Runtime/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

using namespace mlir;

namespace strata {

FailureOr<SmallVector<Value>> floatOutputs(ModuleOp module, StringRef what) {
  auto funcs = module.getOps<func::FuncOp>();
  if (funcs.empty() || std::next(funcs.begin()) != funcs.end() ||
      (*funcs.begin()).isExternal())
    return module.emitError() << what << " needs one function with a body";
  func::FuncOp func = *funcs.begin();
  SmallVector<Value> outputs;
  for (Value v : func.getBody().front().getTerminator()->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && type.getElementType().isF32() && v.getDefiningOp())
      outputs.push_back(v);
  }
  if (outputs.empty())
    return func.emitError() << what
                            << " compares f32 outputs; this function "
                               "returns none";
  return outputs;
}

OutputSQNR::OutputSQNR(ModuleOp module, const CalibrationOptions &options,
                       const CompileOptions &base)
    : module(module), options(options), base(base) {}

FailureOr<std::unique_ptr<OutputSQNR>>
OutputSQNR::create(ModuleOp module, StringRef what,
                   const CalibrationOptions &options,
                   const CompileOptions &base) {
  std::unique_ptr<OutputSQNR> result(new OutputSQNR(module, options, base));
  FailureOr<SmallVector<Value>> outputs = floatOutputs(module, what);
  if (failed(outputs))
    return failure();
  result->outputs_ = std::move(*outputs);
  FailureOr<std::unique_ptr<ObservationRun>> reference =
      ObservationRun::create(module, result->outputs_, options, base);
  if (failed(reference))
    return failure();
  int64_t samples = (*reference)->samples();
  result->expected.resize(samples);
  for (int64_t s = 0; s < samples; ++s)
    if (failed(
            (*reference)->sample(s, [&](size_t, const float *data, size_t n) {
              result->expected[s].emplace_back(data, data + n);
            })))
      return failure();
  return result;
}

/// The summed negative log-likelihood of `labels` under the rows of
/// `logits` (`vocabulary` wide), in double, and the labelled rows counted
/// into `tokens`; negative labels are skipped.
static double negativeLogLikelihood(const float *logits, size_t count,
                                    int64_t vocabulary,
                                    const std::vector<int64_t> &labels,
                                    int64_t &tokens) {
  double sum = 0;
  tokens = 0;
  for (size_t row = 0; row < labels.size(); ++row) {
    if (labels[row] < 0 || static_cast<size_t>((row + 1) * vocabulary) > count)
      continue;
    const float *l = logits + row * vocabulary;
    double top = *std::max_element(l, l + vocabulary), total = 0;
    for (int64_t v = 0; v < vocabulary; ++v)
      total += std::exp(static_cast<double>(l[v]) - top);
    sum += top + std::log(total) - l[labels[row]];
    ++tokens;
  }
  return sum;
}

LogicalResult OutputSQNR::setLabels(StringRef path, StringRef what) {
  auto type = cast<RankedTensorType>(outputs_[0].getType());
  if (type.getRank() < 1 || type.isDynamicDim(type.getRank() - 1))
    return module.emitError() << what
                              << " needs the logits (output 0) with a static "
                                 "vocabulary as their last axis, got "
                              << type;
  vocabulary = type.getShape().back();
  runtime::Result<runtime::OwnedTensor> read =
      runtime::readTensorFile(path.str());
  if (!read.ok())
    return module.emitError()
           << what << ": --calibration-labels: " << read.error().message();
  size_t rows = vocabulary ? expected.empty() || expected[0].empty()
                                 ? 0
                                 : expected[0][0].size() / vocabulary
                           : 0;
  int64_t given = read->shape.empty() ? 0 : read->shape[0];
  if (read->dtype != runtime::DType::I64 || given < samples() ||
      (options.maxSamples == 0 && given != samples()) ||
      read->bytes.size() != static_cast<size_t>(given) * rows * sizeof(int64_t))
    return module.emitError()
           << what << ": --calibration-labels '" << path
           << "' must be int64 with one label for each of the " << rows
           << " logit rows of each of the " << samples()
           << " calibration samples (samples first), got "
           << runtime::dtypeName(read->dtype) << " of "
           << read->bytes.size() /
                  std::max<size_t>(runtime::dtypeSize(read->dtype), 1)
           << " values in " << given << " samples";
  labels.assign(samples(), std::vector<int64_t>(rows));
  floatNll.assign(samples(), 0);
  labelled.assign(samples(), 0);
  for (int64_t s = 0; s < samples(); ++s) {
    std::memcpy(labels[s].data(), read->bytes.data() + s * rows * 8,
                rows * sizeof(int64_t));
    for (size_t row = 0; row < rows; ++row)
      if (labels[s][row] >= vocabulary)
        return module.emitError()
               << what << ": --calibration-labels '" << path << "': sample "
               << s << " row " << row << " has label " << labels[s][row]
               << ", outside the vocabulary of " << vocabulary;
    const std::vector<float> &logits = expected[s][0];
    floatNll[s] = negativeLogLikelihood(logits.data(), logits.size(),
                                        vocabulary, labels[s], labelled[s]);
  }
  // A bound needs two labelled windows to choose on, a check one.
  int64_t choosing = 0, checking = 0;
  for (int64_t s = 0; s < samples(); ++s)
    if (labelled[s])
      ++(inFold(s, Fold::Check) ? checking : choosing);
  if (choosing < 2 || (foldSize(Fold::Check) > 0 && checking == 0))
    return module.emitError()
           << what << ": --calibration-labels '" << path << "' labels "
           << choosing << " of the " << foldSize(Fold::Choose)
           << " samples it chooses on and " << checking << " of the "
           << foldSize(Fold::Check)
           << " it checks on (every fourth); it needs at least 2 and 1";
  return success();
}

/// The one-sided 90% quantile of Student's t with `df` degrees of freedom
/// (df >= 1): a bound on a mean from a few samples' spread.
static double studentT90(double df) {
  static const double table[][2] = {
      {1, 3.078},  {2, 1.886},  {3, 1.638},  {4, 1.533},  {5, 1.476},
      {6, 1.440},  {7, 1.415},  {8, 1.397},  {9, 1.383},  {10, 1.372},
      {15, 1.341}, {20, 1.325}, {30, 1.310}, {40, 1.303}, {50, 1.299},
      {60, 1.296}, {120, 1.289}};
  if (df >= 120)
    return 1.2816;
  for (size_t i = 1; i < std::size(table); ++i)
    if (df <= table[i][0]) {
      double t = (df - table[i - 1][0]) / (table[i][0] - table[i - 1][0]);
      return table[i - 1][1] + t * (table[i][1] - table[i - 1][1]);
    }
  return table[0][1];
}

FailureOr<double> OutputSQNR::measure(ArrayRef<Value> keepPairs) {
  FailureOr<Figures> figures = measureSamples(keepPairs);
  if (failed(figures))
    return failure();
  return figures->pooledDB;
}

llvm::json::Value jsonDecibels(double v) {
  if (std::isfinite(v))
    return v;
  return nullptr;
}

size_t lowDecileRank(size_t n) {
  // P(X >= k) for X ~ Binomial(n, 0.1), k from 1 up, while it is >= 0.9.
  double below = 0;                                    // P(X <= k - 1)
  double term = std::pow(0.9, static_cast<double>(n)); // P(X = 0)
  size_t rank = 1;
  for (size_t k = 1; k <= n; ++k) {
    below += term;
    if (1 - below < 0.9)
      break;
    rank = k;
    term *= (static_cast<double>(n - k + 1) / k) * (0.1 / 0.9);
  }
  return rank;
}

bool OutputSQNR::inFold(int64_t sample, Fold fold) const {
  bool check = samples() >= 4 && sample % 4 == 3;
  switch (fold) {
  case Fold::All:
    return true;
  case Fold::Choose:
    return !check;
  case Fold::Check:
    return check;
  }
  return true;
}

int64_t OutputSQNR::foldSize(Fold fold) const {
  int64_t count = 0;
  for (int64_t s = 0; s < samples(); ++s)
    count += inFold(s, fold);
  return count;
}

FailureOr<OutputSQNR::Figures> OutputSQNR::measureSamples(
    ArrayRef<Value> keepPairs, Fold fold,
    const std::optional<CompileOptions::QuantizeWeights> &weights) {
  FailureOr<std::unique_ptr<ObservationRun>> run = ObservationRun::create(
      module, outputs_, options, base, keepPairs, weights);
  if (failed(run))
    return failure();
  quantization::SQNRAccumulator pooled;
  std::vector<double> perSample;
  double nll = 0, floatSum = 0;
  int64_t labelledTokens = 0;
  std::vector<double> riseBySample;
  for (int64_t s = 0; s < samples(); ++s) {
    if (!inFold(s, fold))
      continue;
    quantization::SQNRAccumulator sample;
    if (failed((*run)->sample(s, [&](size_t k, const float *data, size_t n) {
          const std::vector<float> &ref = expected[s][k];
          for (size_t i = 0; i < n && i < ref.size(); ++i) {
            double d = static_cast<double>(data[i]) - ref[i];
            sample.signal += static_cast<double>(ref[i]) * ref[i];
            sample.noise += d * d;
          }
          if (k == 0 && hasLabels()) {
            int64_t tokens = 0;
            double mine =
                negativeLogLikelihood(data, n, vocabulary, labels[s], tokens);
            nll += mine;
            floatSum += floatNll[s];
            labelledTokens += labelled[s];
            if (labelled[s])
              riseBySample.push_back((mine - floatNll[s]) / labelled[s]);
          }
        })))
      return failure();
    pooled.signal += sample.signal;
    pooled.noise += sample.noise;
    perSample.push_back(sample.decibels());
  }
  Figures figures;
  figures.pooledDB = pooled.decibels();
  figures.nll = nll;
  figures.floatNll = floatSum;
  figures.tokens = labelledTokens;
  if (!riseBySample.empty()) {
    double n = static_cast<double>(riseBySample.size()), mean = 0, spread = 0;
    for (double x : riseBySample)
      mean += x / n;
    for (double x : riseBySample)
      spread += (x - mean) * (x - mean);
    // One window: no spread to bound the mean by (setLabels asks for two
    // to choose on; a check of one is judged by its pooled rise).
    double error = n > 1 ? std::sqrt(spread / (n - 1) / n) : 0.0;
    figures.nllRiseBound = mean + (n > 1 ? studentT90(n - 1) : 0.0) * error;
  }
  if (!perSample.empty()) {
    size_t rank = lowDecileRank(perSample.size());
    std::nth_element(perSample.begin(), perSample.begin() + rank - 1,
                     perSample.end());
    figures.lowDecileDB = perSample[rank - 1];
  }
  return figures;
}

} // namespace strata
