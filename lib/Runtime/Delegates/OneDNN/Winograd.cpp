//===- Winograd.cpp - F(2x2,3x3) convolution, AVX-512 ---------------------===//
//
// Y = A^T [ (G g G^T) . (B^T d B) ] A over 4x4 input tiles d giving 2x2
// output tiles, with
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
//   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// The 16 element-wise products over channels are 16 GEMMs
//   M[e] (tiles x OC) = V[e] (tiles x IC) * U[e] (IC x OC).
//
// Buffers: V[e][tile][ic] and M[e][tile][oc] in the working memory; U
// packed as [e][panel of 32 output channels][ic][32] (the last panel 16
// wide when OC is an odd multiple of 16), so each GEMM streams its weights
// once, in order.
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"

#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#if defined(__x86_64__)
// GCC 12's AVX-512 headers seed _mm512_undefined_ps() with a
// self-initialisation that -Wmaybe-uninitialized reports once inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define STRATA_WINOGRAD_X86 1
#define STRATA_AVX512 __attribute__((target("avx512f")))
#else
#define STRATA_WINOGRAD_X86 0
#endif

namespace strata::runtime::onednn {

namespace {
constexpr int64_t kPoints = 16; ///< 4x4 transform points per tile.
constexpr int64_t kChunk = 128; ///< Input channels per L1 weight chunk.
constexpr int64_t kPanel = 32;  ///< Output channels per weight panel.
constexpr int kMaxRows = 12;    ///< Tiles per GEMM register block.
/// Working set of a block of tile rows (its transformed input and products)
/// and the largest transformed weights for which tiles are blocked at all
/// (each block re-reads them): together within the 2 MB of L2 a Xeon core
/// has (on Zen 5's 1 MB the weights come from L3). GoogLeNet's 64 to 192
/// convolution on 56x56 (786 KB of weights) went from 5.7 ms unblocked to
/// 2.6 ms, ResNet-18's 64-channel ones from 1.5-1.9 ms to 0.9-1.1.
constexpr size_t kBlockBytes = 512 * 1024;
constexpr size_t kBlockedWeightBytes = 1024 * 1024;

int64_t panelWidth(int64_t oc, int64_t panel) {
  return std::min<int64_t>(kPanel, oc - panel * kPanel);
}
} // namespace

bool WinogradConv::available() {
#if STRATA_WINOGRAD_X86
  static const bool available =
      __builtin_cpu_supports("avx512f") &&
      dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  return available;
#else
  return false;
#endif
}

bool WinogradConv::supports(int64_t inChannels, int64_t outChannels,
                            int64_t height, int64_t width) {
  return inChannels > 0 && outChannels > 0 && inChannels % 16 == 0 &&
         outChannels % 16 == 0 && height > 0 && width > 0 &&
         height * width <= (int64_t(1) << 24);
}

WinogradConv::WinogradConv(int64_t inChannels, int64_t outChannels,
                           int64_t height, int64_t width, WinogradLayout layout,
                           std::vector<WinogradPostOp> postOps, int threads)
    : ic_(inChannels), oc_(outChannels), h_(height), w_(width),
      tilesH_((height + 1) / 2), tilesW_((width + 1) / 2),
      tiles_(tilesH_ * tilesW_), threads_(std::max(threads, 1)),
      layout_(layout), postOps_(std::move(postOps)) {
  // Many tiles and few channels (ResNet's and VGG's wide early stages): the
  // transformed input and the products of all tiles would not stay in L2
  // between the transforms and the GEMMs, while the weights that each
  // block re-reads are small. There the tiles go in blocks of whole tile
  // rows that fit; elsewhere in one block.
  size_t perRow = sizeof(float) * kPoints * tilesW_ * (ic_ + 16 + oc_);
  blockRows_ = tilesH_;
  if (packedBytes() <= kBlockedWeightBytes)
    blockRows_ = std::clamp<int64_t>(static_cast<int64_t>(kBlockBytes / perRow),
                                     1, tilesH_);
}

size_t WinogradConv::packedBytes() const {
  return sizeof(float) * kPoints * ic_ * oc_;
}

/// Bytes of V (`tiles` rows of `ic` floats, padded by 16) for each
/// transform point, rounded up to 64.
static size_t vBytesOf(int64_t tiles, int64_t ic) {
  return (sizeof(float) * kPoints * tiles * (ic + 16) + 63) / 64 * 64;
}

/// Bytes of V, then M, of one block of `tiles` tiles, each 64-byte aligned.
static size_t blockScratchBytes(int64_t tiles, int64_t ic, int64_t oc) {
  return vBytesOf(tiles, ic) +
         (sizeof(float) * kPoints * tiles * oc + 63) / 64 * 64;
}

size_t WinogradConv::scratchBytes() const {
  size_t block = blockScratchBytes(blockRows_ * tilesW_, ic_, oc_);
  return (blockRows_ < tilesH_ ? threads_ : 1) * block + 64;
}

void WinogradConv::packWeights(const float *oihw, float *packed) const {
  const double g[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t o = 0; o < oc_; ++o) {
    int64_t panel = o / kPanel, lane = o % kPanel;
    int64_t width = panelWidth(oc_, panel);
    for (int64_t i = 0; i < ic_; ++i) {
      const float *k = oihw + (o * ic_ + i) * 9;
      double gk[4][3]; // G k
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 3; ++c)
          gk[r][c] = g[r][0] * k[c] + g[r][1] * k[3 + c] + g[r][2] * k[6 + c];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          double u = gk[r][0] * g[c][0] + gk[r][1] * g[c][1] +
                     gk[r][2] * g[c][2]; // (G k G^T)[r][c]
          int64_t e = r * 4 + c;
          float *panelBase = packed + e * ic_ * oc_ + panel * kPanel * ic_;
          panelBase[i * width + lane] = static_cast<float>(u);
        }
    }
  }
}

