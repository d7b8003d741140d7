//===- Tensor.cpp - element types and tensor views ------------------------===//
#include "strata/Runtime/Tensor.h"

namespace strata::runtime {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  case DType::I64:
  case DType::U64:
  case DType::F64:
    return 8;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  case DType::F16:
    return "f16";
  case DType::F64:
    return "f64";
  case DType::I16:
    return "i16";
  case DType::U16:
    return "u16";
  case DType::U32:
    return "u32";
  case DType::U64:
    return "u64";
  case DType::BF16:
    return "bf16";
  }
  return "?";
}

bool isValidDType(int value) { return value >= 0 && value <= kLastDType; }

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TensorView::typeString() const {
  return std::string(dtypeName(dtype)) + shapeToString(shape);
}

} // namespace strata::runtime
