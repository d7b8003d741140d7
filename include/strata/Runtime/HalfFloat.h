//===- HalfFloat.h - binary16 and bfloat16 storage and conversions -*- C++ -*-===//
//
// The runtime stores 16-bit floats as their bits and computes through float.
// These conversions are shared by the kernels, the tensor comparison and the
// drivers that print tensors.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_HALFFLOAT_H
#define STRATA_RUNTIME_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace strata::runtime {

/// IEEE binary16 storage; arithmetic goes through float.
struct Half {
  uint16_t bits;
};

/// bfloat16 storage: the high 16 bits of an IEEE binary32.
struct BFloat16 {
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

/// bfloat16 -> float (exact: the bits become the high half).
inline float bfloat16ToFloat(BFloat16 b) {
  uint32_t bits = static_cast<uint32_t>(b.bits) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

/// float -> bfloat16 by truncation (dropping the low 16 bits), as the ONNX
/// Cast backend tests expect (their outputs are the high halves of the
/// float inputs: 0x3ef5eeb0 -> 0x3ef5, where rounding would give 0x3ef6).
/// A NaN stays a NaN: the quiet bit is set so that a payload held only in
/// the dropped bits cannot turn it into an infinity.
inline BFloat16 floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t high = static_cast<uint16_t>(bits >> 16);
  if ((bits & 0x7fffffff) > 0x7f800000)
    high |= 0x0040;
  return {high};
}

} // namespace strata::runtime

#endif // STRATA_RUNTIME_HALFFLOAT_H
