//===- KernelUtils.h - helpers shared by the portable kernels ---*- C++ -*-===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H
#define STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H

#include "strata/Runtime/Kernel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace strata::runtime::kernels {

/// Checks the number of ins (within [minIns, maxIns]) and outs.
Error checkArity(const KernelIO &io, size_t minIns, size_t maxIns, size_t outs);
/// Checks that every operand is float32.
Error checkAllF32(const KernelIO &io);
/// Checks that `a` and `b` have the same shape.
Error checkSameShape(const KernelIO &io, const TensorView &a,
                     const TensorView &b, const char *what);
/// Unwraps a Result<T> in a kernel, prefixing the error with the kernel name
/// (`ctx` is the kernel's KernelContext or KernelIO).
#define STRATA_KERNEL_ASSIGN(var, expr)                                        \
  auto var##Result_ = (expr);                                                  \
  if (!var##Result_.ok())                                                      \
    return ctx.fail(var##Result_.error().message());                           \
  auto var = std::move(var##Result_).value()

/// Normalises a possibly negative axis against `rank`; -1 when invalid.
int64_t normalizeAxis(int64_t axis, size_t rank);

/// Checks that `out` has the shape of `in` reduced along the dimensions `d`
/// where `reduced[d]`: dropped, or kept as extents of 1 with `keepDims`.
Error checkReducedShape(const KernelIO &io, const TensorView &in,
                        const TensorView &out, bool keepDims,
                        const std::vector<bool> &reduced);
/// Reads a reduction's `axes` (every dimension when empty) and `keep_dims`
/// and checks the result's shape; fills `reduced` with one flag per input
/// dimension.
Error readReductionAxes(const KernelContext &ctx, std::vector<bool> &reduced);

/// A row-major shape seen as [outer, extent, inner] around one axis.
struct AxisSplit {
  /// The product of the extents before the axis.
  int64_t outer;
  /// The axis's own extent.
  int64_t extent;
  /// The product of the extents after the axis.
  int64_t inner;
};
/// Splits `shape` around `axis` (which must be in range).
inline AxisSplit splitAtAxis(const std::vector<int64_t> &shape, size_t axis) {
  AxisSplit split{1, shape[axis], 1};
  for (size_t d = 0; d < axis; ++d)
    split.outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    split.inner *= shape[d];
  return split;
}

/// Largest stride, dilation, kernel extent or pad a kernel accepts: keeps
/// every index computation of the window kernels far from overflow.
constexpr int64_t kMaxWindowParam = int64_t(1) << 20;
/// Largest scratch area a kernel asks for, in floats.
constexpr size_t kMaxScratchFloats = size_t(1) << 32;

/// Strides, dilations and pads of a 2-d window op (convolution or
/// pooling), each in [1, 2^20] (pads in [0, 2^20]).
struct WindowParams {
  int64_t strideH, strideW, dilH, dilW, padT, padL, padB, padR;
};
/// Reads a two-element int list parameter in [1, 2^20] (strides, kernel,
/// ...); an error naming it when absent, since the edge ops state every
/// one.
Result<std::pair<int64_t, int64_t>> getPairParam(const Params &params,
                                                 const char *name);
/// Reads `strides`, `dilations` and `pads` ([top, left, bottom, right]),
/// all required.
Result<WindowParams> readWindowParams(const Params &params);
/// The output extent of one spatial dimension under `p` (WindowExtent.h),
/// or -1 when the window does not fit.
int64_t windowOutExtent(int64_t in, int64_t kernel, int64_t stride,
                        int64_t dilation, int64_t padBegin, int64_t padEnd,
                        bool ceilMode = false);

/// The geometry of a 2-d convolution, NCHW input and OIHW weight.
struct Conv2dGeometry {
  int64_t n, c, h, w, oc, kh, kw, oh, ow, group;
  int64_t strideH, strideW, dilH, dilW, padT, padL, padB, padR;
};
/// Reads strides, dilations, pads and group from `params` and checks them
/// against the input, weight and result shapes.
Result<Conv2dGeometry> readConv2dGeometry(const Params &params,
                                          const TensorView &in,
                                          const TensorView &weight,
                                          const TensorView &out);

/// Adds `bias[o]` to each of the `channels` rows of `points` values at `y`
/// (a convolution's per-output-channel bias after its GEMM).
inline void addChannelBias(float *y, const float *bias, int64_t channels,
                           int64_t points) {
  for (int64_t o = 0; o < channels; ++o) {
    float *row = y + o * points;
    for (int64_t s = 0; s < points; ++s)
      row[s] += bias[o];
  }
}

/// The output columns [lo, hi] of kernel column `kx` whose input column
/// ox * strideW + shift (shift = kx * dilW - padL) is inside the image;
/// lo > hi when there are none. Lets the depthwise loops run without
/// bounds checks.
struct TapColumns {
  int64_t shift, lo, hi;
};
inline TapColumns tapColumns(const Conv2dGeometry &g, int64_t kx) {
  int64_t shift = kx * g.dilW - g.padL;
  int64_t lo = shift >= 0 ? 0 : (-shift + g.strideW - 1) / g.strideW;
  int64_t hi = g.w - 1 - shift < 0
                   ? -1
                   : std::min(g.ow - 1, (g.w - 1 - shift) / g.strideW);
  return {shift, lo, hi};
}

/// GEMMs are compiled for baseline x86-64 and for AVX2+FMA / AVX-512 and
/// picked at load time (GCC/Clang function multiversioning), so the
/// portable binary uses the wide registers where the CPU has them.
/// Not under a sanitizer: the clones' ifunc resolvers run while the dynamic
/// loader relocates the binary, before the sanitizer's runtime exists, and
/// clang instruments them (a TSan build crashes before main).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRATA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRATA_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(STRATA_SANITIZED)
#define STRATA_GEMM_CLONES                                                     \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define STRATA_GEMM_CLONES
#endif

/// C[M,N] = A[M,K] * B[K,N] (row-major, leading dimensions lda/ldb/ldc),
/// overwriting C, each product accumulated in `Acc`. Blocked over K and N,
/// four rows of C per pass over a row of B, so the inner loop is a
/// contiguous, vectorisable AXPY. Always inlined: a STRATA_GEMM_CLONES
/// caller compiles it once per target.
template <typename In, typename Acc>
[[gnu::always_inline]] inline void
blockedGemm(int64_t m, int64_t n, int64_t k, const In *a, int64_t lda,
            const In *b, int64_t ldb, Acc *c, int64_t ldc) {
  constexpr int64_t kBlockK = 256, kBlockN = 512;
  for (int64_t i = 0; i < m; ++i)
    std::memset(c + i * ldc, 0, sizeof(Acc) * n);
  for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
    int64_t k1 = std::min(k, k0 + kBlockK);
    for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
      int64_t jn = std::min(n, j0 + kBlockN) - j0;
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) {
        Acc *c0 = c + i * ldc + j0, *c1 = c0 + ldc, *c2 = c1 + ldc,
            *c3 = c2 + ldc;
        const In *a0 = a + i * lda;
        for (int64_t p = k0; p < k1; ++p) {
          const In *bp = b + p * ldb + j0;
          Acc v0 = a0[p], v1 = a0[lda + p], v2 = a0[2 * lda + p],
              v3 = a0[3 * lda + p];
          for (int64_t j = 0; j < jn; ++j) {
            Acc bv = bp[j];
            c0[j] += v0 * bv;
            c1[j] += v1 * bv;
            c2[j] += v2 * bv;
            c3[j] += v3 * bv;
          }
        }
      }
      for (; i < m; ++i) {
        Acc *ci = c + i * ldc + j0;
        const In *ai = a + i * lda;
        for (int64_t p = k0; p < k1; ++p) {
          const In *bp = b + p * ldb + j0;
          Acc v = ai[p];
          for (int64_t j = 0; j < jn; ++j)
            ci[j] += v * bp[j];
        }
      }
    }
  }
}

