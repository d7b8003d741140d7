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

#include "llvm/Support/Error.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace strata::python {

/// The backends strata-compile knows (--list-backends): name, source,
/// description, runtime delegate and pattern names per phase.
py::list discoverBackends() {
  llvm::Expected<const std::vector<Backend> &> backends =
      strata::discoverBackends();
  if (!backends)
    throw StrataError(llvm::toString(backends.takeError()));
  py::list result;
  for (const Backend &backend : *backends) {
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
    result.append(entry);
  }
  return result;
}

void bindCompile(py::module_ &m) {
  m.def("discover_backends", &discoverBackends,
        "The backends strata-compile knows, as strata-compile "
        "--list-backends lists them: a dict each.");
  m.def(
      "compile_file",
      [](const std::string &modelPath, const std::string &pipelineOptions,
         const std::vector<std::string> &inputShapes,
         const std::vector<std::string> &dims,
         const std::vector<std::string> &maxExtents,
         const std::vector<std::string> &inputValues) {
        CompileRequest request;
        request.modelPath = modelPath;
        request.pipelineOptions = pipelineOptions;
        request.inputShapes = inputShapes;
        request.dims = dims;
        request.maxExtents = maxExtents;
        request.inputValues = inputValues;
        CompileOutcome outcome;
        {
          py::gil_scoped_release release;
          outcome = compileModel(request);
        }
        if (!outcome.ok)
          throw StrataError(outcome.diagnostics);
        return py::make_tuple(py::bytes(outcome.program), outcome.reportJSON,
                              outcome.diagnostics);
      },
      py::arg("model_path"), py::arg("pipeline_options") = "",
      py::arg("input_shapes") = std::vector<std::string>(),
      py::arg("dims") = std::vector<std::string>(),
      py::arg("max_extents") = std::vector<std::string>(),
      py::arg("input_values") = std::vector<std::string>(),
      "Compiles the ONNX model at `model_path`; returns the program's bytes, "
      "the report as JSON and the notes strata-compile prints.");
}

} // namespace strata::python
