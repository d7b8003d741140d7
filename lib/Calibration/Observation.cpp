//===- Observation.cpp - the float model run over calibration data --------===//
#include "Observation.h"

#include "Exec/IR/ExecOps.h"
#include "HL/IR/HLOps.h"
#include "strata/Calibration/Calibrate.h"
#include "strata/Pipelines/CompileOptions.h"
#include "strata/Calibration/Execute.h"
#include "strata/Runtime/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <random>

using namespace mlir;

namespace strata {
namespace {

using runtime::DType;
using runtime::OwnedTensor;

/// The calibration samples, read one at a time.
class SampleSource {
public:
  struct InputSpec {
    DType dtype;
    std::vector<int64_t> shape;
    int64_t numel() const {
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      return n;
    }
  };

  /// The default number of random samples.
  static constexpr int64_t kRandomSamples = 16;

  LogicalResult open(StringRef path, std::vector<InputSpec> specs,
                     std::string &error, int64_t maxSamples = 0,
                     uint64_t seed = 0) {
    inputs = std::move(specs);
    if (path == "random" || path == "random-normal") {
      randomNormal = path == "random-normal";
      randomSamples = maxSamples > 0 ? maxSamples : kRandomSamples;
      randomSeed = seed;
      return success();
    }
    if (!llvm::sys::fs::exists(path)) {
      error = "cannot read '" + path.str() + "': no such file or folder";
      return failure();
    }
    if (llvm::sys::fs::is_directory(path))
      return openFolder(path, error);
    if (path.ends_with(".npy"))
      return openNpy(path, error);
    files.push_back({path.str()});
    return success();
  }

  int64_t size() const {
    if (randomSamples)
      return randomSamples;
    return npy ? npySamples : static_cast<int64_t>(files.size());
  }

  runtime::Result<std::vector<OwnedTensor>> get(int64_t index) {
    std::vector<OwnedTensor> out;
    if (randomSamples) {
      // Sample `index` depends only on (seed, index): every pass sees the
      // same data.
      std::mt19937_64 rng(randomSeed * 0x9E3779B97F4A7C15ull + index);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
      for (const InputSpec &spec : inputs) {
        OwnedTensor t;
        t.dtype = spec.dtype;
        t.shape = spec.shape;
        t.bytes.resize(spec.numel() * runtime::dtypeSize(spec.dtype));
        for (int64_t e = 0, n = spec.numel(); e < n; ++e) {
          if (spec.dtype == DType::F32)
            reinterpret_cast<float *>(t.bytes.data())[e] =
                randomNormal ? normal(rng) : uniform(rng);
          else if (spec.dtype == DType::I64)
            reinterpret_cast<int64_t *>(t.bytes.data())[e] = rng() % 10;
          else if (spec.dtype == DType::I32)
            reinterpret_cast<int32_t *>(t.bytes.data())[e] = rng() % 10;
          else
            return Error(runtime::ErrorCode::InvalidArgument,
                         "random calibration samples are f32, i32 or i64; "
                         "this input is " +
                             std::string(runtime::dtypeName(spec.dtype)));
        }
        out.push_back(std::move(t));
      }
      return out;
    }
    if (npy) {
      const InputSpec &spec = inputs[0];
      OwnedTensor t;
      t.dtype = spec.dtype;
      t.shape = spec.shape;
      size_t bytes = spec.numel() * runtime::dtypeSize(spec.dtype);
      const char *data = npy->getBufferStart() + npyLayout.dataOffset;
      t.bytes.assign(data + index * bytes, data + (index + 1) * bytes);
      out.push_back(std::move(t));
      return out;
    }
    for (size_t i = 0; i < files[index].size(); ++i) {
      runtime::Result<OwnedTensor> t = runtime::readTensorFile(files[index][i]);
      if (!t.ok())
        return t.takeError();
      if (Error e = fit(*t, inputs[i], files[index][i]); !e.ok())
        return e;
      out.push_back(std::move(*t));
    }
    return out;
  }

private:
  using Error = runtime::Error;

  Error fit(OwnedTensor &t, const InputSpec &spec, const std::string &where) {
    int64_t n = 1;
    for (int64_t d : t.shape)
      n *= d;
    if (t.dtype != spec.dtype || n != spec.numel())
      return Error(runtime::ErrorCode::InvalidArgument,
                   where + ": a calibration sample must have the model "
                           "input's type and element count (" +
                       std::to_string(spec.numel()) + " " +
                       runtime::dtypeName(spec.dtype) + "), got " +
                       std::to_string(n) + " " + runtime::dtypeName(t.dtype));
    t.shape = spec.shape;
    return Error::success();
  }

