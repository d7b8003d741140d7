//===- MixedPrecision.cpp - which tensors stay float to meet a target -----===//
//
// Automatic mixed precision (--quantize-target-sqnr DB,
// --quantize-target-accuracy-drop PT): after calibration, the fewest
// quantized tensors are kept in float so that the program meets the target,
// measured, not predicted:
//
//   1. the program with every tensor quantized; done if it meets the target;
//   2. the sensitivity analysis (each tensor's pairs alone): each tensor's
//      share of the output noise, and its cost in float (the multiply-adds
//      of the ops reading it, which run in float once it does);
//   3. tensors go to float in the order of noise removed per multiply-add
//      given up, as many as the additive noise model says the target needs,
//      then one at a time until the measured program meets it;
//   4. each float tensor, latest first, is tried quantized again and stays
//      quantized when the program still meets the target;
//   5. an SQNR target is chosen on three quarters of its samples and
//      checked on the other quarter (every fourth sample), which no
//      ranking or choice saw; while the check misses, the target on the
//      choice samples rises by the shortfall and 3-4 run again.
//
// Every check compiles and runs a program over the data (the calibration
// samples for SQNR, the labelled set for accuracy).
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Calibrate.h"

#include "Observation.h"
#include "OutputSQNR.h"
#include "QuantizedTensors.h"

#include "strata/Runtime/SampleSource.h"
#include "strata/Runtime/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;

