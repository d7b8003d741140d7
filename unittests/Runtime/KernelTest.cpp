//===- KernelTest.cpp - portable kernels vs hand-computed expectations ----===//
//
// Cases the ONNX node tests do not cover: grouped, depthwise, dilated and
// biased convolutions, batch-broadcast matmul, reductions over inner axes,
// many-input concat and kernel parameter errors. Expected values come from
// naive loops written here (independent of the blocked kernels) or by hand.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// Deterministic values in [-1, 1).
std::vector<float> ramp(size_t n, float step = 0.37f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::fmod(static_cast<float>(i) * step, 2.0f) - 1.0f;
  return v;
}

/// Direct convolution by definition, NCHW / OIHW.
std::vector<float> naiveConv(const std::vector<float> &x,
                             const std::vector<float> &w,
                             const std::vector<float> &b, int n, int c, int h,
                             int wd, int oc, int kh, int kw, int group, int sh,
                             int sw, int dh, int dw, int pt, int pl, int oh,
                             int ow) {
  int cg = c / group, ocg = oc / group;
  std::vector<float> y(static_cast<size_t>(n) * oc * oh * ow);
  for (int bi = 0; bi < n; ++bi)
    for (int o = 0; o < oc; ++o)
      for (int yy = 0; yy < oh; ++yy)
        for (int xx = 0; xx < ow; ++xx) {
          double acc = b.empty() ? 0.0 : b[o];
          int g = o / ocg;
          for (int ci = 0; ci < cg; ++ci)
            for (int ky = 0; ky < kh; ++ky)
              for (int kx = 0; kx < kw; ++kx) {
                int iy = yy * sh - pt + ky * dh, ix = xx * sw - pl + kx * dw;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                  continue;
                acc += x[((bi * c + g * cg + ci) * h + iy) * wd + ix] *
                       w[((o * cg + ci) * kh + ky) * kw + kx];
              }
          y[((bi * oc + o) * oh + yy) * ow + xx] = static_cast<float>(acc);
        }
  return y;
}

struct ConvCase {
  int n, c, h, w, oc, kh, kw, group, sh, sw, dh, dw, pt, pl, pb, pr;
  bool bias;
};

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, MatchesDirectConvolution) {
  ConvCase k = GetParam();
  int oh = (k.h + k.pt + k.pb - (k.dh * (k.kh - 1) + 1)) / k.sh + 1;
  int ow = (k.w + k.pl + k.pr - (k.dw * (k.kw - 1) + 1)) / k.sw + 1;
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({k.n, k.c, k.h, k.w},
                          ramp(static_cast<size_t>(k.n) * k.c * k.h * k.w)));
  ins.push_back(f32Tensor(
      {k.oc, k.c / k.group, k.kh, k.kw},
      ramp(static_cast<size_t>(k.oc) * (k.c / k.group) * k.kh * k.kw, 0.53f)));
  std::vector<float> bias;
  if (k.bias) {
    bias = ramp(k.oc, 0.71f);
    ins.push_back(f32Tensor({k.oc}, bias));
  }
  std::vector<float> want = naiveConv(
      values(ins[0]), values(ins[1]), bias, k.n, k.c, k.h, k.w, k.oc, k.kh,
      k.kw, k.group, k.sh, k.sw, k.dh, k.dw, k.pt, k.pl, oh, ow);
  Result<OwnedTensor> got = runKernel(
      "conv2d", ins, DType::F32, {k.n, k.oc, oh, ow},
      {intsParam("strides", {k.sh, k.sw}), intsParam("dilations", {k.dh, k.dw}),
       intsParam("pads", {k.pt, k.pl, k.pb, k.pr}),
       intParam("group", k.group)});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({k.n, k.oc, oh, ow}, want), 1e-4f, 1e-4f);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTest,
    ::testing::Values(
        // n  c  h  w oc kh kw g sh sw dh dw pt pl pb pr bias
        ConvCase{1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},
        ConvCase{2, 4, 7, 9, 6, 3, 2, 2, 2, 1, 1, 1, 0, 1, 2, 0, true},
        ConvCase{1, 6, 9, 9, 6, 3, 3, 6, 1, 1, 1, 1, 1, 1, 1, 1, true},
        ConvCase{1, 4, 10, 10, 4, 3, 3, 4, 2, 2, 2, 2, 2, 2, 2, 2, false},
        ConvCase{1, 8, 5, 5, 16, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true},
        ConvCase{1, 5, 11, 6, 7, 5, 3, 1, 3, 2, 1, 2, 2, 1, 2, 1, false},
        ConvCase{1, 300, 3, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true}));

