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
static Error checkAllF32OrI32(const KernelContext &ctx, bool allowF64 = false) {
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

Error matmulKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32OrI32(ctx, /*allowF64=*/true));
  const TensorView &a = ctx.ins[0], &b = ctx.ins[1], &out = ctx.outs[0];
  size_t rank = out.rank();
  if (rank < 2 || a.rank() != rank || b.rank() != rank)
    return ctx.fail("operands " + a.typeString() + " x " + b.typeString() +
                    " -> " + out.typeString() +
                    " must all have the same rank of at least 2");
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  if (b.shape[rank - 2] != k || out.shape[rank - 2] != m ||
      out.shape[rank - 1] != n)
    return ctx.fail("shapes " + a.typeString() + " x " + b.typeString() +
                    " -> " + out.typeString() + " do not multiply");
  for (size_t d = 0; d + 2 < rank; ++d)
    if ((a.shape[d] != out.shape[d] && a.shape[d] != 1) ||
        (b.shape[d] != out.shape[d] && b.shape[d] != 1))
      return ctx.fail("batch extents of " + a.typeString() + " and " +
                      b.typeString() + " do not broadcast to " +
                      out.typeString());
  if (ctx.validateOnly)
    return Error::success();

  size_t batchRank = rank - 2;
  int64_t batches = 1;
  for (size_t d = 0; d < batchRank; ++d)
    batches *= out.shape[d];
  // Batch strides in elements, 0 where an operand broadcasts.
  std::vector<int64_t> sa(batchRank), sb(batchRank);
  int64_t strideA = m * k, strideB = k * n;
  for (size_t d = batchRank; d-- > 0;) {
    sa[d] = a.shape[d] == 1 ? 0 : strideA;
    sb[d] = b.shape[d] == 1 ? 0 : strideB;
    strideA *= a.shape[d];
    strideB *= b.shape[d];
  }
  std::vector<int64_t> index(batchRank, 0);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t offA = 0, offB = 0;
    for (size_t d = 0; d < batchRank; ++d) {
      offA += index[d] * sa[d];
      offB += index[d] * sb[d];
    }
    if (out.dtype == DType::I32)
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
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

/// Reads a 2-element int list parameter (strides, dilations, kernel).
Result<std::pair<int64_t, int64_t>>
getPairParam(const Params &params, const char *name, int64_t fallback) {
  Result<std::vector<int64_t>> values =
      params.getInts(name, {fallback, fallback});
  if (!values.ok())
    return values.takeError();
  if (values->size() != 2 || (*values)[0] < 1 || (*values)[1] < 1 ||
      (*values)[0] > kMaxWindowParam || (*values)[1] > kMaxWindowParam)
    return Error(ErrorCode::InvalidArgument,
                 std::string("parameter '") + name +
                     "' must be two integers in [1, 2^20]");
  return std::make_pair((*values)[0], (*values)[1]);
}

/// Reads `pads` [top, left, bottom, right].
Result<std::vector<int64_t>> getPadsParam(const Params &params) {
  Result<std::vector<int64_t>> pads = params.getInts("pads", {0, 0, 0, 0});
  if (!pads.ok())
    return pads.takeError();
  if (pads->size() != 4 ||
      std::any_of(pads->begin(), pads->end(),
                  [](int64_t p) { return p < 0 || p > kMaxWindowParam; }))
    return Error(ErrorCode::InvalidArgument,
                 "parameter 'pads' must be four integers in [0, 2^20] "
                 "[top, left, bottom, right]");
  return pads;
}

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

