//===- Compile.cpp - strata.compile's C++ side ----------------------------===//
//
// strata::compileModel (include/strata/Compiler/CompileModel.h) as a
// function of the extension module: the model file, the pipeline options
// and the driver's input options in, the program's bytes and the report's
// JSON out; a failed compilation raises strata.Error with the diagnostics
// strata-compile prints (each naming the ONNX node).
//
//===----------------------------------------------------------------------===//
#include "Conversions.h"

#include "strata/Backends/Backend.h"
#include "strata/Compiler/CompileModel.h"
#include "strata/Compiler/HTMLReport.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

#include <mutex>
#include <shared_mutex>

namespace py = pybind11;

namespace strata::python {

/// The backend registry is the process's: compilations (which run without
/// the GIL and point into the registry's backends) share it, selecting and
/// resetting take it alone.
std::shared_mutex &registryLock() {
  static std::shared_mutex lock;
  return lock;
}

/// The registry lock, waited for without the GIL (a compilation holding it
/// never needs the GIL).
std::shared_lock<std::shared_mutex> sharedRegistry() {
  py::gil_scoped_release release;
  return std::shared_lock<std::shared_mutex>(registryLock());
}
std::unique_lock<std::shared_mutex> exclusiveRegistry() {
  py::gil_scoped_release release;
  return std::unique_lock<std::shared_mutex>(registryLock());
}

/// A backend as a dict: name, source, description, runtime delegate and
/// pattern names per phase (what strata-compile --list-backends prints).
py::dict describe(const Backend &backend) {
  py::dict entry;
  entry["name"] = backend.getName();
  entry["source"] = backend.getSource();
  entry["description"] = backend.getDescription();
  const BackendHooks &hooks = backend.getHooks();
  entry["delegate"] = hooks.delegates()
                          ? py::object(py::str(hooks.runtimeDelegate))
                          : py::object(py::none());
  py::dict patterns;
  for (auto [phase, list] :
       {std::pair{"conversion", backend.getConversionPatterns()},
        std::pair{"fusion", backend.getFusionPatterns()},
        std::pair{"smooth", backend.getSmoothPatterns()},
        std::pair{"quantized", backend.getQuantizedPatterns()}}) {
    py::list names;
    for (const PatternDescriptor &d : list)
      names.append(d.info.name);
    patterns[phase] = names;
  }
  entry["patterns"] = patterns;
  return entry;
}

/// The value of `value`, or StrataError with its message.
template <typename T> T &orThrow(llvm::Expected<T &> value) {
  if (!value)
    throw StrataError(llvm::toString(value.takeError()));
  return *value;
}

void check(llvm::Error error) {
  if (error)
    throw StrataError(llvm::toString(std::move(error)));
}

void bindCompile(py::module_ &m) {
  m.def(
      "discover_backends",
      [] {
        py::list result;
        std::shared_lock<std::shared_mutex> lock = sharedRegistry();
        for (const Backend &backend : orThrow(strata::discoverBackends()))
          result.append(describe(backend));
        return result;
      },
      "The backends strata-compile knows (built-ins and plugins from "
      "$STRATA_BACKEND_PATH), as strata-compile --list-backends lists them: "
      "a dict each.");
  m.def(
      "set_backend",
      [](const std::string &name) {
        std::unique_lock<std::shared_mutex> lock = exclusiveRegistry();
        check(setBackend(name));
      },
      py::arg("name"),
      "Selects the backend that compile, transform and plan calls use when "
      "they are given none.");
  m.def(
      "get_backend",
      []() -> py::object {
        std::shared_lock<std::shared_mutex> lock = sharedRegistry();
        if (getSelectedBackendName().empty())
          return py::none();
        return describe(orThrow(getBackend()));
      },
      "The selected backend as a dict (discover_backends' form), or None.");
  m.def(
      "reset_backends",
      [] {
        std::unique_lock<std::shared_mutex> lock = exclusiveRegistry();
        resetBackends();
      },
      "Forgets the selection and the discovered backends (plugins are "
      "looked for again).");
  m.def(
      "write_file",
      [](const std::string &path, const py::bytes &data) {
        std::string_view bytes = data;
        llvm::Error error =
            llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
              os << bytes;
              return llvm::Error::success();
            });
        if (error)
          throw StrataError("cannot write '" + path +
                            "': " + llvm::toString(std::move(error)));
      },
      py::arg("path"), py::arg("data"),
      "Writes `data` to `path` as strata-compile writes its outputs: "
      "through a temporary file and a rename (llvm::writeToOutput).");
  m.def(
      "render_html_report",
      [](const std::string &reportJSON) {
        llvm::Expected<llvm::json::Value> report =
            llvm::json::parse(reportJSON);
        if (!report)
          throw StrataError("report: " + llvm::toString(report.takeError()));
        return renderHTMLReport(*report);
      },
      py::arg("report_json"),
      "The compile report as one self-contained HTML page "
      "(strata-compile --report-html).");
  m.def(
      "compile_file",
      [](const std::string &modelPath, const std::string &pipelineOptions,
         const std::vector<std::string> &inputShapes,
         const std::vector<std::string> &dims,
         const std::vector<std::string> &maxExtents,
         const std::vector<std::string> &inputValues, const std::string &emit,
         const std::string &planJSON, bool verify, double verifyRelL2,
         const std::string &verifyData, uint64_t verifySeed) {
        CompileRequest request;
        request.modelPath = modelPath;
        request.pipelineOptions = pipelineOptions;
        request.inputShapes = inputShapes;
        request.dims = dims;
        request.maxExtents = maxExtents;
        request.inputValues = inputValues;
        request.emit = emit;
        request.planJSON = planJSON;
        request.verify = verify;
        request.verifyOptions.maxRelL2 = verifyRelL2;
        request.verifyOptions.dataDir = verifyData;
        request.verifyOptions.seed = verifySeed;
        CompileOutcome outcome;
        {
          py::gil_scoped_release release;
          std::shared_lock<std::shared_mutex> lock(registryLock());
          outcome = compileModel(request);
        }
        if (!outcome.ok)
          throw StrataError(outcome.diagnostics);
        return py::make_tuple(py::bytes(outcome.artifact), outcome.reportJSON,
                              outcome.diagnostics, outcome.verifyJSON);
      },
      py::arg("model_path"), py::arg("pipeline_options") = "",
      py::arg("input_shapes") = std::vector<std::string>(),
      py::arg("dims") = std::vector<std::string>(),
      py::arg("max_extents") = std::vector<std::string>(),
      py::arg("input_values") = std::vector<std::string>(),
      py::arg("emit") = "program", py::arg("plan_json") = "",
      py::arg("verify") = false, py::arg("verify_rel_l2") = 1e-5,
      py::arg("verify_data") = "", py::arg("verify_seed") = 0,
      "Compiles the ONNX model at `model_path` (strata::compileModel); "
      "returns what `emit` asks for (as bytes), the report as JSON, the "
      "notes strata-compile prints and, with `verify`, the verification as "
      "JSON.");
}

} // namespace strata::python
