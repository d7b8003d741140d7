//===- Matchers.h - building blocks of backend patterns on hl ---*- C++ -*-===//
//
// Structural matchers shared by backend patterns: they match op classes and
// constants, never op names, and return the ops they would claim so that a
// pattern's matchOps can be assembled from them.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PATTERNS_MATCHERS_H
#define STRATA_PATTERNS_MATCHERS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace strata::patterns {

/// Whether `value` has exactly one use (an intermediate a group may claim).
bool hasSingleUse(mlir::Value value);

/// Whether `value` is produced by an hl.constant.
bool isConstant(mlir::Value value);

/// The value of a one-element (or splat) f32 constant.
std::optional<float> getScalarConstant(mlir::Value value);

/// The op producing `value` when it is an `OpTy` with `value` as its only
/// use (so a group may absorb it).
template <typename OpTy>
OpTy producerWithSingleUse(mlir::Value value) {
  if (!value || !hasSingleUse(value))
    return nullptr;
  return value.getDefiningOp<OpTy>();
}

/// An activation ending at a root op.
struct ActivationMatch {
  /// What it reads.
  mlir::Value input;
  /// Its ops in program order (the root last).
  llvm::SmallVector<mlir::Operation *> ops;
  /// "relu", "relu6", "leaky_relu", "elu", "gelu", "silu", "hard_swish" or
  /// "hard_sigmoid".
  std::string kind;
};

/// Matches the activations TensorRT fuses into a preceding conv or linear
/// layer, ending at `root`: Relu, Clip(0, 6) as ReLU6, LeakyRelu, Elu,
/// HardSwish, HardSigmoid, x * Sigmoid(x) (SiLU) and the exporters' erf
/// form of GELU, x * 0.5 * (1 + erf(x / sqrt(2))).
std::optional<ActivationMatch> matchActivation(mlir::Operation *root);

/// Whether every use of `value` is by one of `users` (an activation that
/// reads its input twice, like x * sigmoid(x), claims both uses).
bool usedOnlyBy(mlir::Value value, llvm::ArrayRef<mlir::Operation *> users);

/// A convolution with its optional BatchNormalization ([conv] or [conv,
/// bn]), ending at `value`'s producer, whose uses must all be by `users`;
/// inner results single-use.
std::optional<llvm::SmallVector<mlir::Operation *>>
matchConvBN(mlir::Value value, llvm::ArrayRef<mlir::Operation *> users);

/// A linear layer ending at `value`'s producer (uses all by `users`):
/// hl.gemm, or hl.matmul by a constant weight optionally followed by the
/// add of a constant bias.
std::optional<llvm::SmallVector<mlir::Operation *>>
matchLinear(mlir::Value value, llvm::ArrayRef<mlir::Operation *> users);

/// A constant operand of a fused group that a per-channel factor scales
/// along `axis`.
struct ChannelOperand {
  mlir::Operation *group;
  unsigned operand;
  int64_t axis;
};

/// Where SmoothQuant can move a per-channel factor s from an activation
/// into the weights that read it, exactly in float: a fused group whose
/// output channels (its last axis) absorb 1/s in its constants (a linear
/// layer's weight columns and bias, optionally through a ReLU, which
/// commutes with a positive factor; or a normalization's per-channel scale
/// and shift), and the linear groups (matmul or gemm by a constant weight)
/// that read the output, through reshapes and transposes that keep the
/// last axis, and absorb s in their weights' input rows.
struct SmoothSite {
  mlir::Operation *producer;
  int64_t channels;
  /// Producer constants divided by s.
  llvm::SmallVector<ChannelOperand> divided;
  /// Consumer weights multiplied by s.
  llvm::SmallVector<ChannelOperand> multiplied;
  /// The consumer groups, in program order.
  llvm::SmallVector<mlir::Operation *> consumers;
};

/// The site `producer` (an hl.fused) starts, if every use of its result is
/// such a linear group.
std::optional<SmoothSite> matchSmoothSite(mlir::Operation *producer);

} // namespace strata::patterns

#endif // STRATA_PATTERNS_MATCHERS_H
