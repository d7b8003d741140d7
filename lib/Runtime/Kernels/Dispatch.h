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

/// A broadcast walk in rows: the result's dimensions with extent 1 dropped
/// and neighbours merged where every operand steps through them alike, so
/// the innermost dimension is as long as the broadcasts allow and each
/// operand either walks it (step 1) or repeats one element (step 0).
struct BroadcastRows {
  static constexpr size_t kMaxInputs = 4;
  /// Extents and per-operand strides of the outer (merged) dimensions,
  /// outermost first; the row itself is not among them.
  std::vector<int64_t> outer;
  std::vector<int64_t> strides[kMaxInputs];
  int64_t rowLength = 1;
  /// 1 where operand k walks the row, 0 where it repeats one element.
  int64_t steps[kMaxInputs] = {0, 0, 0, 0};
  size_t count = 0;
};

/// Plans the walk of `out` from `ins` (edge contract: equal ranks, extents
/// equal to the result's or 1; at most 4 operands).
inline BroadcastRows planBroadcastRows(const std::vector<TensorView> &ins,
                                       const TensorView &out) {
  BroadcastRows plan;
  plan.count = ins.size();
  std::vector<int64_t> extents;
  std::vector<std::vector<int64_t>> strides(plan.count);
  std::vector<std::vector<int64_t>> full;
  for (const TensorView &in : ins)
    full.push_back(broadcastStridesOf(in.shape));
  for (size_t d = 0; d < out.rank(); ++d) {
    if (out.shape[d] == 1)
      continue;
    bool merges = !extents.empty();
    for (size_t k = 0; k < plan.count && merges; ++k)
      merges = strides[k].back() == full[k][d] * out.shape[d];
    if (merges) {
      extents.back() *= out.shape[d];
      for (size_t k = 0; k < plan.count; ++k)
        strides[k].back() = full[k][d];
      continue;
    }
    extents.push_back(out.shape[d]);
    for (size_t k = 0; k < plan.count; ++k)
      strides[k].push_back(full[k][d]);
  }
  if (extents.empty())
    return plan; // One element.
  plan.rowLength = extents.back();
  extents.pop_back();
  plan.outer = extents;
  for (size_t k = 0; k < plan.count; ++k) {
    plan.steps[k] = strides[k].back() ? 1 : 0;
    strides[k].pop_back();
    plan.strides[k] = strides[k];
  }
  return plan;
}

/// Calls `fn(outOffset, offsets, n, steps)` for every row of the broadcast
/// of `ins` to `out` in row-major order: the row writes result elements
/// [outOffset, outOffset + n) and reads operand k from `offsets[k]` with
/// step `steps[k]` (0 or 1). Rows are as long as the shapes allow, so `fn`'s
/// inner loop is contiguous or a repeated element and vectorises.
template <typename Fn>
void forEachBroadcastRow(const std::vector<TensorView> &ins,
                         const TensorView &out, Fn &&fn) {
  if (out.numel() == 0)
    return;
  BroadcastRows plan = planBroadcastRows(ins, out);
  size_t rank = plan.outer.size();
  std::vector<int64_t> index(rank, 0);
  int64_t offsets[BroadcastRows::kMaxInputs] = {0, 0, 0, 0};
  const int64_t *steps = plan.steps;
  for (int64_t base = 0, total = out.numel(); base < total;
       base += plan.rowLength) {
    fn(base, static_cast<const int64_t *>(offsets), plan.rowLength, steps);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < plan.outer[d]) {
        for (size_t k = 0; k < plan.count; ++k)
          offsets[k] += plan.strides[k][d];
        break;
      }
      for (size_t k = 0; k < plan.count; ++k)
        offsets[k] -= plan.strides[k][d] * (plan.outer[d] - 1);
      index[d] = 0;
    }
  }
}

/// Calls `fn(std::integral_constant<bool, A>, std::integral_constant<bool,
/// B>)` with A, B whether each of two operands walks the row (step 1), so a
/// row kernel is compiled once per pattern with constant strides.
template <typename Fn> void withSteps(const int64_t *steps, Fn &&fn) {
  using T = std::true_type;
  using F = std::false_type;
  if (steps[0] && steps[1])
    fn(T{}, T{});
  else if (steps[0])
    fn(T{}, F{});
  else if (steps[1])
    fn(F{}, T{});
  else
    fn(F{}, F{});
}

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_DISPATCH_H
