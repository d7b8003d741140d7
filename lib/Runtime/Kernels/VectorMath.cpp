//===- VectorMath.cpp - f32 transcendental functions over arrays ----------===//
//
// glibc's libmvec exports each function as _ZGV<isa>N<lanes>v_<name>f (the
// x86-64 vector function ABI): `b` takes an __m128 (SSE, any x86-64 CPU),
// `d` an __m256 (AVX2). The AVX2 loop is compiled for AVX2 only and picked
// when the CPU has it. A tail shorter than a vector goes through a zero-
// padded buffer.
//
//===----------------------------------------------------------------------===//
#include "VectorMath.h"

#include "strata/Runtime/HalfFloat.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <cpuid.h>
#if defined(STRATA_HAVE_LIBMVEC)
#define STRATA_VECTOR_MATH 1
#endif
#endif

namespace strata::runtime::kernels {

#ifdef STRATA_VECTOR_MATH

#define STRATA_AVX2 __attribute__((target("avx2")))

// The entry points, declared as libmvec defines them.
#define STRATA_DECLARE_VECTOR(name)                                           \
  __m128 _ZGVbN4v_##name(__m128);                                              \
  STRATA_AVX2 __m256 _ZGVdN8v_##name(__m256);
extern "C" {
STRATA_DECLARE_VECTOR(sinf)
STRATA_DECLARE_VECTOR(cosf)
STRATA_DECLARE_VECTOR(tanf)
STRATA_DECLARE_VECTOR(asinf)
STRATA_DECLARE_VECTOR(acosf)
STRATA_DECLARE_VECTOR(atanf)
STRATA_DECLARE_VECTOR(erff)
STRATA_DECLARE_VECTOR(expf)
STRATA_DECLARE_VECTOR(logf)
STRATA_DECLARE_VECTOR(tanhf)
}
#undef STRATA_DECLARE_VECTOR

namespace {

typedef __m128 (*Vector4)(__m128);
typedef __m256 (*Vector8)(__m256);

struct Entry {
  Vector4 sse;
  Vector8 avx2;
};

Entry entryOf(FloatFunction f) {
  switch (f) {
  case FloatFunction::Sin:
    return {_ZGVbN4v_sinf, _ZGVdN8v_sinf};
  case FloatFunction::Cos:
    return {_ZGVbN4v_cosf, _ZGVdN8v_cosf};
  case FloatFunction::Tan:
    return {_ZGVbN4v_tanf, _ZGVdN8v_tanf};
  case FloatFunction::Asin:
    return {_ZGVbN4v_asinf, _ZGVdN8v_asinf};
  case FloatFunction::Acos:
    return {_ZGVbN4v_acosf, _ZGVdN8v_acosf};
  case FloatFunction::Atan:
    return {_ZGVbN4v_atanf, _ZGVdN8v_atanf};
  case FloatFunction::Erf:
    return {_ZGVbN4v_erff, _ZGVdN8v_erff};
  case FloatFunction::Exp:
    return {_ZGVbN4v_expf, _ZGVdN8v_expf};
  case FloatFunction::Log:
    return {_ZGVbN4v_logf, _ZGVdN8v_logf};
  case FloatFunction::Tanh:
    return {_ZGVbN4v_tanhf, _ZGVdN8v_tanhf};
  }
  return {_ZGVbN4v_sinf, _ZGVdN8v_sinf};
}

STRATA_AVX2 void applyAvx2(Vector8 fn, const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, fn(_mm256_loadu_ps(x + i)));
  if (i < n) {
    float buffer[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(buffer, x + i, sizeof(float) * (n - i));
    _mm256_storeu_ps(buffer, fn(_mm256_loadu_ps(buffer)));
    std::memcpy(y + i, buffer, sizeof(float) * (n - i));
  }
}

void applySse(Vector4 fn, const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_storeu_ps(y + i, fn(_mm_loadu_ps(x + i)));
  if (i < n) {
    float buffer[4] = {0, 0, 0, 0};
    std::memcpy(buffer, x + i, sizeof(float) * (n - i));
    _mm_storeu_ps(buffer, fn(_mm_loadu_ps(buffer)));
    std::memcpy(y + i, buffer, sizeof(float) * (n - i));
  }
}

bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

} // namespace

void applyFloatFunction(FloatFunction f, const float *x, float *y, int64_t n) {
  Entry entry = entryOf(f);
  if (hasAvx2())
    applyAvx2(entry.avx2, x, y, n);
  else
    applySse(entry.sse, x, y, n);
}

bool vectorMathAvailable() { return true; }

#else

namespace {

float scalarFunction(FloatFunction f, float x) {
  switch (f) {
  case FloatFunction::Sin:
    return std::sin(x);
  case FloatFunction::Cos:
    return std::cos(x);
  case FloatFunction::Tan:
    return std::tan(x);
  case FloatFunction::Asin:
    return std::asin(x);
  case FloatFunction::Acos:
    return std::acos(x);
  case FloatFunction::Atan:
    return std::atan(x);
  case FloatFunction::Erf:
    return std::erf(x);
  case FloatFunction::Exp:
    return std::exp(x);
  case FloatFunction::Log:
    return std::log(x);
  case FloatFunction::Tanh:
    return std::tanh(x);
  }
  return x;
}

} // namespace

void applyFloatFunction(FloatFunction f, const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = scalarFunction(f, x[i]);
}

bool vectorMathAvailable() { return false; }

#endif

#if defined(__x86_64__) && defined(__GNUC__)

namespace {

/// Eight floats per step: vcvtps2ph rounds to nearest even (immediate
/// rounding control, whatever MXCSR says) and handles subnormals, overflow
/// and infinities as floatToHalf does; NaN keeps part of its payload there,
/// so NaN lanes are rewritten to floatToHalf's quiet NaN.
__attribute__((target("avx2,f16c"))) void
floatsToHalvesF16c(const float *x, uint16_t *y, int64_t n) {
  const __m128i signBit = _mm_set1_epi16(static_cast<short>(0x8000));
  const __m128i quietNaN = _mm_set1_epi16(0x7e00);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan),
                                    _mm256_extracti128_si256(nan, 1));
    __m128i fixed = _mm_or_si128(_mm_and_si128(h, signBit), quietNaN);
    h = _mm_blendv_epi8(h, fixed, nan16);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(y + i), h);
  }
  for (; i < n; ++i)
    y[i] = floatToHalf(x[i]).bits;
}

bool hasF16c() {
  // F16C from CPUID leaf 1 (clang's __builtin_cpu_supports has no "f16c").
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx2") &&
           __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  }();
  return has;
}

} // namespace

void floatsToHalves(const float *x, uint16_t *y, int64_t n) {
  if (hasF16c()) {
    floatsToHalvesF16c(x, y, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    y[i] = floatToHalf(x[i]).bits;
}

#else

void floatsToHalves(const float *x, uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = floatToHalf(x[i]).bits;
}

#endif

} // namespace strata::runtime::kernels
