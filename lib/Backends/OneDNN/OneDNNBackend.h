//===- OneDNNBackend.h - the onednn compile-time backend --------*- C++ -*-===//
#ifndef STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H
#define STRATA_LIB_BACKENDS_ONEDNN_ONEDNNBACKEND_H

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

/// Whether an 8-bit tensor type is signed (oneDNN s8) or not (u8);
/// nullopt for other types.
std::optional<bool> isSigned8(mlir::Type type);
/// The values of an f32 constant operand.
std::optional<std::vector<float>> getFloatConstant(mlir::Value value);
/// The value of a splat f32 constant operand.
std::optional<float> getScalarConstant(mlir::Value value);
/// True when a commutative binary op's right operand has the result shape
/// and its left one does not (the delegate swaps them).
bool binaryOperandsSwap(mlir::Operation *op);
/// A 2-d max/avg pooling as oneDNN takes it: the model's geometry with the
/// end padding for which oneDNN's output size formula gives the result's
/// (more than the model's in ceil mode).
struct PoolGeometry {
  std::vector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
};
/// The geometry of `op`, or std::nullopt when oneDNN cannot express it.
std::optional<PoolGeometry> getPoolGeometry(mlir::Operation *op);

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
