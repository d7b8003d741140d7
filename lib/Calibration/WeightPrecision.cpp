//===- WeightPrecision.cpp - each matmul's weight width, by measuring -----===//
//
// --weight-target-sqnr: which matmul weights can be 4 bits, which need 8
// and which f32, for the smallest weights whose program still meets an
// output SQNR against the float model (--weight-target-perplexity: whose
// perplexity on labelled tokens rises at most so much over the float
// model's). Measured, not predicted:
//
//   1. the matmuls strata-edge-quantize-weights would rewrite are found by
//      lowering a copy of the module with it;
//   2. each one alone at the narrowest width (every other matmul f32)
//      gives its share of the output noise;
//   3. widenings (narrowest to 8 bits, 8 bits to f32) go in the order of
//      noise removed per byte added, as many as the noise model (rounding
//      noise falls with the square of the step, scaled to the measured
//      whole) says the target needs (an SQNR target; a perplexity target
//      takes none on the model's word), then one at a time until the
//      measured program meets it;
//   4. each widening, latest first, is undone where the target still
//      holds;
//   5. the choice is checked on the samples it was not made on (a quarter
//      of them); while they miss the target, the target on the choice
//      samples rises by the shortfall and the search goes on.
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Calibrate.h"

#include "OutputSQNR.h"

#include "Edge/IR/EdgeOps.h"
#include "Edge/Transforms/Passes.h"
#include "strata/Runtime/SampleSource.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace strata {
namespace {

using Fold = OutputSQNR::Fold;
using Figures = OutputSQNR::Figures;
using Node = WeightPrecisionReport::Node;

/// What a choice must meet on the samples it is judged on: an output
/// SQNR (pooled and the 10th-percentile sample), or, when `rise` is set, a
/// perplexity at most that fraction over the float model's.
struct Target {
  double sqnrDB = 0;
  std::optional<double> rise;
  /// A perplexity judged at its 90% upper bound (the choice samples), not
  /// its pooled figure (the check samples, confirming a choice).
  bool bound = false;
  bool metBy(const Figures &f) const {
    if (rise)
      return (bound ? f.perplexityRiseBound() : f.perplexityRise()) <= *rise;
    return f.pooledDB >= sqnrDB && f.lowDecileDB >= sqnrDB;
  }
};

/// Bytes of a [K, N] weight at `bits` (0: f32) in groups of `group` rows
/// of K: the packed words of every 32-column tile, and one f32 scale and
/// one zero point per group and column.
int64_t storedBytes(int64_t k, int64_t n, int64_t bits, int64_t group) {
  if (bits == 0)
    return 4 * k * n;
  int64_t tiles = (n + 31) / 32, perWord = 32 / bits;
  int64_t words = (k + perWord - 1) / perWord;
  int64_t groups = (k + group - 1) / group;
  return tiles * words * 128 + tiles * groups * 32 * 5;
}

/// The width after `bits`: 4 -> 8 -> f32 (0); none after f32.
std::optional<int64_t> wider(int64_t bits) {
  if (bits == 4)
    return 8;
  if (bits == 8)
    return 0;
  return std::nullopt;
}

/// The [K, N] extents of each matmul weight of one ONNX node (a recurrent
/// layer has several; one width applies to all).
using Extents = std::vector<std::pair<int64_t, int64_t>>;

/// The matmuls of `module` that --quantize-weights rewrites, by ONNX node,
/// in program order, with each node's weights' extents in `extents`.
FailureOr<std::vector<Node>> findMatmuls(ModuleOp module,
                                         const WeightPrecisionOptions &options,
                                         const CompileOptions &base,
                                         StringRef what,
                                         std::vector<Extents> &extents) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  CompileOptions lowering = referenceOptions(base);
  lowering.quantizeWeights = CompileOptions::QuantizeWeights{
      options.bits, options.groupSize, {}, options.activationBits};
  lowering.printIRAfterAll = false;
  CompileReport ignored;
  if (failed(lowerToExec(*copy, lowering, ignored, EmitKind::MLIREdge)))
    return module.emitError()
           << what << ": cannot lower the model to find its matmuls";
  std::vector<Node> nodes;
  llvm::StringMap<size_t> index;
  copy->walk([&](edge::WeightQuantizedMatMulOp op) {
    std::string name = getNodeName(op.getLoc());
    auto lhs = cast<RankedTensorType>(op.getLhs().getType());
    auto result = cast<RankedTensorType>(op.getType());
    auto [it, inserted] = index.try_emplace(name, nodes.size());
    if (inserted) {
      Node node;
      node.node = name;
      node.k = lhs.getShape().back();
      node.n = result.getShape().back();
      nodes.push_back(node);
      extents.emplace_back();
    }
    ++nodes[it->second].matmuls;
    extents[it->second].push_back(
        {lhs.getShape().back(), result.getShape().back()});
  });
  return nodes;
}

