//===- ResizeKernelTest.cpp - resize kernel vs the ONNX spec examples -----===//
//
// Expected values are the documented outputs of the ONNX Resize examples
// (onnx/backend/test/case/node/resize.py) or worked out by hand from the
// spec's formulas in the comments.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <algorithm>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// The resize parameters with ONNX's defaults, overridden by `extra`.
std::vector<Param> resizeParams(const std::string &mode,
                                const std::string &transform,
                                std::vector<Param> extra) {
  std::vector<Param> params = {
      stringParam("mode", mode),
      stringParam("coordinate_transformation_mode", transform),
      stringParam("nearest_mode", "round_prefer_floor"),
      floatParam("cubic_coeff_a", -0.75),
      boolParam("exclude_outside", false),
      floatParam("extrapolation_value", 0.0),
      boolParam("antialias", false)};
  for (Param &p : extra) {
    auto same = [&](const Param &q) { return q.name == p.name; };
    params.erase(std::remove_if(params.begin(), params.end(), same),
                 params.end());
    params.push_back(p);
  }
  return params;
}

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5) << "at " << i;
}

/// Runs resize on the f32 `inputs` into an f32 result of `shape` with
/// `params` and checks the result against `expected`.
void expectResized(std::vector<OwnedTensor> &inputs, std::vector<int64_t> shape,
                   std::vector<Param> params,
                   const std::vector<float> &expected) {
  Result<OwnedTensor> out = runKernel("resize", inputs, DType::F32,
                                      std::move(shape), std::move(params));
  ASSERT_TRUE(out.ok()) << out.error().message();
  expectNear(values(*out), expected);
}

/// As expectResized, for a resize that must fail with an error that says
/// `says`.
void expectResizeFails(std::vector<OwnedTensor> &inputs,
                       std::vector<int64_t> shape, std::vector<Param> params,
                       const std::string &says) {
  Result<OwnedTensor> out = runKernel("resize", inputs, DType::F32,
                                      std::move(shape), std::move(params));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message().find(says), std::string::npos)
      << out.error().message();
}

TEST(ResizeKernelTest, UpsampleLinearHalfPixelMatchesSpecExample) {
  // resize_upsample_scales_linear: scales [1, 1, 2, 2].
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 2, 2}, {1, 2, 3, 4})};
  expectResized(inputs, {1, 1, 4, 4},
                resizeParams("linear", "half_pixel",
                             {floatsParam("scales", {1, 1, 2, 2})}),
                {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5,
                 3, 3.25, 3.75, 4});
}

TEST(ResizeKernelTest, UpsampleLinearRowsLongerThanAChunk) {
  // The spec example's rows (1 -> 1, 1.25, 1.75, 2 from 1, 2 above) on
  // rows of 70 floats, more than the kernel's 64-float chunk: two channels
  // of 2 x 70 with in[c][h][w] = 1000 c + 100 h + w, scales [1, 1, 2, 1].
  // Half-pixel along h gives the rows h_in 0, 0.25, 0.75 and 1 (edges
  // clamped), so out[c][h][w] = 1000 c + w + {0, 25, 75, 100}[h].
  constexpr int kW = 70;
  std::vector<float> in;
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < kW; ++w)
        in.push_back(static_cast<float>(1000 * c + 100 * h + w));
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 2, 2, kW}, in)};
  Result<OwnedTensor> out =
      runKernel("resize", inputs, DType::F32, {1, 2, 4, kW},
                resizeParams("linear", "half_pixel",
                             {floatsParam("scales", {1, 1, 2, 1})}));
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<float> expected;
  const float rowOffset[4] = {0, 25, 75, 100};
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < kW; ++w)
        expected.push_back(static_cast<float>(1000 * c + w) + rowOffset[h]);
  expectNear(values(*out), expected);
}

TEST(ResizeKernelTest, UpsampleNearestMatchesSpecExample) {
  // resize_upsample_scales_nearest: scales [1, 1, 2, 3].
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 2, 2}, {1, 2, 3, 4})};
  expectResized(
      inputs, {1, 1, 4, 6},
      resizeParams("nearest", "half_pixel",
                   {floatsParam("scales", {1, 1, 2, 3})}),
      {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(ResizeKernelTest, DownsampleLinearAntialiasMatchesSpecExample) {
  // resize_downsample_scales_linear_antialias (Resize-18): 4x4 of 1..16,
  // scales 0.6 -> 2x2 [[2.875, 4.5], [9.375, 11]]. By hand per axis:
  // x_ori = 1/3 and 2; the filter is stretched to 1/0.6, giving weights
  // (0.625, 0.375) on inputs (0, 1) and (2/9, 5/9, 2/9) on (1, 2, 3).
  std::vector<float> in(16);
  for (int i = 0; i < 16; ++i)
    in[i] = static_cast<float>(i + 1);
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 4, 4}, in)};
  expectResized(inputs, {1, 1, 2, 2},
                resizeParams("linear", "half_pixel",
                             {floatsParam("scales", {1, 1, 0.6, 0.6}),
                              boolParam("antialias", true)}),
                {2.875, 4.5, 9.375, 11});
}

