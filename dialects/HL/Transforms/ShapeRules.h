//===- ShapeRules.h - static result shapes of hl ops ------------*- C++ -*-===//
//
// Forward shape rules for the hl ops, used by the shape refinement pass.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_HL_TRANSFORMS_SHAPERULES_H
#define STRATA_DIALECTS_HL_TRANSFORMS_SHAPERULES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata::hl {

/// The static shape of `op`'s first result that its operands imply (static
/// operand shapes, constant shape-bearing operands), or std::nullopt when
/// they do not determine one. Does not look at the result's current type.
std::optional<llvm::SmallVector<int64_t>>
inferStaticResultShape(mlir::Operation *op);

} // namespace strata::hl

#endif // STRATA_DIALECTS_HL_TRANSFORMS_SHAPERULES_H