/// The sum of f32 x[0, n) in double, in 16 lanes (reduce_sum's order).
double sumF32(const float *x, int64_t n);

/// reduce_max / reduce_min of f32 x[0, n) as those kernels compute it
/// (vectorised; NaN propagating; -inf / +inf when n is 0).
float reduceMaxF32(const float *x, int64_t n);
float reduceMinF32(const float *x, int64_t n);

/// blockedGemm on f32, one clone per target.
void gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc);

/// The same product with a register-tiled kernel (TiledGemm.cpp): faster
/// where M is several tiles of 6 and N long (deform_conv2d's columns).
void tiledGemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
               const float *b, int64_t ldb, float *c, int64_t ldc);

// Typed kernels (Kernel.h), their parameters decoded once at load: the
// convolutions, pooling and the matrix products.
KernelEntry matmulKernel();
KernelEntry conv2dKernel();
KernelEntry deformConv2dKernel();
KernelEntry convTranspose2dKernel();
KernelEntry maxPool2dKernel();
KernelEntry avgPool2dKernel();
KernelEntry quantizedConv2dKernel();
KernelEntry quantizedMatmulKernel();
/// f32 rows times 4- or 8-bit group-quantized weights.
KernelEntry weightQuantizedMatmulKernel();
/// rnn, gru and lstm: one call per recurrent layer (Recurrent.cpp).
KernelEntry rnnKernel();
KernelEntry gruKernel();
KernelEntry lstmKernel();

