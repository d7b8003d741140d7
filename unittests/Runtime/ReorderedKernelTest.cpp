//===- ReorderedKernelTest.cpp - fast paths against plain definitions ----===//
//
// reduce_sum and reduce_mean (lanes), reduce_max / reduce_min (rows of lanes),
// arg_max / arg_min (row at a time), scatter_elements (typed stores), transpose
// (block copies), deform_conv2d (a sampling plan and a tiled GEMM) and
// grid_sample (bilinear taps once per point) reorganise their loops for speed;
// each is checked here against the operation's definition written out in the
// most direct way (float64 where it sums), over odd shapes and every axis.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -1,
                                float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

int64_t numel(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// The multi-index of flat position `i` in `shape`.
std::vector<int64_t> unflatten(int64_t i, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

double relL2(const std::vector<float> &got, const std::vector<double> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

TEST(ReorderedKernelTest, ReduceSumAndMeanMatchFloat64OverEveryAxisSet) {
  for (const std::vector<int64_t> &shape :
       {std::vector<int64_t>{3, 5, 7, 37}, std::vector<int64_t>{2, 40, 9, 11},
        std::vector<int64_t>{1, 3, 1, 300}}) {
    std::vector<float> x = randomFloats(numel(shape), 7);
    for (const std::vector<int64_t> &axes : {std::vector<int64_t>{0},
                                             {1},
                                             {3},
                                             {-1},
                                             {1, 2},
                                             {2, 3},
                                             {0, 3},
                                             {1, 3},
                                             {0, 1, 2, 3}}) {
      for (bool keep : {true, false}) {
        std::vector<bool> reduced(4, false);
        for (int64_t a : axes)
          reduced[(a + 4) % 4] = true;
        std::vector<int64_t> keptShape, outShape;
        for (size_t d = 0; d < 4; ++d) {
          keptShape.push_back(reduced[d] ? 1 : shape[d]);
          if (keep || !reduced[d])
            outShape.push_back(reduced[d] ? 1 : shape[d]);
        }
        std::vector<double> want(numel(keptShape), 0.0);
        std::vector<int64_t> ks = rowMajorStrides(keptShape);
        for (int64_t i = 0; i < numel(shape); ++i) {
          std::vector<int64_t> idx = unflatten(i, shape);
          int64_t o = 0;
          for (size_t d = 0; d < 4; ++d)
            o += (reduced[d] ? 0 : idx[d]) * ks[d];
          want[o] += x[i];
        }
        std::vector<OwnedTensor> in = {f32Tensor(shape, x)};
        Result<OwnedTensor> out =
            runKernel("reduce_sum", in, DType::F32, outShape,
                      {intsParam("axes", axes), boolParam("keep_dims", keep)});
        ASSERT_TRUE(out.ok()) << out.error().message();
        EXPECT_LT(relL2(values(*out), want), 1e-6)
            << "shape[3] " << shape[3] << " axes " << axes.size() << ":"
            << axes[0] << " keep " << keep;
        // reduce_mean: the same sums over the count.
        double count = double(numel(shape)) / double(numel(keptShape));
        std::vector<double> mean = want;
        for (double &m : mean)
          m /= count;
        Result<OwnedTensor> meanOut =
            runKernel("reduce_mean", in, DType::F32, outShape,
                      {intsParam("axes", axes), boolParam("keep_dims", keep)});
        ASSERT_TRUE(meanOut.ok()) << meanOut.error().message();
        EXPECT_LT(relL2(values(*meanOut), mean), 1e-6)
            << "mean shape[3] " << shape[3] << " axes " << axes.size();
      }
    }
  }
}

TEST(ReorderedKernelTest, ReduceMaxMinMatchTheSequentialLoopBitForBit) {
  // Rows short (20), long (130) and over 4096 (axes {1, 2} of the last
  // shape), with NaNs, signed zeros and ties:
  // the sequential loop keeps the last NaN, else the first of equal
  // values (+0 or -0, whichever comes first).
  float nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::vector<int64_t> &shape :
       {std::vector<int64_t>{5, 7, 20}, std::vector<int64_t>{4, 3, 130},
        std::vector<int64_t>{3, 3, 1501}}) {
    std::mt19937 rng(5);
    std::vector<float> x(numel(shape));
    for (float &v : x) {
      uint32_t r = rng() % 16;
      v = r == 0 ? 0.0f : r == 1 ? -0.0f : static_cast<float>(int(r) - 9);
    }
    x[3] = nan;             // Row 0.
    x[shape[2] + 5] = -nan; // Row 1: two NaNs, the last kept.
    x[shape[2] + 9] = nan;
    for (size_t i = 2 * shape[2]; i < 3 * size_t(shape[2]); ++i)
      x[i] = i % 2 ? 0.0f : -0.0f; // Row 2: only zeros.
    for (bool isMax : {true, false})
      for (const std::vector<int64_t> &axes :
           {std::vector<int64_t>{-1}, {1, 2}, {0}, {1}}) {
        std::vector<bool> reduced(3, false);
        for (int64_t a : axes)
          reduced[(a + 3) % 3] = true;
        std::vector<int64_t> keptShape;
        for (size_t d = 0; d < 3; ++d)
          keptShape.push_back(reduced[d] ? 1 : shape[d]);
        std::vector<float> want(numel(keptShape), isMax ? -INFINITY : INFINITY);
        std::vector<int64_t> ks = rowMajorStrides(keptShape);
        for (int64_t i = 0; i < numel(shape); ++i) {
          std::vector<int64_t> idx = unflatten(i, shape);
          int64_t o = 0;
          for (size_t d = 0; d < 3; ++d)
            o += (reduced[d] ? 0 : idx[d]) * ks[d];
          float v = x[i], &acc = want[o];
          acc = (isMax ? v > acc : v < acc) || v != v ? v : acc;
        }
        std::vector<OwnedTensor> in = {f32Tensor(shape, x)};
        Result<OwnedTensor> out =
            runKernel(isMax ? "reduce_max" : "reduce_min", in, DType::F32,
                      keptShape, {intsParam("axes", axes)});
        ASSERT_TRUE(out.ok()) << out.error().message();
        std::vector<float> got = values(*out);
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * got.size()), 0)
            << "max " << isMax << " axes " << axes[0] << " row " << shape[2];
      }
  }
}

