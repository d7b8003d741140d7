//===- Passes.h - edge transformation passes --------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
#define STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::edge {

#define GEN_PASS_DECL
#include "Edge/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Edge/Transforms/Passes.h.inc"

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_TRANSFORMS_PASSES_H
