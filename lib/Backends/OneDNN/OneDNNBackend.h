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

/// GELU, SiLU and hardswish spelled out in edge ops (EdgeActivationChains.h).
using edge::ActivationChain;
using edge::matchActivationOf;
using edge::matchGelu;
using edge::matchHardSwish;
using edge::matchSwish;

/// LayerNorm over the last axis as exporters write it (LayerNorm.cpp):
/// mean, subtract, square (pow 2 or d * d), mean, add epsilon, sqrt,
/// divide, then optionally * gamma and + beta (constant vectors).
struct LayerNormChain {
  mlir::Value input, output, gamma, beta;
  float epsilon = 0;
  llvm::SmallVector<mlir::Operation *, 9> ops;
};
/// The chain starting at edge.reduce_mean `firstMean`, when it is one whose
/// intermediate values have no other readers.
std::optional<LayerNormChain> matchLayerNorm(mlir::Operation *firstMean);

} // namespace strata::onednn

#endif // STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
