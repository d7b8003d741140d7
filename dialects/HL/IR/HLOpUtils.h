//===- HLOpUtils.h - helpers shared by hl verifiers and folders -*- C++ -*-===//
//
// Private to dialects/HL/IR: small queries that several op families' verifiers
// and folders need.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_HL_IR_HLOPUTILS_H
#define STRATA_DIALECTS_HL_IR_HLOPUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata::hl::detail {

/// Rank of `value`'s type, or std::nullopt when unranked.
std::optional<int64_t> rankOf(mlir::Value value);

/// Checks that `axis` lies in [-rank, rank + extra) when `rank` is known;
/// `name` is the attribute or operand named in the diagnostic.
mlir::LogicalResult verifyAxis(mlir::Operation *op, int64_t axis,
                               std::optional<int64_t> rank,
                               llvm::StringRef name = "axis",
                               int64_t extra = 0);

/// The integer elements of `value` when it is produced by a constant.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);

/// Checks the shared attributes of a sliding-window op whose input is `input`.
mlir::LogicalResult
verifyWindowOp(mlir::Operation *op, mlir::Value input, llvm::StringRef autoPad,
               llvm::ArrayRef<int64_t> kernelShape,
               std::optional<llvm::ArrayRef<int64_t>> strides,
               std::optional<llvm::ArrayRef<int64_t>> dilations,
               std::optional<llvm::ArrayRef<int64_t>> pads);

/// Checks that `value` (when ranked) has rank `rank`; `what` names it.
mlir::LogicalResult verifyRank(mlir::Operation *op, mlir::Value value,
                               int64_t rank, llvm::StringRef what);

/// Folds an integer binary op over constants whose shapes are equal or one
/// of which is a splat (the shape-arithmetic cases) with `fn`, which
/// returns none where no value folds (division by zero).
mlir::OpFoldResult foldIntBinary(mlir::Operation *op, mlir::Attribute lhs,
                                 mlir::Attribute rhs,
                                 llvm::function_ref<std::optional<llvm::APInt>(
                                     const llvm::APInt &, const llvm::APInt &)>
                                     fn);

/// Folds a binary float op over small constants (equal shapes, or one a
/// splat) with the IEEE operation `fn` in the element type: one correctly
/// rounded operation, as the kernels compute it.
mlir::OpFoldResult foldFloatBinary(mlir::Operation *op, mlir::Attribute lhs,
                                   mlir::Attribute rhs,
                                   llvm::function_ref<llvm::APFloat::opStatus(
                                       llvm::APFloat &, const llvm::APFloat &)>
                                       fn);

/// -x of a small float constant.
mlir::OpFoldResult foldFloatNeg(mlir::Operation *op, mlir::Attribute input);

/// A cast of a small float constant to `resultType`: to floats rounded to
/// nearest, to integers truncated (none when a value is out of range or
/// NaN, which the kernels leave undefined), to booleans non-zero.
mlir::OpFoldResult foldFloatCast(mlir::RankedTensorType resultType,
                                 mlir::Attribute input);

/// A cast of a small integer constant to float `resultType`, rounded to
/// nearest.
mlir::OpFoldResult foldIntToFloatCast(mlir::RankedTensorType resultType,
                                      mlir::Attribute input);

} // namespace strata::hl::detail

#endif // STRATA_DIALECTS_HL_IR_HLOPUTILS_H
