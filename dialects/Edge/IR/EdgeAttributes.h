//===- EdgeAttributes.h - discardable attributes on edge ops ----*- C++ -*-===//
//
// Hints that lowerings leave on edge ops for the backends.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H
#define STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace strata::edge {

/// On an f32 edge.conv2d whose operands hold integers: its sums must be
/// exact (they stay below 2^24), so a backend must not compute it with a
/// transform that rounds (Winograd). hl->edge sets it on the parts of an
/// integer convolution (ConvInteger) split into f32 convolutions.
inline constexpr llvm::StringLiteral kExactSumsAttrName = "strata.exact_sums";

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H
