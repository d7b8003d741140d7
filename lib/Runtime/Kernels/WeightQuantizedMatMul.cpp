//===- WeightQuantizedMatMul.cpp - f32 x group-quantized weights ----------===//
//
// weight_quantized_matmul: f32 rows times a weight stored as 4- or 8-bit
// integers with a scale (and zero point) per column and per group of K
// (edge.weight_quantized_matmul, EdgeQuant.td, gives the layout: each
// 32-bit word holds one column's values for 8 or 4 consecutive rows of K).
// For a few rows (a decode step), each word is unpacked in registers with
// shifts and masks, less the zero point (exact in f32), and multiply-added
// per group, the group's sum then scaled: the step reads 1/8 (4-bit) or
// 1/4 (8-bit) of the f32 weight's bytes. With AVX-512, a 4-bit value is
// instead looked up as q - 8 by one permute, and (z - 8) times the row's
// sum over the group subtracted once per group. For more rows, each 32-column
// tile is dequantized once into scratch memory that stays in cache and
// every row multiplies it there. Compiled per target like gemm
// (STRATA_GEMM_CLONES); the vector code is GCC's generic vectors, so
// other architectures get it too.
//
//===----------------------------------------------------------------------===//
#include "WeightQuantizedMatMul.h"

#include "KernelUtils.h"

#include <algorithm>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

/// Columns per tile: two 16-lane halves.
constexpr int64_t kTile = kWeightTile;

/// Rows multiplied in registers (a decode step's few); beyond, each tile
/// is dequantized once into scratch memory.
constexpr int64_t kRegisterRows = 8;

typedef float V16 __attribute__((vector_size(64), aligned(4)));
typedef uint32_t U32x16 __attribute__((vector_size(64), aligned(4)));

/// 16 words of the packed weight (a u8 tensor: its data need not be
/// 4-byte aligned).
[[gnu::always_inline]] inline void loadWords(const uint8_t *at, U32x16 &out) {
  std::memcpy(&out, at, sizeof(U32x16));
}

/// 2^23 as a float's bits: 2^23 + q for an integer q below 2^23 is the
/// float whose mantissa is q.
constexpr uint32_t kTwoTo23Bits = 0x4B000000u;
constexpr float kTwoTo23 = 8388608.0f;

/// A nibble q as the float q - 8, looked up by the nibble (the lookup reads
/// an index's low 4 bits, so no mask is needed): the 4-bit levels about
/// the default zero point, which the lookup path folds in per group.
constexpr V16 kCenteredLevels = {-8, -7, -6, -5, -4, -3, -2, -1,
                                 0,  1,  2,  3,  4,  5,  6,  7};

/// Lane j of `table` at the low 4 bits of lane j of `index`: one vpermps
/// with AVX-512 (GCC's variable shuffle; Clang has none, and runs the
/// unpacking path instead, see hasNibbleLookup).
/// (Results by reference, as unpack's: a vector returned by value warns
/// of the ABI on targets without AVX-512.)
[[gnu::always_inline]] inline void lookUp(const V16 &table, U32x16 index,
                                          V16 &out) {
#if defined(__clang__)
  for (int j = 0; j < 16; ++j)
    out[j] = table[index[j] & 15];
#else
  out = __builtin_shuffle(table, index);
#endif
}

/// Value `i` of each 32-bit lane, plus 2^23, as floats: a shift, then the
/// mask and 2^23's exponent bits (one ternary logic op with AVX-512),
/// where a conversion would take another. Callers subtract 2^23 + the zero
/// point: q - z exactly, both terms integers in [2^23, 2^24).
template <int Bits>
[[gnu::always_inline]] inline void unpack(U32x16 word, int i, V16 &out) {
  constexpr uint32_t mask = (1u << Bits) - 1;
  out = (V16)(((word >> uint32_t(Bits * i)) & mask) | kTwoTo23Bits);
}

