//===- Tensor.h - element types and tensor views -----------------*- C++ -*-===//
//
// The runtime never owns tensor memory through these types: a TensorView is a
// pointer into a method's arena, a constant segment or caller memory, plus
// its element type and static shape.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_TENSOR_H
#define STRATA_RUNTIME_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::runtime {

/// Element types; the numbering matches the schema's ScalarType.
enum class DType : int8_t {
  F32 = 0,
  I8 = 1,
  U8 = 2,
  I32 = 3,
  I64 = 4,
  Bool = 5,
  F16 = 6,
  F64 = 7,
  I16 = 8,
  U16 = 9,
  U32 = 10,
  U64 = 11,
  /// bfloat16: the high half of an IEEE binary32.
  BF16 = 12,
};
/// The largest DType value (the loader rejects anything above).
constexpr int kLastDType = static_cast<int>(DType::BF16);

/// Bytes per element of `dtype` (0 for an unknown value).
size_t dtypeSize(DType dtype);
/// "f32", "i8", ... ("?" for an unknown value).
const char *dtypeName(DType dtype);
/// True when `value` names a DType.
bool isValidDType(int value);

/// Number of elements of `shape` (1 for a scalar).
int64_t numElements(const std::vector<int64_t> &shape);
/// "[1, 3, 224, 224]".
std::string shapeToString(const std::vector<int64_t> &shape);

/// A typed, statically shaped view of bytes owned elsewhere.
struct TensorView {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  void *data = nullptr;

  int64_t numel() const { return numElements(shape); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtypeSize(dtype); }
  size_t rank() const { return shape.size(); }
  template <typename T> T *as() const { return static_cast<T *>(data); }
  /// "f32[1, 3, 224, 224]".
  std::string typeString() const;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_TENSOR_H
