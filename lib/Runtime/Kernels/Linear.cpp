//===- Linear.cpp - GEMM, matmul and conv2d (f32 and i32) -----------------===//
//
// conv2d is im2col + GEMM per (batch, group), skipping im2col for 1x1
// stride-1 unpadded convolutions, with a direct loop for depthwise ones.
// The GEMM is blocked over K and N and updates four rows of C per pass over
// a row of B, so the inner loop is a contiguous, vectorisable AXPY.
//
// On i32 operands (ONNX MatMulInteger / ConvInteger after zero-point
// subtraction) both accumulate exactly in 32-bit integers, wrapping modulo
// 2^32 as ONNX's int32 accumulation does; f32 accumulation would be exact
// only while partial sums stay below 2^24, which k * 255 * 255 exceeds
// from k = 259 on. matmul also runs f64 (accumulating in double) for
// einsum and matmul on double models.
//
//===----------------------------------------------------------------------===//
#include "BlockTranspose.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace strata::runtime::kernels {

STRATA_GEMM_CLONES
void gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc) {
  blockedGemm(m, n, k, a, lda, b, ldb, c, ldc);
}

template <typename T, typename Acc>
static void gemmRowwise(int64_t m, int64_t n, int64_t k, const T *a,
                        int64_t lda, const T *b, int64_t ldb, T *c,
                        int64_t ldc) {
  std::vector<Acc> row(n);
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t p = 0; p < k; ++p) {
      Acc av = static_cast<Acc>(a[i * lda + p]);
      const T *bp = b + p * ldb;
      for (int64_t j = 0; j < n; ++j)
        row[j] += av * static_cast<Acc>(bp[j]);
    }
    for (int64_t j = 0; j < n; ++j)
      c[i * ldc + j] = static_cast<T>(row[j]);
  }
}

