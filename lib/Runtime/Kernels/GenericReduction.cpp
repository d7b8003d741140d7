//===- GenericReduction.cpp - dtype-generic reductions and arg-reductions -===//
//
// reduce_sum / reduce_max / reduce_min / reduce_prod over any numeric type
// (float sums and products accumulate in double), and arg_max / arg_min
// writing i64 indices, and arg_top_k. An empty reduction yields the identity:
// 0, 1, -inf (lowest) for max, +inf (highest) for min.
//
// Every reduction visits each result's elements in index order, so float
// products round as a sequential loop would; f32 sums over a contiguous run
// add in 16 double lanes (the order shows only in the double's last bits). f32
// max and min, the bulk of DynamicQuantizeLinear, run in vector lanes and then
// restore the sequential loop's choices exactly: the last NaN of a run
// propagates and, among equal values, the first wins (+0 or -0, whichever comes
// first).
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

namespace strata::runtime::kernels {

namespace {

enum class ReduceKind { Sum, Max, Min, Prod };

/// Float types accumulate sums and products in double; others in their own
/// type (integer overflow wraps as ONNX Runtime's does).
template <typename T>
using AccumulatorOf =
    std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <ReduceKind Kind, typename T> AccumulatorOf<T> identity() {
  using Acc = AccumulatorOf<T>;
  if constexpr (Kind == ReduceKind::Sum)
    return Acc(0);
  else if constexpr (Kind == ReduceKind::Prod)
    return Acc(1);
  else if constexpr (Kind == ReduceKind::Max)
    return std::numeric_limits<T>::has_infinity
               ? -std::numeric_limits<Acc>::infinity()
               : std::numeric_limits<Acc>::lowest();
  else
    return std::numeric_limits<T>::has_infinity
               ? std::numeric_limits<Acc>::infinity()
               : std::numeric_limits<Acc>::max();
}

template <ReduceKind Kind, typename Acc> Acc combine(Acc acc, Acc value) {
  if constexpr (Kind == ReduceKind::Sum)
    return acc + value;
  else if constexpr (Kind == ReduceKind::Prod)
    return acc * value;
  else if constexpr (Kind == ReduceKind::Max)
    return value > acc || value != value ? value : acc; // NaN propagates.
  else
    return value < acc || value != value ? value : acc;
}

/// 16 f32 (an AVX-512 register, two AVX2 ones, four SSE ones) and the
/// lane mask a comparison of two gives.
typedef float F32x16 __attribute__((vector_size(64)));
typedef int32_t I32x16 __attribute__((vector_size(64)));

/// 16 f32 at any 4-byte aligned address, read as F32x16.
typedef float F32x16Unaligned __attribute__((vector_size(64), aligned(4)));
#define STRATA_LOAD16(p) (*reinterpret_cast<const F32x16Unaligned *>(p))

/// Max (or min) of x[0, n), skipping NaNs and telling whether it saw one
/// (-inf, or +inf, when there is nothing else). 16 * `Vectors` independent
/// lanes in vector registers (written with GCC's vector types: the plain
/// loop's selects stay scalar), folded in halves, then the last n % (16 *
/// `Vectors`); the order only shows for signed zeros, which the caller
/// settles.
template <bool Max, int Vectors>
[[gnu::always_inline]] inline float laneMinMaxBody(const float *x, int64_t n,
                                                   bool &sawNan) {
  constexpr int64_t kLanes = 16 * Vectors;
  const float init = Max ? -std::numeric_limits<float>::infinity()
                         : std::numeric_limits<float>::infinity();
  F32x16 acc[Vectors];
  I32x16 nan[Vectors];
  for (int v = 0; v < Vectors; ++v) {
    acc[v] = F32x16{} + init;
    nan[v] = I32x16{};
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int v = 0; v < Vectors; ++v) {
      F32x16 xv = STRATA_LOAD16(x + i + 16 * v);
      I32x16 better = Max ? xv > acc[v] : xv < acc[v];
      acc[v] = better ? xv : acc[v];
      nan[v] |= xv != xv;
    }
  // The lanes hold no NaN, so they fold in any order: halves at a time.
  for (int v = 1; v < Vectors; ++v) {
    I32x16 better = Max ? acc[v] > acc[0] : acc[v] < acc[0];
    acc[0] = better ? acc[v] : acc[0];
    nan[0] |= nan[v];
  }
  F32x16 folded = acc[0];
  I32x16 nanFolded = nan[0];
  // __builtin_shufflevector (GCC 12 and clang) takes constant indices.
  auto fold = [&](F32x16 other, I32x16 otherNan) {
    I32x16 better = Max ? other > folded : other < folded;
    folded = better ? other : folded;
    nanFolded |= otherNan;
  };
#define STRATA_FOLD_HALF(...)                                                  \
  fold(__builtin_shufflevector(folded, folded, __VA_ARGS__),                   \
       __builtin_shufflevector(nanFolded, nanFolded, __VA_ARGS__))
  STRATA_FOLD_HALF(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  STRATA_FOLD_HALF(4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
  STRATA_FOLD_HALF(2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
  STRATA_FOLD_HALF(1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
#undef STRATA_FOLD_HALF
  float best = folded[0];
  bool anyNan = nanFolded[0] != 0;
  for (; i < n; ++i) {
    float v = x[i];
    best = (Max ? v > best : v < best) ? v : best;
    anyNan |= v != v;
  }
  sawNan = anyNan;
  return best;
}

/// laneMinMaxBody over one long run, in 32 lanes.
template <bool Max>
STRATA_GEMM_CLONES static float laneMinMax(const float *x, int64_t n,
                                           bool &sawNan) {
  return laneMinMaxBody<Max, 2>(x, n, sawNan);
}

/// laneMinMaxBody of each of `rows` runs of `n` (short rows: 16 lanes, and
/// one call for all of them).
template <bool Max>
STRATA_GEMM_CLONES static void laneMinMaxRows(const float *x, int64_t rows,
                                              int64_t n, float *best,
                                              bool *sawNan) {
  for (int64_t r = 0; r < rows; ++r)
    best[r] = laneMinMaxBody<Max, 1>(x + r * n, n, sawNan[r]);
}

/// acc[j] = combine<Max or Min>(acc[j], x[j]) for j < n, branch-free so
/// that it vectorises (a kept row: a channel max or min).
template <bool Max>
STRATA_GEMM_CLONES static void
combineRowF32(double *__restrict acc, const float *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double v = x[j], a = acc[j];
    bool take = (Max ? v > a : v < a) | (v != v);
    acc[j] = take ? v : a;
  }
}

/// combine<Kind> (Max or Min) of `acc` with f32 x[0, n) in index order,
/// from the lanes' `best` and `sawNan`. The sequential combine ends on the
/// run's last NaN if it has one, else keeps a NaN `acc`, else takes the
/// extreme, the first met of equal values (`acc` before the run): only +0
/// and -0 are equal with different bits.
template <ReduceKind Kind>
double settleMinMax(double acc, const float *x, int64_t n, float best,
                    bool sawNan) {
  if (sawNan)
    for (int64_t i = n; i-- > 0;)
      if (x[i] != x[i])
        return x[i];
  double result = combine<Kind, double>(acc, best);
  if (result == 0 && acc != 0)
    for (int64_t i = 0; i < n; ++i)
      if (x[i] == 0)
        return x[i];
  return result;
}

template <ReduceKind Kind>
double minMaxRun(double acc, const float *x, int64_t n) {
  bool sawNan;
  float best = laneMinMax<Kind == ReduceKind::Max>(x, n, sawNan);
  return settleMinMax<Kind>(acc, x, n, best, sawNan);
}

/// The sum of f32 x[0, n) in double, over 16 independent lanes so that the
/// loop vectorises (a sequential double sum waits on each add's latency).
STRATA_GEMM_CLONES static double laneSum(const float *x, int64_t n) {
  constexpr int64_t kLanes = 16;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t l = 0; l < kLanes; ++l)
      lanes[l] += static_cast<double>(x[i + l]);
  for (int64_t l = 0; i + l < n; ++l)
    lanes[l] += static_cast<double>(x[i + l]);
  double sum = 0;
  for (int64_t l = 0; l < kLanes; ++l)
    sum += lanes[l];
  return sum;
}

/// combine<Kind> of `acc` with x[0, n) in index order (f32 sums from 32
/// elements on: in lanes, whose order only shows in the double's last bits).
template <ReduceKind Kind, typename T>
AccumulatorOf<T> reduceRun(AccumulatorOf<T> acc, const T *x, int64_t n) {
  using Acc = AccumulatorOf<T>;
  if constexpr (Kind == ReduceKind::Sum && std::is_same_v<T, float>)
    if (n >= 32)
      return acc + laneSum(x, n);
  // f32 max/min runs take the lanes from 8 elements on (measured: below
  // that, the plain loop is cheaper).
  if constexpr ((Kind == ReduceKind::Max || Kind == ReduceKind::Min) &&
                std::is_same_v<T, float>)
    if (n >= 8)
      return minMaxRun<Kind>(acc, x, n);
  for (int64_t i = 0; i < n; ++i)
    acc = combine<Kind, Acc>(acc, static_cast<Acc>(x[i]));
  return acc;
}

} // namespace

double sumF32(const float *x, int64_t n) { return laneSum(x, n); }

float reduceMaxF32(const float *x, int64_t n) {
  return static_cast<float>(reduceRun<ReduceKind::Max, float>(
      identity<ReduceKind::Max, float>(), x, n));
}
float reduceMinF32(const float *x, int64_t n) {
  return static_cast<float>(reduceRun<ReduceKind::Min, float>(
      identity<ReduceKind::Min, float>(), x, n));
}

namespace {

/// Checks that input and result share one numeric type, then reads `axes`
/// and `keep_dims` and checks the result shape; fills `reduced` with one
/// flag per input dimension.
Error checkReduce(KernelContext &ctx, std::vector<bool> &reduced) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (in.dtype != out.dtype || !dispatchNumeric(in.dtype, [](auto) {}))
    return ctx.fail("takes and writes one numeric type, got " +
                    in.typeString() + " -> " + out.typeString());
  return readReductionAxes(ctx, reduced);
}

template <ReduceKind Kind> Error reduce(KernelContext &ctx) {
  std::vector<bool> reduced;
  STRATA_RETURN_IF_ERROR(checkReduce(ctx, reduced));
  if (ctx.validateOnly)
    return Error::success();
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  // Coalesce the dimensions: drop extents of 1 and merge neighbours that are
  // both reduced or both kept. The last one is then walked as contiguous
  // rows: folded into one result (reduced) or into a row of results (kept).
  std::vector<int64_t> extent;
  std::vector<bool> isReduced;
  for (size_t d = 0; d < in.rank(); ++d) {
    if (in.shape[d] == 1)
      continue;
    if (!extent.empty() && isReduced.back() == reduced[d]) {
      extent.back() *= in.shape[d];
    } else {
      extent.push_back(in.shape[d]);
      isReduced.push_back(reduced[d]);
    }
  }
  if (extent.empty()) {
    extent.push_back(1);
    isReduced.push_back(true);
  }
  size_t dims = extent.size();
  // Stride of each dimension in the result (0 along reduced ones).
  std::vector<int64_t> outStride(dims, 0);
  int64_t stride = 1;
  for (size_t d = dims; d-- > 0;) {
    outStride[d] = isReduced[d] ? 0 : stride;
    stride *= isReduced[d] ? 1 : extent[d];
  }
  int64_t row = extent.back();
  bool rowReduced = isReduced.back();
  dispatchNumeric(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    using Acc = AccumulatorOf<T>;
    std::vector<Acc> acc(out.numel(), identity<Kind, T>());
    const T *x = in.as<T>();
    std::vector<int64_t> index(dims - 1, 0);
    // f32 max/min over many short rows: every row's lanes in one call.
    constexpr bool kMinMaxF32 =
        (Kind == ReduceKind::Max || Kind == ReduceKind::Min) &&
        std::is_same_v<T, float>;
    std::vector<float> rowBest;
    std::unique_ptr<bool[]> rowNan;
    if constexpr (kMinMaxF32)
      if (rowReduced && row >= 8 && row <= 4096) {
        int64_t rows = in.numel() / row;
        rowBest.resize(rows);
        rowNan = std::make_unique<bool[]>(rows);
        laneMinMaxRows<Kind == ReduceKind::Max>(x, rows, row, rowBest.data(),
                                                rowNan.get());
      }
    int64_t o = 0; // The result of the row's first element.
    for (int64_t i = 0, n = in.numel(); i < n; i += row) {
      bool settled = false;
      if constexpr (kMinMaxF32)
        if (!rowBest.empty()) {
          acc[o] = settleMinMax<Kind>(acc[o], x + i, row, rowBest[i / row],
                                      rowNan[i / row]);
          settled = true;
        }
      if (!settled && rowReduced)
        acc[o] = reduceRun<Kind, T>(acc[o], x + i, row);
      else if (!settled) {
        if constexpr (kMinMaxF32)
          combineRowF32<Kind == ReduceKind::Max>(acc.data() + o, x + i, row);
        else
          for (int64_t j = 0; j < row; ++j)
            acc[o + j] =
                combine<Kind, Acc>(acc[o + j], static_cast<Acc>(x[i + j]));
      }
      for (size_t d = dims - 1; d-- > 0;) {
        if (++index[d] < extent[d]) {
          o += outStride[d];
          break;
        }
        o -= outStride[d] * (extent[d] - 1);
        index[d] = 0;
      }
    }
    T *y = out.as<T>();
    for (size_t r = 0; r < acc.size(); ++r)
      y[r] = static_cast<T>(acc[r]);
  });
  return Error::success();
}

/// arg_max (`Greater`) or arg_min of `dim` rows of `width` values `inner`
/// apart: y[i] is the row of the best x[j * inner + i] (the first, or with
/// `Last` the last, of equal ones; a NaN never replaces nor is replaced, as
/// a column walk's comparisons go). A running best value and row per
/// column in local arrays (width <= 128).
template <bool Greater, bool Last, typename T>
[[gnu::always_inline]] inline void
argColumns(const T *x, int64_t *y, int64_t dim, int64_t inner, int64_t width) {
  constexpr int64_t kWidth = 128;
  T best[kWidth];
  int32_t row[kWidth];
  for (int64_t i = 0; i < width; ++i) {
    best[i] = x[i];
    row[i] = 0;
  }
  for (int64_t j = 1; j < dim; ++j) {
    const T *xj = x + j * inner;
    auto jj = static_cast<int32_t>(j);
    for (int64_t i = 0; i < width; ++i) {
      T v = xj[i], b = best[i];
      bool better = Greater ? (Last ? v >= b : v > b) : (Last ? v <= b : v < b);
      best[i] = better ? v : b;
      row[i] = better ? jj : row[i];
    }
  }
  for (int64_t i = 0; i < width; ++i)
    y[i] = row[i];
}

/// argColumns on f32 in vector registers, 128 columns (8 vectors of 16);
/// the `width` % 16 last columns by argColumns.
template <bool Greater, bool Last>
[[gnu::always_inline]] inline void argColumnsF32(const float *x, int64_t *y,
                                                 int64_t dim, int64_t inner,
                                                 int64_t width) {
  constexpr int kVectors = 8;
  int64_t vectors = std::min<int64_t>(kVectors, width / 16);
  F32x16 best[kVectors];
  I32x16 row[kVectors];
  for (int64_t v = 0; v < vectors; ++v) {
    best[v] = STRATA_LOAD16(x + 16 * v);
    row[v] = I32x16{};
  }
  for (int64_t j = 1; j < dim; ++j) {
    const float *xj = x + j * inner;
    I32x16 jj = I32x16{} + static_cast<int32_t>(j);
    for (int64_t v = 0; v < vectors; ++v) {
      F32x16 xv = STRATA_LOAD16(xj + 16 * v);
      I32x16 better = Greater ? (Last ? xv >= best[v] : xv > best[v])
                              : (Last ? xv <= best[v] : xv < best[v]);
      best[v] = better ? xv : best[v];
      row[v] = better ? jj : row[v];
    }
  }
  for (int64_t v = 0; v < vectors; ++v)
    for (int l = 0; l < 16; ++l)
      y[16 * v + l] = row[v][l];
  if (vectors * 16 < width)
    argColumns<Greater, Last>(x + vectors * 16, y + vectors * 16, dim, inner,
                              width - vectors * 16);
}

/// argColumns (argColumnsF32 on f32) over `outer` blocks of `dim` rows of
/// `inner`, 128 columns at a time.
template <bool Greater, bool Last, typename T>
[[gnu::always_inline]] inline void
argRowsBody(const T *x, int64_t *y, int64_t outer, int64_t dim, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; i += 128) {
      const T *xo = x + o * dim * inner + i;
      int64_t *yo = y + o * inner + i,
              width = std::min<int64_t>(128, inner - i);
      if constexpr (std::is_same_v<T, float>)
        argColumnsF32<Greater, Last>(xo, yo, dim, inner, width);
      else
        argColumns<Greater, Last>(xo, yo, dim, inner, width);
    }
}

template <bool Greater, bool Last>
STRATA_GEMM_CLONES void argRowsF32(const float *x, int64_t *y, int64_t outer,
                                   int64_t dim, int64_t inner) {
  argRowsBody<Greater, Last>(x, y, outer, dim, inner);
}

template <bool Greater, typename T>
void argRows(const T *x, int64_t *y, int64_t outer, int64_t dim, int64_t inner,
             bool last) {
  if constexpr (std::is_same_v<T, float>) {
    if (last)
      argRowsF32<Greater, true>(x, y, outer, dim, inner);
    else
      argRowsF32<Greater, false>(x, y, outer, dim, inner);
  } else if (last) {
    argRowsBody<Greater, true>(x, y, outer, dim, inner);
  } else {
    argRowsBody<Greater, false>(x, y, outer, dim, inner);
  }
}

/// arg_max (`Greater`) or arg_min of f32 x[0, n) as the column walk finds
/// it: a NaN first element stays (nothing compares better); else the
/// first (or, `last`, the last) index holding the extreme of the other
/// values (-0 and +0 equal, as the walk's comparisons see them).
template <bool Greater>
int64_t argRunF32(const float *x, int64_t n, bool last) {
  if (x[0] != x[0])
    return 0;
  bool sawNan;
  float best = laneMinMax<Greater>(x, n, sawNan);
  if (last) {
    for (int64_t i = n; i-- > 0;)
      if (x[i] == best)
        return i;
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (x[i] == best)
        return i;
  }
  return 0;
}

/// arg_max (`Greater`) or arg_min along `axis`.
template <bool Greater> Error argReduce(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (!dispatchNumeric(in.dtype, [](auto) {}) || out.dtype != DType::I64)
    return ctx.fail("takes a numeric type and writes i64, got " +
                    in.typeString() + " -> " + out.typeString());
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", 0));
  STRATA_KERNEL_ASSIGN(keepDims, ctx.params.getBool("keep_dims", true));
  STRATA_KERNEL_ASSIGN(last, ctx.params.getBool("select_last_index", false));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0 || in.shape[axis] == 0)
    return ctx.fail("axis " + std::to_string(axisParam) +
                    " is out of range or empty for " + in.typeString());
  std::vector<bool> reduced(in.rank(), false);
  reduced[axis] = true;
  STRATA_RETURN_IF_ERROR(checkReducedShape(ctx, in, out, keepDims, reduced));
  if (ctx.validateOnly)
    return Error::success();
  AxisSplit split = splitAtAxis(in.shape, axis);
  int64_t outer = split.outer, inner = split.inner, dim = split.extent;
  int64_t *y = out.as<int64_t>();
  dispatchNumeric(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *x = in.as<T>();
    if constexpr (std::is_same_v<T, float>)
      if (inner == 1) {
        // Each run's extreme from the lanes, then its first (last) index.
        for (int64_t o = 0; o < outer; ++o)
          y[o] = argRunF32<Greater>(x + o * dim, dim, last);
        return;
      }
    if (inner > 1 && dim <= INT32_MAX) {
      // Rows of columns at once, with the same comparisons as the column
      // walk below.
      argRows<Greater>(x, y, outer, dim, inner, last);
      return;
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *run = x + o * dim * inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < dim; ++j) {
          T v = run[j * inner], b = run[best * inner];
          bool better = Greater ? (v > b || (last && v == b))
                                : (v < b || (last && v == b));
          if (better)
            best = j;
        }
        y[o * inner + i] = best;
      }
  });
  return Error::success();
}

} // namespace

