//===- Passes.h - hl transformation passes ----------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_HL_TRANSFORMS_PASSES_H
#define STRATA_DIALECTS_HL_TRANSFORMS_PASSES_H

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::hl {

#define GEN_PASS_DECL
#include "HL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "HL/Transforms/Passes.h.inc"

} // namespace strata::hl

#endif // STRATA_DIALECTS_HL_TRANSFORMS_PASSES_H
