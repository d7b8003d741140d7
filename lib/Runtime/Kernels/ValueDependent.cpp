//===- ValueDependent.cpp - kernels whose result extents depend on data ---===//
//
// non_zero, compress, unique and non_max_suppression write results whose
// extent along one dimension is known only once the data is read. The
// method passes those dimensions at their bounds (the memory the planner
// gave them); each kernel counts first, fails the call when the count is
// over the bound (never writing past it), writes its results in the layout
// of their actual shapes and stores the actual extents in its outputs'
// shapes, which the method reads back (docs/dynamic-shapes.md, step 3).
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace strata::runtime::kernels {

namespace {

constexpr int64_t kNoAxis = INT64_MIN;

/// The call's error when `count` results do not fit `bound`.
Error overBound(const KernelIO &io, int64_t count, int64_t bound,
                const std::string &what) {
  return io.fail(std::to_string(count) + " " + what + " exceed the bound of " +
                 std::to_string(bound) +
                 " the program was compiled for (raise it with "
                 "strata-compile --max-extent NODE=N)");
}

/// Calls `fn(isNonZero)` with a predicate over element indices of `view`;
/// false for an element type without one.
template <typename Fn> bool withNonZeroTest(const TensorView &view, Fn &&fn) {
  if (view.dtype == DType::Bool) {
    const uint8_t *data = view.as<const uint8_t>();
    fn([data](int64_t i) { return data[i] != 0; });
    return true;
  }
  // Half precision: zero is +0 or -0, every other bit pattern is not.
  if (view.dtype == DType::F16 || view.dtype == DType::BF16) {
    const uint16_t *data = view.as<const uint16_t>();
    fn([data](int64_t i) { return (data[i] & 0x7fff) != 0; });
    return true;
  }
  return dispatchNumeric(view.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *data = view.as<const T>();
    fn([data](int64_t i) { return data[i] != T(0); });
  });
}

/// The slices a selecting kernel (Compress, Unique) reads: `in` as
/// [outer, extent, inner] around `axisParam` (or its flattened elements,
/// without an axis), `out` checked to keep every other extent. `axis`
/// gets the result's selected dimension.
Result<AxisSplit> selectedSlices(const KernelIO &io, const TensorView &in,
                                 const TensorView &out, int64_t axisParam,
                                 size_t &axis) {
  axis = 0;
  if (axisParam == kNoAxis) {
    if (out.rank() != 1)
      return io.fail("without an axis writes a 1-d result, got " +
                     out.typeString());
    return AxisSplit{1, in.numel(), 1};
  }
  int64_t normalized = normalizeAxis(axisParam, in.rank());
  if (normalized < 0 || out.rank() != in.rank())
    return io.fail("axis " + std::to_string(axisParam) +
                   " is out of range for " + in.typeString() + " -> " +
                   out.typeString());
  axis = static_cast<size_t>(normalized);
  for (size_t d = 0; d < in.rank(); ++d)
    if (d != axis && out.shape[d] != in.shape[d])
      return io.fail("result " + out.typeString() + " does not fit " +
                     in.typeString());
  return splitAtAxis(in.shape, axis);
}

} // namespace

/// A run-time If's result: copies what the branch taken yields into the
/// result's buffer, whose open extents (passed at their bounds) take the
/// yielded value's; the compiler bounds them by both branches' bounds.
Error branchResultKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0];
  TensorView &out = ctx.outs[0];
  if (in.dtype != out.dtype || in.rank() != out.rank())
    return ctx.fail("cannot take " + in.typeString() + " as a result of " +
                    out.typeString());
  for (size_t d = 0; d < in.rank(); ++d)
    if (in.shape[d] > out.shape[d])
      return ctx.fail("the branch yields " + in.typeString() +
                      ", past the result's bound " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  if (in.nbytes() && in.data != out.data)
    std::memmove(out.data, in.data, in.nbytes());
  out.shape = in.shape;
  return Error::success();
}

