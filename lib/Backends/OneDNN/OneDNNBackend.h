//===- OneDNNBackend.h - the onednn compile-time backend --------*- C++ -*-===//
#ifndef STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
#define STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H

#include "strata/Backends/Backend.h"

#include <optional>

namespace strata::onednn {

/// The partitioner's per-op check.
bool supportsOp(mlir::Operation *op);

/// Writes the partition as a oneDNN graph and runs the delegate's prepare
/// step (layouts, pre-packed weights, working memory).
mlir::FailureOr<PreprocessResult> preprocess(mlir::func::FuncOp func,
                                             const CompileSpecs &specs);

/// The value of a splat f32 constant operand.
std::optional<float> getScalarConstant(mlir::Value value);
/// True when a commutative binary op's right operand has the result shape
/// and its left one does not (the delegate swaps them).
bool binaryOperandsSwap(mlir::Operation *op);
/// End padding that makes oneDNN's pooling output size equal `out` (-1:
/// none does).
int64_t poolPadEnd(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                   int64_t dilation, int64_t padBegin, int64_t padEnd);

} // namespace strata::onednn

#endif // STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
