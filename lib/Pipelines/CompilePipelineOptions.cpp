//===- CompilePipelineOptions.cpp - the pipeline's options, resolved ------===//
//
// CompilePipelineOptions as strata-compile and strata-opt spell them become
// a CompileOptions here, once: the options that need others are checked
// against one table, backend names against the registry, compile specs
// routed to their delegates.
//
//===----------------------------------------------------------------------===//
#include "strata/Pipelines/CompilePipeline.h"

#include "Edge/Transforms/Passes.h"
#include "strata/Backends/Backend.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir;
using llvm::Error;

namespace strata {

bool CompilePipelineOptions::given(StringRef name) const {
  auto it = OptionsMap.find(name);
  return it != OptionsMap.end() && it->second->getNumOccurrences() > 0;
}

void CompilePipelineOptions::exposeOnCommandLine(
    llvm::cl::OptionCategory &general, llvm::cl::OptionCategory &quantization) {
  // Registering an option twice on one command line aborts.
  if (exposed)
    return;
  exposed = true;
  std::vector<llvm::cl::Option *> all;
  for (auto &entry : OptionsMap)
    all.push_back(entry.second);
  for (llvm::cl::Option *option : all) {
    StringRef name = option->ArgStr;
    bool isQuantization =
        name.starts_with("quantize") || name.starts_with("calibration") ||
        name.starts_with("smooth") || name.starts_with("weight-") ||
        name == "bias-correction" || name == "no-progress";
    // Registered in both: the pipeline string's parser still finds it.
    option->removeArgument();
    option->addSubCommand(llvm::cl::SubCommand::getTopLevel());
    option->addCategory(isQuantization ? quantization : general);
    option->addArgument();
  }
}

namespace {

Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Moves the value of `expected` into `out`, or returns its error.
template <typename T, typename U>
Error assign(llvm::Expected<T> expected, U &out) {
  if (!expected)
    return expected.takeError();
  out = std::move(*expected);
  return Error::success();
}

/// One line of the table of which options need which: when `given` holds,
/// `met` must, else the error is `message`.
struct Requirement {
  bool (*given)(const CompilePipelineOptions &);
  bool (*met)(const CompilePipelineOptions &);
  const char *message;
};

bool quantizing(const CompilePipelineOptions &o) { return o.quantize; }
bool mixedPrecision(const CompilePipelineOptions &o) {
  return o.given("quantize-target-sqnr") ||
         o.given("quantize-target-accuracy-drop");
}
bool smoothing(const CompilePipelineOptions &o) {
  // --smooth-alpha alone asks for SmoothQuant too.
  return o.smooth || o.given("smooth-alpha");
}

const Requirement kRequirements[] = {
    {[](const CompilePipelineOptions &o) { return o.given("quantize-scales"); },
     quantizing, "--quantize-scales needs --quantize"},
    {[](const CompilePipelineOptions &o) { return bool(o.biasCorrection); },
     quantizing, "--bias-correction needs --quantize"},
    {[](const CompilePipelineOptions &o) {
       return bool(o.quantizeSensitivity);
     },
     quantizing, "--quantize-sensitivity needs --quantize"},
    {smoothing, quantizing, "--smooth and --smooth-alpha need --quantize"},
    {mixedPrecision, quantizing,
     "--quantize-target-sqnr and --quantize-target-accuracy-drop need "
     "--quantize"},
    {[](const CompilePipelineOptions &o) {
       return o.given("quantize-target-accuracy-drop");
     },
     [](const CompilePipelineOptions &o) {
       return !o.quantizeEvalData.empty() && !o.quantizeEvalLabels.empty();
     },
     "--quantize-target-accuracy-drop needs labelled data: "
     "--quantize-eval-data and --quantize-eval-labels"},
    {[](const CompilePipelineOptions &o) {
       return !o.quantizeEvalData.empty() || !o.quantizeEvalLabels.empty();
     },
     mixedPrecision,
     "--quantize-eval-data and --quantize-eval-labels are for "
     "--quantize-target-sqnr and --quantize-target-accuracy-drop"},
    {[](const CompilePipelineOptions &o) {
       return !o.quantizeEvalLabels.empty();
     },
     [](const CompilePipelineOptions &o) {
       return !o.quantizeEvalData.empty();
     },
     "--quantize-eval-labels needs --quantize-eval-data"},
    {quantizing,
     [](const CompilePipelineOptions &o) { return !o.calibrationData.empty(); },
     "--quantize needs --calibration-data"},
    {[](const CompilePipelineOptions &o) {
       return o.given("weight-group-size") || !o.weightBits.empty() ||
              !o.weightActivations.empty();
     },
     [](const CompilePipelineOptions &o) { return !o.quantizeWeights.empty(); },
     "--weight-group-size, --weight-bits and --weight-activations need "
     "--quantize-weights"},
    {[](const CompilePipelineOptions &o) {
       return o.given("weight-target-sqnr");
     },
     [](const CompilePipelineOptions &o) {
       return !o.quantizeWeights.empty() && !o.calibrationData.empty();
     },
     "--weight-target-sqnr needs --quantize-weights (the narrowest width) "
     "and --calibration-data (the samples it is measured on)"},
    {[](const CompilePipelineOptions &o) {
       return o.given("weight-target-perplexity");
     },
     [](const CompilePipelineOptions &o) {
       return !o.quantizeWeights.empty() && !o.calibrationData.empty() &&
              !o.calibrationLabels.empty();
     },
     "--weight-target-perplexity needs --quantize-weights (the narrowest "
     "width), --calibration-data (the samples it is measured on) and "
     "--calibration-labels (their next tokens)"},
    {[](const CompilePipelineOptions &o) {
       return o.given("weight-target-perplexity");
     },
     [](const CompilePipelineOptions &o) {
       return !o.given("weight-target-sqnr") && !o.quantize;
     },
     "--weight-target-perplexity and --weight-target-sqnr are two targets "
     "for one choice: give one (and no --quantize)"},
    {[](const CompilePipelineOptions &o) {
       return !o.calibrationLabels.empty();
     },
     [](const CompilePipelineOptions &o) {
       return o.given("weight-target-perplexity");
     },
     "--calibration-labels is read by --weight-target-perplexity"},
    {[](const CompilePipelineOptions &o) {
       return o.given("weight-target-sqnr");
     },
     [](const CompilePipelineOptions &o) { return !o.quantize; },
     "--weight-target-sqnr chooses weight widths with f32 activations; "
     "with --quantize, --quantize-target-sqnr chooses what stays float"},
    {[](const CompilePipelineOptions &o) {
       return !o.tune.empty() && !o.tuning.empty();
     },
     [](const CompilePipelineOptions &) { return false; },
     "--tune writes the tuning file and --tuning reads one; give one of "
     "them"},
};

/// The ranges of the numeric options.
Error checkRanges(const CompilePipelineOptions &o) {
  if (o.given("quantize-target-accuracy-drop") &&
      !(o.quantizeTargetAccuracyDrop >= 0 &&
        o.quantizeTargetAccuracyDrop <= 100))
    return fail("--quantize-target-accuracy-drop must be in [0, 100] "
                "percentage points");
  if (!o.quantizeWeights.empty() && o.quantizeWeights != "int4" &&
      o.quantizeWeights != "int8")
    return fail("--quantize-weights must be int4 or int8, got '" +
                o.quantizeWeights + "'");
  if (!o.weightActivations.empty() && o.weightActivations != "f32" &&
      o.weightActivations != "int8")
    return fail("--weight-activations must be f32 or int8, got '" +
                o.weightActivations + "'");
  if (o.weightActivations == "int8" && o.weightGroupSize > 32768)
    return fail("--weight-group-size must be at most 32768 with "
                "--weight-activations int8 (int32 sums per group)");
  if (o.weightGroupSize < 8 || o.weightGroupSize % 8 != 0 ||
      o.weightGroupSize > (int64_t(1) << 20))
    return fail("--weight-group-size must be a multiple of 8 in [8, 2^20], "
                "got " +
                std::to_string(o.weightGroupSize));
  for (const std::string &entry : o.weightBits) {
    if (!edge::parseNodeBits(entry))
      return fail("--weight-bits takes NODE=BITS with BITS 4, 8 or 0, got '" +
                  entry + "'");
  }
  if (o.given("weight-target-sqnr") &&
      !std::isfinite(o.weightTargetSqnr.getValue()))
    return fail("--weight-target-sqnr must be a finite number of dB");
  if (o.given("weight-target-perplexity") &&
      !(o.weightTargetPerplexity.getValue() >= 0 &&
        o.weightTargetPerplexity.getValue() <= 1000))
    return fail("--weight-target-perplexity must be a percentage from 0 to "
                "1000");
  if (o.given("quantize-target-sqnr") &&
      !std::isfinite(o.quantizeTargetSqnr.getValue()))
    return fail("--quantize-target-sqnr must be a finite number of dB");
  if (!(o.smoothAlpha >= 0 && o.smoothAlpha <= 1)) {
    std::string alpha;
    llvm::raw_string_ostream(alpha)
        << llvm::format("%g", o.smoothAlpha.getValue());
    return fail("--smooth-alpha must be in [0, 1], got " + alpha);
  }
  if (o.quantize &&
      !(o.calibrationPercentile > 0 && o.calibrationPercentile <= 100))
    return fail("--calibration-percentile must be in (0, 100]");
  bool symmetric = o.quantizeActivations == ActivationQuantization::Symmetric;
  if (o.quantize && !symmetric &&
      (o.calibrationMethod == quantization::CalibrationMethod::Entropy ||
       o.calibrationMethod == quantization::CalibrationMethod::MSE))
    return fail("--calibration-method " +
                llvm::Twine(quantization::stringifyCalibrationMethod(
                    o.calibrationMethod)) +
                " picks a symmetric threshold; use minmax or percentile "
                "with asymmetric activations");
  return Error::success();
}

const Backend *findBackend(const std::vector<Backend> &all, StringRef name) {
  for (const Backend &b : all)
    if (b.getName() == name)
      return &b;
  return nullptr;
}

/// The delegates of `--backend a,b,...`: `first` (selected, its patterns
/// apply) when it has one, then each later name, which must name a
/// delegate backend not listed before.
llvm::Expected<std::vector<const Backend *>>
delegateList(const std::vector<Backend> &all, const Backend &first,
             ArrayRef<StringRef> names, StringRef spelled) {
  std::vector<const Backend *> list;
  if (first.getHooks().delegates())
    list.push_back(&first);
  llvm::StringSet<> seen;
  for (StringRef name : names.drop_front(names.size() == 1 ? 1 : 0)) {
    if (!seen.insert(name).second)
      return fail("--backend " + spelled + " names '" + name + "' twice");
    if (name == first.getName())
      continue;
    const Backend *found = findBackend(all, name);
    if (!found || !found->getHooks().delegates())
      return fail("--backend " + spelled + ": '" + name +
                  "' is not a backend with a delegate (--list-backends)");
    list.push_back(found);
  }
  return list;
}

/// --backend-option items by backend: BACKEND:KEY=VALUE goes to that
/// backend; KEY=VALUE to the one backend of a list of one (its own check
/// names an unknown key), else to every listed backend that declares KEY
/// (none: an error naming each one's keys).
llvm::Expected<std::map<std::string, CompileSpecs>>
routeCompileSpecs(ArrayRef<std::string> items,
                  ArrayRef<const Backend *> backends) {
  std::map<std::string, std::vector<std::string>> perBackend;
  for (const std::string &item : items) {
    size_t colon = item.find(':'), eq = item.find('=');
    if (colon != std::string::npos && colon < eq) {
      std::string name = item.substr(0, colon);
      if (!llvm::any_of(backends,
                        [&](const Backend *b) { return b->getName() == name; }))
        return fail("--backend-option " + item + ": '" + name +
                    "' is not a listed delegate backend");
      perBackend[name].push_back(item.substr(colon + 1));
      continue;
    }
    if (backends.size() == 1) {
      perBackend[backends.front()->getName()].push_back(item);
      continue;
    }
    std::string key = item.substr(0, eq), known;
    bool taken = false;
    for (const Backend *b : backends) {
      known += (known.empty() ? "" : "; ") + b->getName() + ":";
      for (const CompileSpecInfo &spec : b->getHooks().compileSpecs) {
        known += " " + spec.name;
        if (spec.name == key) {
          perBackend[b->getName()].push_back(item);
          taken = true;
        }
      }
    }
    if (!taken)
      return fail("no listed backend has compile spec '" + key +
                  "' (known: " + known + ")");
  }
  std::map<std::string, CompileSpecs> specs;
  for (const auto &[name, list] : perBackend) {
    std::string error;
    FailureOr<CompileSpecs> parsed = parseCompileSpecs(list, error);
    if (failed(parsed))
      return fail("bad --backend-option: " + error);
    specs[name] = std::move(*parsed);
  }
  return specs;
}

/// The quantization options of `o` (valid: checked before).
CompileOptions::Quantize quantizeOptions(const CompilePipelineOptions &o) {
  CompileOptions::Quantize q;
  bool symmetric = o.quantizeActivations == ActivationQuantization::Symmetric;
  q.activations = symmetric ? "symmetric" : "asymmetric";
  q.minWeightElements = o.quantizeMinWeightElements;
  q.smoothAlpha = o.smoothAlpha;
  q.biasCorrection = o.biasCorrection;
  q.sensitivity = o.quantizeSensitivity;
  if (o.given("quantize-target-sqnr"))
    q.mixedPrecision.targetSqnrDB = o.quantizeTargetSqnr.getValue();
  if (o.given("quantize-target-accuracy-drop"))
    q.mixedPrecision.targetAccuracyDrop =
        o.quantizeTargetAccuracyDrop.getValue();
  q.mixedPrecision.evalImages = o.quantizeEvalData;
  q.mixedPrecision.evalLabels = o.quantizeEvalLabels;
  q.powerOfTwoScales = o.quantizeScales == ScaleForm::PowerOfTwo;
  q.calibration.powerOfTwoScales = q.powerOfTwoScales;
  q.skipNodes.assign(o.quantizeSkipNodes.begin(), o.quantizeSkipNodes.end());
  q.skipOps.assign(o.quantizeSkipOps.begin(), o.quantizeSkipOps.end());
  q.calibration.dataPath = o.calibrationData;
  q.calibration.method = o.calibrationMethod;
  q.calibration.percentile = o.calibrationPercentile;
  q.calibration.symmetric = symmetric;
  q.calibration.maxSamples = o.calibrationSamples;
  q.calibration.seed = o.calibrationSeed;
  q.calibration.progress = !o.noProgress;
  return q;
}

/// The pattern lists: the selected backend's, or with --quantize those of
/// the backend it takes its QDQ placement from; smooth ones only when
/// smoothing.
llvm::Expected<std::vector<PatternDescriptor>>
patternList(const CompilePipelineOptions &o, const std::vector<Backend> &all,
            const Backend &backend) {
  const Backend *placement = &backend;
  if (o.quantize && !backend.getHooks().quantizeWith.empty())
    if (const Backend *b = findBackend(all, backend.getHooks().quantizeWith))
      placement = b;
  std::vector<PatternDescriptor> patterns = placement->getPatterns(o.quantize);
  if (o.quantize && smoothing(o) && placement->getSmoothPatterns().empty())
    return fail("backend '" + placement->getName() +
                "' has no smooth patterns to say where SmoothQuant applies "
                "(--list-backends; tensorrt has them)");
  if (!smoothing(o))
    llvm::erase_if(patterns, [](const PatternDescriptor &d) {
      return d.info.phase == PatternPhase::Smooth;
    });
  if (o.quantize && placement->getQuantizedPatterns().empty())
    return fail("backend '" + backend.getName() +
                "' has no quantized patterns to say where QDQ pairs go "
                "(--list-backends; tensorrt has them)");
  if (o.patternNames.empty())
    return patterns;
  for (const std::string &name : o.patternNames)
    if (llvm::none_of(patterns, [&](const PatternDescriptor &d) {
          return d.info.name == name;
        }))
      return fail("--patterns: backend '" + placement->getName() +
                  "' has no pattern '" + name + "' (--list-backends lists " +
                  (o.quantize ? "them)"
                              : "them; quantized ones need "
                                "--quantize)"));
  llvm::erase_if(patterns, [&](const PatternDescriptor &d) {
    return !llvm::is_contained(o.patternNames, d.info.name);
  });
  auto hasPhase = [&](PatternPhase phase) {
    return llvm::any_of(patterns, [&](const PatternDescriptor &d) {
      return d.info.phase == phase;
    });
  };
  if (o.quantize && !hasPhase(PatternPhase::Quantized))
    return fail("--patterns names no quantized pattern: --quantize needs one "
                "to say where QDQ pairs go (--list-backends lists them)");
  if (o.quantize && smoothing(o) && !hasPhase(PatternPhase::Smooth))
    return fail("--patterns names no smooth pattern: --smooth needs one to "
                "say where SmoothQuant applies (--list-backends lists them)");
  return patterns;
}

/// The kernel set of a --target-kernels file.
llvm::Expected<std::set<std::string>> readKernelSet(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return fail("cannot read --target-kernels '" + path +
                "': " + file.getError().message());
  std::set<std::string> names;
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      names.insert(line.str());
  }
  return names;
}

/// The delegates, their compile specs and the partitioner's options.
Error resolveDelegation(const CompilePipelineOptions &o,
                        const std::vector<Backend> &all, const Backend &backend,
                        ArrayRef<StringRef> names, CompileOptions &options) {
  if (Error e = assign(delegateList(all, backend, names, o.backend),
                       options.delegateBackends))
    return e;
  if (options.delegateBackends.empty() &&
      (!o.backendOptions.empty() || o.requireDelegated || !o.tune.empty() ||
       !o.tuning.empty() || !o.partitionCalibration.empty()))
    return fail("backend '" + backend.getName() +
                "' has no delegate (--backend-option, --require-delegated, "
                "--tune, --tuning and --partition-calibration need one)");
  std::vector<std::string> items(o.backendOptions.begin(),
                                 o.backendOptions.end());
  if (!o.tune.empty())
    items.insert(items.end(), {"tune=true", "tuning_file=" + o.tune});
  if (!o.tuning.empty())
    items.push_back("tuning_file=" + o.tuning);
  if (Error e = assign(routeCompileSpecs(items, options.delegateBackends),
                       options.compileSpecs))
    return e;
  options.requireDelegated = o.requireDelegated;
  options.partitionCost = o.partitionCost;
  options.partitionCalibrationFile = o.partitionCalibration;
  return Error::success();
}

} // namespace

