//===- Passes.h - backend pattern passes ------------------------*- C++ -*-===//
#ifndef STRATA_BACKENDS_PASSES_H
#define STRATA_BACKENDS_PASSES_H

#include "HL/IR/HLOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace strata {

#define GEN_PASS_DECL
#include "strata/Backends/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Backends/Passes.h.inc"

} // namespace strata

#endif // STRATA_BACKENDS_PASSES_H