void WinogradConv::unpackWeights(const float *packed, float *oihw) const {
  // Rows (and columns) of k from those of U = G k G^T: G's rows 0 and 3
  // are k's first and last rows, rows 1 - 2 its middle one.
  auto fromU = [](const double u[4], int i) {
    return i == 0 ? u[0] : i == 1 ? u[1] - u[2] : u[3];
  };
  for (int64_t o = 0; o < oc_; ++o) {
    int64_t panel = o / kPanel, lane = o % kPanel;
    int64_t width = panelWidth(oc_, panel);
    for (int64_t i = 0; i < ic_; ++i) {
      double u[4][4];
      for (int64_t e = 0; e < kPoints; ++e)
        u[e / 4][e % 4] = packed[e * ic_ * oc_ + panel * kPanel * ic_ +
                                 i * width + lane];
      double lu[3][4]; // L U
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) {
          double column[4] = {u[0][c], u[1][c], u[2][c], u[3][c]};
          lu[r][c] = fromU(column, r);
        }
      float *k = oihw + (o * ic_ + i) * 9;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          k[r * 3 + c] = static_cast<float>(fromU(lu[r], c));
    }
  }
}

#if STRATA_WINOGRAD_X86
namespace {

/// Where the 16 channels of block `block` of pixel `pixel` lie: the offset
/// of the block and the distance between pixels, in floats, for a tensor of
/// `channels` channels and `pixels` pixels.
struct Strides {
  int64_t block, pixel;
};
Strides stridesOf(WinogradLayout layout, int64_t channels, int64_t pixels) {
  return layout == WinogradLayout::Blocked16 ? Strides{pixels * 16, 16}
                                             : Strides{16, channels};
}

/// Input transform of channel block `cb` for tile row `ty`, into the V of
/// the block of `tiles` tiles that starts at tile row `ty0`.
STRATA_AVX512 void transformInput(const float *src, float *v, int64_t ic,
                                  int64_t h, int64_t w, int64_t tilesW,
                                  int64_t tiles, int64_t cb, int64_t ty,
                                  int64_t ty0, Strides strides) {
  const float *plane = src + cb * strides.block;
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t tx = 0; tx < tilesW; ++tx) {
    __m512 d[4][4];
    for (int r = 0; r < 4; ++r) {
      int64_t y = 2 * ty - 1 + r;
      for (int c = 0; c < 4; ++c) {
        int64_t x = 2 * tx - 1 + c;
        d[r][c] = (y >= 0 && y < h && x >= 0 && x < w)
                      ? _mm512_loadu_ps(plane + (y * w + x) * strides.pixel)
                      : zero;
      }
    }
    __m512 t[4][4]; // B^T d
    for (int c = 0; c < 4; ++c) {
      t[0][c] = _mm512_sub_ps(d[0][c], d[2][c]);
      t[1][c] = _mm512_add_ps(d[1][c], d[2][c]);
      t[2][c] = _mm512_sub_ps(d[2][c], d[1][c]);
      t[3][c] = _mm512_sub_ps(d[1][c], d[3][c]);
    }
    int64_t tile = (ty - ty0) * tilesW + tx;
    float *out = v + tile * (ic + 16) + cb * 16;
    int64_t stride = tiles * (ic + 16);
    for (int r = 0; r < 4; ++r) { // (B^T d) B
      _mm512_storeu_ps(out + (r * 4 + 0) * stride,
                       _mm512_sub_ps(t[r][0], t[r][2]));
      _mm512_storeu_ps(out + (r * 4 + 1) * stride,
                       _mm512_add_ps(t[r][1], t[r][2]));
      _mm512_storeu_ps(out + (r * 4 + 2) * stride,
                       _mm512_sub_ps(t[r][2], t[r][1]));
      _mm512_storeu_ps(out + (r * 4 + 3) * stride,
                       _mm512_sub_ps(t[r][1], t[r][3]));
    }
  }
}

