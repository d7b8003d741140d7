//===- ShapeInference.cpp - Shape rules shared by verifiers ---------------===//
#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace strata {

std::optional<int64_t> slidingWindowExtent(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t dilation,
                                           int64_t padBegin, int64_t padEnd,
                                           bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  return windowExtent(in, kernel, stride, dilation, padBegin, padEnd, ceilMode);
}

LogicalResult
verifyWindowAttributes(function_ref<InFlightDiagnostic()> emitError,
                       int64_t spatialRank, ArrayRef<int64_t> kernelShape,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                       ArrayRef<int64_t> pads) {
  auto checkPositive = [&](StringRef name,
                           ArrayRef<int64_t> values) -> LogicalResult {
    if (values.empty())
      return success();
    if (static_cast<int64_t>(values.size()) != spatialRank)
      return emitError() << "'" << name << "' has " << values.size()
                         << " entries, expected " << spatialRank
                         << " (one per spatial dimension)";
    if (llvm::any_of(values, [](int64_t v) { return v <= 0; }))
      return emitError() << "'" << name << "' entries must be positive";
    return success();
  };
  if (failed(checkPositive("kernel_shape", kernelShape)) ||
      failed(checkPositive("strides", strides)) ||
      failed(checkPositive("dilations", dilations)))
    return failure();
  if (pads.empty())
    return success();
  if (static_cast<int64_t>(pads.size()) != 2 * spatialRank)
    return emitError() << "'pads' has " << pads.size() << " entries, expected "
                       << 2 * spatialRank << " (begin and end per spatial "
                       << "dimension)";
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return emitError() << "'pads' entries must be non-negative";
  return success();
}

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l == 1) {
      result[i] = r;
    } else if (r == 1) {
      result[i] = l;
    } else if (ShapedType::isDynamic(l)) {
      result[i] = r;
    } else if (ShapedType::isDynamic(r) || l == r) {
      result[i] = l;
    } else {
      return failure();
    }
  }
  return result;
}

bool isCompatibleShape(ArrayRef<int64_t> actual, ArrayRef<int64_t> expected) {
  if (actual.size() != expected.size())
    return false;
  for (auto [a, e] : llvm::zip_equal(actual, expected))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return false;
  return true;
}

FailureOr<SmallVector<int64_t>> inferReshapeShape(ArrayRef<int64_t> input,
                                                  ArrayRef<int64_t> target,
                                                  bool allowZero) {
  if (llvm::any_of(input, ShapedType::isDynamic))
    return failure();
  // Checked products: the target comes from the model.
  std::optional<int64_t> total = 1, known = 1;
  std::optional<size_t> inferred;
  for (int64_t e : input)
    total = total ? llvm::checkedMul(*total, e) : std::nullopt;
  if (!total)
    return failure();
  SmallVector<int64_t> result;
  for (auto [i, extent] : llvm::enumerate(target)) {
    int64_t e = extent;
    if (e == 0 && !allowZero) {
      if (i >= input.size())
        return failure();
      e = input[i];
    }
    if (e == -1) {
      if (inferred)
        return failure();
      inferred = i;
    } else if (e < 0) {
      return failure();
    } else if (!(known = llvm::checkedMul(*known, e))) {
      return failure();
    }
    result.push_back(e);
  }
  if (inferred) {
    if (*known == 0 || *total % *known != 0)
      return failure();
    result[*inferred] = *total / *known;
  } else if (*known != *total) {
    return failure();
  }
  return result;
}

FailureOr<SmallVector<int64_t>>
inferSqueezeShape(ArrayRef<int64_t> input,
                  std::optional<ArrayRef<int64_t>> axes) {
  int64_t rank = input.size();
  SmallVector<bool> removed(rank, false);
  if (axes) {
    for (int64_t a : *axes) {
      FailureOr<int64_t> axis = normalizeAxis(a, rank);
      if (failed(axis))
        return failure();
      removed[*axis] = true;
    }
  } else {
    for (auto [i, e] : llvm::enumerate(input))
      removed[i] = e == 1;
  }
  SmallVector<int64_t> result;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed[d])
      result.push_back(input[d]);
  return result;
}