void omitCalibrationData(CompilePipelineOptions &pipeline, EmitKind stopAt) {
  if ((stopAt == EmitKind::Plan || stopAt == EmitKind::MLIRHLTransformed) &&
      pipeline.quantize && pipeline.calibrationData.empty())
    pipeline.calibrationData = "random-normal";
}

Error resolveCompileOptions(const CompilePipelineOptions &o,
                            CompileOptions &options) {
  for (const Requirement &r : kRequirements)
    if (r.given(o) && !r.met(o))
      return fail(r.message);
  if (Error e = checkRanges(o))
    return e;
  SmallVector<StringRef> names;
  StringRef(o.backend).split(names, ',');
  llvm::Expected<const Backend &> backend = lookupBackend(names.front());
  if (!backend)
    return backend.takeError();
  llvm::Expected<const std::vector<Backend> &> all = discoverBackends();
  if (!all)
    return all.takeError();
  if (Error e = assign(patternList(o, *all, *backend), options.patterns))
    return e;
  if (o.quantize)
    options.quantize = quantizeOptions(o);
  if (!o.quantizeWeights.empty())
    options.quantizeWeights = CompileOptions::QuantizeWeights{
        o.quantizeWeights == "int8" ? 8 : 4, o.weightGroupSize,
        std::vector<std::string>(o.weightBits.begin(), o.weightBits.end()),
        o.weightActivations == "int8" ? 8 : 0};
  if (o.given("weight-target-sqnr") || o.given("weight-target-perplexity")) {
    WeightPrecisionOptions w;
    if (o.given("weight-target-perplexity")) {
      w.targetPerplexityRise = o.weightTargetPerplexity.getValue() / 100;
      w.labelsPath = o.calibrationLabels;
    } else {
      w.targetSqnrDB = o.weightTargetSqnr.getValue();
    }
    w.bits = options.quantizeWeights->bits;
    w.groupSize = options.quantizeWeights->groupSize;
    w.nodeBits = options.quantizeWeights->nodeBits;
    w.activationBits = options.quantizeWeights->activationBits;
    w.calibration.dataPath = o.calibrationData;
    w.calibration.maxSamples = o.calibrationSamples;
    w.calibration.seed = o.calibrationSeed;
    w.calibration.progress = !o.noProgress;
    options.weightPrecision = std::move(w);
  }
  if (Error e = resolveDelegation(o, *all, *backend, names, options))
    return e;
  if (!o.targetKernels.empty())
    if (Error e = assign(readKernelSet(o.targetKernels), options.targetKernels))
      return e;
  options.planIn = o.planIn;
  options.planOut = o.planOut;
  options.bufferAlignment = o.bufferAlignment;
  options.programName = o.programName;
  options.statePairs.assign(o.statePairs.begin(), o.statePairs.end());
  options.stateInPlace = o.stateInPlace;
  return Error::success();
}

} // namespace strata
