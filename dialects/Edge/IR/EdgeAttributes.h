//===- EdgeAttributes.h - discardable attributes of the edge dialect -*- C++
//-*-===//
//
// The `edge.*` attributes that stages leave on edge ops and on the functions
// that hold edge ops. EdgeDialect::verifyOperationAttribute checks each one's
// kind and where it may stand (docs/dialects/edge.md, "Discardable
// attributes"); an unknown `edge.*` name is an error.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H
#define STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace strata::edge {

/// On an f32 edge.conv2d whose operands hold integers: its sums must be
/// exact (they stay below 2^24), so a backend must not compute it with a
/// transform that rounds (Winograd). hl->edge sets it on the parts of an
/// integer convolution (ConvInteger) split into f32 convolutions. Unit.
inline constexpr llvm::StringLiteral kExactSumsAttrName = "edge.exact_sums";

/// On a function: the most iterations each of its run-time loops (hl.loop
/// as scf.while) may run (a constant trip count, or the rows the scan
/// outputs hold), by the loop's ONNX node name: the while's location,
/// which survives the canonicalizations that rebuild a while (an attribute
/// on the while would not). A loop bounded by its data only is absent.
/// Dictionary of i64 > 0.
inline constexpr llvm::StringLiteral kMaxTripsAttrName = "edge.max_trips";

// The delegation stage (docs/delegation.md).
/// On an edge op: the backend whose partitioner claimed it. String.
inline constexpr llvm::StringLiteral kBackendAttrName = "edge.backend";
/// On an outlined function: the backend it is delegated to. String.
inline constexpr llvm::StringLiteral kDelegateAttrName = "edge.delegate";
/// On a delegated declaration: the backend's compiled blob. i8 elements.
inline constexpr llvm::StringLiteral kProcessedAttrName = "edge.processed";
/// On a delegated declaration: the named data its blob refers to, by key.
/// Dictionary of i8 elements.
inline constexpr llvm::StringLiteral kNamedDataAttrName = "edge.named_data";
/// On a delegated declaration: the working memory it needs. i64 >= 0.
inline constexpr llvm::StringLiteral kScratchAttrName = "edge.scratch_bytes";
/// On a delegated declaration: for each debug handle, the ONNX nodes it
/// computes. Dictionary of string arrays.
inline constexpr llvm::StringLiteral kDebugHandlesAttrName =
    "edge.debug_handles";
/// On a delegated declaration: the compile specs its runtime reads.
/// Dictionary of strings.
inline constexpr llvm::StringLiteral kCompileSpecsAttrName =
    "edge.compile_specs";

/// Extent slots of a partition with dynamic extents (docs/delegation.md,
/// "Dynamic extents"), set on the outlined function between fusion and the
/// backend's preprocess step. On an op of the partition: per result, the
/// slot of each dimension (-1: static). On the function: the same per
/// argument (an index argument: empty). Array of i64 arrays.
inline constexpr llvm::StringLiteral kExtentSlotsAttrName = "edge.extent_slots";
/// On a partition with dynamic extents: each slot's value when every
/// symbol is at its upper bound (the shapes preprocess prepares at). i64
/// array.
inline constexpr llvm::StringLiteral kExtentBoundsAttrName =
    "edge.extent_bounds";

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGEATTRIBUTES_H