FailureOr<SmallVector<int64_t>> inferUnsqueezeShape(ArrayRef<int64_t> input,
                                                    ArrayRef<int64_t> axes) {
  int64_t rank = input.size() + axes.size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    FailureOr<int64_t> axis = normalizeAxis(a, rank);
    if (failed(axis) || inserted[*axis])
      return failure();
    inserted[*axis] = true;
  }
  SmallVector<int64_t> result;
  for (int64_t d = 0, next = 0; d < rank; ++d)
    result.push_back(inserted[d] ? 1 : input[next++]);
  return result;
}

FailureOr<SmallVector<int64_t>> inferGatherShape(ArrayRef<int64_t> data,
                                                 ArrayRef<int64_t> indices,
                                                 int64_t axis) {
  FailureOr<int64_t> normalized = normalizeAxis(axis, data.size());
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> result(data.take_front(*normalized));
  llvm::append_range(result, indices);
  llvm::append_range(result, data.drop_front(*normalized + 1));
  return result;
}

FailureOr<SmallVector<int64_t>>
inferConcatShape(ArrayRef<SmallVector<int64_t>> inputs, int64_t axis) {
  if (inputs.empty())
    return failure();
  SmallVector<int64_t> result(inputs.front());
  FailureOr<int64_t> normalized = normalizeAxis(axis, result.size());
  if (failed(normalized))
    return failure();
  for (ArrayRef<int64_t> shape : inputs.drop_front()) {
    if (shape.size() != result.size())
      return failure();
    int64_t &extent = result[*normalized];
    if (ShapedType::isDynamic(extent) ||
        ShapedType::isDynamic(shape[*normalized])) {
      extent = ShapedType::kDynamic;
      continue;
    }
    std::optional<int64_t> sum = llvm::checkedAdd(extent, shape[*normalized]);
    if (!sum)
      return failure();
    extent = *sum;
  }
  return result;
}

FailureOr<SmallVector<int64_t>> inferSliceShape(ArrayRef<int64_t> data,
                                                ArrayRef<int64_t> starts,
                                                ArrayRef<int64_t> ends,
                                                ArrayRef<int64_t> axes,
                                                ArrayRef<int64_t> steps) {
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size() ||
      llvm::any_of(data, ShapedType::isDynamic))
    return failure();
  SmallVector<int64_t> result(data);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(axes[i], data.size());
    int64_t step = steps[i];
    if (failed(axis) || step == 0)
      return failure();
    result[*axis] =
        resolveSliceAxis(data[*axis], starts[i], ends[i], step).count;
  }
  return result;
}

SliceAxis resolveSliceAxis(int64_t extent, int64_t start, int64_t end,
                           int64_t step) {
  int64_t n = extent;
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  start = std::clamp(start, lo, hi);
  end = std::clamp(end, lo, hi);
  int64_t span = step > 0 ? end - start : start - end;
  if (span <= 0)
    return {start, 0};
  // Unsigned: -step of the most negative step does not fit an int64_t.
  uint64_t magnitude = step > 0 ? uint64_t(step) : 0 - uint64_t(step);
  uint64_t count = uint64_t(span) / magnitude +
                   (uint64_t(span) % magnitude != 0 ? 1 : 0);
  return {start, static_cast<int64_t>(count)};
}

FailureOr<int64_t> rangeElementCount(double start, double limit, double delta) {
  if (delta == 0)
    return failure();
  return std::max<int64_t>(
      static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
}

FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, extent] : llvm::enumerate(shape)) {
    if (i)
      text += 'x';
    text += ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
  }
  return text;
}

} // namespace strata