class WeightSearch {
public:
  WeightSearch(ModuleOp module, const WeightPrecisionOptions &options,
               OutputSQNR &judge, std::vector<Node> nodes,
               std::vector<Extents> extents, WeightPrecisionReport &report)
      : module(module), options(options), judge(judge), nodes(std::move(nodes)),
        extents(std::move(extents)), report(report) {}

  /// Fixes the nodes --weight-bits names, the others at the narrowest.
  LogicalResult start();
  /// Widens, then narrows back, until the choice samples meet `target`.
  FailureOr<bool> search(const Target &target);
  /// The current choice's figures on `fold`.
  FailureOr<Figures> measure(Fold fold);
  /// The current choice's figures on the choice samples, measured once
  /// (each search starts from where the last one ended).
  FailureOr<Figures> choiceFigures();
  /// Writes the widths into the report and onto the function.
  void finish();

private:
  /// Each searched node alone at the narrowest width (once, when a search
  /// first has to widen).
  LogicalResult measureShares();
  CompileOptions::QuantizeWeights weightsOf(ArrayRef<int64_t> widths) const;
  int64_t bytesOf(size_t i, int64_t bits) const {
    int64_t bytes = 0;
    for (auto [k, n] : extents[i])
      bytes += storedBytes(k, n, bits, options.groupSize);
    return bytes;
  }
  /// Node i's modelled noise at `bits`: its measured noise alone at the
  /// narrowest width times the square of the step ratio.
  double noiseOf(size_t i, int64_t bits) const;

  ModuleOp module;
  const WeightPrecisionOptions &options;
  OutputSQNR &judge;
  std::vector<Node> nodes;
  std::vector<Extents> extents;
  WeightPrecisionReport &report;
  std::vector<int64_t> widths;
  std::vector<bool> fixed;
  std::vector<double> noise;
  /// choiceFigures' figures of `widths`.
  std::optional<Figures> known;
};

CompileOptions::QuantizeWeights
WeightSearch::weightsOf(ArrayRef<int64_t> chosen) const {
  CompileOptions::QuantizeWeights weights{
      options.bits, options.groupSize, {}, options.activationBits};
  for (size_t i = 0; i < nodes.size(); ++i)
    weights.nodeBits.push_back(nodes[i].node + "=" + std::to_string(chosen[i]));
  return weights;
}