/// The zero points (or the default 2^(Bits-1)), plus 2^23 as unpack's
/// values carry it, and the scales of group `g` of tile `t`, as two
/// 16-lane halves each.
template <int Bits>
[[gnu::always_inline]] inline void
groupParams(const WeightQuantizedMatmulState &st, const float *scales,
            const uint8_t *zeroPoints, int64_t t, int64_t g, V16 *zero,
            V16 *scale) {
  int64_t at = (t * st.groups + g) * kTile;
  U32x16 bytes = {};
  if (zeroPoints) {
    // The group's 32 zero points in the low half of a whole vector, read
    // as one (narrower loads widen through memory in GCC's vector code,
    // stalling on store forwarding once per group); the last group's,
    // with nothing after them, through a copy.
    int64_t total = st.tiles * st.groups * kTile;
    if (at + kTile * 2 <= total) {
      std::memcpy(&bytes, zeroPoints + at, sizeof(bytes));
    } else {
      alignas(64) uint8_t last[sizeof(U32x16)] = {};
      std::memcpy(last, zeroPoints + at, kTile);
      std::memcpy(&bytes, last, sizeof(bytes));
    }
  }
  const U32x16 byteShift = {0, 8, 16, 24, 0, 8, 16, 24,
                            0, 8, 16, 24, 0, 8, 16, 24};
  for (int h = 0; h < 2; ++h) {
    if (zeroPoints) {
      // Lane j of half h: byte 16 h + j, its word shifted down.
      U32x16 words =
          h == 0 ? __builtin_shufflevector(bytes, bytes, 0, 0, 0, 0, 1, 1, 1, 1,
                                           2, 2, 2, 2, 3, 3, 3, 3)
                 : __builtin_shufflevector(bytes, bytes, 4, 4, 4, 4, 5, 5, 5, 5,
                                           6, 6, 6, 6, 7, 7, 7, 7);
      zero[h] = (V16)(((words >> byteShift) & 0xFFu) | kTwoTo23Bits);
    } else {
      zero[h] = V16{} + (kTwoTo23 + float(1 << (Bits - 1)));
    }
    std::memcpy(&scale[h], scales + at + 16 * h, sizeof(V16));
  }
}

/// Tile `t` of the weight as f32 [K, 32], (q - zero point) * scale:
/// exactly the dequantized weight.
template <int Bits>
[[gnu::always_inline]] inline void
dequantizeTile(const WeightQuantizedMatmulState &st, const uint8_t *weight,
               const float *scales, const uint8_t *zeroPoints, int64_t t,
               float *out) {
  constexpr int perWord = 32 / Bits;
  const uint8_t *tileWeight = weight + t * st.blocks * kTile * 4;
  for (int64_t g = 0; g < st.groups; ++g) {
    V16 zero[2], scale[2];
    groupParams<Bits>(st, scales, zeroPoints, t, g, zero, scale);
    int64_t k0 = g * st.groupSize, k1 = std::min(st.k, k0 + st.groupSize);
    for (int64_t b = k0 / perWord; b * perWord < k1; ++b) {
      for (int h = 0; h < 2; ++h) {
        U32x16 word;
        loadWords(tileWeight + (b * kTile + 16 * h) * 4, word);
        for (int i = 0; i < perWord && b * perWord + i < k1; ++i) {
          V16 w;
          unpack<Bits>(word, i, w);
          *reinterpret_cast<V16 *>(out + (b * perWord + i) * kTile + 16 * h) =
              (w - zero[h]) * scale[h];
        }
      }
    }
  }
}

/// Rows [0, Rows) of `x` times a dequantized [K, 32] tile into `acc`.
template <int Rows>
[[gnu::always_inline]] inline void tileRows(int64_t k, const float *x,
                                            const float *w, V16 (*acc)[2]) {
  for (int r = 0; r < Rows; ++r)
    acc[r][0] = acc[r][1] = V16{};
  for (int64_t p = 0; p < k; ++p) {
    V16 w0 = *reinterpret_cast<const V16 *>(w + p * kTile);
    V16 w1 = *reinterpret_cast<const V16 *>(w + p * kTile + 16);
    for (int r = 0; r < Rows; ++r) {
      float xv = x[r * k + p];
      acc[r][0] += xv * w0;
      acc[r][1] += xv * w1;
    }
  }
}

