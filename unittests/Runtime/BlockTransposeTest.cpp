//===- BlockTransposeTest.cpp - the portable 4-byte transpose's tiles -----===//
//
// Every element lands where the definition puts it (to[i * dstS + l] =
// from[l * srcL + i]) on whole 16 x 16 tiles, on the edges they leave and
// with row strides wider than the block (a KV cache's heads interleaved),
// on the AVX2 path where the CPU has it and on the generic vectors; the
// elements between the rows written are left as they were.
//
//===----------------------------------------------------------------------===//
#include "BlockTranspose.h"

#include <gtest/gtest.h>

#include <vector>

using strata::runtime::kernels::transposeBlocks32;
using strata::runtime::kernels::transposeBlocks32Generic;

namespace {

TEST(BlockTranspose, EveryShapeAroundTheTile) {
  for (auto transpose : {transposeBlocks32, transposeBlocks32Generic})
    for (int64_t ns : {1, 3, 8, 16, 17, 40, 64})
      for (int64_t nl : {1, 7, 8, 16, 31, 48, 100})
        for (int64_t pad : {0, 5}) {
          // Source rows of srcL >= ns elements, result rows of dstS >= nl.
          int64_t srcL = ns + pad, dstS = nl + 2 * pad;
          std::vector<uint32_t> src(nl * srcL), dst(ns * dstS, 0xdeadbeef);
          for (size_t k = 0; k < src.size(); ++k)
            src[k] = static_cast<uint32_t>(k * 2654435761u + 1);
          transpose(dst.data(), src.data(), ns, nl, dstS, srcL);
          for (int64_t i = 0; i < ns; ++i)
            for (int64_t l = 0; l < dstS; ++l)
              ASSERT_EQ(dst[i * dstS + l],
                        l < nl ? src[l * srcL + i] : 0xdeadbeefu)
                  << ns << "x" << nl << " pad " << pad << " at " << i << ", "
                  << l;
        }
}

} // namespace
