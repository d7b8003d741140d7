//===- Calibrate.cpp - calibration of the inserted QDQ pairs --------------===//
#include "strata/Compiler/Calibrate.h"

#include "Exec/IR/ExecOps.h"
#include "strata/Compiler/Compiler.h"

#include "HL/IR/HLOps.h"
#include "strata/Compiler/Execute.h"
#include "strata/Quantization/Quantization.h"
#include "strata/Runtime/TensorIO.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <random>
#include <cmath>
#include <cstring>

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
    if (std::isfinite(t.sqnrDB))
      row["sqnr_db"] = t.sqnrDB;
    else
      row["sqnr_db"] = nullptr;
    if (t.channels > 1) {
      row["channels"] = t.channels;
    } else {
      row["scale"] = t.scale;
      row["zero_point"] = t.zeroPoint;
    }
    rows.push_back(std::move(row));
  }
  return llvm::json::Object{{"calibration_method", method},
                            {"calibration_samples", samples},
                            {"tensors", std::move(rows)}};
}

void QuantizationReport::print(llvm::raw_ostream &os, size_t top) const {
  os << "quantization: " << tensors.size() << " tensors, " << method
     << " calibration on " << samples << " samples; worst SQNR first:\n";
  for (size_t i = 0; i < tensors.size() && i < top; ++i) {
    const Tensor &t = tensors[i];
    os << llvm::format("  %7.2f dB  %-10s ", t.sqnrDB, t.role.c_str())
       << t.tensor << " -> " << t.consumers << "\n";
  }
}

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

/// A progress bar on stderr, drawn only on a terminal.
class Progress {
public:
  Progress(bool enabled, int64_t total)
      : enabled(enabled && llvm::sys::Process::StandardErrIsDisplayed()),
        total(total) {}
  void update(StringRef what, int64_t done) {
    if (!enabled)
      return;
    int width = 30, filled = total ? static_cast<int>(width * done / total) : 0;
    llvm::errs() << "\r" << what << " [" << std::string(filled, '#')
                 << std::string(width - filled, '.') << "] " << done << "/"
                 << total;
    if (done == total)
      llvm::errs() << "\n";
  }

private:
  bool enabled;
  int64_t total;
};

/// Where the value `v` comes from, for the report.
std::string describeValue(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "hl.name"))
        return "input '" + name.getValue().str() + "'";
    return "argument " + std::to_string(arg.getArgNumber());
  }
  std::string node = getNodeName(v.getDefiningOp()->getLoc());
  return node.empty() ? v.getDefiningOp()->getName().getStringRef().str()
                      : node;
}

/// The groups reading the pair `qcast` starts.
std::string describeConsumers(mlir::quant::QuantizeCastOp qcast) {
  std::string out;
  for (Operation *dcast : qcast->getUsers())
    for (Operation *user : dcast->getUsers()) {
      std::string what = user->getName().getStringRef().str();
      if (auto fused = dyn_cast<hl::FusedOp>(user))
        what = fused.getKind().str();
      std::string node = getNodeName(user->getLoc());
      if (!node.empty())
        what += " '" + node + "'";
      if (out.find(what) == std::string::npos)
        out += (out.empty() ? "" : ", ") + what;
    }
  return out;
}