/// ONNX NonZero: [rank, count] indices of the non-zero elements, in
/// row-major order.
Error nonZeroKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0];
  TensorView &out = ctx.outs[0];
  if (out.dtype != DType::I64 || out.rank() != 2 ||
      out.shape[0] != static_cast<int64_t>(in.rank()))
    return ctx.fail("writes i64[" + std::to_string(in.rank()) +
                    ", count], got " + out.typeString());
  if (!withNonZeroTest(in, [](auto) {}))
    return ctx.fail("does not support " + in.typeString());
  if (ctx.validateOnly)
    return Error::success();
  int64_t numel = in.numel(), bound = out.shape[1], count = 0;
  withNonZeroTest(in, [&](auto isNonZero) {
    for (int64_t i = 0; i < numel; ++i)
      count += isNonZero(i) ? 1 : 0;
  });
  if (count > bound)
    return overBound(ctx, count, bound, "non-zero elements");
  int64_t *y = out.as<int64_t>();
  size_t rank = in.rank();
  std::vector<int64_t> index(rank, 0);
  int64_t j = 0;
  withNonZeroTest(in, [&](auto isNonZero) {
    for (int64_t i = 0; i < numel; ++i) {
      if (isNonZero(i)) {
        for (size_t d = 0; d < rank; ++d)
          y[static_cast<int64_t>(d) * count + j] = index[d];
        ++j;
      }
      // The next row-major index.
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < in.shape[d])
          break;
        index[d] = 0;
      }
    }
  });
  out.shape[1] = count;
  return Error::success();
}

/// ONNX Compress: the slices along `axis` (or the flattened elements,
/// without one) whose condition is true; a condition shorter than the
/// axis drops the slices past its end.
Error compressKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &condition = ctx.ins[1];
  TensorView &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", kNoAxis));
  if (condition.dtype != DType::Bool || condition.rank() != 1)
    return ctx.fail("takes a 1-d bool condition, got " +
                    condition.typeString());
  if (out.dtype != in.dtype)
    return ctx.fail("writes the input's type, got " + in.typeString() + " -> " +
                    out.typeString());
  // The input as [outer, extent, inner] slices.
  size_t axis = 0;
  STRATA_KERNEL_ASSIGN(split, selectedSlices(ctx, in, out, axisParam, axis));
  if (condition.shape[0] > split.extent)
    return ctx.fail("condition " + condition.typeString() +
                    " is longer than the input's " +
                    std::to_string(split.extent) + " slices");
  if (ctx.validateOnly)
    return Error::success();
  const uint8_t *keep = condition.as<const uint8_t>();
  int64_t count = 0;
  for (int64_t i = 0; i < condition.shape[0]; ++i)
    count += keep[i] ? 1 : 0;
  int64_t bound = out.shape[axis];
  if (count > bound)
    return overBound(ctx, count, bound, "selected slices");
  size_t slice = static_cast<size_t>(split.inner) * dtypeSize(in.dtype);
  const uint8_t *x = in.as<const uint8_t>();
  uint8_t *y = out.as<uint8_t>();
  for (int64_t o = 0; o < split.outer; ++o)
    for (int64_t i = 0, j = 0; i < condition.shape[0]; ++i)
      if (keep[i])
        std::memcpy(y + (o * count + j++) * slice,
                    x + (o * split.extent + i) * slice, slice);
  out.shape[axis] = count;
  return Error::success();
}

