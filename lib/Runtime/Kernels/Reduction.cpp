//===- Reduction.cpp - reduce_mean, softmax and log_softmax (f32) --------===//
#include "KernelUtils.h"
#include "VectorMath.h"

#include <algorithm>
#include <cmath>

namespace strata::runtime::kernels {

Error reduceMeanKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  size_t rank = in.rank();
  std::vector<bool> reduced;
  STRATA_RETURN_IF_ERROR(readReductionAxes(ctx, reduced));
  if (ctx.validateOnly)
    return Error::success();

  const float *x = in.as<float>();
  float *y = out.as<float>();
  int64_t total = in.numel(), outTotal = out.numel();
  if (outTotal == 0)
    return Error::success();
  int64_t count = outTotal ? total / outTotal : 0;
  // Fast path: the reduced axes are a trailing block, so each result is the
  // mean of one contiguous run (summed in reduce_sum's double lanes).
  size_t firstReduced = rank;
  while (firstReduced > 0 && reduced[firstReduced - 1])
    --firstReduced;
  bool trailing = std::none_of(reduced.begin(), reduced.begin() + firstReduced,
                               [](bool r) { return r; });
  if (trailing) {
    for (int64_t o = 0; o < outTotal; ++o) {
      double sum = sumF32(x + o * count, count);
      y[o] = static_cast<float>(sum / static_cast<double>(count));
    }
    return Error::success();
  }
  // The reduced axes one run with kept axes after it ([outer, count,
  // inner] row-major, an embedding bag's mean over its length): rows of
  // `inner` summed in order, in double as the other paths.
  size_t runBegin = 0, runEnd = rank;
  while (runBegin < rank && !reduced[runBegin])
    ++runBegin;
  while (runEnd > runBegin && !reduced[runEnd - 1])
    --runEnd;
  bool oneRun = std::all_of(reduced.begin() + runBegin,
                            reduced.begin() + runEnd, [](bool r) { return r; });
  if (oneRun) {
    int64_t inner = 1;
    for (size_t d = runEnd; d < rank; ++d)
      inner *= in.shape[d];
    int64_t outer = outTotal / inner;
    std::vector<double> acc(inner);
    for (int64_t o = 0; o < outer; ++o) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const float *block = x + o * count * inner;
      for (int64_t r = 0; r < count; ++r)
        for (int64_t i = 0; i < inner; ++i)
          acc[i] += block[r * inner + i];
      for (int64_t i = 0; i < inner; ++i)
        y[o * inner + i] =
            static_cast<float>(acc[i] / static_cast<double>(count));
    }
    return Error::success();
  }
  // General case: accumulate every input element into its result slot.
  std::vector<int64_t> outStride(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    outStride[d] = reduced[d] ? 0 : stride;
    stride *= reduced[d] ? 1 : in.shape[d];
  }
  std::vector<double> acc(outTotal, 0.0);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d)
      o += index[d] * outStride[d];
    acc[o] += x[i];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < in.shape[d])
        break;
      index[d] = 0;
    }
  }
  for (int64_t o = 0; o < outTotal; ++o)
    y[o] = static_cast<float>(acc[o] / static_cast<double>(count));
  return Error::success();
}

namespace {

/// Softmax (or, with `log`, log-softmax) of `dim` values `inner` apart, for
/// `width` neighbouring positions at once (width <= inner): the loops run
/// over contiguous runs of `width` so that the compiler vectorizes them.
template <bool log>
void softmaxColumns(const float *x, float *y, int64_t dim, int64_t inner,
                    int64_t width, float *maxV, float *sum) {
  for (int64_t i = 0; i < width; ++i) {
    maxV[i] = -INFINITY;
    sum[i] = 0.0f;
  }
  for (int64_t j = 0; j < dim; ++j) {
    const float *row = x + j * inner;
    for (int64_t i = 0; i < width; ++i)
      maxV[i] = std::max(maxV[i], row[i]);
  }
  for (int64_t j = 0; j < dim; ++j) {
    const float *row = x + j * inner;
    float *out = y + j * inner;
    for (int64_t i = 0; i < width; ++i) {
      float e = std::exp(row[i] - maxV[i]);
      if (!log)
        out[i] = e;
      sum[i] += e;
    }
  }
  // (x - max) - log(sum), as oneDNN and PyTorch: exact where max is large.
  for (int64_t i = 0; i < width; ++i)
    sum[i] = log ? std::log(sum[i]) : 1.0f / sum[i];
  for (int64_t j = 0; j < dim; ++j) {
    const float *row = x + j * inner;
    float *out = y + j * inner;
    for (int64_t i = 0; i < width; ++i)
      out[i] = log ? (row[i] - maxV[i]) - sum[i] : out[i] * sum[i];
  }
}

template <bool log> Error softmaxOverAxis(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", -1));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0)
    return ctx.fail("axis " + std::to_string(axisParam) +
                    " is out of range for " + in.typeString());
  if (ctx.validateOnly)
    return Error::success();
  AxisSplit split = splitAtAxis(in.shape, axis);
  int64_t outer = split.outer, inner = split.inner, dim = split.extent;
  const float *x = in.as<float>();
  float *y = out.as<float>();
  if (inner == 1) {
    // Over contiguous rows (attention's scores): the exponentials of a
    // whole row at once, through the vector math library where there is
    // one, as the Exp kernel computes them.
    for (int64_t o = 0; o < outer; ++o) {
      const float *row = x + o * dim;
      float *result = y + o * dim;
      float maxV = reduceMaxF32(row, dim);
      for (int64_t j = 0; j < dim; ++j)
        result[j] = row[j] - maxV;
      applyFloatFunction(FloatFunction::Exp, result, result, dim);
      float sum = static_cast<float>(sumF32(result, dim));
      if (log) {
        float logSum = std::log(sum);
        for (int64_t j = 0; j < dim; ++j)
          result[j] = (row[j] - maxV) - logSum;
      } else {
        float scale = 1.0f / sum;
        for (int64_t j = 0; j < dim; ++j)
          result[j] *= scale;
      }
    }
    return Error::success();
  }
  constexpr int64_t kColumns = 64;
  float maxV[kColumns], sum[kColumns];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; i += kColumns)
      softmaxColumns<log>(x + o * dim * inner + i, y + o * dim * inner + i, dim,
                          inner, std::min(kColumns, inner - i), maxV, sum);
  return Error::success();
}

} // namespace

Error softmaxKernel(KernelContext &ctx) { return softmaxOverAxis<false>(ctx); }

Error logSoftmaxKernel(KernelContext &ctx) {
  return softmaxOverAxis<true>(ctx);
}

} // namespace strata::runtime::kernels
