//===- Conversions.cpp - numpy <-> runtime tensors ------------------------===//
#include "Conversions.h"

#include <cstring>

namespace py = pybind11;
using strata::runtime::DType;

namespace strata::python {

py::dtype toNumpy(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return py::dtype::of<float>();
  case DType::F64:
    return py::dtype::of<double>();
  case DType::F16:
    return py::dtype("float16");
  case DType::BF16:
    // numpy has no bfloat16: its bits, as the runtime stores them.
    return py::dtype::of<uint16_t>();
  case DType::I8:
    return py::dtype::of<int8_t>();
  case DType::U8:
    return py::dtype::of<uint8_t>();
  case DType::I16:
    return py::dtype::of<int16_t>();
  case DType::U16:
    return py::dtype::of<uint16_t>();
  case DType::I32:
    return py::dtype::of<int32_t>();
  case DType::U32:
    return py::dtype::of<uint32_t>();
  case DType::I64:
    return py::dtype::of<int64_t>();
  case DType::U64:
    return py::dtype::of<uint64_t>();
  case DType::Bool:
    return py::dtype::of<bool>();
  }
  throw StrataError("unknown runtime dtype " +
                    std::to_string(static_cast<int>(dtype)));
}

DType fromNumpy(const py::dtype &dtype) {
  char kind = dtype.kind();
  size_t size = static_cast<size_t>(dtype.itemsize());
  if (kind == 'f' && size == 4)
    return DType::F32;
  if (kind == 'f' && size == 8)
    return DType::F64;
  if (kind == 'f' && size == 2)
    return DType::F16;
  if (kind == 'b' && size == 1)
    return DType::Bool;
  if (kind == 'i') {
    switch (size) {
    case 1:
      return DType::I8;
    case 2:
      return DType::I16;
    case 4:
      return DType::I32;
    case 8:
      return DType::I64;
    }
  }
  if (kind == 'u') {
    switch (size) {
    case 1:
      return DType::U8;
    case 2:
      return DType::U16;
    case 4:
      return DType::U32;
    case 8:
      return DType::U64;
    }
  }
  throw StrataError(
      "numpy dtype '" +
      py::str(static_cast<const py::handle &>(dtype)).cast<std::string>() +
      "' has no Strata counterpart");
}

runtime::TensorView viewOf(const py::array &array) {
  if (!(array.flags() & py::array::c_style))
    throw StrataError("internal: the array is not C-contiguous");
  runtime::TensorView view;
  view.dtype = fromNumpy(array.dtype());
  for (py::ssize_t d = 0; d < array.ndim(); ++d)
    view.shape.push_back(static_cast<int64_t>(array.shape(d)));
  view.data = const_cast<void *>(array.data());
  return view;
}

py::array copyOf(const runtime::TensorView &view) {
  std::vector<py::ssize_t> shape(view.shape.begin(), view.shape.end());
  py::array result(toNumpy(view.dtype), shape);
  if (view.nbytes())
    std::memcpy(result.mutable_data(), view.data, view.nbytes());
  return result;
}

} // namespace strata::python
