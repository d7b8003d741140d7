//===- BlockTranspose.h - 2-d transposes of 4-byte elements -----*- C++ -*-===//
//
// The inner loop of the portable transpose for 4-byte elements: 8 x 8
// blocks transposed in vector registers, 16 x 16 tiles so that every cache
// line read or written is whole (an attention's keys transposed, whose rows
// are 2 or 4 KiB apart).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_KERNELS_BLOCKTRANSPOSE_H
#define STRATA_RUNTIME_KERNELS_BLOCKTRANSPOSE_H

#include <cstdint>

namespace strata::runtime::kernels {

/// to[i * dstS + l] = from[l * srcL + i] for i < ns, l < nl.
void transposeBlocks32(uint32_t *to, const uint32_t *from, int64_t ns,
                       int64_t nl, int64_t dstS, int64_t srcL);

/// The same with the generic vectors only (no AVX2), for tests to compare.
void transposeBlocks32Generic(uint32_t *to, const uint32_t *from, int64_t ns,
                              int64_t nl, int64_t dstS, int64_t srcL);

} // namespace strata::runtime::kernels

#endif // STRATA_RUNTIME_KERNELS_BLOCKTRANSPOSE_H
