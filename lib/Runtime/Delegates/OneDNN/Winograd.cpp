//===- Winograd.cpp - F(2x2,3x3) and F(4x4,3x3), AVX-512 and AVX2 ---------===//
//
// Y = A^T [ (G g G^T) . (B^T d B) ] A over (m+2)x(m+2) input tiles d giving
// m x m output tiles. F(2x2,3x3), 4x4 input tiles:
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
//   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// F(4x4,3x3), 6x6 input tiles, points 0, +-1, +-2 and infinity (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks", 2016):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
//          0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1],
//   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6;
//          1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1],
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1].
// The P = (m+2)^2 element-wise products over channels are P GEMMs
//   M[e] (tiles x OC) = V[e] (tiles x IC) * U[e] (IC x OC).
//
// Buffers: V[e][tile][ic] and M[e][tile][oc] in the working memory; U
// packed as [e][panel of 32 output channels][ic][32] (the last panel 16
// wide when OC is an odd multiple of 16), so each GEMM streams its weights
// once, in order.
//
// The kernels are written once (WinogradKernels.inc) and built for
// AVX-512F and for AVX2 with FMA, each under its own target attribute, so
// that the rest of the file, and the library, stays baseline x86-64; run()
// picks one per call from the CPU.
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"

#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
// GCC 12's AVX-512 headers seed _mm512_undefined_ps() with a
// self-initialisation that -Wmaybe-uninitialized reports once inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define STRATA_WINOGRAD_X86 1
#else
#define STRATA_WINOGRAD_X86 0
#endif

