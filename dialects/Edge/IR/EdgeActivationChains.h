//===- EdgeActivationChains.h - activations spelled out in edge ops -*- C++ -*-===//
//
// Exporters spell GELU, SiLU and hardswish out in several elementwise ops.
// Consumers that run such an activation as one function find it here: the
// oneDNN partition writer (an eltwise op or post-op) and
// strata-form-quantized-ops (the epilogue of an integer convolution).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEACTIVATIONCHAINS_H
#define STRATA_DIALECTS_EDGE_IR_EDGEACTIVATIONCHAINS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata::edge {

/// An activation exporters spell out in several ops: GELU as
/// x * 0.5 * (1 + erf(x / sqrt(2))) (the division possibly a product by
/// 1 / sqrt(2), the 0.5 applied first or last), SiLU as x * sigmoid(x),
/// hardswish as x * clip(x / 6 + 1 / 2, 0, 1).
struct ActivationChain {
  enum Kind { GeluErf, Swish, HardSwish } kind = GeluErf;
  mlir::Value input, output;
  llvm::SmallVector<mlir::Operation *, 5> ops;
};
/// The name of `kind` as the quantized ops' `activation` attribute spells
/// it ("gelu_erf", "swish", "hardswish"), and back.
llvm::StringRef stringifyActivationKind(ActivationChain::Kind kind);
std::optional<ActivationChain::Kind> symbolizeActivationKind(llvm::StringRef name);

/// The GELU chain through edge.erf `erf`, when it is one whose
/// intermediate values have no other users.
std::optional<ActivationChain> matchGelu(mlir::Operation *erf);
/// The SiLU chain through edge.sigmoid `sigmoid`.
std::optional<ActivationChain> matchSwish(mlir::Operation *sigmoid);
/// The hardswish chain through edge.clip `clip`.
std::optional<ActivationChain> matchHardSwish(mlir::Operation *clip);
/// LeakyRelu as the hl lowering writes it: max(x, 0) + slope * min(x, 0)
/// (the maximum possibly a relu), which the delegates run as a relu whose
/// alpha is the slope.
struct LeakyReluChain {
  mlir::Value input, output;
  float slope = 0;
  llvm::SmallVector<mlir::Operation *, 4> ops;
};
/// The LeakyRelu chain through its maximum (or relu) `positive`.
std::optional<LeakyReluChain> matchLeakyRelu(mlir::Operation *positive);

/// The chain reading `x`, when x has no other users (a producer may take
/// it as a post-op or epilogue).
std::optional<ActivationChain> matchActivationOf(mlir::Value x);

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGEACTIVATIONCHAINS_H
