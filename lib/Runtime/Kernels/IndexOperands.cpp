//===- IndexOperands.cpp - pad, dynamic_slice and cum_sum -----------------===//
//
// Kernels whose indices (pads, slice bounds, a scan axis) arrive as i64
// tensors at run time. The result shape is fixed by the program; each
// kernel derives the shape its index values imply and fails the call, before
// writing anything, when the two differ. pad and dynamic_slice move elements
// of any type by size; cum_sum adds in the element type.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace strata::runtime::kernels {

namespace {

std::string formatList(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// The values of a 1-D i64 operand.
std::vector<int64_t> readIndices(const TensorView &view) {
  const int64_t *data = view.as<const int64_t>();
  return std::vector<int64_t>(data, data + view.numel());
}

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Steps the row-major coordinate `index` to the next element of `shape`.
void advance(std::vector<int64_t> &index, const std::vector<int64_t> &shape) {
  for (size_t d = index.size(); d-- > 0;) {
    if (++index[d] < shape[d])
      return;
    index[d] = 0;
  }
}

/// Maps output coordinate `i` of a padded axis of `extent` elements with
/// `begin` leading pad elements to the input coordinate it reads; -1 for the
/// constant value. `extent` >= 1 (>= 2 for reflect) wherever the axis is
/// padded.
int64_t padSource(int64_t i, int64_t begin, int64_t extent,
                  const std::string &mode) {
  int64_t x = i - begin;
  if (x >= 0 && x < extent)
    return x;
  if (mode == "constant")
    return -1;
  if (mode == "edge")
    return x < 0 ? 0 : extent - 1;
  if (mode == "wrap")
    return ((x % extent) + extent) % extent;
  // reflect: period 2 * (extent - 1), mirrored without repeating the border.
  int64_t period = 2 * (extent - 1);
  int64_t m = ((x % period) + period) % period;
  return m < extent ? m : period - m;
}

} // namespace

Error padKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 3, 1));
  const TensorView &in = ctx.ins[0], &padsView = ctx.ins[1], &out = ctx.outs[0];
  const Param *modeParam = ctx.params.find("mode");
  std::string mode = modeParam ? modeParam->stringValue : "constant";
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return ctx.fail("unknown mode '" + mode + "'");
  size_t rank = in.rank();
  if (in.dtype != out.dtype || out.rank() != rank ||
      padsView.dtype != DType::I64 || padsView.rank() != 1 ||
      padsView.shape[0] != static_cast<int64_t>(2 * rank))
    return ctx.fail("takes x, i64 pads[2 * rank] (and a value) of the "
                    "result's type, got " +
                    in.typeString() + ", " + padsView.typeString() + " -> " +
                    out.typeString());
  if (ctx.ins.size() == 3 &&
      (ctx.ins[2].dtype != out.dtype || ctx.ins[2].numel() != 1))
    return ctx.fail("the padding value must be one element of the result's "
                    "type, got " +
                    ctx.ins[2].typeString());
  if (ctx.validateOnly)
    return Error::success();

  std::vector<int64_t> pads = readIndices(padsView);
  for (size_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[rank + d];
    // |pads| beyond the result extent cannot produce it; this also keeps the
    // sum below from overflowing.
    if (std::max(std::abs(begin), std::abs(end)) > out.shape[d] + in.shape[d])
      return ctx.fail("pads " + formatList(pads) + " do not turn " +
                      in.typeString() + " into " + out.typeString());
    if (in.shape[d] + begin + end != out.shape[d])
      return ctx.fail("pads " + formatList(pads) + " give extent " +
                      std::to_string(in.shape[d] + begin + end) +
                      " along axis " + std::to_string(d) +
                      "; the program was compiled for " + out.typeString());
    bool padded = begin > 0 || end > 0;
    if (padded && mode != "constant" &&
        in.shape[d] < (mode == "reflect" ? 2 : 1))
      return ctx.fail(mode + " padding of axis " + std::to_string(d) +
                      " needs more input elements than " +
                      std::to_string(in.shape[d]));
  }
  size_t size = dtypeSize(out.dtype);
  std::vector<char> fill(size, 0);
  if (ctx.ins.size() == 3)
    std::memcpy(fill.data(), ctx.ins[2].data, size);
  const char *x = in.as<const char>();
  char *y = out.as<char>();
  if (out.numel() == 0)
    return Error::success();
  // Per axis, the input coordinate each output coordinate reads (-1: the
  // constant), computed once; then row by row along the last axis, whose
  // interior is one contiguous copy.
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t d = 0; d < rank; ++d) {
    source[d].resize(out.shape[d]);
    for (int64_t i = 0; i < out.shape[d]; ++i)
      source[d][i] = padSource(i, pads[d], in.shape[d], mode);
  }
  std::vector<int64_t> inStrides = stridesOf(in.shape);
  if (rank == 0) {
    std::memcpy(y, x, size);
    return Error::success();
  }
  size_t last = rank - 1;
  int64_t rowLength = out.shape[last];
  int64_t rows = out.numel() / rowLength;
  // The output range of the last axis that copies the input row as it is.
  int64_t first = std::max<int64_t>(pads[last], 0);
  int64_t stop = std::min<int64_t>(pads[last] + in.shape[last], rowLength);
  const std::vector<int64_t> &lastSource = source[last];
  std::vector<int64_t> index(last, 0);
  std::vector<int64_t> outerShape(out.shape.begin(), out.shape.begin() + last);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;
    for (size_t d = 0; d < last && base >= 0; ++d) {
      int64_t at = source[d][index[d]];
      base = at < 0 ? -1 : base + at * inStrides[d];
    }
    char *row = y + r * rowLength * size;
    if (base < 0) {
      for (int64_t j = 0; j < rowLength; ++j)
        std::memcpy(row + j * size, fill.data(), size);
    } else {
      const char *inRow = x + base * size;
      for (int64_t j = 0; j < first && j < rowLength; ++j) {
        int64_t at = lastSource[j];
        std::memcpy(row + j * size, at < 0 ? fill.data() : inRow + at * size,
                    size);
      }
      if (stop > first)
        std::memcpy(row + first * size, inRow + (first - pads[last]) * size,
                    (stop - first) * size);
      for (int64_t j = std::max(stop, first); j < rowLength; ++j) {
        int64_t at = lastSource[j];
        std::memcpy(row + j * size, at < 0 ? fill.data() : inRow + at * size,
                    size);
      }
    }
    advance(index, outerShape);
  }
  return Error::success();
}

