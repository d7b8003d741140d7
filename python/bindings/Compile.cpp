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

#include "strata/Compiler/CompileModel.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace strata::python {

void bindCompile(py::module_ &m) {
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