LogicalResult WeightSearch::start() {
  llvm::StringMap<int64_t> given;
  for (const std::string &entry : options.nodeBits) {
    std::optional<std::pair<StringRef, int64_t>> parsed =
        edge::parseNodeBits(entry);
    if (!parsed)
      return module.emitError("--weight-bits entry '")
             << entry << "' is not NODE=BITS with BITS 0, 4 or 8";
    given[parsed->first] = parsed->second;
  }
  widths.assign(nodes.size(), options.bits);
  fixed.assign(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (auto it = given.find(nodes[i].node); it != given.end()) {
      widths[i] = it->second;
      fixed[i] = true;
    }
  return success();
}

FailureOr<Figures> WeightSearch::measure(Fold fold) {
  ++report.programs;
  return judge.measureSamples({}, fold, weightsOf(widths));
}

FailureOr<Figures> WeightSearch::choiceFigures() {
  if (!known) {
    FailureOr<Figures> figures = measure(Fold::Choose);
    if (failed(figures))
      return failure();
    known = *figures;
  }
  return *known;
}

LogicalResult WeightSearch::measureShares() {
  noise.assign(nodes.size(), 0.0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (fixed[i])
      continue;
    std::vector<int64_t> alone(nodes.size(), 0);
    alone[i] = options.bits;
    ++report.programs;
    FailureOr<Figures> f =
        judge.measureSamples({}, Fold::Choose, weightsOf(alone));
    if (failed(f))
      return failure();
    nodes[i].aloneDB = f->pooledDB;
    noise[i] =
        std::isfinite(f->pooledDB) ? std::pow(10.0, -f->pooledDB / 10) : 0.0;
  }
  return success();
}

double WeightSearch::noiseOf(size_t i, int64_t bits) const {
  if (bits == 0)
    return 0;
  double step = ((1 << options.bits) - 1.0) / ((1 << bits) - 1.0);
  return noise[i] * step * step;
}

FailureOr<bool> WeightSearch::search(const Target &target) {
  FailureOr<Figures> now = choiceFigures();
  if (failed(now))
    return failure();
  known.reset();
  // The best widening: most modelled noise removed per byte added.
  auto best = [&]() -> std::optional<size_t> {
    std::optional<size_t> found;
    double bestRatio = -1;
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::optional<int64_t> next = wider(widths[i]);
      if (fixed[i] || !next)
        continue;
      double removed = noiseOf(i, widths[i]) - noiseOf(i, *next);
      double added =
          std::max<int64_t>(bytesOf(i, *next) - bytesOf(i, widths[i]), 1);
      if (removed / added > bestRatio) {
        bestRatio = removed / added;
        found = i;
      }
    }
    return found;
  };
  // (node, its width before) for each widening, in order.
  std::vector<std::pair<size_t, int64_t>> widened;
  auto widen = [&](size_t i) {
    widened.push_back({i, widths[i]});
    widths[i] = *wider(widths[i]);
  };
  if (!target.metBy(*now)) {
    if (noise.empty() && failed(measureShares()))
      return failure();
    // An SQNR target: as many widenings as the model says, scaled to the
    // measured noise, then measured (the model says nothing of perplexity,
    // whose widenings are each measured below).
    if (!target.rise) {
      double allowed = std::pow(10.0, -target.sqnrDB / 10);
      double measured =
          std::pow(10.0, -std::min(now->pooledDB, now->lowDecileDB) / 10);
      double modelled = 0;
      for (size_t i = 0; i < nodes.size(); ++i)
        modelled += noiseOf(i, widths[i]);
      double scale = modelled > 0 ? measured / modelled : 1.0;
      double left = measured;
      while (left > allowed) {
        std::optional<size_t> i = best();
        if (!i)
          break;
        left -=
            scale * (noiseOf(*i, widths[*i]) - noiseOf(*i, *wider(widths[*i])));
        widen(*i);
      }
      if (failed(now = measure(Fold::Choose)))
        return failure();
    }
    while (!target.metBy(*now)) {
      std::optional<size_t> i = best();
      if (!i)
        return false;
      widen(*i);
      if (failed(now = measure(Fold::Choose)))
        return failure();
    }
  }
  // Narrow back, latest widening first, where the target still holds.
  for (auto it = widened.rbegin(); it != widened.rend(); ++it) {
    int64_t kept = widths[it->first];
    widths[it->first] = it->second;
    FailureOr<Figures> narrower = measure(Fold::Choose);
    if (failed(narrower))
      return failure();
    if (target.metBy(*narrower))
      now = narrower;
    else
      widths[it->first] = kept;
  }
  report.chosenDB = now->pooledDB;
  report.chosenLowDecileDB = now->lowDecileDB;
  report.chosenRise = now->perplexityRise();
  report.chosenRiseBound = now->perplexityRiseBound();
  report.floatPerplexity = now->floatPerplexity();
  report.chooseTokens = now->tokens;
  known = *now;
  return true;
}