/// SQNR of per-axis or per-tensor weights quantized as `type` says.
std::optional<QuantizationReport::Tensor>
weightReport(mlir::quant::QuantizeCastOp qcast) {
  auto type = cast<RankedTensorType>(qcast.getType());
  std::optional<std::vector<float>> values =
      quant::constantFloats(qcast.getArg());
  if (!values)
    return std::nullopt;
  QuantizationReport::Tensor t;
  t.tensor = describeValue(qcast.getArg());
  t.role = "weight";
  t.consumers = describeConsumers(qcast);
  std::optional<quant::TypeQuantization> q =
      quant::getTypeQuantization(type.getElementType());
  if (!q)
    return std::nullopt;
  const std::vector<quant::QuantParams> &params = q->params;
  quant::SQNRAccumulator sqnr;
  t.channels = static_cast<int64_t>(params.size());
  if (params.size() == 1)
    t.scale = params[0].scale, t.zeroPoint = params[0].zeroPoint;
  float lo = 0, hi = 0;
  for (size_t i = 0; i < values->size(); ++i) {
    size_t c = quant::channelOf(i, type.getShape(), q->axis);
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
  report.method = quant::stringifyCalibrationMethod(options.method);

  // The pairs waiting for calibration, grouped by the value observed.
  llvm::MapVector<Value, SmallVector<mlir::quant::QuantizeCastOp>> sites;
  SmallVector<mlir::quant::QuantizeCastOp> weights;
  module.walk([&](mlir::quant::QuantizeCastOp qcast) {
    if (qcast->hasAttr("strata.observe"))
      sites[quant::observedValue(qcast.getArg())].push_back(qcast);
    else if (!qcast->hasAttr("strata.fixed_range"))
      weights.push_back(qcast);
  });
  for (mlir::quant::QuantizeCastOp qcast : weights)
    if (std::optional<QuantizationReport::Tensor> t = weightReport(qcast))
      report.tensors.push_back(std::move(*t));

  if (!sites.empty()) {
    if (options.dataPath.empty())
      return module.emitError("quantization needs calibration data "
                              "(--calibration-data DIR|file.npy)");
    // The float program with every observed value as an extra output.
    IRMapping mapping;
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone(mapping)));
    SmallVector<Operation *> pairs;
    copy->walk([&](mlir::quant::DequantizeCastOp dcast) {
      auto qcast = dcast.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>();
      if (!qcast)
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
    size_t firstObserved = 0;
    for (auto &[value, qcasts] : sites) {
      Value observed = mapping.lookup(value);
      auto func = observed.getParentRegion()->getParentOfType<func::FuncOp>();
      if (!func || observed.getParentRegion() != &func.getBody())
        return qcasts.front().emitError(
            "a value to calibrate must be computed in the function body");
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      if (firstObserved == 0)
        firstObserved = ret.getNumOperands();
      unsigned index = func.getNumResults();
      func.insertResult(index, observed.getType(), DictionaryAttr());
      ret->insertOperands(ret.getNumOperands(), observed);
    }
    CompileOptions lowering = base;
    lowering.patterns.clear();
    lowering.planIn.clear();
    lowering.planOut.clear();
    lowering.delegateBackend = nullptr;
    lowering.targetKernels.reset();
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
    ProgramSession &run = **session;
    std::vector<SampleSource::InputSpec> specs;
    for (size_t i = 0; i < run.inputCount(); ++i) {
      runtime::Result<runtime::TensorView> view = run.input(i);
      if (!view.ok())
        return module.emitError(view.error().message());
      specs.push_back({view->dtype, view->shape});
    }
    SampleSource source;
    std::string error;
    if (failed(source.open(options.dataPath, specs, error, options.maxSamples,
                           options.seed)))
      return module.emitError("calibration data: ") << error;
    int64_t samples = source.size();
    if (options.maxSamples > 0)
      samples = std::min(samples, options.maxSamples);
    if (samples == 0)
      return module.emitError("calibration data '")
             << options.dataPath << "' holds no samples";
    report.samples = samples;

    std::vector<quant::Observer> observers;
    for (size_t i = 0; i < sites.size(); ++i)
      observers.emplace_back(options.method, options.symmetric,
                             options.percentile);
    std::vector<quant::QuantParams> params(sites.size());
    std::vector<quant::SQNRAccumulator> sqnr(sites.size());
    bool histogram = observers.front().needsHistogram();
    int passes = histogram ? 3 : 2;
    // Pass 1: ranges; pass 2 (histogram methods): histograms; last: SQNR.
    for (int pass = 0; pass < passes; ++pass) {
      bool sqnrPass = pass == passes - 1;
      if (sqnrPass)
        for (size_t k = 0; k < sites.size(); ++k)
          params[k] = observers[k].params();
      Progress progress(options.progress, samples);
      std::string label = "calibrating (pass " + std::to_string(pass + 1) +
                          "/" + std::to_string(passes) + ")";
      for (int64_t s = 0; s < samples; ++s) {
        runtime::Result<std::vector<OwnedTensor>> inputs = source.get(s);
        if (!inputs.ok())
          return module.emitError("calibration sample ")
                 << s << ": " << inputs.error().message();
        if (runtime::Error e = run.run(*inputs); !e.ok())
          return module.emitError("calibration sample ")
                 << s << ": " << e.message();
        for (size_t k = 0; k < sites.size(); ++k) {
          runtime::Result<runtime::TensorView> out =
              run.output(firstObserved + k);
          if (!out.ok())
            return module.emitError(out.error().message());
          const float *data = static_cast<const float *>(out->data);
          size_t n = static_cast<size_t>(out->numel());
          if (sqnrPass)
            sqnr[k].add(data, n, params[k]);
          else if (pass == 0)
            observers[k].observeRange(data, n);
          else
            observers[k].observeHistogram(data, n);
        }
        progress.update(label, s + 1);
      }
    }
    size_t k = 0;
    for (auto &[value, qcasts] : sites) {
      QuantizationReport::Tensor t;
      t.tensor = describeValue(value);
      t.role = "activation";
      for (mlir::quant::QuantizeCastOp qcast : qcasts) {
        std::string consumers = describeConsumers(qcast);
        t.consumers += (t.consumers.empty() ? "" : ", ") + consumers;
        quant::setQuantParams(qcast, params[k]);
      }
      t.scale = params[k].scale;
      t.zeroPoint = params[k].zeroPoint;
      t.min = observers[k].min();
      t.max = observers[k].max();
      t.sqnrDB = sqnr[k].decibels();
      report.tensors.push_back(std::move(t));
      ++k;
    }
  }
  std::stable_sort(report.tensors.begin(), report.tensors.end(),
                   [](const auto &a, const auto &b) { return a.sqnrDB < b.sqnrDB; });
  return report;
}

} // namespace strata
