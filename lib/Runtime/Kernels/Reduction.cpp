//===- Reduction.cpp - reduce_mean and softmax (f32) ----------------------===//
#include "KernelUtils.h"

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
  // mean of one contiguous run.
  size_t firstReduced = rank;
  while (firstReduced > 0 && reduced[firstReduced - 1])
    --firstReduced;
  bool trailing = std::none_of(reduced.begin(), reduced.begin() + firstReduced,
                               [](bool r) { return r; });
  if (trailing) {
    for (int64_t o = 0; o < outTotal; ++o) {
      const float *run = x + o * count;
      double sum = 0;
      for (int64_t i = 0; i < count; ++i)
        sum += run[i];
      y[o] = static_cast<float>(sum / static_cast<double>(count));
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

Error softmaxKernel(KernelContext &ctx) {
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
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *xs = x + o * dim * inner + i;
      float *ys = y + o * dim * inner + i;
      float maxV = -INFINITY;
      for (int64_t j = 0; j < dim; ++j)
        maxV = std::max(maxV, xs[j * inner]);
      float sum = 0.0f;
      for (int64_t j = 0; j < dim; ++j) {
        float e = std::exp(xs[j * inner] - maxV);
        ys[j * inner] = e;
        sum += e;
      }
      float scale = 1.0f / sum;
      for (int64_t j = 0; j < dim; ++j)
        ys[j * inner] *= scale;
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
