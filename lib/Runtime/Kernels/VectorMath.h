//===- VectorMath.h - f32 transcendental functions over arrays -*- C++ -*-===//
//
// y[i] = f(x[i]) for the float functions the unary kernels need. On x86-64
// with glibc's vector math library (libmvec) the arrays go through its
// 8-wide AVX2 or 4-wide SSE entry points (at most 4 ulp from the correctly
// rounded result, special values as C's functions); elsewhere each element
// is one call of the C++ function.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_RUNTIME_KERNELS_VECTORMATH_H
#define STRATA_LIB_RUNTIME_KERNELS_VECTORMATH_H

#include <cstdint>

namespace strata::runtime::kernels {

enum class FloatFunction { Sin, Cos, Tan, Asin, Acos, Atan, Erf, Exp, Log, Tanh };

/// y[i] = f(x[i]) for i < n; `x` and `y` may be the same array.
void applyFloatFunction(FloatFunction f, const float *x, float *y, int64_t n);

/// Rounds n floats to binary16 bits as floatToHalf does (nearest even, NaN
/// to a quiet NaN of the same sign without payload); F16C where the CPU has
/// it.
void floatsToHalves(const float *x, uint16_t *y, int64_t n);

/// Whether applyFloatFunction uses vector code on this machine.
bool vectorMathAvailable();

} // namespace strata::runtime::kernels

#endif // STRATA_LIB_RUNTIME_KERNELS_VECTORMATH_H