namespace strata {
namespace {

int64_t elementsOf(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.hasStaticShape() ? ranked.getNumElements() : 0;
}

/// Multiply-adds of `op`, estimated from its shapes: the result's elements
/// times the weight's elements per output feature (a convolution's
/// I/g x kh x kw, a matmul's K); an op without a constant weight counts
/// its result's elements.
int64_t workOf(Operation *op) {
  int64_t result = 0;
  for (Value v : op->getResults())
    result += elementsOf(v.getType());
  auto resultType = op->getNumResults()
                        ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                        : RankedTensorType();
  if (!resultType || resultType.getRank() < 2 || !resultType.hasStaticShape())
    return std::max<int64_t>(result, 1);
  int64_t features = resultType.getRank() == 4 ? resultType.getDimSize(1)
                                               : resultType.getShape().back();
  for (Value operand : op->getOperands()) {
    Value source = operand;
    if (auto dcast = source.getDefiningOp<mlir::quant::DequantizeCastOp>())
      if (auto qcast =
              dcast.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>())
        source = qcast.getArg();
    auto weight = dyn_cast<RankedTensorType>(source.getType());
    if (!source.getDefiningOp() || !weight || weight.getRank() < 2 ||
        !weight.hasStaticShape() || features <= 0 ||
        !source.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      continue;
    return std::max<int64_t>(result * (weight.getNumElements() / features), 1);
  }
  return std::max<int64_t>(result, 1);
}

/// The multiply-adds of the ops reading tensor `t`'s pairs.
int64_t floatCostOf(const QuantizedTensor &t) {
  llvm::DenseSet<Operation *> readers;
  for (mlir::quant::QuantizeCastOp qcast : t.qcasts)
    for (Operation *dcast : qcast->getUsers())
      for (Operation *reader : dcast->getUsers())
        readers.insert(reader);
  int64_t work = 0;
  for (Operation *reader : readers)
    work += workOf(reader);
  return std::max<int64_t>(work, 1);
}

/// Measures programs that keep some quantized tensors' pairs: their output
/// SQNR against the float model over the calibration samples, and, with
/// labelled data, their top-1 accuracy.
class Judge {
public:
  static FailureOr<std::unique_ptr<Judge>>
  create(ModuleOp module, const CalibrationOptions &calibration,
         const MixedPrecisionOptions &options, const CompileOptions &base) {
    std::unique_ptr<Judge> judge(new Judge(module, base));
    judge->calibration = calibration;
    judge->calibration.progress = false;
    judge->eval = judge->calibration;
    if (!options.evalImages.empty()) {
      judge->eval.dataPath = options.evalImages;
      judge->eval.maxSamples = 0;
    }
    // The SQNR target is judged on the held-out data when given; the
    // ranking of an accuracy target alone uses the calibration samples.
    judge->sqnrData = options.targetSqnrDB ? judge->eval : judge->calibration;
    FailureOr<std::unique_ptr<OutputSQNR>> sqnr =
        OutputSQNR::create(module, "mixed precision", judge->sqnrData, base);
    if (failed(sqnr))
      return failure();
    judge->output = std::move(*sqnr);
    if (!options.evalLabels.empty()) {
      runtime::Result<runtime::OwnedTensor> labels =
          runtime::readTensorFile(options.evalLabels);
      if (!labels.ok())
        return module.emitError("--quantize-eval-labels: ")
               << labels.error().message();
      if (labels->dtype != runtime::DType::I64 || labels->shape.size() != 1)
        return module.emitError("--quantize-eval-labels '")
               << options.evalLabels << "' must hold one int64 label per "
               << "sample (a 1-D int64 .npy)";
      judge->labels.resize(labels->shape[0]);
      if (labels->bytes.size() != judge->labels.size() * sizeof(int64_t))
        return module.emitError("--quantize-eval-labels '")
               << options.evalLabels << "': truncated data";
      std::memcpy(judge->labels.data(), labels->bytes.data(),
                  labels->bytes.size());
    }
    return judge;
  }

  int64_t programs() const { return runs; }

  /// Over the choice samples, or the check samples.
  FailureOr<OutputSQNR::Figures>
  sqnr(ArrayRef<Value> pairs,
       OutputSQNR::Fold fold = OutputSQNR::Fold::Choose) {
    ++runs;
    return output->measureSamples(pairs, fold);
  }
  int64_t foldSize(OutputSQNR::Fold fold) const {
    return output->foldSize(fold);
  }

  /// Top-1 accuracy (a fraction) of output 0 on the labelled data.
  FailureOr<double> accuracy(ArrayRef<Value> pairs) {
    ++runs;
    FailureOr<std::unique_ptr<ObservationRun>> run = ObservationRun::create(
        module, output->outputs().front(), eval, base, pairs);
    if (failed(run))
      return failure();
    int64_t samples = (*run)->samples();
    if (samples != static_cast<int64_t>(labels.size()))
      return module.emitError("--quantize-eval-data has ")
             << samples << " samples and --quantize-eval-labels "
             << labels.size() << " labels";
    int64_t correct = 0;
    for (int64_t s = 0; s < samples; ++s)
      if (failed((*run)->sample(s, [&](size_t, const float *data, size_t n) {
            if (n && static_cast<int64_t>(std::max_element(data, data + n) -
                                          data) == labels[s])
              ++correct;
          })))
        return failure();
    return samples ? static_cast<double>(correct) / samples : 0.0;
  }

private:
  Judge(ModuleOp module, const CompileOptions &base)
      : module(module), base(base) {}
  ModuleOp module;
  const CompileOptions &base;
  /// The calibration samples; the held-out ones (else the calibration
  /// samples again); those the output SQNR is measured on.
  CalibrationOptions calibration, eval, sqnrData;
  /// Reads `sqnrData`: declared after it.
  std::unique_ptr<OutputSQNR> output;
  std::vector<int64_t> labels;
  int64_t runs = 0;
};

/// Removes tensor `t`'s pairs from the module: its readers take the float
/// value.
void keepInFloat(const QuantizedTensor &t) {
  for (mlir::quant::QuantizeCastOp qcast : t.qcasts) {
    for (Operation *dcast : llvm::make_early_inc_range(qcast->getUsers())) {
      dcast->getResult(0).replaceAllUsesWith(qcast.getArg());
      dcast->erase();
    }
    qcast->erase();
  }
}

} // namespace

namespace {

/// The search for the fewest quantized tensors kept in float: figures of a
/// choice (`floats`: the indices of the tensors kept in float), each
/// tensor's share of the noise, the choice the additive model suggests,
/// then one at a time up until the target holds and back down while it
/// still does.
class MixedPrecisionSearch {
public:
  using Result = QuantizationReport::MixedPrecision;
  using Floats = llvm::DenseSet<size_t>;
  struct Figures {
    double sqnr = 0, lowDecileSqnr = 0, accuracy = 0;
  };
  /// Whether a choice meets the target, and its figures.
  using Measured = std::pair<bool, Figures>;