TEST(KernelTest, MatmulBroadcastsBatch) {
  // a: [2, 1, 2, 3], b: [1, 3, 3, 2] -> [2, 3, 2, 2]
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({2, 1, 2, 3}, ramp(12)));
  ins.push_back(f32Tensor({1, 3, 3, 2}, ramp(18, 0.29f)));
  std::vector<float> a = values(ins[0]), b = values(ins[1]), want(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 2; ++m)
        for (int n = 0; n < 2; ++n) {
          float acc = 0;
          for (int k = 0; k < 3; ++k)
            acc += a[(i * 2 + m) * 3 + k] * b[(j * 3 + k) * 2 + n];
          want[((i * 3 + j) * 2 + m) * 2 + n] = acc;
        }
  Result<OwnedTensor> got = runKernel("matmul", ins, DType::F32, {2, 3, 2, 2});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({2, 3, 2, 2}, want));
}

TEST(KernelTest, LargeMatmulMatchesNaive) {
  const int m = 37, k = 300, n = 530; // crosses the K and N blocks
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({m, k}, ramp(m * k)));
  ins.push_back(f32Tensor({k, n}, ramp(k * n, 0.13f)));
  std::vector<float> a = values(ins[0]), b = values(ins[1]), want(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p)
        acc += a[i * k + p] * b[p * n + j];
      want[i * n + j] = static_cast<float>(acc);
    }
  Result<OwnedTensor> got = runKernel("matmul", ins, DType::F32, {m, n});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({m, n}, want), 1e-3f, 1e-4f);
}

// rhs_permutation: the rhs read through a permutation of its operand (a KV
// cache [length, 1, heads, dim] read as keys transposed [1, heads, dim,
// length] and as values [1, heads, length, dim]) equals the product by the
// transposed copy, computed here in double; one, three and six rows (the
// few-row dot products and the copied rhs), a dim of 13 (not a multiple of
// the eight lanes), and a permutation neither of whose last two dimensions
// is contiguous.
TEST(KernelTest, MatmulReadsItsRhsThroughAPermutation) {
  const int64_t length = 21, heads = 3, dim = 13;
  OwnedTensor cache =
      f32Tensor({length, 1, heads, dim}, ramp(length * heads * dim, 0.37f));
  std::vector<float> kv = values(cache);
  auto at = [&](int64_t l, int64_t h, int64_t d) {
    return double(kv[(l * heads + h) * dim + d]);
  };
  for (int64_t m : {1, 3, 6}) {
    // Scores: q [1, heads, m, dim] x keys^T [1, heads, dim, length].
    std::vector<OwnedTensor> ins;
    ins.push_back(f32Tensor({1, heads, m, dim}, ramp(heads * m * dim, 0.11f)));
    ins.push_back(cache);
    std::vector<float> q = values(ins[0]), want(heads * m * length);
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t l = 0; l < length; ++l) {
          double acc = 0;
          for (int64_t d = 0; d < dim; ++d)
            acc += q[(h * m + i) * dim + d] * at(l, h, d);
          want[(h * m + i) * length + l] = static_cast<float>(acc);
        }
    Result<OwnedTensor> got =
        runKernel("matmul", ins, DType::F32, {1, heads, m, length},
                  {intsParam("rhs_permutation", {1, 2, 3, 0})});
    ASSERT_TRUE(got.ok()) << got.error().toString();
    expectClose(*got, f32Tensor({1, heads, m, length}, want), 1e-4f, 1e-5f);
    // Weighted sum: p [1, heads, m, length] x values [1, heads, length, dim].
    ins[0] = f32Tensor({1, heads, m, length}, ramp(heads * m * length, 0.07f));
    std::vector<float> p = values(ins[0]), sum(heads * m * dim);
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t d = 0; d < dim; ++d) {
          double acc = 0;
          for (int64_t l = 0; l < length; ++l)
            acc += p[(h * m + i) * length + l] * at(l, h, d);
          sum[(h * m + i) * dim + d] = static_cast<float>(acc);
        }
    got = runKernel("matmul", ins, DType::F32, {1, heads, m, dim},
                    {intsParam("rhs_permutation", {1, 2, 0, 3})});
    ASSERT_TRUE(got.ok()) << got.error().toString();
    expectClose(*got, f32Tensor({1, heads, m, dim}, sum), 1e-4f, 1e-5f);
  }
  // Neither last dimension contiguous: [dim, length] from [length, 1,
  // heads, dim] with the heads last.
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({1, dim, 2, heads}, ramp(dim * 2 * heads, 0.05f)));
  ins.push_back(cache);
  std::vector<float> a = values(ins[0]), want(dim * 2 * length);
  for (int64_t d = 0; d < dim; ++d)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t l = 0; l < length; ++l) {
        double acc = 0;
        for (int64_t h = 0; h < heads; ++h)
          acc += a[(d * 2 + i) * heads + h] * at(l, h, d);
        want[(d * 2 + i) * length + l] = static_cast<float>(acc);
      }
  Result<OwnedTensor> got =
      runKernel("matmul", ins, DType::F32, {1, dim, 2, length},
                {intsParam("rhs_permutation", {1, 3, 2, 0})});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({1, dim, 2, length}, want), 1e-4f, 1e-5f);
  // Refused: not a permutation, or not f32.
  got = runKernel("matmul", ins, DType::F32, {1, dim, 2, length},
                  {intsParam("rhs_permutation", {1, 3, 3, 0})});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("rhs_permutation"), std::string::npos);
}

