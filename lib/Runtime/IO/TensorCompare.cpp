//===- TensorCompare.cpp - compare outputs with expected tensors ----------===//
#include "strata/Runtime/TensorCompare.h"

#include "strata/Runtime/HalfFloat.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace strata::runtime {

double elementAsDouble(const TensorView &view, int64_t i) {
  switch (view.dtype) {
  case DType::F32:
    return view.as<float>()[i];
  case DType::F64:
    return view.as<double>()[i];
  case DType::I32:
    return view.as<int32_t>()[i];
  case DType::I64:
    return static_cast<double>(view.as<int64_t>()[i]);
  case DType::I8:
    return view.as<int8_t>()[i];
  case DType::U8:
    return view.as<uint8_t>()[i];
  case DType::Bool:
    return view.as<uint8_t>()[i] != 0;
  case DType::I16:
    return view.as<int16_t>()[i];
  case DType::U16:
    return view.as<uint16_t>()[i];
  case DType::U32:
    return view.as<uint32_t>()[i];
  case DType::U64:
    return static_cast<double>(view.as<uint64_t>()[i]);
  case DType::F16:
    return halfToFloat(view.as<Half>()[i]);
  case DType::BF16:
    return bfloat16ToFloat(view.as<BFloat16>()[i]);
  }
  return std::nan("");
}

namespace {

/// |actual[i] - expected[i]| computed exactly for the 64-bit integer types,
/// whose values doubles cannot all hold; nullopt for the other types.
std::optional<double> wideIntegerDistance(const TensorView &actual,
                                          const TensorView &expected,
                                          int64_t i) {
  uint64_t a, e;
  bool less;
  if (actual.dtype == DType::U64) {
    a = actual.as<uint64_t>()[i];
    e = expected.as<uint64_t>()[i];
    less = a < e;
  } else if (actual.dtype == DType::I64) {
    int64_t sa = actual.as<int64_t>()[i], se = expected.as<int64_t>()[i];
    less = sa < se;
    a = static_cast<uint64_t>(sa);
    e = static_cast<uint64_t>(se);
  } else {
    return std::nullopt;
  }
  // Modular subtraction gives the exact magnitude in either case.
  return static_cast<double>(less ? e - a : a - e);
}

} // namespace

TensorComparison compareTensors(const TensorView &actual,
                                const TensorView &expected, double atol,
                                double rtol) {
  TensorComparison result;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    result.typeMismatch = actual.typeString() + " vs expected " +
                          expected.typeString();
    return result;
  }
  double diffSquares = 0, refSquares = 0;
  for (int64_t i = 0, n = actual.numel(); i < n; ++i) {
    double a = elementAsDouble(actual, i), e = elementAsDouble(expected, i);
    if (std::optional<double> distance =
            wideIntegerDistance(actual, expected, i)) {
      result.maxAbs = std::max(result.maxAbs, *distance);
      diffSquares += *distance * *distance;
      refSquares += e * e;
      if (*distance > atol + rtol * std::fabs(e))
        ++result.mismatches;
      continue;
    }
    if (std::isnan(a) || std::isnan(e)) {
      result.mismatches += std::isnan(a) != std::isnan(e);
      continue;
    }
    if (std::isinf(a) || std::isinf(e)) {
      result.mismatches += a != e;
      continue;
    }
    double diff = std::fabs(a - e);
    result.maxAbs = std::max(result.maxAbs, diff);
    diffSquares += diff * diff;
    refSquares += e * e;
    if (diff > atol + rtol * std::fabs(e))
      ++result.mismatches;
  }
  result.relL2 = refSquares > 0 ? std::sqrt(diffSquares / refSquares)
                                : std::sqrt(diffSquares);
  return result;
}

} // namespace strata::runtime