Error dynamicSliceKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 5, 5, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  size_t rank = in.rank();
  bool boundsOk = true;
  for (size_t i = 1; i < 5; ++i)
    boundsOk = boundsOk && ctx.ins[i].dtype == DType::I64 &&
               ctx.ins[i].rank() == 1 && ctx.ins[i].shape == ctx.ins[1].shape;
  if (in.dtype != out.dtype || out.rank() != rank || !boundsOk)
    return ctx.fail("takes x and four i64 vectors of one length (starts, "
                    "ends, axes, steps), got " +
                    in.typeString() + ", " + ctx.ins[1].typeString() + " -> " +
                    out.typeString());
  if (ctx.validateOnly)
    return Error::success();

  std::vector<int64_t> starts = readIndices(ctx.ins[1]),
                       ends = readIndices(ctx.ins[2]),
                       axes = readIndices(ctx.ins[3]),
                       steps = readIndices(ctx.ins[4]);
  // Whole axes unless listed.
  std::vector<int64_t> first(rank, 0), step(rank, 1), count(in.shape);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = normalizeAxis(axes[i], rank);
    if (axis < 0 || seen[axis])
      return ctx.fail("axes " + formatList(axes) +
                      " are not distinct axes of " + in.typeString());
    seen[axis] = true;
    int64_t extent = in.shape[axis], s = steps[i];
    if (s == 0)
      return ctx.fail("steps " + formatList(steps) + " contain 0");
    // ONNX Slice: negative bounds count from the end; starts clamp to
    // [0, extent] for positive steps and [0, extent - 1] for negative ones,
    // ends to [0, extent] and [-1, extent - 1].
    auto resolve = [&](int64_t bound, int64_t lo, int64_t hi) {
      if (bound < 0)
        bound += extent; // Cannot overflow: extent >= 0.
      return std::min(std::max(bound, lo), hi);
    };
    int64_t b = 0, n = 0;
    if (extent > 0 && s > 0) {
      b = resolve(starts[i], 0, extent);
      int64_t e = resolve(ends[i], 0, extent);
      n = e > b ? (e - b - 1) / s + 1 : 0;
    } else if (extent > 0) {
      b = resolve(starts[i], 0, extent - 1);
      int64_t e = resolve(ends[i], -1, extent - 1);
      // -s cannot overflow: s == INT64_MIN gives at most one element.
      n = b > e ? (s == std::numeric_limits<int64_t>::min()
                       ? 1
                       : (b - e - 1) / -s + 1)
                : 0;
    }
    first[axis] = b;
    step[axis] = s;
    count[axis] = n;
  }
  if (count != out.shape)
    return ctx.fail("starts " + formatList(starts) + ", ends " +
                    formatList(ends) + ", axes " + formatList(axes) +
                    ", steps " + formatList(steps) + " select " +
                    formatList(count) + " of " + in.typeString() +
                    "; the program was compiled for " + out.typeString());
  size_t size = dtypeSize(out.dtype);
  std::vector<int64_t> inStrides = stridesOf(in.shape);
  const char *x = in.as<const char>();
  char *y = out.as<char>();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d)
      source += (first[d] + index[d] * step[d]) * inStrides[d];
    std::memcpy(y + i * size, x + source * size, size);
    advance(index, out.shape);
  }
  return Error::success();
}