/// ONNX Unique: the distinct elements (or slices along `axis`), sorted or
/// in order of first occurrence; each one's first index, every element's
/// position in the result, and each one's count. Outputs: values, indices,
/// inverse indices, counts.
Error uniqueKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 4));
  const TensorView &in = ctx.ins[0];
  TensorView &values = ctx.outs[0], &first = ctx.outs[1],
             &inverse = ctx.outs[2], &counts = ctx.outs[3];
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", kNoAxis));
  STRATA_KERNEL_ASSIGN(sorted, ctx.params.getInt("sorted", 1));
  if (values.dtype != in.dtype || !dispatchNumeric(in.dtype, [](auto) {}))
    return ctx.fail("takes a numeric type and writes it, got " +
                    in.typeString() + " -> " + values.typeString());
  for (const TensorView *index : {&first, &inverse, &counts})
    if (index->dtype != DType::I64 || index->rank() != 1)
      return ctx.fail("writes 1-d i64 indices and counts, got " +
                      index->typeString());
  size_t axis = 0;
  STRATA_KERNEL_ASSIGN(split, selectedSlices(ctx, in, values, axisParam, axis));
  int64_t bound = values.shape[axis];
  if (inverse.shape[0] != split.extent || first.shape[0] != bound ||
      counts.shape[0] != bound)
    return ctx.fail("indices " + first.typeString() + ", inverse " +
                    inverse.typeString() + " and counts " +
                    counts.typeString() + " do not fit " + in.typeString() +
                    " -> " + values.typeString());
  if (ctx.validateOnly)
    return Error::success();
  int64_t n = split.extent, outer = split.outer, inner = split.inner;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> groupOf(static_cast<size_t>(n));
  std::vector<int64_t> leaders; // The first slice of each distinct one.
  dispatchNumeric(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *x = in.as<const T>();
    // Slices compare lexicographically over [outer][inner], as numpy's
    // unique of the axis moved to the front.
    auto compare = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          T va = x[(o * n + a) * inner + i], vb = x[(o * n + b) * inner + i];
          if (va != vb)
            return va < vb ? -1 : 1;
        }
      return 0;
    };
    // Stable: equal slices keep index order, so a group's first member is
    // its first occurrence.
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
    for (size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || compare(order[k - 1], order[k]) != 0)
        leaders.push_back(order[k]);
      groupOf[static_cast<size_t>(order[k])] =
          static_cast<int64_t>(leaders.size()) - 1;
    }
  });
  int64_t count = static_cast<int64_t>(leaders.size());
  if (count > bound)
    return overBound(ctx, count, bound, "distinct values");
  // Result order: sorted groups as found, or by first occurrence.
  std::vector<int64_t> rank(leaders.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!sorted) {
    std::vector<int64_t> byFirst(leaders.size());
    std::iota(byFirst.begin(), byFirst.end(), 0);
    std::sort(byFirst.begin(), byFirst.end(), [&](int64_t a, int64_t b) {
      return leaders[static_cast<size_t>(a)] < leaders[static_cast<size_t>(b)];
    });
    for (size_t r = 0; r < byFirst.size(); ++r)
      rank[static_cast<size_t>(byFirst[r])] = static_cast<int64_t>(r);
  }
  size_t element = dtypeSize(in.dtype);
  size_t slice = static_cast<size_t>(inner) * element;
  const uint8_t *x = in.as<const uint8_t>();
  uint8_t *y = values.as<uint8_t>();
  int64_t *firstOut = first.as<int64_t>(), *inverseOut = inverse.as<int64_t>(),
          *countsOut = counts.as<int64_t>();
  std::fill(countsOut, countsOut + count, 0);
  for (size_t g = 0; g < leaders.size(); ++g) {
    int64_t r = rank[g];
    firstOut[r] = leaders[g];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + (o * count + r) * slice, x + (o * n + leaders[g]) * slice,
                  slice);
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = rank[static_cast<size_t>(groupOf[static_cast<size_t>(i)])];
    inverseOut[i] = r;
    ++countsOut[r];
  }
  values.shape[axis] = count;
  first.shape[0] = count;
  counts.shape[0] = count;
  return Error::success();
}

namespace {

/// A box as corners, whatever order the model wrote them in.
struct Corners {
  float y1, x1, y2, x2;
};

Corners cornersOf(const float *box, bool centerPointBox) {
  if (centerPointBox) {
    float xc = box[0], yc = box[1], w = box[2] / 2, h = box[3] / 2;
    return {yc - h, xc - w, yc + h, xc + w};
  }
  return {std::min(box[0], box[2]), std::min(box[1], box[3]),
          std::max(box[0], box[2]), std::max(box[1], box[3])};
}

/// Whether two boxes overlap by more than `threshold` (intersection over
/// union); empty boxes overlap nothing.
bool overlaps(const Corners &a, const Corners &b, float threshold) {
  float ix1 = std::max(a.x1, b.x1), iy1 = std::max(a.y1, b.y1);
  float ix2 = std::min(a.x2, b.x2), iy2 = std::min(a.y2, b.y2);
  float intersection = std::max(0.0f, ix2 - ix1) * std::max(0.0f, iy2 - iy1);
  if (intersection <= 0)
    return false;
  float areaA = (a.x2 - a.x1) * (a.y2 - a.y1);
  float areaB = (b.x2 - b.x1) * (b.y2 - b.y1);
  if (areaA <= 0 || areaB <= 0)
    return false;
  return intersection / (areaA + areaB - intersection) > threshold;
}

} // namespace

