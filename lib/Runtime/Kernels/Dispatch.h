//===- Dispatch.h - element type dispatch for dtype-generic kernels -*- C++
//-*-===//
//
// Kernels written as templates over the element type call `dispatchNumeric`
// (or `dispatchFloat`) with a generic lambda; the lambda receives a value of
// the C++ type matching the DType. Half precision is stored as `Half` and
// converted through float.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_DISPATCH_H
#define STRATA_LIB_RUNTIME_KERNELS_DISPATCH_H

#include "strata/Runtime/HalfFloat.h"
#include "strata/Runtime/Tensor.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace strata::runtime::kernels {

/// One case of a dispatch: the C++ type `T` stands for elements of `D`.
template <typename T, DType D> struct TypeCase {
  using type = T;
  static constexpr DType dtype = D;
};

/// Calls `fn(T{})` for the first of `Cases` whose DType is `dtype`; returns
/// false when none is.
template <typename... Cases, typename Fn>
bool dispatchAmong(DType dtype, Fn &&fn) {
  return ((dtype == Cases::dtype
               ? (static_cast<void>(fn(typename Cases::type{})), true)
               : false) ||
          ...);
}

/// Calls `fn(T{})` with T the C++ element type of `dtype` for the real
/// numeric types (no bool, no f16/bf16); returns false for any other dtype.
template <typename Fn> bool dispatchNumeric(DType dtype, Fn &&fn) {
  return dispatchAmong<
      TypeCase<float, DType::F32>, TypeCase<double, DType::F64>,
      TypeCase<int8_t, DType::I8>, TypeCase<uint8_t, DType::U8>,
      TypeCase<int16_t, DType::I16>, TypeCase<int32_t, DType::I32>,
      TypeCase<int64_t, DType::I64>, TypeCase<uint16_t, DType::U16>,
      TypeCase<uint32_t, DType::U32>, TypeCase<uint64_t, DType::U64>>(dtype,
                                                                      fn);
}

/// As dispatchNumeric, for f32 and f64 only.
template <typename Fn> bool dispatchFloat(DType dtype, Fn &&fn) {
  return dispatchAmong<TypeCase<float, DType::F32>,
                       TypeCase<double, DType::F64>>(dtype, fn);
}

/// f(a, b) for +, - or * with two's-complement wrap-around for integers:
/// computed in the unsigned type both promote to, so overflow (u16 * u16
/// promotes to int) is defined.
template <typename T, typename F> T wrapping(T a, T b, F f) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(a + b)>;
    return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return static_cast<T>(f(a, b));
  }
}

/// Row-major strides of `shape` with 0 where the extent is 1 (broadcast).
inline std::vector<int64_t>
broadcastStridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

/// Checks the edge broadcasting contract: every view in `ins` has the rank
/// of `out` and each extent equals the result's or is 1.
inline bool broadcastsTo(const std::vector<TensorView> &ins,
                         const TensorView &out) {
  for (const TensorView &in : ins) {
    if (in.rank() != out.rank())
      return false;
    for (size_t d = 0; d < out.rank(); ++d)
      if (in.shape[d] != out.shape[d] && in.shape[d] != 1)
        return false;
  }
  return true;
}

/// Calls `fn(i, offsets)` for every result element `i` in row-major order,
/// with `offsets[k]` the element of `ins[k]` it reads (broadcast extents
/// read element 0). At most 4 inputs.
template <typename Fn>
void forEachBroadcast(const std::vector<TensorView> &ins, const TensorView &out,
                      Fn &&fn) {
  size_t rank = out.rank(), count = ins.size();
  std::vector<std::vector<int64_t>> strides;
  for (const TensorView &in : ins)
    strides.push_back(broadcastStridesOf(in.shape));
  std::vector<int64_t> index(rank, 0);
  int64_t offsets[4] = {0, 0, 0, 0};
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    fn(i, static_cast<const int64_t *>(offsets));
    // Advance the index and every offset incrementally.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out.shape[d]) {
        for (size_t k = 0; k < count; ++k)
          offsets[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < count; ++k)
        offsets[k] -= strides[k][d] * (out.shape[d] - 1);
      index[d] = 0;
    }
  }
}

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_DISPATCH_H