Result<Conv2dGeometry> readConv2dGeometry(const KernelContext &ctx,
                                          const TensorView &in,
                                          const TensorView &weight,
                                          const TensorView &out) {
  if (in.rank() != 4 || weight.rank() != 4 || out.rank() != 4)
    return Error(ErrorCode::InvalidArgument,
                 "input, weight and result must be 4-d (NCHW, OIHW), got " +
                     in.typeString() + ", " + weight.typeString() + ", " +
                     out.typeString());
  Conv2dGeometry g;
  Result<std::pair<int64_t, int64_t>> strides =
      getPairParam(ctx.params, "strides", 1);
  Result<std::pair<int64_t, int64_t>> dilations =
      getPairParam(ctx.params, "dilations", 1);
  Result<std::vector<int64_t>> pads = getPadsParam(ctx.params);
  Result<int64_t> group = ctx.params.getInt("group", 1);
  if (!strides.ok())
    return strides.takeError();
  if (!dilations.ok())
    return dilations.takeError();
  if (!pads.ok())
    return pads.takeError();
  if (!group.ok())
    return group.takeError();
  g.n = in.shape[0], g.c = in.shape[1], g.h = in.shape[2], g.w = in.shape[3];
  g.oc = weight.shape[0], g.kh = weight.shape[2], g.kw = weight.shape[3];
  g.oh = out.shape[2], g.ow = out.shape[3], g.group = *group;
  std::tie(g.strideH, g.strideW) = *strides;
  std::tie(g.dilH, g.dilW) = *dilations;
  g.padT = (*pads)[0], g.padL = (*pads)[1], g.padB = (*pads)[2],
  g.padR = (*pads)[3];
  if (g.group < 1 || g.group > g.c || g.c % g.group || g.oc % g.group ||
      weight.shape[1] != g.c / g.group)
    return Error(ErrorCode::InvalidArgument,
                 "group " + std::to_string(g.group) + " does not fit input " +
                     in.typeString() + " and weight " + weight.typeString());
  if (out.shape[0] != g.n || out.shape[1] != g.oc)
    return Error(ErrorCode::InvalidArgument,
                 "result " + out.typeString() + " does not match input " +
                     in.typeString() + " and weight " + weight.typeString());
  int64_t effH = g.dilH * (g.kh - 1) + 1, effW = g.dilW * (g.kw - 1) + 1;
  int64_t expectH = (g.h + g.padT + g.padB - effH) / g.strideH + 1;
  int64_t expectW = (g.w + g.padL + g.padR - effW) / g.strideW + 1;
  if (g.h + g.padT + g.padB < effH || g.w + g.padL + g.padR < effW ||
      expectH != g.oh || expectW != g.ow)
    return Error(ErrorCode::InvalidArgument,
                 "result " + out.typeString() +
                     " does not match the convolution of " + in.typeString() +
                     " by " + weight.typeString());
  return g;
}

Error conv2dKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 3, 1));
  STRATA_RETURN_IF_ERROR(checkAllF32OrI32(ctx));
  const TensorView &in = ctx.ins[0], &weight = ctx.ins[1], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(g, readConv2dGeometry(ctx, in, weight, out));
  const float *bias = nullptr;
  if (ctx.ins.size() == 3) {
    if (ctx.ins[2].shape != std::vector<int64_t>{g.oc})
      return ctx.fail("bias " + ctx.ins[2].typeString() + " must be [" +
                      std::to_string(g.oc) + "]");
    bias = ctx.ins[2].as<float>();
  }
  if (in.dtype == DType::I32) {
    if (!ctx.validateOnly)
      conv2dI32(g, in.as<int32_t>(), weight.as<int32_t>(),
                ctx.ins.size() == 3 ? ctx.ins[2].as<int32_t>() : nullptr,
                out.as<int32_t>());
    return Error::success();
  }
  // im2col scratch: (C/group * KH * KW) x (OH * OW) floats.
  double scratchFloats = static_cast<double>(g.c / g.group) * g.kh * g.kw *
                         static_cast<double>(g.oh) * g.ow;
  if (scratchFloats > static_cast<double>(kMaxScratchFloats))
    return ctx.fail("the im2col buffer of " + out.typeString() +
                    " would exceed 2^32 floats");
  if (ctx.validateOnly)
    return Error::success();

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
                         : ctx.scratchFloats(static_cast<size_t>(kSize) *
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
        for (int64_t o = 0; o < ocg; ++o) {
          float bv = bias[gi * ocg + o];
          float *yo = yg + o * spatial;
          for (int64_t s = 0; s < spatial; ++s)
            yo[s] += bv;
        }
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
