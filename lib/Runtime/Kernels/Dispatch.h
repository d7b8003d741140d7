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

#include "strata/Runtime/Tensor.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace strata::runtime::kernels {

/// IEEE binary16 storage; arithmetic goes through float.
struct Half {
  uint16_t bits;
};

/// binary16 -> float (exact).
inline float halfToFloat(Half h) {
  uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000) << 16;
  uint32_t exponent = (h.bits >> 10) & 0x1f;
  uint32_t mantissa = h.bits & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: normalise.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((113 - shift) << 23) | ((mantissa & 0x3ff) << 13);
  }
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

/// float -> binary16, rounding to nearest even.
inline Half floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) // Inf or NaN (keep NaN quiet).
    return {static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0))};
  int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
  if (e >= 0x1f)
    return {static_cast<uint16_t>(sign | 0x7c00)};
  if (e <= 0) {
    if (e < -10)
      return {sign};
    // Subnormal result: shift the implicit bit in, round to nearest even.
    mantissa |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return {static_cast<uint16_t>(sign | half)};
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent, up to infinity: correct.
  return {static_cast<uint16_t>(sign | half)};
}

/// Calls `fn(T{})` with T the C++ element type of `dtype` for the real
/// numeric types (no bool, no half); returns false for any other dtype.
template <typename Fn> bool dispatchNumeric(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    fn(float{});
    return true;
  case DType::F64:
    fn(double{});
    return true;
  case DType::I8:
    fn(int8_t{});
    return true;
  case DType::U8:
    fn(uint8_t{});
    return true;
  case DType::I16:
    fn(int16_t{});
    return true;
  case DType::I32:
    fn(int32_t{});
    return true;
  case DType::I64:
    fn(int64_t{});
    return true;
  default:
    return false;
  }
}

/// As dispatchNumeric, for f32 and f64 only.
template <typename Fn> bool dispatchFloat(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    fn(float{});
    return true;
  case DType::F64:
    fn(double{});
    return true;
  default:
    return false;
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
