//===- Passes.h - edge transformation passes --------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
#define STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <utility>

namespace strata::edge {

/// A func.func's widths per ONNX node, chosen by a search before lowering
/// (a dictionary of node name to 0, 4 or 8), which
/// strata-edge-quantize-weights takes over its default width.
inline constexpr llvm::StringLiteral kWeightBitsAttr = "strata.weight_bits";

/// One entry of strata-edge-quantize-weights' node-bits (and of
/// --weight-bits): `NAME=BITS` with a name and BITS 0, 4 or 8; std::nullopt
/// otherwise.
inline std::optional<std::pair<llvm::StringRef, int64_t>>
parseNodeBits(llvm::StringRef entry) {
  auto [name, width] = entry.rsplit('=');
  int64_t bits = -1;
  if (name.empty() || width.getAsInteger(10, bits) ||
      (bits != 0 && bits != 4 && bits != 8))
    return std::nullopt;
  return std::make_pair(name, bits);
}

#define GEN_PASS_DECL
#include "Edge/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Edge/Transforms/Passes.h.inc"

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
