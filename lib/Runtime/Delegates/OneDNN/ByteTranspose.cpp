//===- ByteTranspose.cpp - 8-bit tensors between nchw and nhwc ------------===//
#include "ByteTranspose.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::runtime::onednn {

namespace {
#if defined(__SSE2__)
/// One 16x16 tile: rows of `src` (stride `srcStride`) become columns of
/// `dst` (stride `dstStride`). Four rounds of interleaving (bytes, pairs,
/// quads, halves) leave column j in register kColumn[j]'s inverse order.
inline void tile16(const uint8_t *src, int64_t srcStride, uint8_t *dst,
                   int64_t dstStride) {
  __m128i r[16], a[16], b[16];
  for (int i = 0; i < 16; ++i)
    r[i] =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i * srcStride));
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      b[4 * i + j] = _mm_unpacklo_epi16(a[4 * i + j], a[4 * i + j + 2]);
      b[4 * i + j + 2] = _mm_unpackhi_epi16(a[4 * i + j], a[4 * i + j + 2]);
    }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      a[8 * i + j] = _mm_unpacklo_epi32(b[8 * i + j], b[8 * i + j + 4]);
      a[8 * i + j + 4] = _mm_unpackhi_epi32(b[8 * i + j], b[8 * i + j + 4]);
    }
  for (int j = 0; j < 8; ++j) {
    b[j] = _mm_unpacklo_epi64(a[j], a[j + 8]);
    b[j + 8] = _mm_unpackhi_epi64(a[j], a[j + 8]);
  }
  // The column each register holds (bit-reversed register index).
  static const int kColumn[16] = {0, 8, 4, 12, 2, 10, 6, 14,
                                  1, 9, 5, 13, 3, 11, 7, 15};
  for (int k = 0; k < 16; ++k)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + kColumn[k] * dstStride),
                     b[k]);
}
#endif
} // namespace

void transposeBytes(const uint8_t *src, uint8_t *dst, int64_t rows,
                    int64_t cols) {
  // One block of 16 columns (dst rows) per iteration: whole tiles, then the
  // rows they leave, one byte at a time; the last columns % 16 likewise.
  int64_t blocks = (cols + 15) / 16;
  bool parallel = blocks > 1 && rows * cols >= (1 << 16);
#pragma omp parallel for if (parallel)
  for (int64_t block = 0; block < blocks; ++block) {
    int64_t c0 = block * 16, c1 = std::min(cols, c0 + 16), r0 = 0;
#if defined(__SSE2__)
    if (c1 - c0 == 16)
      for (; r0 + 16 <= rows; r0 += 16)
        tile16(src + r0 * cols + c0, cols, dst + c0 * rows + r0, rows);
#endif
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t r = r0; r < rows; ++r)
        dst[c * rows + r] = src[r * cols + c];
  }
}

} // namespace strata::runtime::onednn
