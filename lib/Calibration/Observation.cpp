//===- Observation.cpp - the float model run over calibration data --------===//
#include "Observation.h"

#include "Exec/IR/ExecOps.h"
#include "HL/IR/HLOps.h"
#include "strata/Calibration/Calibrate.h"
#include "strata/Calibration/Execute.h"
#include "strata/Pipelines/CompileOptions.h"
#include "strata/Runtime/SampleSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Process.h"

#include <optional>

using namespace mlir;

namespace strata {
namespace {

using runtime::DType;
using runtime::OwnedTensor;

/// The number of random samples when --calibration-samples gives none.
constexpr int64_t kRandomSamples = 16;

} // namespace

Progress::Progress(bool enabled, int64_t total)
    : enabled(enabled && llvm::sys::Process::StandardErrIsDisplayed()),
      total(total) {}

void Progress::update(StringRef what, int64_t done) {
  if (!enabled)
    return;
  int width = 30, filled = total ? static_cast<int>(width * done / total) : 0;
  llvm::errs() << "\r" << what << " [" << std::string(filled, '#')
               << std::string(width - filled, '.') << "] " << done << "/"
               << total;
  if (done == total)
    llvm::errs() << "\n";
}

struct ObservationRun::State {
  std::unique_ptr<ProgramSession> session;
  std::optional<runtime::SampleSource> source;
  int64_t samples = 0;
  size_t firstObserved = 0;
  size_t observed = 0;
  bool progress = true;
};

ObservationRun::ObservationRun() : state(std::make_unique<State>()) {}
ObservationRun::~ObservationRun() = default;

/// Moves the body of `group` in front of it and replaces the group by the
/// values its body yields (the values keep their identity).
static void inlineGroup(hl::FusedOp group) {
  Block &body = group.getBody().front();
  for (auto [arg, input] :
       llvm::zip_equal(body.getArguments(), group.getInputs()))
    arg.replaceAllUsesWith(input);
  Operation *yield = body.getTerminator();
  group->replaceAllUsesWith(yield->getOperands());
  yield->erase();
  group->getBlock()->getOperations().splice(group->getIterator(),
                                            body.getOperations());
  group->erase();
}

FailureOr<std::unique_ptr<ObservationRun>> ObservationRun::create(
    ModuleOp module, ArrayRef<Value> values, const CalibrationOptions &options,
    const CompileOptions &base, ArrayRef<Value> keepPairs,
    const std::optional<CompileOptions::QuantizeWeights> &weights) {
  if (options.dataPath.empty())
    return module.emitError("quantization needs calibration data "
                            "(--calibration-data DIR|file.npy)");
  std::unique_ptr<ObservationRun> result(new ObservationRun());
  result->module = module;
  State &state = *result->state;
  state.progress = options.progress;
  state.observed = values.size();

  // The float program (but for the pairs kept) with every observed value as
  // an extra output.
  IRMapping mapping;
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone(mapping)));
  llvm::DenseSet<Value> kept;
  for (Value qcast : keepPairs)
    kept.insert(mapping.lookup(qcast));
  SmallVector<Operation *> pairs;
  copy->walk([&](mlir::quant::DequantizeCastOp dcast) {
    auto qcast = dcast.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>();
    if (!qcast || kept.contains(qcast.getResult()))
      return;
    dcast.getResult().replaceAllUsesWith(qcast.getArg());
    pairs.push_back(dcast);
  });
  for (Operation *op : pairs) {
    Operation *qcast = op->getOperand(0).getDefiningOp();
    op->erase();
    if (qcast->use_empty())
      qcast->erase();
  }
  bool first = true;
  for (Value value : values) {
    Value observed = mapping.lookup(value);
    // A value inside fused groups (attention's softmax probabilities): the
    // groups holding it are inlined in the copy, as lowering would.
    while (auto group = dyn_cast_or_null<hl::FusedOp>(
               observed.getParentRegion()->getParentOp()))
      inlineGroup(group);
    auto func = observed.getParentRegion()->getParentOfType<func::FuncOp>();
    if (!func || observed.getParentRegion() != &func.getBody()) {
      if (Operation *op = value.getDefiningOp())
        return op->emitError("a value to observe must be computed in the "
                             "function body");
      return module.emitError("a value to observe must be computed in the "
                              "function body");
    }
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    if (first)
      state.firstObserved = ret.getNumOperands();
    first = false;
    unsigned index = func.getNumResults();
    func.insertResult(index, observed.getType(), DictionaryAttr());
    ret->insertOperands(ret.getNumOperands(), observed);
  }
  CompileOptions lowering = referenceOptions(base);
  lowering.quantizeWeights = weights;
  lowering.printIRAfterAll = false;
  CompileReport ignored;
  if (failed(lowerToExec(*copy, lowering, ignored, EmitKind::Program)))
    return module.emitError("cannot compile the calibration program");
  std::string bytes;
  {
    llvm::raw_string_ostream os(bytes);
    auto programs = copy->getOps<exec::ProgramOp>();
    if (programs.empty() ||
        failed(emitProgram(*programs.begin(), os, lowering.emitOptions)))
      return module.emitError("cannot emit the calibration program");
  }
  runtime::Result<std::unique_ptr<ProgramSession>> session =
      ProgramSession::open(std::move(bytes));
  if (!session.ok())
    return module.emitError("calibration program: ")
           << session.error().message();
  state.session = std::move(*session);
  std::vector<runtime::InputSpec> specs;
  for (size_t i = 0; i < state.session->inputCount(); ++i) {
    runtime::Result<runtime::TensorView> view = state.session->input(i);
    if (!view.ok())
      return module.emitError(view.error().message());
    specs.push_back({view->dtype, view->shape});
  }
  // `random` is uniform in [0, 1) here; sample i draws from
  // seed * 0x9E3779B97F4A7C15 + i, so that seeds 0 and 1 share no samples.
  runtime::SampleSourceOptions sourceOptions;
  sourceOptions.random = runtime::RandomDistribution::calibrationDefault();
  sourceOptions.seed = options.seed * 0x9E3779B97F4A7C15ull;
  sourceOptions.randomSamples =
      options.maxSamples > 0 ? options.maxSamples : kRandomSamples;
  runtime::Result<runtime::SampleSource> source =
      runtime::SampleSource::open(options.dataPath, specs, sourceOptions);
  if (!source.ok())
    return module.emitError("calibration data: ") << source.error().message();
  state.source.emplace(std::move(*source));
  state.samples = state.source->size();
  if (options.maxSamples > 0)
    state.samples = std::min(state.samples, options.maxSamples);
  if (state.samples == 0)
    return module.emitError("calibration data '")
           << options.dataPath << "' holds no samples";
  return result;
}

