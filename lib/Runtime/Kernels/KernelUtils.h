//===- KernelUtils.h - helpers shared by the portable kernels ---*- C++ -*-===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H
#define STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H

#include "strata/Runtime/Kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::runtime::kernels {

/// Checks the number of ins (within [minIns, maxIns]) and outs.
Error checkArity(const KernelContext &ctx, size_t minIns, size_t maxIns,
                 size_t outs);
/// Checks that every operand is float32.
Error checkAllF32(const KernelContext &ctx);
/// Checks that `a` and `b` have the same shape.
Error checkSameShape(const KernelContext &ctx, const TensorView &a,
                     const TensorView &b, const char *what);
/// Unwraps a Result<T> in a kernel, prefixing the error with the kernel name.
#define STRATA_KERNEL_ASSIGN(var, expr)                                       \
  auto var##Result_ = (expr);                                                 \
  if (!var##Result_.ok())                                                     \
    return ctx.fail(var##Result_.error().message());                          \
  auto var = std::move(var##Result_).value()

/// Normalises a possibly negative axis against `rank`; -1 when invalid.
int64_t normalizeAxis(int64_t axis, size_t rank);

/// Largest stride, dilation, kernel extent or pad a kernel accepts: keeps
/// every index computation of the window kernels far from overflow.
constexpr int64_t kMaxWindowParam = int64_t(1) << 20;
/// Largest scratch area a kernel asks for, in floats.
constexpr size_t kMaxScratchFloats = size_t(1) << 32;

/// Reads a two-element positive int list parameter (strides, kernel, ...).
Result<std::pair<int64_t, int64_t>>
getPairParam(const Params &params, const char *name, int64_t fallback);
/// Reads `pads` as [top, left, bottom, right], non-negative.
Result<std::vector<int64_t>> getPadsParam(const Params &params);

/// The geometry of a 2-d convolution, NCHW input and OIHW weight.
struct Conv2dGeometry {
  int64_t n, c, h, w, oc, kh, kw, oh, ow, group;
  int64_t strideH, strideW, dilH, dilW, padT, padL, padB, padR;
};
/// Reads strides, dilations, pads and group from `ctx.params` and checks
/// them against the input, weight and result shapes.
Result<Conv2dGeometry> readConv2dGeometry(const KernelContext &ctx,
                                          const TensorView &in,
                                          const TensorView &weight,
                                          const TensorView &out);

/// C[M,N] = A[M,K] * B[K,N] (row-major, leading dimensions lda/ldb/ldc),
/// overwriting C. Blocked for cache reuse; inner loops vectorise.
void gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc);

// Kernel entry points (one per registry name).
Error addKernel(KernelContext &ctx);
Error subKernel(KernelContext &ctx);
Error mulKernel(KernelContext &ctx);
Error divKernel(KernelContext &ctx);
Error powKernel(KernelContext &ctx);
Error reluKernel(KernelContext &ctx);
Error sigmoidKernel(KernelContext &ctx);
Error tanhKernel(KernelContext &ctx);
Error expKernel(KernelContext &ctx);
Error sqrtKernel(KernelContext &ctx);
Error negKernel(KernelContext &ctx);
Error absKernel(KernelContext &ctx);
Error clipKernel(KernelContext &ctx);
Error matmulKernel(KernelContext &ctx);
Error conv2dKernel(KernelContext &ctx);
Error maxPool2dKernel(KernelContext &ctx);
Error avgPool2dKernel(KernelContext &ctx);
Error reduceMeanKernel(KernelContext &ctx);
Error softmaxKernel(KernelContext &ctx);
Error reshapeKernel(KernelContext &ctx);
Error copyKernel(KernelContext &ctx);
Error transposeKernel(KernelContext &ctx);
Error concatKernel(KernelContext &ctx);
Error sliceKernel(KernelContext &ctx);

// Kernels with run-time index operands (IndexOperands.cpp).
Error padKernel(KernelContext &ctx);
Error dynamicSliceKernel(KernelContext &ctx);
Error cumSumKernel(KernelContext &ctx);

// dtype-generic kernels (Math.cpp, GenericReduction.cpp, Logic.cpp,
// Indexing.cpp).
Error logKernel(KernelContext &ctx);
Error sinKernel(KernelContext &ctx);
Error cosKernel(KernelContext &ctx);
Error tanKernel(KernelContext &ctx);
Error asinKernel(KernelContext &ctx);
Error acosKernel(KernelContext &ctx);
Error atanKernel(KernelContext &ctx);
Error sinhKernel(KernelContext &ctx);
Error coshKernel(KernelContext &ctx);
Error asinhKernel(KernelContext &ctx);
Error acoshKernel(KernelContext &ctx);
Error atanhKernel(KernelContext &ctx);
Error floorKernel(KernelContext &ctx);
Error ceilKernel(KernelContext &ctx);
Error roundKernel(KernelContext &ctx);
Error erfKernel(KernelContext &ctx);
Error signKernel(KernelContext &ctx);
Error maximumKernel(KernelContext &ctx);
Error minimumKernel(KernelContext &ctx);
Error castKernel(KernelContext &ctx);
Error reduceSumKernel(KernelContext &ctx);
Error reduceMaxKernel(KernelContext &ctx);
Error reduceMinKernel(KernelContext &ctx);
Error reduceProdKernel(KernelContext &ctx);
Error argMaxKernel(KernelContext &ctx);
Error argMinKernel(KernelContext &ctx);
Error equalKernel(KernelContext &ctx);
Error lessKernel(KernelContext &ctx);
Error lessEqualKernel(KernelContext &ctx);
Error logicalAndKernel(KernelContext &ctx);
Error logicalOrKernel(KernelContext &ctx);
Error logicalXorKernel(KernelContext &ctx);
Error logicalNotKernel(KernelContext &ctx);
Error selectKernel(KernelContext &ctx);
Error modKernel(KernelContext &ctx);
Error bitShiftKernel(KernelContext &ctx);
Error gatherElementsKernel(KernelContext &ctx);
Error gatherKernel(KernelContext &ctx);
Error gatherNdKernel(KernelContext &ctx);
Error rangeKernel(KernelContext &ctx);
Error scatterElementsKernel(KernelContext &ctx);
Error argTopKKernel(KernelContext &ctx);
Error convTranspose2dKernel(KernelContext &ctx);
Error quantizeLinearKernel(KernelContext &ctx);
Error quantizedConv2dKernel(KernelContext &ctx);
Error quantizedMatmulKernel(KernelContext &ctx);
Error dequantizeLinearKernel(KernelContext &ctx);
/// Rounds to the nearest integer, ties to even, whatever the floating-point
/// environment's rounding mode (ONNX QuantizeLinear's rounding).
double roundHalfToEven(double value);
Error resizeKernel(KernelContext &ctx);
/// add/sub/mul/div/pow (op 0..4) on any numeric type; the f32 kernels
/// forward other types here.
Error genericArithmeticKernel(KernelContext &ctx, int op);
/// exp on f32 or f64.
Error genericExpKernel(KernelContext &ctx);

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H
