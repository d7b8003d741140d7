//===- Passes.h - edge transformation passes --------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
#define STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::edge {

/// A func.func's widths per ONNX node, chosen by a search before lowering
/// (a dictionary of node name to 0, 4 or 8), which
/// strata-edge-quantize-weights takes over its default width.
inline constexpr llvm::StringLiteral kWeightBitsAttr = "strata.weight_bits";

#define GEN_PASS_DECL
#include "Edge/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Edge/Transforms/Passes.h.inc"

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