  MixedPrecisionSearch(Judge &judge, const MixedPrecisionOptions &options,
                       std::vector<QuantizedTensor> tensors, Result &result)
      : judge(judge), options(options), tensors(std::move(tensors)),
        result(result), byAccuracy(options.targetAccuracyDrop.has_value()) {}

  /// The program keeping every tensor but `floats` in int8.
  FailureOr<Measured> measure(const Floats &floats);
  /// The float model's accuracy (every tensor in float).
  LogicalResult measureFloatAccuracy();
  /// Each tensor's output noise alone and what keeping it in float costs;
  /// `order` by noise removed per cost, best first.
  LogicalResult measureShares();
  /// The float tensors that meet the target, from `current` (all int8,
  /// which does not), into `floats`; `added` in the order they were added.
  /// False when even every tensor in float misses the target.
  FailureOr<bool> search(Floats &floats, std::vector<size_t> &added,
                         Measured &current);
  /// Reports the tensors kept in float and takes their pairs out.
  void keep(const Floats &floats, ArrayRef<size_t> added);
  /// The SQNR target on the choice samples: the target plus the margin the
  /// check samples asked for.
  double marginDB = 0;
  bool measuredShares() const { return !order.empty() || tensors.empty(); }

  SmallVector<Value> pairsWithout(const Floats &floats) const;

private:
  /// How many tensors the additive noise model says the SQNR target needs
  /// (one for the accuracy target, which has no model).
  size_t modelledCount() const;