/// arg_max (greater) / arg_min of `x` along `axis` by its definition: the
/// first extreme (or the last, `last`).
std::vector<int64_t> argReference(const std::vector<float> &x,
                                  const std::vector<int64_t> &shape,
                                  size_t axis, bool greater, bool last) {
  std::vector<int64_t> kept = shape;
  kept[axis] = 1;
  std::vector<int64_t> st = rowMajorStrides(shape), result(numel(kept));
  for (int64_t o = 0; o < numel(kept); ++o) {
    std::vector<int64_t> idx = unflatten(o, kept);
    int64_t base = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      base += idx[d] * st[d];
    int64_t best = 0;
    for (int64_t j = 1; j < shape[axis]; ++j) {
      float v = x[base + j * st[axis]], b = x[base + best * st[axis]];
      if (greater ? (v > b || (last && v == b)) : (v < b || (last && v == b)))
        best = j;
    }
    result[o] = best;
  }
  return result;
}

TEST(ReorderedKernelTest, ArgMaxAndArgMinMatchTheDefinitionWithTies) {
  // Many ties, signed zeros and NaNs (one first in its run), over every
  // axis; runs of 70 along the last axis of the second shape.
  float nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::vector<int64_t> &shape :
       {std::vector<int64_t>{3, 6, 5, 4}, std::vector<int64_t>{2, 3, 1, 70}}) {
    std::mt19937 rng(3);
    std::vector<float> x(numel(shape));
    for (float &v : x) {
      uint32_t r = rng() % 6;
      v = r == 5 ? -0.0f : static_cast<float>(r);
    }
    x[0] = nan;
    x[7] = nan;
    x[x.size() - 2] = nan;
    for (size_t axis = 0; axis < 4; ++axis)
      for (bool greater : {true, false})
        for (bool last : {false, true})
          for (bool keep : {true, false}) {
            std::vector<int64_t> outShape;
            for (size_t d = 0; d < 4; ++d)
              if (d != axis || keep)
                outShape.push_back(d == axis ? 1 : shape[d]);
            std::vector<OwnedTensor> in = {f32Tensor(shape, x)};
            Result<OwnedTensor> out = runKernel(
                greater ? "arg_max" : "arg_min", in, DType::I64, outShape,
                {intParam("axis", static_cast<int64_t>(axis)),
                 boolParam("keep_dims", keep),
                 boolParam("select_last_index", last)});
            ASSERT_TRUE(out.ok()) << out.error().message();
            EXPECT_EQ(valuesOf<int64_t>(*out),
                      argReference(x, shape, axis, greater, last))
                << "axis " << axis << " greater " << greater << " last " << last
                << " extent " << shape[axis];
          }
  }
}