/// ONNX NonMaxSuppression: per batch and class, boxes in decreasing score
/// (above `score_threshold`), each kept unless it overlaps a kept one by
/// more than `iou_threshold`, at most `max_output_boxes_per_class`;
/// [count, 3] triples (batch, class, box) in that order.
Error nonMaxSuppressionKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 4, 5, 1));
  const TensorView &boxes = ctx.ins[0], &scores = ctx.ins[1],
                   &maxBoxes = ctx.ins[2], &iou = ctx.ins[3];
  TensorView &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(centerPointBox,
                       ctx.params.getInt("center_point_box", 0));
  if (boxes.dtype != DType::F32 || scores.dtype != DType::F32 ||
      boxes.rank() != 3 || boxes.shape[2] != 4 || scores.rank() != 3 ||
      scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1])
    return ctx.fail("takes f32 boxes [batch, boxes, 4] and scores [batch, "
                    "classes, boxes], got " +
                    boxes.typeString() + " and " + scores.typeString());
  if (maxBoxes.dtype != DType::I64 || maxBoxes.numel() != 1 ||
      iou.dtype != DType::F32 || iou.numel() != 1 ||
      (ctx.ins.size() == 5 &&
       (ctx.ins[4].dtype != DType::F32 || ctx.ins[4].numel() != 1)))
    return ctx.fail("takes a one-element i64 max_output_boxes_per_class and "
                    "f32 thresholds");
  if (out.dtype != DType::I64 || out.rank() != 2 || out.shape[1] != 3)
    return ctx.fail("writes i64[count, 3], got " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  int64_t batches = boxes.shape[0], count = boxes.shape[1],
          classes = scores.shape[1];
  int64_t perClass = std::max<int64_t>(maxBoxes.as<const int64_t>()[0], 0);
  float iouThreshold = iou.as<const float>()[0];
  bool hasScoreThreshold = ctx.ins.size() == 5;
  float scoreThreshold =
      hasScoreThreshold ? ctx.ins[4].as<const float>()[0] : 0.0f;
  int64_t bound = out.shape[0], written = 0;
  int64_t *y = out.as<int64_t>();
  std::vector<int64_t> candidates, kept;
  std::vector<Corners> corners(static_cast<size_t>(count));
  for (int64_t b = 0; b < batches; ++b) {
    const float *batchBoxes = boxes.as<const float>() + b * count * 4;
    for (int64_t i = 0; i < count; ++i)
      corners[static_cast<size_t>(i)] =
          cornersOf(batchBoxes + i * 4, centerPointBox != 0);
    for (int64_t c = 0; c < classes && perClass > 0; ++c) {
      const float *s = scores.as<const float>() + (b * classes + c) * count;
      candidates.clear();
      for (int64_t i = 0; i < count; ++i)
        if (!hasScoreThreshold || s[i] > scoreThreshold)
          candidates.push_back(i);
      // Highest score first; equal scores by box index.
      std::stable_sort(candidates.begin(), candidates.end(),
                       [&](int64_t a, int64_t b2) { return s[a] > s[b2]; });
      kept.clear();
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(kept.size()) == perClass)
          break;
        const Corners &box = corners[static_cast<size_t>(i)];
        if (std::none_of(kept.begin(), kept.end(), [&](int64_t k) {
              return overlaps(corners[static_cast<size_t>(k)], box,
                              iouThreshold);
            }))
          kept.push_back(i);
      }
      for (int64_t i : kept) {
        if (written == bound)
          return overBound(ctx, written + 1, bound, "or more selected boxes");
        y[written * 3] = b;
        y[written * 3 + 1] = c;
        y[written * 3 + 2] = i;
        ++written;
      }
    }
  }
  out.shape[0] = written;
  return Error::success();
}

} // namespace strata::runtime::kernels