  Judge &judge;
  const MixedPrecisionOptions &options;
  std::vector<QuantizedTensor> tensors;
  Result &result;
  bool byAccuracy;
  std::vector<double> noise, alone;
  std::vector<int64_t> cost;
  std::vector<size_t> order;
  double total = 0;
};

SmallVector<Value>
MixedPrecisionSearch::pairsWithout(const Floats &floats) const {
  SmallVector<Value> pairs;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (!floats.contains(i))
      pairs.append(tensors[i].pairs());
  return pairs;
}

FailureOr<MixedPrecisionSearch::Measured>
MixedPrecisionSearch::measure(const Floats &floats) {
  SmallVector<Value> pairs = pairsWithout(floats);
  Figures f;
  FailureOr<OutputSQNR::Figures> sqnr = judge.sqnr(pairs);
  if (failed(sqnr))
    return failure();
  f.sqnr = sqnr->pooledDB;
  f.lowDecileSqnr = sqnr->lowDecileDB;
  // The pooled figure and nine samples in ten meet the target: one
  // sample's SQNR is what a user sees on one input, and the pooled noise
  // alone lets quiet samples fall short (a held-out image landed 0.3-0.8
  // dB under a target the pooled calibration figure met).
  bool meets = !options.targetSqnrDB ||
               (f.sqnr >= *options.targetSqnrDB + marginDB &&
                f.lowDecileSqnr >= *options.targetSqnrDB + marginDB);
  if (byAccuracy) {
    FailureOr<double> accuracy = judge.accuracy(pairs);
    if (failed(accuracy))
      return failure();
    f.accuracy = *accuracy;
    meets = meets && 100.0 * (result.floatAccuracy - f.accuracy) <=
                         *options.targetAccuracyDrop + 1e-9;
  }
  return std::make_pair(meets, f);
}

LogicalResult MixedPrecisionSearch::measureFloatAccuracy() {
  Floats all;
  for (size_t i = 0; i < tensors.size(); ++i)
    all.insert(i);
  FailureOr<double> floatAccuracy = judge.accuracy(pairsWithout(all));
  if (failed(floatAccuracy))
    return failure();
  result.floatAccuracy = *floatAccuracy;
  return success();
}

LogicalResult MixedPrecisionSearch::measureShares() {
  noise.assign(tensors.size(), 0.0);
  alone.assign(tensors.size(), 0.0);
  cost.assign(tensors.size(), 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    FailureOr<OutputSQNR::Figures> db = judge.sqnr(tensors[i].pairs());
    if (failed(db))
      return failure();
    alone[i] = db->pooledDB;
    noise[i] = std::isfinite(alone[i]) ? std::pow(10.0, -alone[i] / 10) : 0.0;
    cost[i] = floatCostOf(tensors[i]);
    total += noise[i];
  }
  order.resize(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return noise[a] / cost[a] > noise[b] / cost[b];
  });
  return success();
}

size_t MixedPrecisionSearch::modelledCount() const {
  if (!options.targetSqnrDB)
    return order.empty() ? 0 : 1;
  double allowed = std::pow(10.0, -(*options.targetSqnrDB + marginDB) / 10);
  double measured = std::pow(
      10.0,
      -std::min(result.allInt8SqnrDB, result.allInt8LowDecileSqnrDB) / 10);
  // Scale the model to the measured whole: noises do not add exactly.
  double scale = total > 0 ? measured / total : 1.0;
  double left = measured;
  size_t next = 0;
  while (next < order.size() && left > allowed && noise[order[next]] > 0)
    left -= scale * noise[order[next++]];
  return next;
}

FailureOr<bool> MixedPrecisionSearch::search(Floats &floats,
                                             std::vector<size_t> &added,
                                             Measured &current) {
  size_t next = modelledCount();
  added.assign(order.begin(), order.begin() + next);
  floats.insert(added.begin(), added.end());
  FailureOr<Measured> now = measure(floats);
  if (failed(now))
    return failure();
  current = *now;
  while (!current.first && next < order.size()) {
    floats.insert(order[next]);
    added.push_back(order[next++]);
    if (failed(now = measure(floats)))
      return failure();
    current = *now;
  }
  if (!current.first)
    return false;
  // As much int8 as possible: each float tensor, latest first, back to int8
  // where the target still holds.
  for (auto it = added.rbegin(); it != added.rend(); ++it) {
    floats.erase(*it);
    if (failed(now = measure(floats)))
      return failure();
    if (now->first)
      current = *now;
    else
      floats.insert(*it);
  }
  return true;
}

void MixedPrecisionSearch::keep(const Floats &floats, ArrayRef<size_t> added) {
  int64_t totalCost = std::accumulate(cost.begin(), cost.end(), int64_t(0));
  for (size_t i : added) {
    if (!floats.contains(i))
      continue;
    Result::Kept kept;
    kept.tensor = tensors[i].name();
    kept.role = tensors[i].roleName().str();
    kept.consumers = tensors[i].consumers();
    kept.aloneSqnrDB = alone[i];
    kept.noiseShare = total > 0 ? noise[i] / total : 0;
    kept.floatWork = cost[i];
    kept.workShare = totalCost ? static_cast<double>(cost[i]) / totalCost : 0;
    result.keptFloat.push_back(std::move(kept));
  }
  // Leave the module with the float tensors' pairs removed.
  for (size_t i = 0; i < tensors.size(); ++i)
    if (floats.contains(i))
      keepInFloat(tensors[i]);
}

} // namespace

FailureOr<QuantizationReport::MixedPrecision>
chooseMixedPrecision(ModuleOp module, const CalibrationOptions &calibration,
                     const MixedPrecisionOptions &options,
                     const CompileOptions &base) {
  bool byAccuracy = options.targetAccuracyDrop.has_value();
  if (byAccuracy && (options.evalImages.empty() || options.evalLabels.empty()))
    return module.emitError("--quantize-target-accuracy-drop needs labelled "
                            "data (--quantize-eval-data and "
                            "--quantize-eval-labels)");
  FailureOr<std::unique_ptr<Judge>> judge =
      Judge::create(module, calibration, options, base);
  if (failed(judge))
    return failure();
  std::vector<QuantizedTensor> tensors = collectQuantizedTensors(module);
  MixedPrecisionSearch::Result result;
  result.tensors = static_cast<int64_t>(tensors.size());
  MixedPrecisionSearch search(**judge, options, std::move(tensors), result);
  if (byAccuracy && failed(search.measureFloatAccuracy()))
    return failure();
  MixedPrecisionSearch::Floats floats;
  FailureOr<MixedPrecisionSearch::Measured> whole = search.measure(floats);
  if (failed(whole))
    return failure();
  result.allInt8SqnrDB = whole->second.sqnr;
  result.allInt8LowDecileSqnrDB = whole->second.lowDecileSqnr;
  result.allInt8Accuracy = whole->second.accuracy;
  MixedPrecisionSearch::Measured current = *whole;
  result.chooseSamples = (*judge)->foldSize(OutputSQNR::Fold::Choose);
  result.checkSamples =
      options.targetSqnrDB ? (*judge)->foldSize(OutputSQNR::Fold::Check) : 0;
  // `added` is one round's; `everAdded` every round's, in order, for the
  // report (a later round keeps the earlier rounds' float tensors).
  std::vector<size_t> added, everAdded;
  // A choice the check samples do not confirm raises the SQNR target on
  // the choice samples by their shortfall, and the search runs again.
  for (int round = 0;; ++round) {
    if (!current.first) {
      if (!search.measuredShares() && failed(search.measureShares()))
        return failure();
      FailureOr<bool> met = search.search(floats, added, current);
      if (failed(met))
        return failure();
      if (!*met)
        return module.emitError("mixed precision: the target is not met "
                                "even with every quantized tensor in float");
      for (size_t i : added)
        if (!llvm::is_contained(everAdded, i))
          everAdded.push_back(i);
    }
    if (result.checkSamples == 0)
      break;
    FailureOr<OutputSQNR::Figures> check =
        (*judge)->sqnr(search.pairsWithout(floats), OutputSQNR::Fold::Check);
    if (failed(check))
      return failure();
    result.checkSqnrDB = check->pooledDB;
    result.checkLowDecileSqnrDB = check->lowDecileDB;
    double worst = std::min(check->pooledDB, check->lowDecileDB);
    if (worst >= *options.targetSqnrDB)
      break;
    if (round + 1 == OutputSQNR::kCheckRounds)
      return module.emitError("mixed precision: the choice misses the "
                              "target on the held-out quarter of the "
                              "samples after ")
             << OutputSQNR::kCheckRounds
             << " rounds (the samples disagree too much: give "
             << "more)";
    search.marginDB =
        OutputSQNR::raisedMargin(search.marginDB, *options.targetSqnrDB, worst);
    current.first = false;
  }
  result.marginDB = search.marginDB;
  result.randomSamples =
      options.targetSqnrDB &&
      runtime::isRandomSpec(options.evalImages.empty() ? calibration.dataPath
                                                       : options.evalImages);
  if (!floats.empty())
    search.keep(floats, everAdded);
  result.achievedSqnrDB = current.second.sqnr;
  result.achievedLowDecileSqnrDB = current.second.lowDecileSqnr;
  result.achievedAccuracy = current.second.accuracy;
  if (options.targetSqnrDB)
    result.targetSqnrDB = *options.targetSqnrDB;
  if (options.targetAccuracyDrop)
    result.targetAccuracyDrop = *options.targetAccuracyDrop;
  result.programs = (*judge)->programs();
  result.judgedOn = options.evalImages.empty() ? "calibration" : "eval";
  result.sqnrOn = options.targetSqnrDB && !options.evalImages.empty()
                      ? "eval"
                      : "calibration";
  return result;
}

} // namespace strata
