//===- WindowExtent.h - output extents of sliding windows -------*- C++ -*-===//
//
// The one rule for the output extent of a convolution or pooling window,
// and of a transposed convolution, shared by the compiler's verifiers and
// shape rules (through ShapeInference.h) and by the runtime kernels that
// check a program's shapes at load. Plain C++ with no MLIR or LLVM, since
// the runtime links neither. Every step is checked: extents and pads come
// from models and programs, and an overflow would be undefined.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_WINDOWEXTENT_H
#define STRATA_SUPPORT_WINDOWEXTENT_H

#include <cstdint>
#include <optional>

namespace strata {

/// Output extent of one spatial dimension of a sliding window (convolution
/// or pooling): floor, or with `ceilMode` ceil, of
/// (in + padBegin + padEnd - dilation * (kernel - 1) - 1) / stride + 1.
/// In ceil mode a last window that would start in the trailing padding is
/// dropped, as ONNX and PyTorch do. std::nullopt when the window does not
/// fit the padded input, an argument is out of range (extents and pads
/// negative, kernel, stride or dilation below 1) or a step overflows.
inline std::optional<int64_t> windowExtent(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t dilation,
                                           int64_t padBegin, int64_t padEnd,
                                           bool ceilMode = false) {
  if (in < 0 || kernel < 1 || stride < 1 || dilation < 1 || padBegin < 0 ||
      padEnd < 0)
    return std::nullopt;
  int64_t start, padded, reach, span;
  if (__builtin_add_overflow(in, padBegin, &start) ||
      __builtin_add_overflow(start, padEnd, &padded) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) ||
      __builtin_sub_overflow(padded, reach, &span) || span < 1)
    return std::nullopt;
  int64_t last = span - 1;
  int64_t out = last / stride + (ceilMode && last % stride != 0 ? 1 : 0) + 1;
  if (ceilMode && (out - 1) * stride >= start)
    --out;
  return out;
}

/// Output extent of one spatial dimension of a transposed convolution:
/// (in - 1) * stride + dilation * (kernel - 1) + 1 - padBegin - padEnd +
/// outputPadding. std::nullopt when an argument is out of range (as for
/// windowExtent), a step overflows or the pads leave a negative extent.
inline std::optional<int64_t>
transposedWindowExtent(int64_t in, int64_t kernel, int64_t stride,
                       int64_t dilation, int64_t padBegin, int64_t padEnd,
                       int64_t outputPadding) {
  if (in < 0 || kernel < 1 || stride < 1 || dilation < 1 || padBegin < 0 ||
      padEnd < 0 || outputPadding < 0)
    return std::nullopt;
  int64_t spread, reach, full, out;
  if (__builtin_mul_overflow(in - 1, stride, &spread) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) ||
      __builtin_add_overflow(spread, reach, &full) ||
      __builtin_add_overflow(full, 1, &full) ||
      __builtin_sub_overflow(full, padBegin, &out) ||
      __builtin_sub_overflow(out, padEnd, &out) ||
      __builtin_add_overflow(out, outputPadding, &out) || out < 0)
    return std::nullopt;
  return out;
}

} // namespace strata

#endif // STRATA_SUPPORT_WINDOWEXTENT_H
