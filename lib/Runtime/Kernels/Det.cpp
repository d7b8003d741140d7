//===- Det.cpp - determinants of square matrices --------------------------===//
//
// ONNX Det on f32 [*, M, M]: each matrix is factorised in double precision
// (LU with partial pivoting, the largest magnitude in the column as pivot);
// the determinant is the product of the pivots, negated per row swap. A
// zero column gives 0.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <cmath>

namespace strata::runtime::kernels {

Error detKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  size_t rank = in.shape.size();
  if (in.dtype != DType::F32 || out.dtype != DType::F32 || rank < 2 ||
      in.shape[rank - 1] != in.shape[rank - 2] ||
      out.shape != std::vector<int64_t>(in.shape.begin(), in.shape.end() - 2))
    return ctx.fail("takes f32 [*, M, M] to [*], got " + in.typeString() +
                    " -> " + out.typeString());
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();

  int64_t m = in.shape[rank - 1], count = out.numel();
  std::vector<double> a(static_cast<size_t>(m * m));
  const float *src = in.as<float>();
  float *dst = out.as<float>();
  for (int64_t i = 0; i < count; ++i, src += m * m) {
    for (int64_t e = 0; e < m * m; ++e)
      a[e] = src[e];
    double det = 1.0;
    for (int64_t k = 0; k < m && det != 0.0; ++k) {
      int64_t pivot = k;
      for (int64_t r = k + 1; r < m; ++r)
        if (std::fabs(a[r * m + k]) > std::fabs(a[pivot * m + k]))
          pivot = r;
      if (pivot != k) {
        for (int64_t c = k; c < m; ++c)
          std::swap(a[k * m + c], a[pivot * m + c]);
        det = -det;
      }
      double p = a[k * m + k];
      if (p == 0.0) { // singular (an overflowed product times 0 is NaN)
        det = 0.0;
        break;
      }
      det *= p;
      for (int64_t r = k + 1; r < m; ++r) {
        double f = a[r * m + k] / p;
        for (int64_t c = k + 1; c < m; ++c)
          a[r * m + c] -= f * a[k * m + c];
      }
    }
    dst[i] = static_cast<float>(det);
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