void WeightSearch::finish() {
  report.bytes = report.narrowestBytes = report.floatBytes = 0;
  SmallVector<NamedAttribute> entries;
  Builder builder(module.getContext());
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].bits = widths[i];
    nodes[i].fixed = fixed[i];
    nodes[i].bytes = bytesOf(i, widths[i]);
    report.bytes += nodes[i].bytes;
    report.narrowestBytes += bytesOf(i, fixed[i] ? widths[i] : options.bits);
    report.floatBytes += bytesOf(i, 0);
    entries.push_back(builder.getNamedAttr(
        nodes[i].node, builder.getI64IntegerAttr(widths[i])));
  }
  report.nodes = nodes;
  for (auto func : module.getOps<func::FuncOp>())
    func->setAttr(edge::kWeightBitsAttr, builder.getDictionaryAttr(entries));
}

} // namespace

std::string WeightPrecisionReport::weightBitsFlag() const {
  std::string flag;
  for (const Node &node : nodes) {
    if (!flag.empty())
      flag += ",";
    flag += node.node + "=" + std::to_string(node.bits);
  }
  return flag;
}

llvm::json::Value WeightPrecisionReport::toJSON() const {
  llvm::json::Array rows;
  for (const Node &node : nodes)
    rows.push_back(
        llvm::json::Object{{"node", node.node},
                           {"k", node.k},
                           {"n", node.n},
                           {"matmuls", node.matmuls},
                           {"bits", node.bits},
                           {"fixed", node.fixed},
                           {"alone_sqnr_db", jsonDecibels(node.aloneDB)},
                           {"bytes", node.bytes}});
  llvm::json::Object o{
      {"target_sqnr_db", targetSqnrDB},
      {"margin_db", marginDB},
      {"narrowest_sqnr_db", jsonDecibels(narrowestDB)},
      {"narrowest_sqnr_p10_db", jsonDecibels(narrowestLowDecileDB)},
      {"sqnr_db", jsonDecibels(chosenDB)},
      {"sqnr_p10_db", jsonDecibels(chosenLowDecileDB)},
      {"choice_samples", chooseSamples},
      {"check_samples", checkSamples},
      {"bytes", bytes},
      {"narrowest_bytes", narrowestBytes},
      {"f32_bytes", floatBytes},
      {"programs", programs},
      {"random_samples", randomSamples},
      {"weight_bits", weightBitsFlag()},
      {"nodes", std::move(rows)}};
  if (checkDB)
    o["check_sqnr_db"] = jsonDecibels(*checkDB);
  if (checkLowDecileDB)
    o["check_sqnr_p10_db"] = jsonDecibels(*checkLowDecileDB);
  if (targetPerplexityRise) {
    // Percentages of the float model's perplexity on the same samples.
    o.erase("target_sqnr_db");
    o.erase("margin_db");
    o["target_perplexity_rise_pct"] = 100 * *targetPerplexityRise;
    o["margin_pct"] = 100 * marginDB;
    o["perplexity_rise_pct"] = 100 * chosenRise;
    o["perplexity_rise_bound_pct"] = 100 * chosenRiseBound;
    o["narrowest_perplexity_rise_pct"] = 100 * narrowestRise;
    o["float_perplexity"] = floatPerplexity;
    o["choice_tokens"] = chooseTokens;
    if (checkRise) {
      o["check_perplexity_rise_pct"] = 100 * *checkRise;
      o["check_float_perplexity"] = checkFloatPerplexity;
      o["check_tokens"] = checkTokens;
    }
  }
  return o;
}