TEST(KernelTest, ReduceMeanOverInnerAxes) {
  // [2, 3, 2] mean over axis 1, kept: [2, 1, 2].
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  Result<OwnedTensor> got =
      runKernel("reduce_mean", ins, DType::F32, {2, 1, 2},
                {intsParam("axes", {1}), boolParam("keep_dims", true)});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({2, 1, 2}, {3, 4, 9, 10}));
  // Global average pooling: axes [2, 3] of NCHW, squeezed.
  std::vector<OwnedTensor> nchw;
  nchw.push_back(f32Tensor({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}));
  got = runKernel("reduce_mean", nchw, DType::F32, {1, 2},
                  {intsParam("axes", {2, 3}), boolParam("keep_dims", false)});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({1, 2}, {2.5f, 25}));
}

TEST(KernelTest, ConcatOfThreeAlongTheMiddleAxis) {
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({2, 1, 2}, {1, 2, 3, 4}));
  ins.push_back(f32Tensor({2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12}));
  ins.push_back(f32Tensor({2, 1, 2}, {13, 14, 15, 16}));
  Result<OwnedTensor> got =
      runKernel("concat", ins, DType::F32, {2, 4, 2}, {intParam("axis", 1)});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({2, 4, 2}, {1, 2, 5, 6, 7, 8, 13, 14, 3, 4, 9, 10,
                                          11, 12, 15, 16}));
}

