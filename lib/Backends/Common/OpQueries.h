//===- OpQueries.h - questions delegate backends ask of edge ops -*- C++
//-*-===//
//
// Shared by the delegate backends' claim predicates and graph writers:
// constant operands, the operand order of a commutative binary op, and a
// pooling window with ceil mode turned into extra end padding.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_COMMON_OPQUERIES_H
#define STRATA_LIB_BACKENDS_COMMON_OPQUERIES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::backends {

/// An f32 tensor of static shape, rank 1 to 6, not empty: what the
/// delegates' float kernels take.
bool isF32Tensor(mlir::Type type);
/// Whether `op` has one result and every operand and the result are f32
/// tensors (isF32Tensor): the float ops a delegate may claim.
bool isF32Op(mlir::Operation *op);
/// The shape of `value`, which must be a ranked tensor.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);
/// The f32 values of an edge.constant operand.
std::optional<std::vector<float>> getFloatConstant(mlir::Value value);
/// The value of an f32 constant whose elements are all equal.
std::optional<float> getScalarConstant(mlir::Value value);
/// Whether a binary op's operands must swap so that the first has the
/// result's shape (a commutative op whose broadcast operand comes first).
bool binaryOperandsSwap(mlir::Operation *op);

/// The values of an integer constant operand (zero points), sign-extended.
std::optional<std::vector<int64_t>> getIntConstant(mlir::Value value);
/// The values of an 8-bit integer constant (weights, zero points),
/// zero-extended where it is unsigned (u8), sign-extended otherwise.
std::optional<std::vector<int64_t>> getEightBitConstant(mlir::Value value);
/// Whether an 8-bit tensor type (plain or `!quant.uniform` storage) is
/// signed (s8) or not (u8); nullopt for other types.
std::optional<bool> isSigned8(mlir::Type type);

/// Appends to `names` the ONNX node names of `ops` it lacks (a delegate
/// op's or node's names, for its debug handle and strata-dump).
void appendNodeNames(std::vector<std::string> &names,
                     llvm::ArrayRef<mlir::Operation *> ops);

/// A pooling window, ceil mode expressed as extra end padding.
struct PoolGeometry {
  std::vector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
};
/// The window of an edge.max_pool2d or edge.avg_pool2d: pads begin
/// (top, left) and end (bottom, right), the end grown where ceil mode
/// needs it; nullopt where no padding gives the op's output size, or where
/// extra padding would change an average that counts padding.
std::optional<PoolGeometry> getPoolGeometry(mlir::Operation *op);

/// Whether an operand or result of `op` is a tensor of dynamic shape.
bool hasDynamicShape(mlir::Operation *op);
/// The first check of a delegate's dynamic ops (docs/delegation.md,
/// "Dynamic extents"): one result, a shape rule for it
/// (ReifyRankedShapedTypeOpInterface, whence the partition's extent
/// slots), and every tensor it reads or writes accepted by `accepts`
/// (index operands, a reshape's sizes, aside).
bool isDynamicCandidate(mlir::Operation *op,
                        llvm::function_ref<bool(mlir::Type)> accepts);

} // namespace strata::backends

#endif // STRATA_LIB_BACKENDS_COMMON_OPQUERIES_H