void WeightPrecisionReport::print(llvm::raw_ostream &os) const {
  int64_t counts[3] = {0, 0, 0};
  for (const Node &node : nodes)
    ++counts[node.bits == 4 ? 0 : node.bits == 8 ? 1 : 2];
  if (targetPerplexityRise)
    os << llvm::format("weight precision (target perplexity at most %.3f%% "
                       "over the float model's): ",
                       100 * *targetPerplexityRise);
  else
    os << llvm::format("weight precision (target output SQNR >= %.1f dB): ",
                       targetSqnrDB);
  os << counts[0] << " matmuls int4, " << counts[1] << " int8, " << counts[2]
     << " f32; weights "
     << llvm::format("%.3f MB (all narrowest %.3f MB, f32 %.3f MB)",
                     bytes / 1e6, narrowestBytes / 1e6, floatBytes / 1e6);
  if (targetPerplexityRise) {
    os << llvm::format("; perplexity on %lld choice samples (%lld labelled "
                       "tokens) %+.4f%% over the float model's %.4f, at most "
                       "%+.4f%% at 90%% confidence (all narrowest %+.4f%%)",
                       static_cast<long long>(chooseSamples),
                       static_cast<long long>(chooseTokens), 100 * chosenRise,
                       floatPerplexity, 100 * chosenRiseBound,
                       100 * narrowestRise);
    if (checkRise)
      os << llvm::format("; on %lld held-out samples (%lld tokens) %+.4f%% "
                         "over %.4f",
                         static_cast<long long>(checkSamples),
                         static_cast<long long>(checkTokens), 100 * *checkRise,
                         checkFloatPerplexity);
    else
      os << "; no held-out samples (fewer than 4 in all)";
    if (marginDB > 0)
      os << llvm::format(" (chosen for %.3f%% on the choice samples)",
                         100 * std::max(*targetPerplexityRise - marginDB, 0.0));
  } else {
    os << llvm::format("; output SQNR on %lld choice samples %.2f dB, 10th "
                       "percentile sample %.2f dB (all narrowest %.2f dB)",
                       static_cast<long long>(chooseSamples), chosenDB,
                       chosenLowDecileDB, narrowestDB);
    if (checkDB)
      os << llvm::format("; on %lld held-out samples %.2f dB, %.2f dB",
                         static_cast<long long>(checkSamples), *checkDB,
                         checkLowDecileDB.value_or(*checkDB));
    else
      os << "; no held-out samples (fewer than 4 in all)";
    if (marginDB > 0)
      os << llvm::format(" (chosen for %.2f dB on the choice samples)",
                         targetSqnrDB + marginDB);
  }
  os << "; " << programs << " programs run\n";
  if (randomSamples)
    os << "  note: judged on seeded random samples; real inputs may land "
          "under the target (give samples of them)\n";
  for (const Node &node : nodes)
    if (node.bits != 4)
      os << "  " << (node.bits == 0 ? "f32 " : "int8") << " " << node.node
         << llvm::format(" [%lld x %lld]", static_cast<long long>(node.k),
                         static_cast<long long>(node.n))
         << (node.fixed ? " (--weight-bits)"
                        : llvm::formatv(" (alone at the narrowest {0:f2} dB)",
                                        node.aloneDB)
                              .str())
         << "\n";
  os << "  as a flag: --weight-bits " << weightBitsFlag() << "\n";
}