/// Checks that every operand is f32, or every operand i32 (or, with
/// `allowF64`, every operand f64).
static Error checkAllF32OrI32(const KernelIO &ctx, bool allowF64 = false) {
  DType dtype = ctx.outs[0].dtype;
  bool ok = dtype == DType::F32 || dtype == DType::I32 ||
            (allowF64 && dtype == DType::F64);
  for (const TensorView &v : ctx.ins)
    ok = ok && v.dtype == dtype;
  if (!ok)
    return ctx.fail(std::string("takes all-f32") +
                    (allowF64 ? ", all-f64" : "") +
                    " or all-i32 operands, got " + ctx.ins[0].typeString() +
                    " -> " + ctx.outs[0].typeString());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

namespace {
/// A matmul's extents and the batch strides of its operands, in elements
/// (0 where an operand broadcasts). With `rhs_permutation` the rhs operand
/// is read through that permutation (the rhs is transpose(operand,
/// permutation), a KV cache read where it lives): `rhsK` and `rhsN` are
/// then its row and column strides.
struct MatmulState {
  int64_t m, k, n, batches;
  std::vector<int64_t> outShape, strideA, strideB;
  bool permuted = false;
  int64_t rhsK = 0, rhsN = 1;
  /// Set when a few rows per batch multiply rhs batches that sit side by
  /// side inside the rhs's rows (heads in a KV cache): each batch's
  /// offsets into the lhs and the rhs, for one pass over the rows.
  bool acrossBatches = false;
  std::vector<int64_t> offA, offB;
};
} // namespace

/// The rhs operand `b` seen through `permutation`: its shape, and the
/// stride of each of its dimensions in `b`.
static void permutedView(const TensorView &b,
                         const std::vector<int64_t> &permutation,
                         std::vector<int64_t> &shape,
                         std::vector<int64_t> &strides) {
  std::vector<int64_t> own(b.rank(), 1);
  for (size_t d = b.rank(); d-- > 1;)
    own[d - 1] = own[d] * b.shape[d];
  shape.clear();
  strides.clear();
  for (int64_t from : permutation) {
    shape.push_back(b.shape[from]);
    strides.push_back(own[from]);
  }
}

/// Sets `st.acrossBatches` (and the batches' offsets) when the rhs batches
/// are distinct slices, apart from one another, inside one row. A rhs
/// shared by batches (a stride of 0) keeps the per-batch loop, whose
/// output stays in L1 across the rhs's rows.
static void planAcrossBatches(MatmulState &st) {
  size_t batchRank = st.outShape.size();
  std::vector<int64_t> index(batchRank, 0);
  st.offA.assign(st.batches, 0);
  st.offB.assign(st.batches, 0);
  for (int64_t batch = 0; batch < st.batches; ++batch) {
    for (size_t d = 0; d < batchRank; ++d) {
      st.offA[batch] += index[d] * st.strideA[d];
      st.offB[batch] += index[d] * st.strideB[d];
    }
    for (size_t d = batchRank; d-- > 0;) {
      if (++index[d] < st.outShape[d])
        break;
      index[d] = 0;
    }
  }
  int64_t rowStride = st.rhsN == 1 ? st.rhsK : st.rhsN;
  int64_t rowLength = st.rhsN == 1 ? st.n : st.k;
  std::vector<int64_t> starts = st.offB;
  std::sort(starts.begin(), starts.end());
  bool sideBySide = starts.back() + rowLength <= rowStride;
  for (size_t i = 1; sideBySide && i < starts.size(); ++i)
    sideBySide = starts[i] >= starts[i - 1] + rowLength;
  st.acrossBatches = sideBySide;
  if (!sideBySide) {
    st.offA.clear();
    st.offB.clear();
  }
}

static Result<MatmulState> prepareMatmul(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32OrI32(ctx, /*allowF64=*/true));
  const TensorView &a = ctx.ins[0], &out = ctx.outs[0];
  TensorView b = ctx.ins[1];
  STRATA_KERNEL_ASSIGN(permutation, ctx.params.getInts("rhs_permutation", {}));
  std::vector<int64_t> rhsStrides;
  if (!permutation.empty()) {
    std::vector<bool> seen(b.rank(), false);
    bool valid = permutation.size() == b.rank() && out.dtype == DType::F32;
    for (int64_t d : permutation) {
      valid = valid && d >= 0 && d < static_cast<int64_t>(b.rank()) && !seen[d];
      if (valid)
        seen[d] = true;
    }
    if (!valid)
      return ctx.fail("'rhs_permutation' must permute the f32 rhs " +
                      b.typeString() + "'s dimensions");
    std::vector<int64_t> shape;
    permutedView(b, permutation, shape, rhsStrides);
    b.shape = std::move(shape);
  }
  size_t rank = out.rank();
  if (rank < 2 || a.rank() != rank || b.rank() != rank)
    return ctx.fail("operands " + a.typeString() + " x " + b.typeString() +
                    " -> " + out.typeString() +
                    " must all have the same rank of at least 2");
  MatmulState st;
  st.m = a.shape[rank - 2], st.k = a.shape[rank - 1], st.n = b.shape[rank - 1];
  if (b.shape[rank - 2] != st.k || out.shape[rank - 2] != st.m ||
      out.shape[rank - 1] != st.n)
    return ctx.fail("shapes " + a.typeString() + " x " + b.typeString() +
                    " -> " + out.typeString() + " do not multiply");
  for (size_t d = 0; d + 2 < rank; ++d)
    if ((a.shape[d] != out.shape[d] && a.shape[d] != 1) ||
        (b.shape[d] != out.shape[d] && b.shape[d] != 1))
      return ctx.fail("batch extents of " + a.typeString() + " and " +
                      b.typeString() + " do not broadcast to " +
                      out.typeString());
  size_t batchRank = rank - 2;
  st.outShape.assign(out.shape.begin(), out.shape.begin() + batchRank);
  st.batches = 1;
  for (int64_t extent : st.outShape)
    st.batches *= extent;
  st.strideA.resize(batchRank);
  st.strideB.resize(batchRank);
  int64_t strideA = st.m * st.k, strideB = st.k * st.n;
  for (size_t d = batchRank; d-- > 0;) {
    st.strideA[d] = a.shape[d] == 1 ? 0 : strideA;
    st.strideB[d] = b.shape[d] == 1 ? 0 : strideB;
    strideA *= a.shape[d];
    strideB *= b.shape[d];
  }
  if (!rhsStrides.empty()) {
    st.permuted = true;
    for (size_t d = 0; d < batchRank; ++d)
      st.strideB[d] = b.shape[d] == 1 ? 0 : rhsStrides[d];
    st.rhsK = rhsStrides[rank - 2];
    st.rhsN = rhsStrides[rank - 1];
  }
  if (st.permuted && st.m <= 4 && st.batches > 1 &&
      (st.rhsN == 1 || st.rhsK == 1))
    planAcrossBatches(st);
  return st;
}