/// Rows [0, Rows) of `x` times tile `t` of the packed weight into `acc`,
/// the weight unpacked in registers: per group, the products by `q - zero
/// point` (exact in f32) are summed, then scaled. For a few rows, where
/// dequantizing the tile to memory first would not pay. One row keeps four
/// sums per half (rows of K by their index mod 4), two rows two, so that
/// the multiply-adds do not wait on each other.
template <int Bits, int Rows, bool Lookup>
[[gnu::always_inline]] inline void
packedRows(const WeightQuantizedMatmulState &st, const float *x,
           const uint8_t *weight, const float *scales,
           const uint8_t *zeroPoints, const float *xSums, int64_t t,
           V16 (*acc)[2]) {
  constexpr int perWord = 32 / Bits, sums = Rows == 1 ? 4 : Rows == 2 ? 2 : 1;
  const uint8_t *tileWeight = weight + t * st.blocks * kTile * 4;
  for (int r = 0; r < Rows; ++r)
    acc[r][0] = acc[r][1] = V16{};
  for (int64_t g = 0; g < st.groups; ++g) {
    V16 zero[2], scale[2];
    groupParams<Bits>(st, scales, zeroPoints, t, g, zero, scale);
    V16 group[Rows][2][sums];
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h)
        for (int s = 0; s < sums; ++s)
          group[r][h][s] = V16{};
    int64_t k0 = g * st.groupSize, k1 = std::min(st.k, k0 + st.groupSize);
    int64_t b = k0 / perWord;
    // Whole words, then the group's last, partial one.
    for (; (b + 1) * perWord <= k1; ++b) {
      U32x16 word[2];
      for (int h = 0; h < 2; ++h)
        loadWords(tileWeight + (b * kTile + 16 * h) * 4, word[h]);
      const float *xb = x + b * perWord;
      for (int i = 0; i < perWord; ++i)
        for (int h = 0; h < 2; ++h) {
          V16 w;
          if constexpr (Lookup) {
            lookUp(kCenteredLevels, word[h] >> uint32_t(4 * i), w);
          } else {
            unpack<Bits>(word[h], i, w);
            w -= zero[h];
          }
          for (int r = 0; r < Rows; ++r)
            group[r][h][i % sums] += xb[r * st.k + i] * w;
        }
    }
    if (b * perWord < k1) {
      const float *xb = x + b * perWord;
      for (int h = 0; h < 2; ++h) {
        U32x16 word;
        loadWords(tileWeight + (b * kTile + 16 * h) * 4, word);
        for (int i = 0; b * perWord + i < k1; ++i) {
          V16 w;
          if constexpr (Lookup) {
            lookUp(kCenteredLevels, word >> uint32_t(4 * i), w);
          } else {
            unpack<Bits>(word, i, w);
            w -= zero[h];
          }
          for (int r = 0; r < Rows; ++r)
            group[r][h][0] += xb[r * st.k + i] * w;
        }
      }
    }
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h) {
        V16 sum = group[r][h][0];
        for (int s = 1; s < sums; ++s)
          sum += group[r][h][s];
        if constexpr (Lookup)
          sum -= (zero[h] - (kTwoTo23 + 8)) * xSums[r * st.groups + g];
        acc[r][h] += sum * scale[h];
      }
  }
}