// Legacy kernel entry points (one per registry name).
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
Error reduceMeanKernel(KernelContext &ctx);
Error softmaxKernel(KernelContext &ctx);
Error logSoftmaxKernel(KernelContext &ctx);
Error reshapeKernel(KernelContext &ctx);
Error shapeOfKernel(KernelContext &ctx);
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
Error bitwiseAndKernel(KernelContext &ctx);
Error bitwiseOrKernel(KernelContext &ctx);
Error bitwiseXorKernel(KernelContext &ctx);
Error bitwiseNotKernel(KernelContext &ctx);
Error gatherElementsKernel(KernelContext &ctx);
Error gatherKernel(KernelContext &ctx);
Error gatherNdKernel(KernelContext &ctx);
Error rangeKernel(KernelContext &ctx);
Error scatterElementsKernel(KernelContext &ctx);
Error argTopKKernel(KernelContext &ctx);
Error nonZeroKernel(KernelContext &ctx);
Error branchResultKernel(KernelContext &ctx);
Error fillKernel(KernelContext &ctx);
Error compressKernel(KernelContext &ctx);
Error uniqueKernel(KernelContext &ctx);
Error nonMaxSuppressionKernel(KernelContext &ctx);
Error quantizeLinearKernel(KernelContext &ctx);
Error dynamicQuantizeLinearKernel(KernelContext &ctx);
Error dequantizeLinearKernel(KernelContext &ctx);
/// Rounds to the nearest integer, ties to even, whatever the floating-point
/// environment's rounding mode (ONNX QuantizeLinear's rounding).
double roundHalfToEven(double value);
Error resizeKernel(KernelContext &ctx);
Error gridSampleKernel(KernelContext &ctx);
Error roiAlignKernel(KernelContext &ctx);
Error reverseSequenceKernel(KernelContext &ctx);
Error detKernel(KernelContext &ctx);
Error stftKernel(KernelContext &ctx);
Error scatterNdKernel(KernelContext &ctx);
/// add/sub/mul/div/pow (op 0..4) on any numeric type; the f32 kernels
/// forward other types here.
Error genericArithmeticKernel(KernelContext &ctx, int op);
/// exp on f32 or f64.
Error genericExpKernel(KernelContext &ctx);

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_KERNELUTILS_H