Error cumSumKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &axisView = ctx.ins[1], &out = ctx.outs[0];
  if (in.dtype != out.dtype || in.shape != out.shape || in.rank() == 0 ||
      axisView.dtype != DType::I64 || axisView.numel() != 1)
    return ctx.fail("takes x of the result's type and shape (rank >= 1) and a "
                    "one-element i64 axis, got " +
                    in.typeString() + ", " + axisView.typeString() + " -> " +
                    out.typeString());
  STRATA_KERNEL_ASSIGN(exclusive, ctx.params.getBool("exclusive", false));
  STRATA_KERNEL_ASSIGN(reverse, ctx.params.getBool("reverse", false));
  bool supported = dispatchNumeric(in.dtype, [](auto) {});
  if (!supported)
    return ctx.fail("has no " + in.typeString() + " implementation");
  if (ctx.validateOnly)
    return Error::success();
  int64_t axisValue = axisView.as<const int64_t>()[0];
  int64_t axis = normalizeAxis(axisValue, in.rank());
  if (axis < 0)
    return ctx.fail("axis " + std::to_string(axisValue) + " is outside " +
                    in.typeString());
  int64_t extent = in.shape[axis];
  int64_t inner = stridesOf(in.shape)[axis];
  int64_t outer = extent ? in.numel() / (extent * inner) : 0;
  dispatchNumeric(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T *x = in.as<const T>();
    T *y = out.as<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        T sum = T(0);
        for (int64_t k = 0; k < extent; ++k) {
          int64_t at =
              (o * extent + (reverse ? extent - 1 - k : k)) * inner + j;
          if (exclusive) {
            y[at] = sum;
            sum = static_cast<T>(sum + x[at]);
          } else {
            sum = static_cast<T>(sum + x[at]);
            y[at] = sum;
          }
        }
      }
  });
  return Error::success();
}

} // namespace strata::runtime::kernels