TEST(KernelTest, TransposeFourD) {
  // NCHW [1, 2, 2, 3] -> NHWC [1, 2, 3, 2].
  std::vector<OwnedTensor> ins;
  ins.push_back(
      f32Tensor({1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  Result<OwnedTensor> got =
      runKernel("transpose", ins, DType::F32, {1, 2, 3, 2},
                {intsParam("permutation", {0, 2, 3, 1})});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got,
              f32Tensor({1, 2, 3, 2}, {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
}

TEST(KernelTest, ScalarBroadcastAndClipDefaults) {
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({2, 2}, {1, -2, 3, -4}));
  ins.push_back(f32Tensor({1, 1}, {10}));
  Result<OwnedTensor> got = runKernel("mul", ins, DType::F32, {2, 2});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({2, 2}, {10, -20, 30, -40}));
  std::vector<OwnedTensor> one;
  one.push_back(f32Tensor({4}, {-7, -0.5f, 0.5f, 7}));
  got = runKernel("clip", one, DType::F32, {4}, {floatParam("min", 0.0)});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, f32Tensor({4}, {0, 0, 0.5f, 7}));
}

TEST(KernelTest, ParameterErrorsNameTheParameter) {
  std::vector<OwnedTensor> ins;
  ins.push_back(f32Tensor({1, 1, 4, 4}, ramp(16)));
  Result<OwnedTensor> got = runKernel("max_pool2d", ins, DType::F32,
                                      {1, 1, 2, 2}, {intParam("kernel", 2)});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("parameter 'kernel' is not an integer "
                                       "list"),
            std::string::npos)
      << got.error().toString();
  got = runKernel("max_pool2d", ins, DType::F32, {1, 1, 2, 2});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("parameter 'kernel' is missing"),
            std::string::npos);
  got = runKernel("softmax", ins, DType::F32, {1, 1, 4, 4},
                  {intParam("axis", 4)});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("axis 4 is out of range"),
            std::string::npos);
  std::vector<OwnedTensor> wrongType;
  wrongType.push_back(
      OwnedTensor{"", DType::I32, {4}, std::vector<uint8_t>(16)});
  got = runKernel("relu", wrongType, DType::I32, {4});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("takes f32 operands, got i32[4]"),
            std::string::npos);
}

TEST(KernelTest, HostileParamsAreRefusedBeforeAnyArithmetic) {
  auto conv = [](std::vector<Param> params) {
    std::vector<OwnedTensor> ins;
    ins.push_back(f32Tensor({1, 2, 4, 4}, ramp(32)));
    ins.push_back(f32Tensor({2, 1, 3, 3}, ramp(18)));
    return runKernel("conv2d", ins, DType::F32, {1, 2, 2, 2},
                     windowParams("conv2d", std::move(params)));
  };
  int64_t huge = int64_t(1) << 62;
  Result<OwnedTensor> got = conv({intsParam("pads", {huge, 0, huge, 0})});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("'pads' must be four integers"),
            std::string::npos);
  got = conv({intsParam("strides", {huge, 1})});
  ASSERT_FALSE(got.ok());
  got = conv({intParam("group", huge)});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message().find("group"), std::string::npos);
  got = conv({intParam("group", 2)}); // depthwise: valid
  EXPECT_TRUE(got.ok()) << got.error().toString();
  std::vector<OwnedTensor> one;
  one.push_back(f32Tensor({2}, {-1e30f, 1e30f}));
  got = runKernel("clip", one, DType::F32, {2},
                  {floatParam("min", -1e300), floatParam("max", 1e300)});
  ASSERT_TRUE(got.ok());
  expectClose(*got, f32Tensor({2}, {-1e30f, 1e30f}));
}

TEST(KernelTest, ShapeKernelsMoveAnyDType) {
  std::vector<OwnedTensor> ins;
  OwnedTensor t{"", DType::I64, {2, 3}, std::vector<uint8_t>(48)};
  for (int i = 0; i < 6; ++i)
    reinterpret_cast<int64_t *>(t.bytes.data())[i] = i;
  ins.push_back(t);
  Result<OwnedTensor> got = runKernel("transpose", ins, DType::I64, {3, 2},
                                      {intsParam("permutation", {1, 0})});
  ASSERT_TRUE(got.ok()) << got.error().toString();
  const int64_t *v = reinterpret_cast<const int64_t *>(got->bytes.data());
  EXPECT_EQ((std::vector<int64_t>(v, v + 6)),
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(KernelTest, EveryContractKernelIsRegistered) {
  const KernelRegistry &registry = portableKernelRegistry();
  for (const char *name :
       {"conv2d",  "matmul",     "add",     "relu", "max_pool2d", "reduce_mean",
        "reshape", "transpose",  "softmax", "sub",  "mul",        "div",
        "sigmoid", "tanh",       "exp",     "sqrt", "neg",        "abs",
        "clip",    "avg_pool2d", "concat",  "copy"})
    EXPECT_NE(registry.lookup(name), nullptr) << name;
  EXPECT_EQ(registry.lookup("gelu"), nullptr);
}

} // namespace