FailureOr<WeightPrecisionReport>
chooseWeightPrecision(ModuleOp module, const WeightPrecisionOptions &options,
                      const CompileOptions &base) {
  bool perplexity = options.targetPerplexityRise.has_value();
  StringRef what =
      perplexity ? "--weight-target-perplexity" : "--weight-target-sqnr";
  WeightPrecisionReport report;
  report.targetSqnrDB = options.targetSqnrDB;
  report.targetPerplexityRise = options.targetPerplexityRise;
  std::vector<Extents> extents;
  FailureOr<std::vector<Node>> nodes =
      findMatmuls(module, options, base, what, extents);
  if (failed(nodes))
    return failure();
  if (nodes->empty())
    return module.emitError() << what
                              << ": the model has no matmul by a constant f32 "
                                 "weight to quantize";
  CalibrationOptions calibration = options.calibration;
  calibration.progress = false;
  FailureOr<std::unique_ptr<OutputSQNR>> judge =
      OutputSQNR::create(module, what, calibration, base);
  if (failed(judge))
    return failure();
  if (perplexity && failed((*judge)->setLabels(options.labelsPath, what)))
    return failure();
  report.randomSamples = runtime::isRandomSpec(calibration.dataPath);
  report.chooseSamples = (*judge)->foldSize(Fold::Choose);
  report.checkSamples = (*judge)->foldSize(Fold::Check);
  WeightSearch search(module, options, **judge, std::move(*nodes),
                      std::move(extents), report);
  if (failed(search.start()))
    return failure();
  FailureOr<Figures> narrowest = search.choiceFigures();
  if (failed(narrowest))
    return failure();
  report.narrowestDB = narrowest->pooledDB;
  report.narrowestLowDecileDB = narrowest->lowDecileDB;
  report.narrowestRise = narrowest->perplexityRise();
  // The target on the choice samples: raised by the margin (dB), or, for
  // a perplexity, lowered by it (a fraction), never under no rise at all.
  auto onChoice = [&]() {
    Target target;
    target.sqnrDB = options.targetSqnrDB + report.marginDB;
    if (perplexity)
      target.rise =
          std::max(*options.targetPerplexityRise - report.marginDB, 0.0);
    target.bound = true;
    return target;
  };
  Target wanted;
  wanted.sqnrDB = options.targetSqnrDB;
  wanted.rise = options.targetPerplexityRise;
  std::string targetText =
      perplexity ? llvm::formatv("a perplexity rise of {0:f3}%",
                                 100 * *options.targetPerplexityRise)
                       .str()
                 : llvm::formatv("{0:f1} dB", options.targetSqnrDB).str();
  // A choice that the check samples do not confirm raises the target on
  // the choice samples by their shortfall; each round only widens.
  for (int round = 0;; ++round) {
    FailureOr<bool> met = search.search(onChoice());
    if (failed(met))
      return failure();
    if (!*met)
      return module.emitError()
             << what << ": " << targetText
             << " is not met on the calibration samples even with every "
                "searched matmul in f32 (the nodes --weight-bits fixes "
                "cost too much)";
    if (report.checkSamples == 0)
      break;
    FailureOr<Figures> check = search.measure(Fold::Check);
    if (failed(check))
      return failure();
    report.checkDB = check->pooledDB;
    report.checkLowDecileDB = check->lowDecileDB;
    if (perplexity) {
      report.checkRise = check->perplexityRise();
      report.checkFloatPerplexity = check->floatPerplexity();
      report.checkTokens = check->tokens;
      if (!std::isfinite(*report.checkRise))
        return module.emitError()
               << what
               << ": the chosen program's perplexity on the held-out "
                  "calibration samples is not finite (its logits overflow)";
    }
    if (wanted.metBy(*check))
      break;
    if (round + 1 == OutputSQNR::kCheckRounds)
      return module.emitError()
             << what << ": the choice misses " << targetText
             << " on the held-out calibration samples after "
             << OutputSQNR::kCheckRounds
             << " rounds (the samples disagree too much: give more)";
    if (perplexity)
      // The shortfall and a twentieth of the target, at most the target.
      report.marginDB = std::min(report.marginDB + *report.checkRise -
                                     *options.targetPerplexityRise +
                                     0.05 * *options.targetPerplexityRise,
                                 *options.targetPerplexityRise);
    else
      report.marginDB = OutputSQNR::raisedMargin(
          report.marginDB, options.targetSqnrDB,
          std::min(check->pooledDB, check->lowDecileDB));
  }
  search.finish();
  return report;
}

} // namespace strata
