//===- Module.cpp - the strata._strata extension module -------------------===//
//
// Registers the exception and the bindings; python/strata/__init__.py is
// the package users import.
//
//===----------------------------------------------------------------------===//
#include "Conversions.h"

namespace py = pybind11;

namespace strata::python {
void bindRuntime(py::module_ &m);
void bindCompile(py::module_ &m);
} // namespace strata::python

PYBIND11_MODULE(_strata, m) {
  m.doc() = "Strata's C++ API (the strata package wraps it)";
  py::register_exception<strata::python::StrataError>(m, "Error",
                                                      PyExc_RuntimeError);
  strata::python::bindRuntime(m);
  strata::python::bindCompile(m);
}
