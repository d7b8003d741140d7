//===- GridSampleKernelTest.cpp - grid_sample kernel edge cases -----------===//
//
// Values worked out by hand from the GridSample definition (the common
// cases are checked against ONNX Runtime in test/Compiler/grid-sample.test):
// with align_corners the grid's -1 and 1 are the corner pixels' centres.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <cmath>
#include <limits>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

std::vector<Param> gridParams(const std::string &mode,
                              const std::string &padding, bool align) {
  return {stringParam("mode", mode), stringParam("padding_mode", padding),
          boolParam("align_corners", align)};
}

// A 1x1x2x2 image [[1, 2], [3, 4]] sampled at four points.
Result<OwnedTensor> sample(const std::vector<float> &grid,
                           const std::string &mode, const std::string &padding,
                           bool align) {
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 2, 2}, {1, 2, 3, 4}),
                                     f32Tensor({1, 1, 4, 2}, grid)};
  return runKernel("grid_sample", inputs, DType::F32, {1, 1, 1, 4},
                   gridParams(mode, padding, align));
}

TEST(GridSampleKernelTest, BilinearAlignCornersHitsPixelCentres) {
  // (-1, -1) and (1, 1) are pixels (0, 0) and (1, 1); (0, 0) the mean;
  // (1, -1) is x = 1, y = 0: pixel (row 0, column 1).
  Result<OwnedTensor> out =
      sample({-1, -1, 1, 1, 0, 0, 1, -1}, "bilinear", "zeros", true);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(values(*out), (std::vector<float>{1, 4, 2.5f, 2}));
}

TEST(GridSampleKernelTest, PaddingModesOutsideTheImage) {
  // x = 3 (grid 3 with align_corners: (3 + 1) / 2 * 1 = 2), y = 0:
  // column 2 is outside. zeros: 0; border: column 1 (2); reflection about
  // [0, 1]: column 0 (1).
  std::vector<float> grid = {3, -1, 3, -1, 3, -1, 3, -1};
  for (auto [padding, want] : {std::pair<const char *, float>{"zeros", 0},
                               {"border", 2},
                               {"reflection", 1}}) {
    Result<OwnedTensor> out = sample(grid, "nearest", padding, true);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(values(*out)[0], want) << padding;
  }
}

TEST(GridSampleKernelTest, NanAndFarCoordinates) {
  // A NaN coordinate samples NaN; a coordinate far beyond the image is
  // outside (zeros) or at the edge (border), and never an invalid index.
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> grid = {nan, 0, 1e30f, 0, -inf, -1, 0, inf};
  Result<OwnedTensor> zeros = sample(grid, "bicubic", "zeros", false);
  ASSERT_TRUE(zeros.ok()) << zeros.error().message();
  std::vector<float> z = values(*zeros);
  EXPECT_TRUE(std::isnan(z[0]));
  EXPECT_EQ(z[1], 0);
  EXPECT_EQ(z[2], 0);
  EXPECT_EQ(z[3], 0);
  Result<OwnedTensor> border = sample(grid, "bilinear", "border", true);
  ASSERT_TRUE(border.ok()) << border.error().message();
  std::vector<float> b = values(*border);
  EXPECT_TRUE(std::isnan(b[0]));
  EXPECT_FLOAT_EQ(b[1], 3); // x far right, y = 0.5: the column [2, 4]
  EXPECT_FLOAT_EQ(b[2], 1); // x far left, y = 0: pixel (0, 0)
  EXPECT_FLOAT_EQ(b[3], 3.5f); // x = 0.5, y far down: the row [3, 4]
  Result<OwnedTensor> reflected = sample(grid, "nearest", "reflection", false);
  ASSERT_TRUE(reflected.ok()) << reflected.error().message();
}

TEST(GridSampleKernelTest, RefusesMismatchedShapesAndUnknownModes) {
  std::vector<OwnedTensor> inputs = {f32Tensor({1, 1, 2, 2}, {1, 2, 3, 4}),
                                     f32Tensor({1, 1, 2, 3}, {0, 0, 0, 0, 0, 0})};
  Result<OwnedTensor> badGrid =
      runKernel("grid_sample", inputs, DType::F32, {1, 1, 1, 2},
                gridParams("bilinear", "zeros", false));
  ASSERT_FALSE(badGrid.ok());
  EXPECT_NE(badGrid.error().message().find("[N, H_out, W_out, 2]"),
            std::string::npos);
  Result<OwnedTensor> badMode =
      sample({0, 0, 0, 0, 0, 0, 0, 0}, "area", "zeros", false);
  ASSERT_FALSE(badMode.ok());
  EXPECT_NE(badMode.error().message().find("unknown mode 'area'"),
            std::string::npos);
}

} // namespace
