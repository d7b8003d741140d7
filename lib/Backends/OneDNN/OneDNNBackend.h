//===- OneDNNBackend.h - the onednn compile-time backend --------*- C++ -*-===//
#ifndef STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
#define STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H

#include "Common/OpQueries.h"
#include "Edge/IR/EdgeActivationChains.h"
#include "strata/Backends/Backend.h"
#include "strata/Runtime/Delegates/OneDNN.h"

#include <optional>
#include <vector>

namespace strata::onednn {

/// The partitioner's per-op check.
bool supportsOp(mlir::Operation *op);

/// Writes the partition as a oneDNN graph and runs the delegate's prepare
/// step (layouts, pre-packed weights, working memory).
mlir::FailureOr<PreprocessResult> preprocess(mlir::func::FuncOp func,
                                             const CompileSpecs &specs);

/// Reads the tuning records kept in `path` (JSON, see TuningRecords.cpp);
/// none when `mayBeMissing` and the file does not exist. On failure,
/// `error` names the file and what is wrong.
mlir::FailureOr<runtime::onednn::TuningRecords>
readTuningRecords(llvm::StringRef path, bool mayBeMissing, std::string &error);
/// Writes `records` to `path` atomically, keys sorted.
mlir::LogicalResult
writeTuningRecords(llvm::StringRef path,
                   const runtime::onednn::TuningRecords &records,
                   std::string &error);

/// Constant operands, binary operand order and pooling windows
/// (Common/OpQueries.h), shared with the other delegate backends.
using backends::binaryOperandsSwap;
using backends::getFloatConstant;
using backends::getPoolGeometry;
using backends::getScalarConstant;
using backends::isSigned8;
using backends::PoolGeometry;

/// GELU spelled out in edge ops (EdgeActivationChains.h): the partitioner
/// claims its erf.
using edge::matchGelu;

/// What the delegate runs fused (strata-edge-fuse's options): eltwise
/// post-ops on convolutions, matmuls and binary ops, a residual sum, a
/// matmul's bias row, a scale-shift, a quantization into s8, the int8
/// global average pooling, and GELU, SiLU, hardswish, LeakyRelu (a relu
/// with a slope) and LayerNorm as one op each, standing where the chain's
/// first op stood.
inline constexpr const char *kFusions =
    "anchors=conv2d,conv_transpose2d,matmul,add,sub,mul,div,maximum,minimum "
    "activations=relu,clip,gelu_erf,swish,hardswish "
    "fusions=conv-sum,matmul-bias,scale-shift,quantize,int8-global-pool "
    "chains=gelu_erf,swish,hardswish,relu,layer_norm chain-position=first";

} // namespace strata::onednn

#endif // STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
