//===- ByteTransposeTest.cpp - the oneDNN delegate's 8-bit transpose ------===//
//
// Every byte lands where the definition of a transpose puts it
// (dst[c][r] = src[r][c]), on whole 16x16 tiles and on the edges they
// leave, with distinct bytes so that a misplaced one shows.
//
//===----------------------------------------------------------------------===//
#include "ByteTranspose.h"

#include <gtest/gtest.h>

#include <vector>

using strata::runtime::onednn::transposeBytes;

namespace {

TEST(ByteTranspose, EveryShapeAroundTheTile) {
  for (int64_t rows : {1, 3, 16, 17, 24, 64, 100})
    for (int64_t cols : {1, 5, 16, 31, 48, 784}) {
      std::vector<uint8_t> src(rows * cols), dst(rows * cols, 0);
      for (size_t i = 0; i < src.size(); ++i)
        src[i] = static_cast<uint8_t>(i * 37 + i / 251);
      transposeBytes(src.data(), dst.data(), rows, cols);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          ASSERT_EQ(dst[c * rows + r], src[r * cols + c])
              << rows << "x" << cols << " at row " << r << ", column " << c;
    }
}

} // namespace