TEST(ResizeKernelTest, CropAndResizeExtrapolatesWithRunTimeRoi) {
  // resize_tf_crop_and_resize_extrapolation_value: roi
  // [0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], 3x3, extrapolation 10. Rows map to
  // 1.2, 2.4, 3.6 (outside) and columns to 1.8, 3.45, 5.1 (both outside);
  // the input is 1 + col + 4 * row.
  std::vector<float> in(16);
  for (int i = 0; i < 16; ++i)
    in[i] = static_cast<float>(i + 1);
  std::vector<OwnedTensor> inputs = {
      f32Tensor({1, 1, 4, 4}, in),
      f32Tensor({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})};
  expectResized(inputs, {1, 1, 3, 3},
                resizeParams("linear", "tf_crop_and_resize",
                             {floatsParam("scales", {1, 1, 0.75, 0.75}),
                              floatParam("extrapolation_value", 10)}),
                {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10});
}

TEST(ResizeKernelTest, CubicAsymmetricWeightsAndExcludeOutside) {
  // [2, 8, 0, 0] upsampled x2, asymmetric: x_ori = x / 2. With A = -0.75,
  // the weights at ratio 0.5 are (-0.09375, 0.59375, 0.59375, -0.09375) on
  // inputs left-1..left+2, clamped to the edge; an integral x_ori reads one
  // input. x = 1 (x_ori 0.5) reads inputs 0, 0, 1, 2:
  //   2 * -0.09375 + 2 * 0.59375 + 8 * 0.59375 = 5.75;
  // x = 3 reads 0..3: 2 * -0.09375 + 8 * 0.59375 = 4.5625;
  // x = 5 reads 1, 2, 3, 3: 8 * -0.09375 = -0.75.
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 4}, {2, 8, 0, 0})};
  expectResized(
      inputs, {1, 8},
      resizeParams("cubic", "asymmetric", {floatsParam("scales", {1, 2})}),
      {2, 5.75, 8, 4.5625, 0, -0.75, 0, 0});

  // exclude_outside drops tap -1 at x = 1 and renormalises the others by
  // their sum 1.09375: (2 + 8) * 0.59375 / 1.09375.
  Result<OwnedTensor> out =
      runKernel("resize", inputs, DType::F32, {1, 8},
                resizeParams("cubic", "asymmetric",
                             {floatsParam("scales", {1, 2}),
                              boolParam("exclude_outside", true)}));
  ASSERT_TRUE(out.ok()) << out.error().message();
  std::vector<float> v = values(*out);
  EXPECT_NEAR(v[0], 2, 1e-5);
  EXPECT_NEAR(v[1], 10 * 0.59375 / 1.09375, 1e-5);
  EXPECT_NEAR(v[2], 8, 1e-5);
}

TEST(ResizeKernelTest, RejectsScalesThatDoNotGiveTheResultShape) {
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 2, 2}, {1, 2, 3, 4})};
  expectResizeFails(inputs, {1, 1, 4, 4},
                    resizeParams("linear", "half_pixel",
                                 {floatsParam("scales", {1, 1, 3, 2})}),
                    "does not map");
}

TEST(ResizeKernelTest, RejectsRunTimeScalesThatDoNotGiveTheResultShape) {
  // Without a `scales` parameter the last input holds them.
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 2}, {1, 2}),
                                     f32Tensor({2}, {1, 0.5f})};
  expectResizeFails(inputs, {1, 4}, resizeParams("nearest", "asymmetric", {}),
                    "does not map");
}

TEST(ResizeKernelTest, RejectsUnknownModes) {
  std::vector<OwnedTensor> inputs = {f32Tensor({2}, {1, 2})};
  expectResizeFails(
      inputs, {4},
      resizeParams("bilinear", "half_pixel", {floatsParam("scales", {2})}),
      "unknown mode");
}

} // namespace
