//===- BlockTranspose.cpp - 2-d transposes of 4-byte elements -------------===//
//
// An 8 x 8 block is transposed by swapping its off-diagonal blocks at three
// scales (4 x 4, 2 x 2, 1 x 1), each a two-input shuffle of a pair of rows:
// GCC's generic vectors, which become AVX2 permutes where the CPU has them
// (dispatched at run time) and SSE or NEON shuffles otherwise.
//
//===----------------------------------------------------------------------===//
#include "BlockTranspose.h"

#include <algorithm>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

typedef uint32_t U32x8 __attribute__((vector_size(32)));
/// The same, at any 4-byte aligned address (an unaligned load or store).
typedef uint32_t U32x8Unaligned __attribute__((vector_size(32), aligned(4)));

/// Rows x and y (a pair `Width` apart) with their off-diagonal blocks of
/// `Width` swapped (__builtin_shufflevector: GCC 12 and Clang alike).
template <int Width>
__attribute__((always_inline)) inline void swapBlocks(U32x8 &x, U32x8 &y) {
  static_assert(Width == 1 || Width == 2 || Width == 4);
  U32x8 a, b;
  if constexpr (Width == 4) {
    a = __builtin_shufflevector(x, y, 0, 1, 2, 3, 8, 9, 10, 11);
    b = __builtin_shufflevector(x, y, 4, 5, 6, 7, 12, 13, 14, 15);
  } else if constexpr (Width == 2) {
    a = __builtin_shufflevector(x, y, 0, 1, 8, 9, 4, 5, 12, 13);
    b = __builtin_shufflevector(x, y, 2, 3, 10, 11, 6, 7, 14, 15);
  } else {
    a = __builtin_shufflevector(x, y, 0, 8, 2, 10, 4, 12, 6, 14);
    b = __builtin_shufflevector(x, y, 1, 9, 3, 11, 5, 13, 7, 15);
  }
  x = a;
  y = b;
}

/// to[i * dstS + l] = from[l * srcL + i] for i, l < 8.
__attribute__((always_inline)) inline void
transpose8x8(uint32_t *to, const uint32_t *from, int64_t dstS, int64_t srcL) {
  U32x8 r[8];
  for (int k = 0; k < 8; ++k)
    r[k] = *reinterpret_cast<const U32x8Unaligned *>(from + k * srcL);
  for (int i = 0; i < 4; ++i)
    swapBlocks<4>(r[i], r[i + 4]);
  for (int i : {0, 1, 4, 5})
    swapBlocks<2>(r[i], r[i + 2]);
  for (int i : {0, 2, 4, 6})
    swapBlocks<1>(r[i], r[i + 1]);
  for (int k = 0; k < 8; ++k)
    *reinterpret_cast<U32x8Unaligned *>(to + k * dstS) = r[k];
}

__attribute__((always_inline)) inline void
transposeTiles(uint32_t *to, const uint32_t *from, int64_t ns, int64_t nl,
               int64_t dstS, int64_t srcL) {
  constexpr int64_t kTile = 16;
  int64_t fullS = ns / kTile * kTile, fullL = nl / kTile * kTile;
  for (int64_t s0 = 0; s0 < fullS; s0 += kTile)
    for (int64_t l0 = 0; l0 < fullL; l0 += kTile)
      // Each line of the tile's rows, read or written, is whole.
      for (int64_t a = 0; a < kTile; a += 8)
        for (int64_t b = 0; b < kTile; b += 8)
          transpose8x8(to + (s0 + a) * dstS + l0 + b,
                       from + (l0 + b) * srcL + s0 + a, dstS, srcL);
  // The edges, element by element.
  for (int64_t i = 0; i < ns; ++i)
    for (int64_t l = i < fullS ? fullL : 0; l < nl; ++l)
      to[i * dstS + l] = from[l * srcL + i];
}

#if defined(__x86_64__) && defined(__GNUC__)
// Whole 32-byte loads and stores (GCC's generic tuning splits unaligned
// ones in two, which here costs a store-forwarding stall per row).
__attribute__((target("avx2,tune=haswell"))) void
transposeTilesAvx2(uint32_t *to, const uint32_t *from, int64_t ns, int64_t nl,
                   int64_t dstS, int64_t srcL) {
  transposeTiles(to, from, ns, nl, dstS, srcL);
}
#endif

} // namespace

void transposeBlocks32Generic(uint32_t *to, const uint32_t *from, int64_t ns,
                              int64_t nl, int64_t dstS, int64_t srcL) {
  transposeTiles(to, from, ns, nl, dstS, srcL);
}

void transposeBlocks32(uint32_t *to, const uint32_t *from, int64_t ns,
                       int64_t nl, int64_t dstS, int64_t srcL) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    transposeTilesAvx2(to, from, ns, nl, dstS, srcL);
    return;
  }
#endif
  transposeTiles(to, from, ns, nl, dstS, srcL);
}

} // namespace strata::runtime::kernels
