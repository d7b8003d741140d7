//===- Conversions.h - numpy <-> runtime tensors, errors -> Python -*- C++
//-*-===//
//
// What the bindings convert and nothing else: runtime dtypes to numpy
// dtypes and back, a numpy array to a TensorView over its memory, a
// TensorView to a numpy array that owns a copy, and a runtime Error to the
// Python exception `strata.Error` with the tools' message.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PYTHON_CONVERSIONS_H
#define STRATA_PYTHON_CONVERSIONS_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/Tensor.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace strata::python {

/// Raised as `strata.Error`: the message is the runtime's or compiler's,
/// word for word.
class StrataError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws StrataError for a failed `error`.
inline void check(const runtime::Error &error) {
  if (!error.ok())
    throw StrataError(error.message());
}

/// The value of `result`, or StrataError.
template <typename T> T take(runtime::Result<T> result) {
  if (!result.ok())
    throw StrataError(result.error().message());
  return std::move(*result);
}

/// The numpy dtype of a runtime dtype.
pybind11::dtype toNumpy(runtime::DType dtype);

/// The runtime dtype of a numpy array's dtype; StrataError for one the
/// runtime has no counterpart of (complex, strings, objects).
runtime::DType fromNumpy(const pybind11::dtype &dtype);

/// A view of `array`'s memory, which must be C-contiguous (the caller
/// keeps it alive while the view is used).
runtime::TensorView viewOf(const pybind11::array &array);

/// A numpy array holding a copy of `view`.
pybind11::array copyOf(const runtime::TensorView &view);

} // namespace strata::python

#endif // STRATA_PYTHON_CONVERSIONS_H