/// c[j] = sum_p x[p] * y[j * stride + p] for j < n: one row of queries
/// against n rows of keys, four keys at a time in eight lanes each (one
/// vector of AVX2; two of SSE), the lanes summed at the end of each key;
/// one clone per target, so the loops over keys run inside it.
STRATA_GEMM_CLONES
static void dotRows(const float *x, const float *y, int64_t stride, int64_t n,
                    int64_t k, float *c) {
  typedef float V8 __attribute__((vector_size(32), aligned(4)));
  auto lanes = [](V8 v) {
    float sum = 0;
    for (int lane = 0; lane < 8; ++lane)
      sum += v[lane];
    return sum;
  };
  int64_t whole = k / 8 * 8;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const float *y0 = y + j * stride, *y1 = y0 + stride, *y2 = y1 + stride,
                *y3 = y2 + stride;
    // The keys eight rows on, fetched ahead: rows kilobytes apart (a
    // cache stored length-first) are read from L3 at its latency otherwise.
    if (j + 12 <= n)
      for (int r = 8; r < 12; ++r)
        for (int64_t p = 0; p < k; p += 16)
          __builtin_prefetch(y + (j + r) * stride + p);
    V8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int64_t p = 0; p < whole; p += 8) {
      V8 xv = *reinterpret_cast<const V8 *>(x + p);
      a0 += xv * *reinterpret_cast<const V8 *>(y0 + p);
      a1 += xv * *reinterpret_cast<const V8 *>(y1 + p);
      a2 += xv * *reinterpret_cast<const V8 *>(y2 + p);
      a3 += xv * *reinterpret_cast<const V8 *>(y3 + p);
    }
    float s0 = lanes(a0), s1 = lanes(a1), s2 = lanes(a2), s3 = lanes(a3);
    for (int64_t p = whole; p < k; ++p) {
      s0 += x[p] * y0[p];
      s1 += x[p] * y1[p];
      s2 += x[p] * y2[p];
      s3 += x[p] * y3[p];
    }
    c[j] = s0;
    c[j + 1] = s1;
    c[j + 2] = s2;
    c[j + 3] = s3;
  }
  for (; j < n; ++j) {
    const float *row = y + j * stride;
    V8 acc = {};
    for (int64_t p = 0; p < whole; p += 8)
      acc += *reinterpret_cast<const V8 *>(x + p) *
             *reinterpret_cast<const V8 *>(row + p);
    float sum = lanes(acc);
    for (int64_t p = whole; p < k; ++p)
      sum += x[p] * row[p];
    c[j] = sum;
  }
}

/// c[i][j] = sum_p a[i][p] * b[p * sk + j * sn] for the rhs read through
/// strides: row-major (sn 1) by the blocked GEMM, column-major (sk 1: keys
/// transposed for attention's scores) by dot products for a few rows,
/// anything else, and many rows, copied row-major into scratch first.
static void gemmStridedRhs(KernelIO &io, int64_t m, int64_t n, int64_t k,
                           const float *a, const float *b, int64_t sk,
                           int64_t sn, float *c) {
  if (sn == 1) {
    gemm(m, n, k, a, k, b, sk, c, n);
    return;
  }
  if (sk == 1 && m <= 4) {
    for (int64_t i = 0; i < m; ++i)
      dotRows(a + i * k, b, sn, n, k, c + i * n);
    return;
  }
  float *dense = io.scratchFloats(static_cast<size_t>(k * n));
  if (sk == 1)
    // Column-major: the portable transpose's vector blocks.
    transposeBlocks32(reinterpret_cast<uint32_t *>(dense),
                      reinterpret_cast<const uint32_t *>(b), k, n, n, sn);
  else
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        dense[p * n + j] = b[p * sk + j * sn];
  gemm(m, n, k, a, k, dense, n, c, n);
}

