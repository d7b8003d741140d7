//===- ShapeInference.h - Shape rules shared by verifiers -------*- C++ -*-===//
//
// Shape arithmetic that the `hl` and `edge` verifiers (and the importer's
// folders) share, so that one rule is written once (StableHLO keeps its
// TypeInference library for the same reason). Dynamic extents are
// ShapedType::kDynamic and propagate.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_SHAPEINFERENCE_H
#define STRATA_SUPPORT_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata {

/// Output extent of one spatial dimension of a sliding window (convolution or
/// pooling): floor or ceil of (in + padBegin + padEnd - dilation*(k-1) - 1) /
/// stride + 1. Returns kDynamic when `in` is dynamic and std::nullopt when the
/// window does not fit.
std::optional<int64_t> slidingWindowExtent(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t dilation,
                                           int64_t padBegin, int64_t padEnd,
                                           bool ceilMode = false);

/// Checks that the attribute arrays of a sliding-window op fit `spatialRank`
/// spatial dimensions: `strides`, `dilations` (if non-empty) and
/// `kernelShape` (if non-empty) have `spatialRank` entries, all positive;
/// `pads` (if non-empty) has 2*spatialRank non-negative entries.
mlir::LogicalResult
verifyWindowAttributes(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                       int64_t spatialRank, llvm::ArrayRef<int64_t> kernelShape,
                       llvm::ArrayRef<int64_t> strides,
                       llvm::ArrayRef<int64_t> dilations,
                       llvm::ArrayRef<int64_t> pads);

/// NumPy-style multidirectional broadcast of two shapes. Fails when two static
/// extents differ and neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Whether `actual` is compatible with `expected`: same rank and every pair
/// of static extents equal.
bool isCompatibleShape(llvm::ArrayRef<int64_t> actual,
                       llvm::ArrayRef<int64_t> expected);

/// The static result shape of ONNX Reshape of `input` (static) to `target`:
/// a 0 copies the input extent unless `allowZero`, one -1 is inferred from
/// the element count. Fails when the target does not describe a static shape
/// of the input's element count.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferReshapeShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> target,
                  bool allowZero);

/// The result shape of ONNX Squeeze: the dimensions listed in `axes`
/// (negative ones count from the end) removed, or every extent-1 dimension
/// when `axes` is std::nullopt. Fails on an axis outside the rank.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferSqueezeShape(llvm::ArrayRef<int64_t> input,
                  std::optional<llvm::ArrayRef<int64_t>> axes);

/// The result shape of ONNX Unsqueeze: extent-1 dimensions inserted at
/// `axes`, which index the result. Fails on an axis outside the result rank.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferUnsqueezeShape(llvm::ArrayRef<int64_t> input,
                    llvm::ArrayRef<int64_t> axes);

/// The result shape of ONNX Gather: data[:axis] ++ indices ++ data[axis+1:].
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferGatherShape(llvm::ArrayRef<int64_t> data, llvm::ArrayRef<int64_t> indices,
                 int64_t axis);

/// The result shape of ONNX Concat of operands of one rank along `axis`.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferConcatShape(llvm::ArrayRef<llvm::SmallVector<int64_t>> inputs,
                 int64_t axis);

/// One axis of an ONNX Slice on an extent-`extent` axis: the first index it
/// reads and how many it reads (`step` apart), after ONNX's rules
/// (negative bounds count from the end; starts and ends clamp to [0, n]
/// for positive steps, [-1, n-1] for negative ones). `step` must not be 0.
struct SliceAxis {
  int64_t first = 0, count = 0;
};
SliceAxis resolveSliceAxis(int64_t extent, int64_t start, int64_t end,
                           int64_t step);

/// The result shape of ONNX Slice (opset 10 form) of a static `data` shape:
/// starts/ends clamped to [0, n] for positive steps, [-1, n-1] for negative
/// ones, after adding n to negative values. Fails on mismatched lengths, an
/// axis outside the rank or a zero step.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferSliceShape(llvm::ArrayRef<int64_t> data, llvm::ArrayRef<int64_t> starts,
                llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes,
                llvm::ArrayRef<int64_t> steps);

/// The element count of ONNX Range(start, limit, delta):
/// max(ceil((limit - start) / delta), 0). Fails when `delta` is 0.
mlir::FailureOr<int64_t> rangeElementCount(double start, double limit,
                                           double delta);

/// Normalises an axis in [-rank, rank) to [0, rank); fails when outside.
mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Formats a shape as `1x3x224x224` (`?` for dynamic extents).
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace strata

#endif // STRATA_SUPPORT_SHAPEINFERENCE_H