Error argTopKKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 2, 1));
  const TensorView &in = ctx.ins[0];
  TensorView &out = ctx.outs[0];
  // With a run-time k (a second operand) the result's extent along the
  // axis is k: passed at its bound, set to k here.
  bool runtimeK = ctx.ins.size() == 2;
  if (runtimeK && (ctx.ins[1].dtype != DType::I64 || ctx.ins[1].numel() != 1))
    return ctx.fail("takes a one-element i64 k, got " +
                    ctx.ins[1].typeString());
  if (!dispatchNumeric(in.dtype, [](auto) {}) || out.dtype != DType::I64)
    return ctx.fail("takes a numeric type and writes i64, got " +
                    in.typeString() + " -> " + out.typeString());
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", -1));
  STRATA_KERNEL_ASSIGN(largest, ctx.params.getBool("largest", true));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0 || out.rank() != in.rank())
    return ctx.fail("axis " + std::to_string(axisParam) +
                    " is out of range for " + in.typeString());
  // With a run-time k the result's axis extent is the bound it may reach,
  // which a dynamic input's axis may be below.
  for (size_t d = 0; d < in.rank(); ++d)
    if (static_cast<int64_t>(d) != axis
            ? out.shape[d] != in.shape[d]
            : !runtimeK && out.shape[d] > in.shape[d])
      return ctx.fail("result " + out.typeString() + " does not fit " +
                      in.typeString());
  if (ctx.validateOnly)
    return Error::success();
  AxisSplit split = splitAtAxis(in.shape, axis);
  int64_t outer = split.outer, inner = split.inner, dim = split.extent,
          k = out.shape[axis];
  if (runtimeK) {
    int64_t requested = ctx.ins[1].as<const int64_t>()[0];
    int64_t most = std::min(k, dim);
    if (requested < 0 || requested > most)
      return ctx.fail("k is " + std::to_string(requested) + ", outside 0.." +
                      std::to_string(most) +
                      " (the axis' extent, within the bound the program "
                      "was compiled for)");
    k = requested;
    out.shape[axis] = k;
  }
  int64_t *y = out.as<int64_t>();
  std::vector<int64_t> order(dim);
  dispatchNumeric(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *x = in.as<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *run = x + o * dim * inner + i;
        for (int64_t j = 0; j < dim; ++j)
          order[j] = j;
        // Equal values keep index order (the comparison is strict).
        auto before = [&](int64_t a, int64_t b) {
          T va = run[a * inner], vb = run[b * inner];
          if (va != vb)
            return largest ? va > vb : va < vb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          before);
        for (int64_t j = 0; j < k; ++j)
          y[(o * k + j) * inner + i] = order[j];
      }
  });
  return Error::success();
}

Error reduceSumKernel(KernelContext &ctx) {
  return reduce<ReduceKind::Sum>(ctx);
}
Error reduceMaxKernel(KernelContext &ctx) {
  return reduce<ReduceKind::Max>(ctx);
}
Error reduceMinKernel(KernelContext &ctx) {
  return reduce<ReduceKind::Min>(ctx);
}
Error reduceProdKernel(KernelContext &ctx) {
  return reduce<ReduceKind::Prod>(ctx);
}
Error argMaxKernel(KernelContext &ctx) { return argReduce<true>(ctx); }
Error argMinKernel(KernelContext &ctx) { return argReduce<false>(ctx); }

} // namespace strata::runtime::kernels