/// A batch of one-row-or-few products whose rhs batches lie side by side
/// inside each of its rows: attention's heads over a KV cache stored
/// length-first ([past, heads, dim]), where the rhs of head h is row p's
/// h-th slice. Per head, the rows would be read a slice at a time, rows
/// kilobytes apart; here every row is read once, whole, all heads at a
/// time, so the cache streams from memory in order. Each batch t reads
/// a + offA[t], rhs b + offB[t] and writes c + t * m * n.
///
/// Row-major rhs (the values: element (p, j) at p * sk + j): c's rows
/// accumulate a[i][p] times rhs row p in p's order, as the blocked GEMM
/// sums them.
STRATA_GEMM_CLONES
static void rowsAcrossBatches(int64_t batches, int64_t m, int64_t n, int64_t k,
                              const float *a, const int64_t *offA,
                              const float *b, const int64_t *offB, int64_t sk,
                              float *c) {
  std::memset(c, 0, sizeof(float) * batches * m * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t t = 0; t < batches; ++t) {
      const float *row = b + offB[t] + p * sk;
      for (int64_t i = 0; i < m; ++i) {
        float av = a[offA[t] + i * k + p];
        float *ci = c + (t * m + i) * n;
        for (int64_t j = 0; j < n; ++j)
          ci[j] += av * row[j];
      }
    }
}

/// Column-major rhs (the keys: element (p, j) at p + j * sn): key j of
/// every head, then key j + 1, each dot product summed as dotRows sums it
/// (eight lanes, then the lanes in order, then the tail). Fetching keys
/// ahead in software, as dotRows does for one head's strided slices, made
/// this in-order read slower (0.42 to 0.65 ms a step at 1024 on Zen 4).
STRATA_GEMM_CLONES
static void keysAcrossBatches(int64_t batches, int64_t m, int64_t n, int64_t k,
                              const float *a, const int64_t *offA,
                              const float *b, const int64_t *offB, int64_t sn,
                              float *c) {
  typedef float V8 __attribute__((vector_size(32), aligned(4)));
  int64_t whole = k / 8 * 8;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t t = 0; t < batches; ++t) {
      const float *row = b + offB[t] + j * sn;
      for (int64_t i = 0; i < m; ++i) {
        const float *x = a + offA[t] + i * k;
        V8 acc = {};
        for (int64_t p = 0; p < whole; p += 8)
          acc += *reinterpret_cast<const V8 *>(x + p) *
                 *reinterpret_cast<const V8 *>(row + p);
        float sum = 0;
        for (int lane = 0; lane < 8; ++lane)
          sum += acc[lane];
        for (int64_t p = whole; p < k; ++p)
          sum += x[p] * row[p];
        c[(t * m + i) * n + j] = sum;
      }
    }
  }
}

static Error executeMatmul(const MatmulState &st, KernelIO &io) {
  const TensorView &a = io.ins[0], &b = io.ins[1], &out = io.outs[0];
  int64_t m = st.m, k = st.k, n = st.n;
  size_t batchRank = st.outShape.size();
  std::vector<int64_t> index(batchRank, 0);
  if (st.acrossBatches) {
    if (st.rhsN == 1)
      rowsAcrossBatches(st.batches, m, n, k, a.as<float>(), st.offA.data(),
                        b.as<float>(), st.offB.data(), st.rhsK,
                        out.as<float>());
    else
      keysAcrossBatches(st.batches, m, n, k, a.as<float>(), st.offA.data(),
                        b.as<float>(), st.offB.data(), st.rhsN,
                        out.as<float>());
    return Error::success();
  }
  for (int64_t batch = 0; batch < st.batches; ++batch) {
    int64_t offA = 0, offB = 0;
    for (size_t d = 0; d < batchRank; ++d) {
      offA += index[d] * st.strideA[d];
      offB += index[d] * st.strideB[d];
    }
    if (st.permuted)
      gemmStridedRhs(io, m, n, k, a.as<float>() + offA, b.as<float>() + offB,
                     st.rhsK, st.rhsN, out.as<float>() + batch * m * n);
    else if (out.dtype == DType::I32)
      gemmRowwise<int32_t, uint32_t>(m, n, k, a.as<int32_t>() + offA, k,
                                     b.as<int32_t>() + offB, n,
                                     out.as<int32_t>() + batch * m * n, n);
    else if (out.dtype == DType::F64)
      gemmRowwise<double, double>(m, n, k, a.as<double>() + offA, k,
                                  b.as<double>() + offB, n,
                                  out.as<double>() + batch * m * n, n);
    else
      gemm(m, n, k, a.as<float>() + offA, k, b.as<float>() + offB, n,
           out.as<float>() + batch * m * n, n);
    for (size_t d = batchRank; d-- > 0;) {
      if (++index[d] < st.outShape[d])
        break;
      index[d] = 0;
    }
  }
  return Error::success();
}