template <int Bits, bool Lookup>
[[gnu::always_inline]] inline void
weightQuantizedMatmul(const WeightQuantizedMatmulState &st, const float *x,
                      const uint8_t *weight, const float *scales,
                      const uint8_t *zeroPoints, const float *bias,
                      float *scratch, float *y) {
  constexpr int kRows = 4;
  // Up to a few rows, each tile is unpacked in registers; beyond, it is
  // dequantized once into `tile` for all of them (f32ActivationScratch-
  // Floats gives the scratch memory from the same bound).
  float *tile = scratch;
  static_assert(kRegisterRows == 2 * kRows, "two passes of kRows at most");
  bool widenOnce = st.rows > kRegisterRows;
  // Nibbles looked up as q - 8: each row's sum over each group, for the
  // zero points' share (x * (q - z) summed is x * (q - 8) summed, less
  // (z - 8) times the sum of x).
  static_assert(!Lookup || Bits == 4, "the lookup path reads nibbles");
  float *xSums = scratch;
  if (Lookup && !widenOnce)
    for (int64_t r = 0; r < st.rows; ++r)
      for (int64_t g = 0; g < st.groups; ++g) {
        float sum = 0;
        for (int64_t p = g * st.groupSize;
             p < std::min(st.k, (g + 1) * st.groupSize); ++p)
          sum += x[r * st.k + p];
        xSums[r * st.groups + g] = sum;
      }
  for (int64_t t = 0; t < st.tiles; ++t) {
    if (widenOnce)
      dequantizeTile<Bits>(st, weight, scales, zeroPoints, t, tile);
    int64_t c0 = t * kTile, width = std::min(kTile, st.n - c0);
    for (int64_t r0 = 0; r0 < st.rows; r0 += kRows) {
      int64_t rows = std::min<int64_t>(kRows, st.rows - r0);
      V16 acc[kRows][2];
      const float *xr = x + r0 * st.k;
      const float *rowSums = Lookup ? xSums + r0 * st.groups : nullptr;
      if (!widenOnce) {
        switch (rows) {
        case 4:
          packedRows<Bits, 4, Lookup>(st, xr, weight, scales, zeroPoints,
                                      rowSums, t, acc);
          break;
        case 3:
          packedRows<Bits, 3, Lookup>(st, xr, weight, scales, zeroPoints,
                                      rowSums, t, acc);
          break;
        case 2:
          packedRows<Bits, 2, Lookup>(st, xr, weight, scales, zeroPoints,
                                      rowSums, t, acc);
          break;
        default:
          packedRows<Bits, 1, Lookup>(st, xr, weight, scales, zeroPoints,
                                      rowSums, t, acc);
          break;
        }
      } else {
        switch (rows) {
        case 4:
          tileRows<4>(st.k, xr, tile, acc);
          break;
        case 3:
          tileRows<3>(st.k, xr, tile, acc);
          break;
        case 2:
          tileRows<2>(st.k, xr, tile, acc);
          break;
        default:
          tileRows<1>(st.k, xr, tile, acc);
          break;
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        float *out = y + (r0 + r) * st.n + c0;
        for (int64_t j = 0; j < width; ++j)
          out[j] = acc[r][j / 16][j % 16] + (bias ? bias[c0 + j] : 0.0f);
      }
    }
  }
}

/// One clone per target of each width (target_clones takes no templates).
STRATA_GEMM_CLONES void
weightQuantizedMatmul4(const WeightQuantizedMatmulState &st, const float *x,
                       const uint8_t *weight, const float *scales,
                       const uint8_t *zeroPoints, const float *bias,
                       float *tile, float *y) {
  weightQuantizedMatmul<4, false>(st, x, weight, scales, zeroPoints, bias, tile,
                                  y);
}

#if defined(__x86_64__) && defined(__GNUC__)
/// 4 bits with AVX-512: each nibble becomes a float by one 16-entry
/// permute (vpermps) where unpacking takes a mask and a subtraction; the
/// zero points' share is subtracted once per group. Other targets would
/// spell that permute out lane by lane.
__attribute__((target("arch=x86-64-v4"))) void
weightQuantizedMatmul4Lookup(const WeightQuantizedMatmulState &st,
                             const float *x, const uint8_t *weight,
                             const float *scales, const uint8_t *zeroPoints,
                             const float *bias, float *scratch, float *y) {
  weightQuantizedMatmul<4, true>(st, x, weight, scales, zeroPoints, bias,
                                 scratch, y);
}
#endif

STRATA_GEMM_CLONES void
weightQuantizedMatmul8(const WeightQuantizedMatmulState &st, const float *x,
                       const uint8_t *weight, const float *scales,
                       const uint8_t *zeroPoints, const float *bias,
                       float *tile, float *y) {
  weightQuantizedMatmul<8, false>(st, x, weight, scales, zeroPoints, bias, tile,
                                  y);
}

} // namespace

size_t f32ActivationScratchFloats(const WeightQuantizedMatmulState &st) {
  return static_cast<size_t>(st.rows > kRegisterRows ? st.k * kTile
                                                     : st.rows * st.groups);
}

bool hasNibbleLookup() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  // The AVX-512 subsets of x86-64-v4, whose code the lookup path may use.
  static const bool has =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
  return has;
#else
  return false;
#endif
}

void weightQuantizedMatmulF32(const WeightQuantizedMatmulState &st,
                              const float *x, const uint8_t *weight,
                              const float *scales, const uint8_t *zeroPoints,
                              const float *bias, float *scratch, float *y,
                              bool allowLookup) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (st.bits == 4 && st.rows <= kRegisterRows && allowLookup &&
      hasNibbleLookup()) {
    weightQuantizedMatmul4Lookup(st, x, weight, scales, zeroPoints, bias,
                                 scratch, y);
    return;
  }
#endif
  (void)allowLookup;
  if (st.bits == 4)
    weightQuantizedMatmul4(st, x, weight, scales, zeroPoints, bias, scratch, y);
  else
    weightQuantizedMatmul8(st, x, weight, scales, zeroPoints, bias, scratch, y);
}