  LogicalResult openNpy(StringRef path, std::string &error) {
    if (inputs.size() != 1) {
      error = "a .npy calibration file feeds single-input models; this one "
              "has " +
              std::to_string(inputs.size()) +
              " inputs (use a folder of test_data_set-style folders)";
      return failure();
    }
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error = "cannot read '" + path.str() + "': " + buffer.getError().message();
      return failure();
    }
    npy = std::move(*buffer);
    runtime::Result<runtime::NpyLayout> layout = runtime::parseNpyHeader(
        npy->getBufferStart(), npy->getBufferSize(), path.str());
    if (!layout.ok()) {
      error = layout.error().message();
      return failure();
    }
    npyLayout = *layout;
    const InputSpec &spec = inputs[0];
    int64_t per = 1;
    for (size_t d = 1; d < npyLayout.shape.size(); ++d)
      per *= npyLayout.shape[d];
    if (npyLayout.shape.empty() || npyLayout.dtype != spec.dtype ||
        per != spec.numel()) {
      error = path.str() + ": expected one sample per leading index, each " +
              std::to_string(spec.numel()) + " " +
              runtime::dtypeName(spec.dtype) + " (the model input), got " +
              runtime::dtypeName(npyLayout.dtype) + " " +
              runtime::shapeToString(npyLayout.shape);
      return failure();
    }
    npySamples = npyLayout.shape[0];
    return success();
  }

  /// input_0.pb ... input_{n-1}.pb of a test_data_set-style folder.
  LogicalResult addSampleFolder(StringRef folder, std::string &error) {
    std::vector<std::string> set;
    for (size_t i = 0; i < inputs.size(); ++i) {
      llvm::SmallString<256> file(folder);
      llvm::sys::path::append(file, "input_" + std::to_string(i) + ".pb");
      if (!llvm::sys::fs::exists(file)) {
        error = "calibration folder '" + folder.str() + "' lacks input_" +
                std::to_string(i) + ".pb";
        return failure();
      }
      set.push_back(file.str().str());
    }
    files.push_back(std::move(set));
    return success();
  }

  LogicalResult openFolder(StringRef path, std::string &error) {
    // A test_data_set folder is one sample.
    llvm::SmallString<256> first(path);
    llvm::sys::path::append(first, "input_0.pb");
    if (llvm::sys::fs::exists(first))
      return addSampleFolder(path, error);
    std::vector<std::string> entries;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
         it.increment(ec))
      entries.push_back(it->path());
    if (ec) {
      error = "cannot list '" + path.str() + "': " + ec.message();
      return failure();
    }
    std::sort(entries.begin(), entries.end());
    for (const std::string &entry : entries) {
      if (llvm::sys::fs::is_directory(entry)) {
        if (failed(addSampleFolder(entry, error)))
          return failure();
      } else if (StringRef(entry).ends_with(".pb") ||
                 StringRef(entry).ends_with(".npy")) {
        if (inputs.size() != 1) {
          error = "sample file '" + entry + "' can feed only single-input "
                  "models; use one folder per sample with input_N.pb";
          return failure();
        }
        files.push_back({entry});
      }
    }
    if (files.empty()) {
      error = "no calibration samples (.pb, .npy or sample folders) in '" +
              path.str() + "'";
      return failure();
    }
    return success();
  }

  std::vector<InputSpec> inputs;
  int64_t randomSamples = 0;
  bool randomNormal = false;
  uint64_t randomSeed = 0;
  std::unique_ptr<llvm::MemoryBuffer> npy;
  runtime::NpyLayout npyLayout;
  int64_t npySamples = 0;
  std::vector<std::vector<std::string>> files;
};

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
  SampleSource source;
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
  for (auto [arg, input] : llvm::zip_equal(body.getArguments(), group.getInputs()))
    arg.replaceAllUsesWith(input);
  Operation *yield = body.getTerminator();
  group->replaceAllUsesWith(yield->getOperands());
  yield->erase();
  group->getBlock()->getOperations().splice(group->getIterator(),
                                            body.getOperations());
  group->erase();
}

FailureOr<std::unique_ptr<ObservationRun>>
ObservationRun::create(ModuleOp module, ArrayRef<Value> values,
                       const CalibrationOptions &options,
                       const CompileOptions &base, ArrayRef<Value> keepPairs) {
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
  std::vector<SampleSource::InputSpec> specs;
  for (size_t i = 0; i < state.session->inputCount(); ++i) {
    runtime::Result<runtime::TensorView> view = state.session->input(i);
    if (!view.ok())
      return module.emitError(view.error().message());
    specs.push_back({view->dtype, view->shape});
  }
  std::string error;
  if (failed(state.source.open(options.dataPath, specs, error,
                               options.maxSamples, options.seed)))
    return module.emitError("calibration data: ") << error;
  state.samples = state.source.size();
  if (options.maxSamples > 0)
    state.samples = std::min(state.samples, options.maxSamples);
  if (state.samples == 0)
    return module.emitError("calibration data '")
           << options.dataPath << "' holds no samples";
  return result;
}

int64_t ObservationRun::samples() const { return state->samples; }

LogicalResult ObservationRun::pass(
    StringRef label, function_ref<void(size_t, const float *, size_t)> visit) {
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
  runtime::Result<std::vector<OwnedTensor>> inputs = state->source.get(index);
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
