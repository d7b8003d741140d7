//===- BlockedPool.cpp - the delegate's own max and average pooling -------===//
#include "BlockedPool.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace strata::runtime::onednn {

using dnnl::memory;

namespace {
#if defined(__x86_64__) && defined(__GNUC__)
namespace avx2 {
#define STRATA_POOL_TARGET __attribute__((target("avx2")))
typedef float Vec __attribute__((vector_size(32)));
constexpr int kLanes = 8;
#include "BlockedPoolKernels.inc"
#undef STRATA_POOL_TARGET
} // namespace avx2
#define STRATA_POOL_AVX2 1
#endif

namespace baseline {
#define STRATA_POOL_TARGET
typedef float Vec __attribute__((vector_size(16)));
constexpr int kLanes = 4;
#include "BlockedPoolKernels.inc"
#undef STRATA_POOL_TARGET
} // namespace baseline
} // namespace

std::optional<BlockedPool>
BlockedPool::plan(Kind kind, const memory::desc &src, const memory::desc &dst,
                  const memory::dims &strides, const memory::dims &kernel,
                  const memory::dims &dilations,
                  const memory::dims &padsBegin) {
  memory::dims s = src.dims(), d = dst.dims();
  if (s.size() != 4 || d.size() != 4 || s[0] != d[0] || s[1] != d[1] ||
      strides.size() != 2 || kernel.size() != 2 || dilations.size() != 2 ||
      padsBegin.size() != 2 || dilations[0] != 0 || dilations[1] != 0 ||
      src.data_type() != memory::data_type::f32 ||
      dst.data_type() != memory::data_type::f32)
    return std::nullopt;
  BlockedPool p;
  p.kind = kind;
  p.batch = s[0], p.channels = s[1], p.ih = s[2], p.iw = s[3];
  p.oh = d[2], p.ow = d[3];
  p.kh = kernel[0], p.kw = kernel[1], p.sh = strides[0], p.sw = strides[1];
  p.padTop = padsBegin[0], p.padLeft = padsBegin[1];
  auto is = [](const memory::desc &desc, memory::format_tag tag) {
    return desc == memory::desc(desc.dims(), memory::data_type::f32, tag);
  };
  using tag = memory::format_tag;
  if (is(src, tag::aBcd8b) && is(dst, tag::aBcd8b) && p.channels % 8 == 0) {
    p.block = 8;
    p.inGroupStride = 8 * p.ih * p.iw, p.inPixelStride = 8;
    p.outGroupStride = 8 * p.oh * p.ow, p.outPixelStride = 8;
  } else if (is(src, tag::aBcd16b) && is(dst, tag::aBcd16b) &&
             p.channels % 16 == 0) {
    p.block = 16;
    p.inGroupStride = 16 * p.ih * p.iw, p.inPixelStride = 16;
    p.outGroupStride = 16 * p.oh * p.ow, p.outPixelStride = 16;
  } else if (is(src, tag::acdb) && is(dst, tag::acdb) && p.channels % 8 == 0) {
    p.block = 8;
    p.inGroupStride = 8, p.inPixelStride = p.channels;
    p.outGroupStride = 8, p.outPixelStride = p.channels;
  } else {
    return std::nullopt;
  }
  // Every window holds an input pixel: the first starts before the input
  // ends its padding, the last starts inside the input.
  if (p.sh < 1 || p.sw < 1 || p.kh < 1 || p.kw < 1 || p.oh < 1 || p.ow < 1 ||
      p.padTop < 0 || p.padLeft < 0 || p.padTop >= p.kh ||
      p.padLeft >= p.kw || (p.oh - 1) * p.sh - p.padTop >= p.ih ||
      (p.ow - 1) * p.sw - p.padLeft >= p.iw)
    return std::nullopt;
#if STRATA_POOL_AVX2
  p.avx2 = __builtin_cpu_supports("avx2");
#endif
  return p;
}

void BlockedPool::run(const float *src, float *dst) const {
#if STRATA_POOL_AVX2
  if (avx2)
    return avx2::run(*this, src, dst);
#endif
  baseline::run(*this, src, dst);
}

} // namespace strata::runtime::onednn