KernelEntry matmulKernel() {
  return typedKernel<MatmulState, prepareMatmul, executeMatmul>();
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

/// int32 convolution accumulating modulo 2^32; `g` is validated. Per
/// (batch, group) and per chunk of output pixels: im2col of the chunk, then
/// the row-wise GEMM of the weights by it (its inner loop a contiguous,
/// vectorisable multiply-add), so the columns stay small whatever the
/// image size.
static void conv2dI32(const Conv2dGeometry &g, const int32_t *x,
                      const int32_t *wt, const int32_t *bias, int32_t *y) {
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  int64_t k = cg * g.kh * g.kw, pixels = g.oh * g.ow;
  int64_t chunk = std::min<int64_t>(pixels, 1024);
  std::vector<int32_t> cols(k * chunk);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const int32_t *xg = x + (b * g.c + grp * cg) * g.h * g.w;
      const int32_t *wg = wt + grp * ocg * k;
      int32_t *yg = y + (b * g.oc + grp * ocg) * pixels;
      for (int64_t p0 = 0; p0 < pixels; p0 += chunk) {
        int64_t width = std::min(chunk, pixels - p0);
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int32_t *row =
                  cols.data() + ((ci * g.kh + ky) * g.kw + kx) * width;
              const int32_t *xc = xg + ci * g.h * g.w;
              for (int64_t j = 0; j < width; ++j) {
                int64_t oy = (p0 + j) / g.ow, ox = (p0 + j) % g.ow;
                int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
                int64_t ix = ox * g.strideW - g.padL + kx * g.dilW;
                row[j] = iy < 0 || iy >= g.h || ix < 0 || ix >= g.w
                             ? 0
                             : xc[iy * g.w + ix];
              }
            }
        gemmRowwise<int32_t, uint32_t>(ocg, width, k, wg, k, cols.data(), width,
                                       yg + p0, pixels);
      }
      if (bias)
        for (int64_t o = 0; o < ocg; ++o)
          for (int64_t p = 0; p < pixels; ++p)
            yg[o * pixels + p] = static_cast<int32_t>(
                static_cast<uint32_t>(yg[o * pixels + p]) +
                static_cast<uint32_t>(bias[grp * ocg + o]));
    }
}

namespace {
/// A conv2d's geometry, checked against its operands.
struct Conv2dState {
  Conv2dGeometry g;
};
} // namespace

static Result<Conv2dState> prepareConv2d(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 3, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32OrI32(ctx));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[1], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(g, readConv2dGeometry(ctx.params, in, weight, out));
  if (ctx.ins.size() == 3 && ctx.ins[2].shape != std::vector<int64_t>{g.oc})
    return ctx.fail("bias " + ctx.ins[2].typeString() + " must be [" +
                    std::to_string(g.oc) + "]");
  // im2col scratch of the f32 path: (C/group * KH * KW) x (OH * OW) floats.
  double scratchFloats = static_cast<double>(g.c / g.group) * g.kh * g.kw *
                         static_cast<double>(g.oh) * g.ow;
  if (in.dtype != DType::I32 &&
      scratchFloats > static_cast<double>(kMaxScratchFloats))
    return ctx.fail("the im2col buffer of " + out.typeString() +
                    " would exceed 2^32 floats");
  return Conv2dState{g};
}