/// c[R x 16*NV] (+)= a[R x k] * b[k x 16*NV] (b rows contiguous, 16*NV
/// wide). One broadcast feeds NV FMAs: Zen 5 sustains about one 512-bit
/// broadcast per cycle, so NV = 1 would halve the FMA rate.
template <int R, int NV>
STRATA_AVX512 void gemmBlock(const float *a, int64_t lda, const float *b,
                             int64_t k, float *c, int64_t ldc,
                             bool accumulate) {
  __m512 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j)
      acc[r][j] = accumulate ? _mm512_loadu_ps(c + r * ldc + 16 * j)
                             : _mm512_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    __m512 wv[NV];
    for (int j = 0; j < NV; ++j) {
      wv[j] = _mm512_loadu_ps(b + kk * 16 * NV + 16 * j);
      // The next chunk's weights, towards L2 while this one computes: the
      // hardware prefetcher loses the stream when row blocks re-read a chunk.
      _mm_prefetch(
          reinterpret_cast<const char *>(b + (kk + kChunk) * 16 * NV + 16 * j),
          _MM_HINT_T1);
    }
    for (int r = 0; r < R; ++r) {
      __m512 x = _mm512_set1_ps(a[r * lda + kk]);
      for (int j = 0; j < NV; ++j)
        acc[r][j] = _mm512_fmadd_ps(x, wv[j], acc[r][j]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NV; ++j)
      _mm512_storeu_ps(c + r * ldc + 16 * j, acc[r][j]);
}

using GemmFn = void (*)(const float *, int64_t, const float *, int64_t, float *,
                        int64_t, bool);

template <int NV, int... Rs>
constexpr auto gemmTable(std::integer_sequence<int, Rs...>) {
  return std::array<GemmFn, sizeof...(Rs)>{&gemmBlock<Rs + 1, NV>...};
}

/// The GEMM of transform point `e`, output-channel panel `panel`.
STRATA_AVX512 void gemmPanel(const float *v, const float *u, float *m,
                             int64_t ic, int64_t oc, int64_t tiles, int64_t e,
                             int64_t panel) {
  static constexpr auto wide =
      gemmTable<2>(std::make_integer_sequence<int, kMaxRows>());
  static constexpr auto narrow =
      gemmTable<1>(std::make_integer_sequence<int, kMaxRows>());
  int64_t width = panelWidth(oc, panel);
  const float *a = v + e * tiles * (ic + 16);
  const float *b = u + e * ic * oc + panel * kPanel * ic;
  float *c = m + e * tiles * oc + panel * kPanel;
  int64_t blocks = (tiles + kMaxRows - 1) / kMaxRows;
  int64_t rows = (tiles + blocks - 1) / blocks;
  // Every row block reads a chunk of weights while it is still in L1, so
  // the weights come from memory once.
  for (int64_t k0 = 0; k0 < ic; k0 += kChunk) {
    int64_t kn = std::min(kChunk, ic - k0);
    for (int64_t t = 0; t < tiles; t += rows) {
      int64_t n = std::min(rows, tiles - t);
      (width == 32 ? wide : narrow)[n - 1](a + t * (ic + 16) + k0, ic + 16,
                                           b + k0 * width, kn, c + t * oc, oc,
                                           k0 > 0);
    }
  }
}

