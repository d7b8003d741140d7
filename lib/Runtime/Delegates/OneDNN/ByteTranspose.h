//===- ByteTranspose.h - 8-bit tensors between nchw and nhwc ----*- C++ -*-===//
//
// oneDNN's int8 convolutions run channels-last (it has only its reference
// kernel for u8/s8 in nchw), so an 8-bit graph input or output in nchw is
// reordered around them. oneDNN 2.x's reorder moves such a tensor a byte at
// a time (3-4 GB/s: 54 us for 256 channels of 28x28); this transposes
// 16x16 byte tiles in SSE2 registers, about 3x faster. The bytes are
// copied, never changed.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_BYTETRANSPOSE_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_BYTETRANSPOSE_H

#include <cstdint>

namespace strata::runtime::onednn {

/// Writes the row-major `rows` x `cols` byte matrix `src` transposed into
/// `dst` (`cols` x `rows`, row-major); nchw to nhwc is rows = C, cols = H*W
/// per image, nhwc to nchw the reverse.
void transposeBytes(const uint8_t *src, uint8_t *dst, int64_t rows,
                    int64_t cols);

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_BYTETRANSPOSE_H