namespace strata::runtime::onednn {

namespace {
constexpr int64_t kChunk = 128; ///< Input channels per L1 weight chunk.
constexpr int64_t kPanel = 32;  ///< Output channels per weight panel.
/// Working set of a block of tile rows (its transformed input and products)
/// and the largest transformed weights for which tiles are always blocked
/// (each block re-reads them): together within the 2 MB of L2 a Xeon core
/// has (on Zen 5's 1 MB the weights come from L3). GoogLeNet's 64 to 192
/// convolution on 56x56 (786 KB of weights) went from 5.7 ms unblocked to
/// 2.6 ms, ResNet-18's 64-channel ones from 1.5-1.9 ms to 0.9-1.1.
constexpr size_t kBlockBytes = 512 * 1024;
constexpr size_t kBlockedWeightBytes = 1024 * 1024;
/// Larger weights are blocked too while the blocks re-read at most this many
/// times the bytes of the whole transformed input and products, which
/// otherwise go out to memory and back. Measured on Zen 3 (512 KB of L2,
/// weights re-read from L3), 1 thread: VGG's 256 to 256 on 56x56 (4.2x)
/// 33 -> 27 ms, 192 to 192 on 56x56 (3.3x) 22 -> 15 ms, 256 to 256 on
/// 28x28 (8.5x) 8.3 -> 7.6 ms; even at 11x (256 to 512 on 28x28); slower
/// from 13x (384 to 384 on 28x28, 17 -> 19 ms; 512 to 512 on 14x14, 34x,
/// 7.2 -> 12 ms).
constexpr size_t kWeightRereads = 10;

int64_t panelWidth(int64_t oc, int64_t panel) {
  return std::min<int64_t>(kPanel, oc - panel * kPanel);
}
} // namespace

bool WinogradConv::available() { return isa() != WinogradIsa::None; }

bool WinogradConv::supports(int64_t inChannels, int64_t outChannels,
                            int64_t height, int64_t width, int64_t padding) {
  return inChannels > 0 && outChannels > 0 && inChannels % 16 == 0 &&
         outChannels % 16 == 0 && (padding == 0 || padding == 1) &&
         height + 2 * padding > 2 && width + 2 * padding > 2 &&
         height * width <= (int64_t(1) << 24);
}

WinogradConv::WinogradConv(int64_t inChannels, int64_t outChannels,
                           int64_t height, int64_t width, WinogradLayout layout,
                           std::vector<WinogradPostOp> postOps, int threads,
                           int64_t padding, WinogradTile tile)
    : edge_(tile == WinogradTile::F4x4 ? 4 : 2),
      points_((edge_ + 2) * (edge_ + 2)), ic_(inChannels), oc_(outChannels),
      h_(height), w_(width), pad_(padding), oh_(height + 2 * padding - 2),
      ow_(width + 2 * padding - 2), tilesH_((oh_ + edge_ - 1) / edge_),
      tilesW_((ow_ + edge_ - 1) / edge_),
      threads_(std::max(threads, 1)), layout_(layout), tile_(tile),
      postOps_(std::move(postOps)) {
  // Many tiles (ResNet's and VGG's wide early stages): the transformed
  // input and the products of all tiles would not stay in L2 between the
  // transforms and the GEMMs. Where the weights that each block re-reads
  // are small, or cost less than that round trip (kWeightRereads), the
  // tiles go in blocks of whole tile rows that fit; elsewhere in one block.
  size_t perRow = sizeof(float) * points_ * tilesW_ * (ic_ + 16 + oc_);
  int64_t rows = std::clamp<int64_t>(static_cast<int64_t>(kBlockBytes / perRow),
                                     1, tilesH_);
  size_t blocks = static_cast<size_t>((tilesH_ + rows - 1) / rows);
  bool blocked = packedBytes() <= kBlockedWeightBytes ||
                 blocks * packedBytes() <=
                     kWeightRereads * static_cast<size_t>(tilesH_) * perRow;
  blockRows_ = blocked ? rows : tilesH_;
}

const char *WinogradConv::name() const {
  return tile_ == WinogradTile::F4x4 ? "strata:winograd_f4x4"
                                     : "strata:winograd_f2x2";
}

size_t WinogradConv::packedBytes() const {
  return sizeof(float) * points_ * ic_ * oc_;
}

/// Bytes of V (`tiles` rows of `ic` floats, padded by 16) for each of
/// `points` transform points, rounded up to 64.
static size_t vBytesOf(int64_t points, int64_t tiles, int64_t ic) {
  return (sizeof(float) * points * tiles * (ic + 16) + 63) / 64 * 64;
}

/// Bytes of V, then M, of one block of `tiles` tiles, each 64-byte aligned.
static size_t blockScratchBytes(int64_t points, int64_t tiles, int64_t ic,
                                int64_t oc) {
  return vBytesOf(points, tiles, ic) +
         (sizeof(float) * points * tiles * oc + 63) / 64 * 64;
}

size_t WinogradConv::scratchBytes() const {
  size_t block = blockScratchBytes(points_, blockRows_ * tilesW_, ic_, oc_);
  return (blockRows_ < tilesH_ ? threads_ : 1) * block + 64;
}

/// G (the weight transform) of F(2x2,3x3) or, with 6 rows, F(4x4,3x3).
static const double kG2[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double kG4[6][3] = {{0.25, 0, 0},
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};

void WinogradConv::packWeights(const float *oihw, float *packed) const {
  const double(*g)[3] = tile_ == WinogradTile::F4x4 ? kG4 : kG2;
  int n = static_cast<int>(edge_) + 2; // rows of G
  // Panel by panel, input channel by input channel, the panel's output
  // channels innermost: each transform point's plane is written in order
  // (o outermost scattered the writes over every plane, 50-150 MB/s), and
  // the arithmetic runs over the panel's lanes, so that it vectorises
  // (each lane's sums in the same order as one at a time: the same bits).
  int64_t panels = (oc_ + kPanel - 1) / kPanel;
  for (int64_t panel = 0; panel < panels; ++panel) {
    int64_t width = panelWidth(oc_, panel);
    for (int64_t i = 0; i < ic_; ++i) {
      double k[9][kPanel];
      for (int64_t lane = 0; lane < width; ++lane) {
        const float *kernel = oihw + ((panel * kPanel + lane) * ic_ + i) * 9;
        for (int t = 0; t < 9; ++t)
          k[t][lane] = kernel[t];
      }
      double gk[6][3][kPanel]; // G k
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < 3; ++c)
          for (int64_t lane = 0; lane < width; ++lane)
            gk[r][c][lane] = g[r][0] * k[c][lane] + g[r][1] * k[3 + c][lane] +
                             g[r][2] * k[6 + c][lane];
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
          int64_t e = r * n + c;
          float *row = packed + e * ic_ * oc_ + panel * kPanel * ic_ + i * width;
          for (int64_t lane = 0; lane < width; ++lane)
            row[lane] = static_cast<float>(gk[r][0][lane] * g[c][0] +
                                           gk[r][1][lane] * g[c][1] +
                                           gk[r][2][lane] * g[c][2]);
        }
    }
  }
}