int64_t ObservationRun::samples() const { return state->samples; }

LogicalResult
ObservationRun::pass(StringRef label,
                     function_ref<void(size_t, const float *, size_t)> visit) {
  Progress progress(state->progress, state->samples);
  for (int64_t s = 0; s < state->samples; ++s) {
    if (failed(sample(s, visit)))
      return failure();
    progress.update(label, s + 1);
  }
  return success();
}

LogicalResult ObservationRun::sample(
    int64_t index, function_ref<void(size_t, const float *, size_t)> visit) {
  runtime::Result<std::vector<OwnedTensor>> inputs = state->source->get(index);
  if (!inputs.ok())
    return module.emitError("calibration sample ")
           << index << ": " << inputs.error().message();
  if (runtime::Error e = state->session->run(*inputs); !e.ok())
    return module.emitError("calibration sample ")
           << index << ": " << e.message();
  for (size_t k = 0; k < state->observed; ++k) {
    runtime::Result<runtime::TensorView> out =
        state->session->output(state->firstObserved + k);
    if (!out.ok())
      return module.emitError(out.error().message());
    if (out->dtype != DType::F32)
      return module.emitError("observed value ")
             << k << " is " << runtime::dtypeName(out->dtype) << ", not f32";
    visit(k, static_cast<const float *>(out->data),
          static_cast<size_t>(out->numel()));
  }
  return success();
}

} // namespace strata
