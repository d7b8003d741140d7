//===- Extents.h - dynamic extents of partitions as slots -------*- C++ -*-===//
//
// A delegate builds its graph at concrete shapes. A partition with dynamic
// extents receives them at every call as the values of its extent slots:
// each distinct dynamic extent of the partition's values, an index value
// the caller's shape program computes. The partition's graph names a slot
// for each dynamic dimension (edge.extent_slots); the delegate substitutes
// the call's values and builds (or reuses) the graph at those shapes.
// Preprocess prepares the graph at the slots' values with every symbol at
// its upper bound (edge.extent_bounds), the shapes memory is planned for.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_DELEGATION_EXTENTS_H
#define STRATA_LIB_DELEGATION_EXTENTS_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

namespace strata::delegation {

/// Extents of tensor values as index values over their function's
/// arguments, through each op's shape rule (ReifyRankedShapedTypeOpInterface),
/// as MLIR's resolve-ranked-shaped-type-result-dims does, memoized so that
/// one extent is one value. An extent of a block argument, or of a result
/// whose op has no shape rule, is a `tensor.dim` of it.
class ExtentResolver {
public:
  explicit ExtentResolver(mlir::MLIRContext *context) : context(context) {}

  /// Extent `dim` of the ranked tensor `value`. The computation is inserted
  /// before `value`'s definition (at the start of its block for an
  /// argument), so it dominates every use of `value`.
  mlir::Value extent(mlir::Value value, int64_t dim);

  /// The ops this resolver inserted and kept, in creation order.
  llvm::SmallVector<mlir::Operation *> createdOps() const;

private:
  mlir::MLIRContext *context;
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, mlir::Value> memo;
  /// Every op inserted, in order; null where one was erased again (a
  /// shape rule's read of an operand's extent, resolved). Entries are only
  /// appended while a resolution is under way, so its indices stay valid.
  llvm::SmallVector<mlir::Operation *> created;
};

/// The types of values with every dynamic extent at its value when all
/// symbols of the function are at their upper bounds (a value's own type
/// where an extent has no such value): what a partition is priced at. The
/// index computations it makes are erased with it.
class TypesAtBounds {
public:
  explicit TypesAtBounds(mlir::MLIRContext *context) : resolver(context) {}
  ~TypesAtBounds();
  mlir::Type operator()(mlir::Value value);
  /// Whether an extent of `value` is 0 when every symbol is at its lower
  /// bound (an empty KV cache before the first token).
  bool mayBeEmpty(mlir::Value value);
  /// The symbols `value`'s extents are computed from (read off arguments
  /// whose hl.dim_params name them).
  llvm::StringSet<> symbolsRead(mlir::Value value);

private:
  ExtentResolver resolver;
  llvm::DenseMap<mlir::Value, int64_t> known, knownAtLowerBounds;
  llvm::DenseMap<mlir::Value, mlir::Type> types;
};

/// Replaces every tensor.dim in `func` whose source an op's shape rule
/// defines by the extent over the function's arguments, so that no shape
/// computation reads an op's result: claimed ops then group into
/// partitions without cycles through the index values their reshapes take.
void resolveDims(mlir::func::FuncOp func);

/// A partition's slots, as its call passes them.
struct PartitionExtents {
  /// Per slot: its value, computed before the call from the call's
  /// operands (empty: the partition is static).
  llvm::SmallVector<mlir::Value> values;
  /// Per call result: the slot of each dimension (-1: static).
  llvm::SmallVector<llvm::SmallVector<int64_t>> resultSlots;
};

/// Gives the dynamic extents of `partition` (an outlined function, after
/// fusion, called once by `call`) their slots: edge.extent_slots on the
/// function and its ops, edge.extent_bounds on the function. Fails, naming
/// the extent, when a slot has no value at the bounds.
mlir::FailureOr<PartitionExtents>
assignExtentSlots(mlir::func::FuncOp partition, edge::DelegateCallOp call);

/// After preprocess: `call` passes the slots and reifies its results
/// through them; `partition` (now a declaration) takes one index per slot.
void passExtentSlots(mlir::func::FuncOp partition, edge::DelegateCallOp call,
                     const PartitionExtents &extents);

} // namespace strata::delegation

#endif // STRATA_LIB_DELEGATION_EXTENTS_H