void WinogradConv::unpackWeights(const float *packed, float *oihw) const {
  // Rows (and columns) of k from those of U = G k G^T. F(2x2,3x3): G's
  // rows 0 and 3 are k's first and last rows, rows 1 - 2 its middle one.
  // F(4x4,3x3): row 0 is a quarter of the first, row 5 the last, and
  // row 2 - row 1 a third of the middle one.
  bool four = tile_ == WinogradTile::F4x4;
  int n = static_cast<int>(edge_) + 2;
  auto fromU = [four](const double u[6], int i) {
    if (four)
      return i == 0 ? 4 * u[0] : i == 1 ? 3 * (u[2] - u[1]) : u[5];
    return i == 0 ? u[0] : i == 1 ? u[1] - u[2] : u[3];
  };
  for (int64_t o = 0; o < oc_; ++o) {
    int64_t panel = o / kPanel, lane = o % kPanel;
    int64_t width = panelWidth(oc_, panel);
    for (int64_t i = 0; i < ic_; ++i) {
      double u[6][6];
      for (int64_t e = 0; e < points_; ++e)
        u[e / n][e % n] =
            packed[e * ic_ * oc_ + panel * kPanel * ic_ + i * width + lane];
      double lu[3][6]; // L U
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < n; ++c) {
          double column[6];
          for (int k = 0; k < n; ++k)
            column[k] = u[k][c];
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

/// Where channel `c` of pixel `pixel` lies, in floats from the tensor's
/// start: channels in blocks of `block`, blocks `blockStride` apart
/// (nChw16c, nChw8c; channels-last is one block of all channels).
struct Strides {
  int64_t block, blockStride, pixel;
  int64_t offset(int64_t c, int64_t p) const {
    return c / block * blockStride + p * pixel + c % block;
  }
};
Strides stridesOf(WinogradLayout layout, int64_t channels, int64_t pixels) {
  switch (layout) {
  case WinogradLayout::Blocked16:
    return {16, pixels * 16, 16};
  case WinogradLayout::Blocked8:
    return {8, pixels * 8, 8};
  case WinogradLayout::ChannelsLast:
    break;
  }
  return {channels, 0, channels};
}

/// What runPhases needs of a WinogradConv.
struct Shape {
  int64_t edge, points; ///< Output tile edge, transform points per tile.
  int64_t ic, oc, h, w, pad, oh, ow, tilesH, tilesW, blockRows;
  int threads;
  Strides in, out;
  const std::vector<WinogradPostOp> *postOps;
};

namespace avx512 {
#define STRATA_WG_TARGET __attribute__((target("avx512f")))
#define STRATA_WG_OP STRATA_WG_TARGET __attribute__((always_inline)) inline
using Vec = __m512;
constexpr int kLanes = 16;
/// 12 x 2 accumulators, 2 weight vectors and a broadcast of 32 registers.
constexpr int kMaxRows = 12;
STRATA_WG_OP Vec load(const float *p) { return _mm512_loadu_ps(p); }
STRATA_WG_OP void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
STRATA_WG_OP Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
STRATA_WG_OP Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
STRATA_WG_OP Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
STRATA_WG_OP Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
STRATA_WG_OP Vec set1(float x) { return _mm512_set1_ps(x); }
STRATA_WG_OP Vec zero() { return _mm512_setzero_ps(); }
STRATA_WG_OP Vec max(Vec a, Vec b) { return _mm512_max_ps(a, b); }
STRATA_WG_OP Vec min(Vec a, Vec b) { return _mm512_min_ps(a, b); }
STRATA_WG_OP Vec div(Vec a, Vec b) { return _mm512_div_ps(a, b); }
STRATA_WG_OP Vec roundToNearest(Vec a) {
  return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
/// 2^n for integral n in [-126, 127].
STRATA_WG_OP Vec exp2OfInteger(Vec n) {
  __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
  return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
#include "WinogradKernels.inc"
#undef STRATA_WG_OP
#undef STRATA_WG_TARGET
} // namespace avx512

namespace avx2 {
#define STRATA_WG_TARGET __attribute__((target("avx2,fma")))
#define STRATA_WG_OP STRATA_WG_TARGET __attribute__((always_inline)) inline
using Vec = __m256;
constexpr int kLanes = 8;
/// 6 x 2 accumulators, 2 weight vectors and a broadcast of 16 registers.
constexpr int kMaxRows = 6;
STRATA_WG_OP Vec load(const float *p) { return _mm256_loadu_ps(p); }
STRATA_WG_OP void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
STRATA_WG_OP Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
STRATA_WG_OP Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
STRATA_WG_OP Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
STRATA_WG_OP Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
STRATA_WG_OP Vec set1(float x) { return _mm256_set1_ps(x); }
STRATA_WG_OP Vec zero() { return _mm256_setzero_ps(); }
STRATA_WG_OP Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
STRATA_WG_OP Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
STRATA_WG_OP Vec div(Vec a, Vec b) { return _mm256_div_ps(a, b); }
STRATA_WG_OP Vec roundToNearest(Vec a) {
  return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
/// 2^n for integral n in [-126, 127].
STRATA_WG_OP Vec exp2OfInteger(Vec n) {
  __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
  return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
#include "WinogradKernels.inc"
#undef STRATA_WG_OP
#undef STRATA_WG_TARGET
} // namespace avx2

/// Which kernels this CPU runs, once: AVX-512F where both the CPU and
/// oneDNN's ISA limit (ONEDNN_MAX_CPU_ISA) allow it, else AVX2 with FMA
/// under the same two conditions, else none.
WinogradIsa hostIsa() {
  static const WinogradIsa isa = [] {
    dnnl::cpu_isa limit = dnnl::get_effective_cpu_isa();
    if (__builtin_cpu_supports("avx512f") &&
        limit >= dnnl::cpu_isa::avx512_core)
      return WinogradIsa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        limit >= dnnl::cpu_isa::avx2)
      return WinogradIsa::Avx2;
    return WinogradIsa::None;
  }();
  return isa;
}

} // namespace
#endif

WinogradIsa WinogradConv::isa() {
#if STRATA_WINOGRAD_X86
  return hostIsa();
#else
  return WinogradIsa::None;
#endif
}

void WinogradConv::run(const float *src, const float *packed, const float *bias,
                       float *dst, void *scratch) const {
#if STRATA_WINOGRAD_X86
  Shape shape{edge_,
              points_,
              ic_,
              oc_,
              h_,
              w_,
              pad_,
              oh_,
              ow_,
              tilesH_,
              tilesW_,
              blockRows_,
              threads_,
              stridesOf(layout_, ic_, h_ * w_),
              stridesOf(layout_, oc_, oh_ * ow_),
              &postOps_};
  // nChw8c holds 8 channels per pixel together: the 8-lane kernels.
  if (hostIsa() == WinogradIsa::Avx512 && layout_ != WinogradLayout::Blocked8)
    avx512::runPhases(shape, src, packed, bias, dst, scratch);
  else
    avx2::runPhases(shape, src, packed, bias, dst, scratch);
#else
  (void)src, (void)packed, (void)bias, (void)dst, (void)scratch;
#endif
}

void applyPostOpsInPlace(float *data, size_t count,
                         const std::vector<WinogradPostOp> &postOps) {
#if STRATA_WINOGRAD_X86
  // Chunks of 16 KiB, a whole number of vectors of either ISA.
  constexpr int64_t kChunkFloats = 4096;
  int64_t n = static_cast<int64_t>(count);
  int64_t chunks = (n + kChunkFloats - 1) / kChunkFloats;
  bool wide = hostIsa() == WinogradIsa::Avx512;
#pragma omp parallel for schedule(static) if (chunks >= 16)
  for (int64_t c = 0; c < chunks; ++c) {
    float *p = data + c * kChunkFloats;
    int64_t len = std::min(kChunkFloats, n - c * kChunkFloats);
    if (wide)
      avx512::postOpsInPlace(p, len, postOps);
    else
      avx2::postOpsInPlace(p, len, postOps);
  }
#else
  (void)data, (void)count, (void)postOps;
#endif
}

} // namespace strata::runtime::onednn