static Result<WeightQuantizedMatmulState>
prepareWeightQuantizedMatmul(const KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 5, 1));
  const TensorView &lhs = ctx.ins[0], &weight = ctx.ins[1],
                   &scales = ctx.ins[2], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(bits, ctx.params.getInt("bits", 0));
  STRATA_KERNEL_ASSIGN(groupSize, ctx.params.getInt("group_size", 0));
  if (bits != 4 && bits != 8)
    return ctx.fail("'bits' must be 4 or 8, got " + std::to_string(bits));
  if (groupSize < 1)
    return ctx.fail("'group_size' must be positive, got " +
                    std::to_string(groupSize));
  STRATA_KERNEL_ASSIGN(activationBits, ctx.params.getInt("activation_bits", 0));
  if (activationBits != 0 && activationBits != 8)
    return ctx.fail("'activation_bits' must be 8 or absent, got " +
                    std::to_string(activationBits));
  // |sum of (q - z) * p| <= 255 * 127 * group_size must fit int32.
  if (activationBits && groupSize > 32768)
    return ctx.fail("'group_size' " + std::to_string(groupSize) +
                    " is above 32768, where int8 activations' int32 sums "
                    "could overflow");
  if (lhs.dtype != DType::F32 || out.dtype != DType::F32 ||
      weight.dtype != DType::U8 || scales.dtype != DType::F32)
    return ctx.fail("takes an f32 lhs, a u8 weight and f32 scales to an f32 "
                    "result, got " +
                    lhs.typeString() + ", " + weight.typeString() + ", " +
                    scales.typeString() + " -> " + out.typeString());
  if (lhs.rank() < 2 || out.rank() != lhs.rank() ||
      !std::equal(lhs.shape.begin(), lhs.shape.end() - 1, out.shape.begin()))
    return ctx.fail("takes [..., M, K] to [..., M, N], got " +
                    lhs.typeString() + " -> " + out.typeString());
  WeightQuantizedMatmulState st;
  st.k = lhs.shape.back();
  st.n = out.shape.back();
  st.bits = bits;
  st.groupSize = groupSize;
  st.activationBits = activationBits;
  st.rows =
      st.k == 0 ? out.numel() / std::max<int64_t>(st.n, 1) : lhs.numel() / st.k;
  st.tiles = (st.n + kTile - 1) / kTile;
  int64_t perWord = 32 / bits;
  if (groupSize % perWord != 0)
    return ctx.fail("'group_size' " + std::to_string(groupSize) +
                    " must be a multiple of " + std::to_string(perWord) +
                    " at " + std::to_string(bits) + " bits");
  st.groups = st.k == 0 ? 0 : (st.k - 1) / groupSize + 1;
  st.blocks = (st.k + perWord - 1) / perWord;
  std::vector<int64_t> weightShape = {st.tiles, st.blocks, kTile * 4};
  std::vector<int64_t> scaleShape = {st.tiles, st.groups, kTile};
  if (weight.shape != weightShape || scales.shape != scaleShape)
    return ctx.fail(
        "for K = " + std::to_string(st.k) + " and N = " + std::to_string(st.n) +
        " the weight must be [" + std::to_string(st.tiles) + ", " +
        std::to_string(st.blocks) + ", 128] and the scales [" +
        std::to_string(st.tiles) + ", " + std::to_string(st.groups) +
        ", 32], got " + weight.typeString() + " and " + scales.typeString());
  for (int i = 3; i < static_cast<int>(ctx.ins.size()); ++i) {
    const TensorView &extra = ctx.ins[i];
    if (extra.dtype == DType::U8 && st.zeroPoints < 0 && st.bias < 0 &&
        extra.shape == scaleShape)
      st.zeroPoints = i;
    else if (extra.dtype == DType::F32 && st.bias < 0 &&
             extra.shape == std::vector<int64_t>{st.n})
      st.bias = i;
    else
      return ctx.fail("input " + std::to_string(i) + " (" + extra.typeString() +
                      ") is neither the zero points (u8, the scales' "
                      "shape) nor the bias (f32 [N])");
  }
  return st;
}

static Error executeWeightQuantizedMatmul(const WeightQuantizedMatmulState &st,
                                          KernelIO &io) {
  const float *x = io.ins[0].as<const float>();
  const uint8_t *weight = io.ins[1].as<const uint8_t>();
  const float *scales = io.ins[2].as<const float>();
  const uint8_t *zeroPoints =
      st.zeroPoints < 0 ? nullptr : io.ins[st.zeroPoints].as<const uint8_t>();
  const float *bias = st.bias < 0 ? nullptr : io.ins[st.bias].as<const float>();
  float *y = io.outs[0].as<float>();
  if (st.activationBits) {
    size_t bytes = int8ActivationScratchBytes(st);
    auto *scratch = reinterpret_cast<uint8_t *>(
        io.scratchFloats((bytes + sizeof(float) - 1) / sizeof(float)));
    weightQuantizedMatmulInt8(st, x, weight, scales, zeroPoints, bias, scratch,
                              y);
    return Error::success();
  }
  weightQuantizedMatmulF32(
      st, x, weight, scales, zeroPoints, bias,
      io.scratchFloats(std::max<size_t>(f32ActivationScratchFloats(st), 1)), y);
  return Error::success();
}

KernelEntry weightQuantizedMatmulKernel() {
  return typedKernel<WeightQuantizedMatmulState, prepareWeightQuantizedMatmul,
                     executeWeightQuantizedMatmul>();
}

} // namespace strata::runtime::kernels
