//===- Quantization.h - QDQ insertion and calibration hooks -----*- C++ -*-===//
//
// The quantize stage on hl: `strata-insert-qdq` puts quant.qcast /
// quant.dcast pairs at the QDQ points of quantized groups; calibration
// (strata/Calibration/Calibrate.h) then observes the float model and writes
// each activation scale back into the quant types.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_QUANTIZATION_QUANTIZATION_H
#define STRATA_QUANTIZATION_QUANTIZATION_H

#include "strata/Quantization/Observers.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Pass/Pass.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace strata {

#define GEN_PASS_DECL
#include "strata/Quantization/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Quantization/Passes.h.inc"

namespace quantization {

/// The value whose range decides the scale of a quantize at `value`: the
/// start of the chain of scale-keeping ops (max pooling, reshape, ...)
/// that ends at `value`.
mlir::Value observedValue(mlir::Value value);

/// The f32 values of a constant (dense or resource-backed), if `value` is
/// one.
std::optional<std::vector<float>> constantFloats(mlir::Value value);

/// The parameters a `!quant.uniform` element type holds: one per tensor
/// (`axis` -1) or one per slice along `axis`.
struct TypeQuantization {
  std::vector<QuantParams> params;
  int64_t axis = -1;
  mlir::Type storage;
};
std::optional<TypeQuantization> getTypeQuantization(mlir::Type element);

/// The index into `params` of flat element `index` of a row-major tensor
/// of `shape` quantized along `axis` (0 when per tensor).
size_t channelOf(size_t index, llvm::ArrayRef<int64_t> shape, int64_t axis);

/// The attribute a smooth pattern puts on a SmoothQuant site's producer
/// group; calibration makes it `{act_absmax = dense<...> : tensor<Kxf32>}`.
inline constexpr llvm::StringLiteral kSmoothAttr = "strata.smooth";

/// One site SmoothQuant rescaled.
struct SmoothedSite {
  /// The ONNX node of the producing group, and of the groups reading it.
  std::string producer, consumers;
  int64_t channels = 0;
  /// The range of the factors s_j.
  double minFactor = 1, maxFactor = 1;
};

/// Applies SmoothQuant at every site under `root` that carries
/// `act_absmax` (the strata-smooth-quant pass); fails, naming the node, at
/// a tagged site without one or one that no longer matches.
mlir::FailureOr<std::vector<SmoothedSite>>
applySmoothQuant(mlir::Operation *root, double alpha);

/// A layer whose weight rounding shifts its output mean, and where the
/// shift can be taken back (BiasCorrection.cpp): a quantized conv, Gemm or
/// MatMul group with a per-channel bias or batch normalization after it.
struct BiasCorrectionSite {
  enum class Kind { Conv, Linear };
  Kind kind = Kind::Linear;
  hl::FusedOp group;
  /// The float activation the layer reads, and its weight's quantize.
  mlir::Value input;
  mlir::quant::QuantizeCastOp inputQuantize, weight;
  /// The group input that takes the correction: a bias (minus the shift,
  /// times `targetScale`) or a normalization's running mean (plus it).
  unsigned target = 0;
  /// The body operand reading it (the group input may have other readers).
  mlir::OpOperand *targetUse = nullptr;
  bool subtract = true;
  double targetScale = 1;
  int64_t channels = 0, inputChannels = 0, groups = 1;
  /// Gemm with transB: a weight of [N, K] rather than [K, N].
  bool transposedWeight = false;
  /// Convolutions: the window geometry (H, W).
  std::array<int64_t, 2> kernelSize{1, 1}, stride{1, 1}, dilation{1, 1},
      padBegin{0, 0}, outputSize{1, 1};

  /// The number of input means the correction needs: one per input
  /// channel (and, for a convolution, per kernel offset).
  size_t meanSize() const;
  /// Adds one sample of `input` (n f32 elements) to `sums`, each mean's
  /// sum, and to `count`, the number of terms each holds.
  void accumulate(const float *data, size_t n, std::vector<double> &sums,
                  double &count) const;
};

/// The bias-correction sites under `root` (QDQ pairs inserted).
std::vector<BiasCorrectionSite> findBiasCorrectionSites(mlir::Operation *root);

/// Moves `site`'s bias (or running mean) by the output shift its weight
/// rounding causes, given the means of its input.
mlir::LogicalResult applyBiasCorrection(const BiasCorrectionSite &site,
                                        llvm::ArrayRef<double> means);

/// Rounds `site`'s bias to a whole number of its accumulator's steps
/// (input scale times the channel's weight scale): the int32 bias integer
/// runtimes hold, and what ONNX Runtime makes of a float bias between
/// dequantized operands. Fails at a running-mean target, or a bias past
/// 32 bits.
mlir::LogicalResult snapBiasToAccumulator(const BiasCorrectionSite &site);

/// Gives `qcast` (and so its dcast) the per-tensor int8 quantization
/// `params`, dropping its observation marks.
void setQuantParams(mlir::quant::QuantizeCastOp qcast,
                    const QuantParams &params);

} // namespace quantization
} // namespace strata

#endif // STRATA_QUANTIZATION_QUANTIZATION_H