/// transpose of `shape` by `perm` for elements of type T, against the
/// index mapping.
template <typename T>
void checkTranspose(DType dtype, const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &perm) {
  std::vector<T> x(numel(shape));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<T>(i * 2654435761u % 251);
  std::vector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<int64_t> st = rowMajorStrides(shape);
  std::vector<T> want(x.size());
  for (int64_t o = 0; o < numel(outShape); ++o) {
    std::vector<int64_t> idx = unflatten(o, outShape);
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      src += idx[d] * st[perm[d]];
    want[o] = x[src];
  }
  std::vector<OwnedTensor> in = {tensorOf<T>(dtype, shape, x)};
  Result<OwnedTensor> out = runKernel("transpose", in, dtype, outShape,
                                      {intsParam("permutation", perm)});
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(valuesOf<T>(*out), want) << "perm " << perm[0] << perm[1];
}

TEST(ReorderedKernelTest, TransposeMatchesTheIndexMapping) {
  // DepthToSpace's DCR and CRD permutations, every permutation of an odd
  // 4-d shape (with a unit dimension), each element size.
  checkTranspose<float>(DType::F32, {1, 2, 2, 3, 5, 7}, {0, 3, 4, 1, 5, 2});
  checkTranspose<float>(DType::F32, {1, 3, 3, 3, 40, 19}, {0, 1, 4, 2, 5, 3});
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    checkTranspose<float>(DType::F32, {3, 1, 17, 35}, perm);
    checkTranspose<int8_t>(DType::I8, {2, 5, 3, 33}, perm);
    checkTranspose<int16_t>(DType::I16, {2, 5, 3, 4}, perm);
    checkTranspose<int64_t>(DType::I64, {4, 3, 18, 5}, perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
  checkTranspose<float>(DType::F32, {1, 1, 1}, {2, 0, 1});
}

TEST(ReorderedKernelTest, ScatterElementsMatchesTheDefinition) {
  // Every axis of [3, 4, 5] updated through [2, 3, 4] indices (distinct
  // along the axis, some negative), i64 and i32 indices, f32 and i64 data.
  std::vector<int64_t> shape = {3, 4, 5}, ishape = {2, 3, 4};
  std::vector<int64_t> st = rowMajorStrides(shape);
  for (int64_t axis = 0; axis < 3; ++axis)
    for (bool wideIndex : {true, false}) {
      std::vector<int64_t> idx(numel(ishape));
      std::vector<float> upd(idx.size());
      std::vector<float> data = randomFloats(numel(shape), 31);
      std::vector<float> want = data;
      for (int64_t i = 0; i < numel(ishape); ++i) {
        std::vector<int64_t> pos = unflatten(i, ishape);
        int64_t at = (pos[axis] * 2 + pos[(axis + 1) % 3]) % shape[axis];
        idx[i] = i % 3 == 0 ? at - shape[axis] : at;
        upd[i] = 100.0f + static_cast<float>(i);
        pos[axis] = at;
        want[pos[0] * st[0] + pos[1] * st[1] + pos[2] * st[2]] = upd[i];
      }
      std::vector<int32_t> idx32(idx.begin(), idx.end());
      std::vector<OwnedTensor> in = {
          f32Tensor(shape, data),
          wideIndex ? tensorOf<int64_t>(DType::I64, ishape, idx)
                    : tensorOf<int32_t>(DType::I32, ishape, idx32),
          f32Tensor(ishape, upd)};
      Result<OwnedTensor> out = runKernel("scatter_elements", in, DType::F32,
                                          shape, {intParam("axis", axis)});
      ASSERT_TRUE(out.ok()) << out.error().message();
      EXPECT_EQ(values(*out), want) << "axis " << axis;
      // The same on i64 data (8-byte elements).
      std::vector<int64_t> data64(data.size()), upd64(upd.size()),
          want64(want.size());
      for (size_t i = 0; i < data.size(); ++i) {
        data64[i] = static_cast<int64_t>(data[i] * 1000);
        want64[i] = static_cast<int64_t>(want[i] * 1000);
      }
      for (size_t i = 0; i < upd.size(); ++i)
        upd64[i] = static_cast<int64_t>(upd[i] * 1000);
      std::vector<OwnedTensor> in64 = {
          tensorOf<int64_t>(DType::I64, shape, data64),
          tensorOf<int64_t>(DType::I64, ishape, idx),
          tensorOf<int64_t>(DType::I64, ishape, upd64)};
      Result<OwnedTensor> out64 =
          runKernel("scatter_elements", in64, DType::I64, shape,
                    {intParam("axis", axis)});
      ASSERT_TRUE(out64.ok()) << out64.error().message();
      EXPECT_EQ(valuesOf<int64_t>(*out64), want64) << "axis " << axis;
    }
}

/// ONNX DeformConv by its definition, in float64.
std::vector<double>
deformReference(const std::vector<float> &x, const std::vector<float> &w,
                const std::vector<float> &bias, const std::vector<float> &off,
                const std::vector<float> *mask, int64_t n, int64_t c, int64_t h,
                int64_t wd, int64_t m, int64_t k, int64_t group,
                int64_t offsetGroup, int64_t stride, int64_t pad, int64_t dil,
                int64_t oh, int64_t ow) {
  std::vector<double> y(n * m * oh * ow);
  int64_t cg = c / group, mg = m / group, cpo = c / offsetGroup;
  auto pixel = [&](int64_t b, int64_t ch, int64_t r, int64_t col) -> double {
    if (r < 0 || r >= h || col < 0 || col >= wd)
      return 0.0;
    return x[((b * c + ch) * h + r) * wd + col];
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t py = 0; py < oh; ++py)
        for (int64_t px = 0; px < ow; ++px) {
          double acc = bias[o];
          int64_t g = o / mg;
          for (int64_t ci = 0; ci < cg; ++ci) {
            int64_t ch = g * cg + ci, og = ch / cpo;
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < k; ++j) {
                int64_t tap = i * k + j;
                int64_t at =
                    ((b * offsetGroup + og) * 2 * k * k + 2 * tap) * oh * ow +
                    py * ow + px;
                double sy = py * stride - pad + i * dil + double(off[at]);
                double sx =
                    px * stride - pad + j * dil + double(off[at + oh * ow]);
                double v = 0;
                if (sy > -1 && sy < h && sx > -1 && sx < wd) {
                  double fy = std::floor(sy), fx = std::floor(sx);
                  int64_t y0 = int64_t(fy), x0 = int64_t(fx);
                  double ly = sy - fy, lx = sx - fx;
                  v = (1 - ly) * (1 - lx) * pixel(b, ch, y0, x0) +
                      (1 - ly) * lx * pixel(b, ch, y0, x0 + 1) +
                      ly * (1 - lx) * pixel(b, ch, y0 + 1, x0) +
                      ly * lx * pixel(b, ch, y0 + 1, x0 + 1);
                }
                if (mask)
                  v *=
                      (*mask)[((b * offsetGroup + og) * k * k + tap) * oh * ow +
                              py * ow + px];
                acc += v * w[((o * cg + ci) * k + i) * k + j];
              }
          }
          y[((b * m + o) * oh + py) * ow + px] = acc;
        }
  return y;
}