static Error executeConv2d(const Conv2dState &st, KernelIO &io) {
  const Conv2dGeometry &g = st.g;
  const TensorView &in = io.ins[0], &weight = io.ins[1], &out = io.outs[0];
  if (in.dtype == DType::I32) {
    conv2dI32(g, in.as<int32_t>(), weight.as<int32_t>(),
              io.ins.size() == 3 ? io.ins[2].as<int32_t>() : nullptr,
              out.as<int32_t>());
    return Error::success();
  }
  const float *bias = io.ins.size() == 3 ? io.ins[2].as<float>() : nullptr;
  const float *x = in.as<float>(), *wt = weight.as<float>();
  float *y = out.as<float>();
  int64_t cg = g.c / g.group, ocg = g.oc / g.group;
  int64_t spatial = g.oh * g.ow, kSize = cg * g.kh * g.kw;

  if (cg == 1 && ocg == 1) {
    // Depthwise: one filter per channel. Each (ky, kx) tap adds a scaled,
    // shifted input row to the output row over the range of ox whose input
    // column is inside the image, so the inner loop has no bounds checks.
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t ch = 0; ch < g.c; ++ch) {
        const float *xc = x + (b * g.c + ch) * g.h * g.w;
        const float *wc = wt + ch * g.kh * g.kw;
        float *yc = y + (b * g.oc + ch) * spatial;
        std::fill(yc, yc + spatial, bias ? bias[ch] : 0.0f);
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          auto [shift, lo, hi] = tapColumns(g, kx);
          if (lo > hi)
            continue;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            float *yrow = yc + oy * g.ow;
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
              if (iy < 0 || iy >= g.h)
                continue;
              float wv = wc[ky * g.kw + kx];
              const float *xrow = xc + iy * g.w + shift;
              if (g.strideW == 1)
                for (int64_t ox = lo; ox <= hi; ++ox)
                  yrow[ox] += wv * xrow[ox];
              else
                for (int64_t ox = lo; ox <= hi; ++ox)
                  yrow[ox] += wv * xrow[ox * g.strideW];
            }
          }
        }
      }
    return Error::success();
  }

  bool pointwise = g.kh == 1 && g.kw == 1 && g.strideH == 1 && g.strideW == 1 &&
                   g.padT == 0 && g.padL == 0 && g.padB == 0 && g.padR == 0;
  float *col = pointwise ? nullptr
                         : io.scratchFloats(static_cast<size_t>(kSize) *
                                            static_cast<size_t>(spatial));
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const float *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      const float *cols = xg;
      if (!pointwise) {
        // im2col: row (c, ky, kx), column (oy, ox).
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              float *dst = col + ((ci * g.kh + ky) * g.kw + kx) * spatial;
              const float *src = xg + ci * g.h * g.w;
              for (int64_t oy = 0; oy < g.oh; ++oy) {
                int64_t iy = oy * g.strideH - g.padT + ky * g.dilH;
                float *drow = dst + oy * g.ow;
                if (iy < 0 || iy >= g.h) {
                  std::fill(drow, drow + g.ow, 0.0f);
                  continue;
                }
                const float *srow = src + iy * g.w;
                int64_t ixBase = kx * g.dilW - g.padL;
                for (int64_t ox = 0; ox < g.ow; ++ox) {
                  int64_t ix = ox * g.strideW + ixBase;
                  drow[ox] = (ix >= 0 && ix < g.w) ? srow[ix] : 0.0f;
                }
              }
            }
        cols = col;
      }
      float *yg = y + (b * g.oc + gi * ocg) * spatial;
      gemm(ocg, spatial, kSize, wt + gi * ocg * kSize, kSize, cols, spatial, yg,
           spatial);
      if (bias)
        addChannelBias(yg, bias + gi * ocg, ocg, spatial);
    }
  return Error::success();
}

KernelEntry conv2dKernel() {
  return typedKernel<Conv2dState, prepareConv2d, executeConv2d>();
}

} // namespace strata::runtime::kernels