/// Inverse transform, bias and post-ops of output-channel block `ob` for
/// tile row `ty`, from the M of the block of `tiles` tiles that starts at
/// tile row `ty0`.
STRATA_AVX512 void transformOutput(const float *m, const float *bias,
                                   float *dst, int64_t oc, int64_t h, int64_t w,
                                   int64_t tilesW, int64_t tiles, int64_t ob,
                                   int64_t ty, int64_t ty0, Strides strides,
                                   const std::vector<WinogradPostOp> &postOps) {
  float *plane = dst + ob * strides.block;
  __m512 b = bias ? _mm512_loadu_ps(bias + ob * 16) : _mm512_setzero_ps();
  for (int64_t tx = 0; tx < tilesW; ++tx) {
    int64_t tile = (ty - ty0) * tilesW + tx;
    const float *in = m + tile * oc + ob * 16;
    int64_t stride = tiles * oc;
    __m512 s[2][4]; // A^T M
    for (int c = 0; c < 4; ++c) {
      __m512 m0 = _mm512_loadu_ps(in + (0 * 4 + c) * stride);
      __m512 m1 = _mm512_loadu_ps(in + (1 * 4 + c) * stride);
      __m512 m2 = _mm512_loadu_ps(in + (2 * 4 + c) * stride);
      __m512 m3 = _mm512_loadu_ps(in + (3 * 4 + c) * stride);
      s[0][c] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
      s[1][c] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
    }
    for (int r = 0; r < 2; ++r) {
      int64_t y = 2 * ty + r;
      if (y >= h)
        break;
      __m512 out[2] = {
          _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s[r][0], s[r][1]), s[r][2]),
                        b),
          _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s[r][1], s[r][2]), s[r][3]),
                        b)};
      for (int c = 0; c < 2; ++c) {
        int64_t x = 2 * tx + c;
        if (x >= w)
          break;
        float *p = plane + (y * w + x) * strides.pixel;
        __m512 value = out[c];
        for (const WinogradPostOp &op : postOps) {
          if (op.sum) {
            value = _mm512_fmadd_ps(_mm512_set1_ps(op.scale),
                                    _mm512_loadu_ps(p), value);
          } else {
            value = _mm512_max_ps(
                value, _mm512_mul_ps(value, _mm512_set1_ps(op.slope)));
            value = _mm512_min_ps(_mm512_max_ps(value, _mm512_set1_ps(op.low)),
                                  _mm512_set1_ps(op.high));
          }
        }
        _mm512_storeu_ps(p, value);
      }
    }
  }
}

} // namespace
#endif

void WinogradConv::run(const float *src, const float *packed, const float *bias,
                       float *dst, void *scratch) const {
#if STRATA_WINOGRAD_X86
  int64_t icBlocks = ic_ / 16, ocBlocks = oc_ / 16;
  int64_t panels = (oc_ + kPanel - 1) / kPanel;
  Strides in = stridesOf(layout_, ic_, h_ * w_),
          out = stridesOf(layout_, oc_, h_ * w_);
  size_t slice = blockScratchBytes(blockRows_ * tilesW_, ic_, oc_);
  size_t vBytes = vBytesOf(blockRows_ * tilesW_, ic_);
  if (blockRows_ < tilesH_) {
    // Blocks of tile rows: each thread runs whole blocks, from the input
    // transform to the output's, on its own slice (no barrier between the
    // phases: with few channels, a GEMM shared between threads is too
    // small to split).
    int64_t blocks = (tilesH_ + blockRows_ - 1) / blockRows_;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      int thread = omp_get_thread_num();
      float *v = reinterpret_cast<float *>(static_cast<char *>(scratch) +
                                           thread * slice);
      float *m = reinterpret_cast<float *>(reinterpret_cast<char *>(v) +
                                           vBytes);
      int64_t ty0 = b * blockRows_;
      int64_t rows = std::min(blockRows_, tilesH_ - ty0);
      int64_t tiles = rows * tilesW_;
      for (int64_t cb = 0; cb < icBlocks; ++cb)
        for (int64_t ty = ty0; ty < ty0 + rows; ++ty)
          transformInput(src, v, ic_, h_, w_, tilesW_, tiles, cb, ty, ty0, in);
      for (int64_t e = 0; e < kPoints; ++e)
        for (int64_t panel = 0; panel < panels; ++panel)
          gemmPanel(v, packed, m, ic_, oc_, tiles, e, panel);
      for (int64_t ob = 0; ob < ocBlocks; ++ob)
        for (int64_t ty = ty0; ty < ty0 + rows; ++ty)
          transformOutput(m, bias, dst, oc_, h_, w_, tilesW_, tiles, ob, ty,
                          ty0, out, postOps_);
    }
    return;
  }
  // One block (few tiles, or weights too large to re-read per block): the
  // threads share each phase, the GEMMs split by transform point and
  // weight panel, so the weights stream once.
  float *v = static_cast<float *>(scratch);
  float *m = reinterpret_cast<float *>(static_cast<char *>(scratch) + vBytes);
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t cb = 0; cb < icBlocks; ++cb)
    for (int64_t ty = 0; ty < tilesH_; ++ty)
      transformInput(src, v, ic_, h_, w_, tilesW_, tiles_, cb, ty, 0, in);
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t e = 0; e < kPoints; ++e)
    for (int64_t panel = 0; panel < panels; ++panel)
      gemmPanel(v, packed, m, ic_, oc_, tiles_, e, panel);
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t ob = 0; ob < ocBlocks; ++ob)
    for (int64_t ty = 0; ty < tilesH_; ++ty)
      transformOutput(m, bias, dst, oc_, h_, w_, tilesW_, tiles_, ob, ty, 0,
                      out, postOps_);
#else
  (void)src, (void)packed, (void)bias, (void)dst, (void)scratch;
#endif
}

} // namespace strata::runtime::onednn