TEST(ReorderedKernelTest, DeformConvMatchesFloat64) {
  // 32 channels in 2 groups (K = 16 * 9 = 144: two K blocks), 7 outputs
  // per group (a 6-row tile and one row), 7 x 9 or 4 x 5 points (a 32-
  // column tile and a tail, or only a tail); offsets up to 2.5 pixels
  // (samples outside and across the edge).
  int64_t n = 2, c = 32, h = 7, wd = 9, m = 14, k = 3, group = 2;
  for (int64_t stride : {1, 2})
    for (bool withMask : {false, true}) {
      int64_t offsetGroup = withMask ? 4 : 1, pad = 1, dil = stride;
      int64_t oh = (h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
      int64_t ow = (wd + 2 * pad - dil * (k - 1) - 1) / stride + 1;
      std::vector<float> x = randomFloats(n * c * h * wd, 11);
      std::vector<float> w = randomFloats(m * (c / group) * k * k, 12);
      std::vector<float> bias = randomFloats(m, 13);
      std::vector<float> off =
          randomFloats(n * offsetGroup * 2 * k * k * oh * ow, 14, -2.5f, 2.5f);
      std::vector<float> mask =
          randomFloats(n * offsetGroup * k * k * oh * ow, 15, 0, 1);
      std::vector<OwnedTensor> in = {
          f32Tensor({n, c, h, wd}, x), f32Tensor({m, c / group, k, k}, w),
          f32Tensor({m}, bias),
          f32Tensor({n, offsetGroup * 2 * k * k, oh, ow}, off)};
      if (withMask)
        in.push_back(f32Tensor({n, offsetGroup * k * k, oh, ow}, mask));
      Result<OwnedTensor> out =
          runKernel("deform_conv2d", in, DType::F32, {n, m, oh, ow},
                    windowParams("deform_conv2d",
                                 {intsParam("strides", {stride, stride}),
                                  intsParam("dilations", {dil, dil}),
                                  intsParam("pads", {pad, pad, pad, pad}),
                                  intParam("group", group),
                                  intParam("offset_group", offsetGroup)}));
      ASSERT_TRUE(out.ok()) << out.error().message();
      EXPECT_LT(
          relL2(values(*out),
                deformReference(x, w, bias, off, withMask ? &mask : nullptr, n,
                                c, h, wd, m, k, group, offsetGroup, stride, pad,
                                dil, oh, ow)),
          1e-6)
          << "stride " << stride << " mask " << withMask;
    }
}

TEST(ReorderedKernelTest, BilinearGridSampleMatchesFloat64) {
  // Zeros and border padding, both corner conventions, points inside,
  // across the edges and far outside; 2 images of 3 channels.
  int64_t n = 2, c = 3, h = 5, w = 7, gh = 4, gw = 6;
  std::vector<float> x = randomFloats(n * c * h * w, 21);
  std::vector<float> grid = randomFloats(n * gh * gw * 2, 22, -1.4f, 1.4f);
  grid[0] = 30.0f;
  for (bool align : {false, true})
    for (const char *padding : {"zeros", "border"}) {
      bool border = std::string(padding) == "border";
      std::vector<double> want(n * c * gh * gw);
      auto denorm = [&](double g, int64_t len) {
        return align ? (g + 1) / 2 * (len - 1) : ((g + 1) * len - 1) / 2;
      };
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t p = 0; p < gh * gw; ++p) {
            double gx = denorm(grid[(b * gh * gw + p) * 2], w);
            double gy = denorm(grid[(b * gh * gw + p) * 2 + 1], h);
            if (border) { // Far points: the edge reads alike.
              gx = std::clamp(gx, -4.0, w + 3.0);
              gy = std::clamp(gy, -4.0, h + 3.0);
            }
            auto at = [&](int64_t r, int64_t col) -> double {
              if (border) {
                r = std::clamp<int64_t>(r, 0, h - 1);
                col = std::clamp<int64_t>(col, 0, w - 1);
              } else if (r < 0 || r >= h || col < 0 || col >= w) {
                return 0.0;
              }
              return x[((b * c + ch) * h + r) * w + col];
            };
            double fx = std::floor(gx), fy = std::floor(gy);
            double lx = gx - fx, ly = gy - fy;
            int64_t x0 = int64_t(fx), y0 = int64_t(fy);
            want[(b * c + ch) * gh * gw + p] =
                (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x0 + 1)) +
                ly * ((1 - lx) * at(y0 + 1, x0) + lx * at(y0 + 1, x0 + 1));
          }
      std::vector<OwnedTensor> in = {f32Tensor({n, c, h, w}, x),
                                     f32Tensor({n, gh, gw, 2}, grid)};
      Result<OwnedTensor> out =
          runKernel("grid_sample", in, DType::F32, {n, c, gh, gw},
                    {stringParam("mode", "bilinear"),
                     stringParam("padding_mode", padding),
                     boolParam("align_corners", align)});
      ASSERT_TRUE(out.ok()) << out.error().message();
      EXPECT_LT(relL2(values(*out), want), 1e-6)
          << padding << " align " << align;
    }
}

} // namespace
