//===- HLShapeInference.h - forward shape rules of hl ops -------*- C++ -*-===//
//
// Each hl op with a forward shape rule implements MLIR's
// InferShapedTypeOpInterface (`inferReturnTypeComponents`, next to the op's
// verifier; HL_InferShape in HLBase.td). This header holds the entry point
// the shape refinement pass and the importer call, and the pieces the op
// families' rules share.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_HL_IR_HLSHAPEINFERENCE_H
#define STRATA_DIALECTS_HL_IR_HLSHAPEINFERENCE_H

#include "HL/IR/HLInterfaces.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace strata::hl {

/// The static shape of `op`'s first result that its operands imply (static
/// operand shapes, constant shape-bearing operands), through the op's
/// InferShapedTypeOpInterface, or std::nullopt when the op has no rule or
/// its operands do not determine a static shape. Emits nothing and does not
/// look at the result's current type.
std::optional<llvm::SmallVector<int64_t>>
inferStaticResultShape(mlir::Operation *op);

/// The ranked shape of `op`'s first result that its operands imply, static
/// or with dynamic (`?`) extents where the operands leave them open (bounded
/// dynamic shapes, docs/dynamic-shapes.md), or std::nullopt when not even
/// the rank follows.
std::optional<llvm::SmallVector<int64_t>>
inferRankedResultShape(mlir::Operation *op);

namespace detail {

using InferredShapes = llvm::SmallVectorImpl<mlir::ShapedTypeComponents>;

/// The static shape of the operand `value` as `operands` knows it (its
/// operand-shape mapping, else its type), or std::nullopt.
std::optional<llvm::SmallVector<int64_t>>
getStaticShape(const mlir::ValueShapeRange &operands, mlir::Value value);

/// The ranked shape of the operand `value`, static or with dynamic extents,
/// or std::nullopt when unranked.
std::optional<llvm::SmallVector<int64_t>>
getRankedShape(const mlir::ValueShapeRange &operands, mlir::Value value);

/// NumPy broadcasting of two ranked shapes whose extents may be dynamic: a
/// static extent above 1 wins (a dynamic one against it must be it or 1),
/// two dynamic ones stay dynamic. Fails for two different static extents
/// above 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastPartialShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The integer elements of the operand `value` when they are known: through
/// the value-as-shape mapping of `operands`, else from a constant producing
/// `value`. std::nullopt for an absent operand.
std::optional<llvm::SmallVector<int64_t>>
getKnownInts(const mlir::ValueShapeRange &operands, mlir::Value value);

/// Records `shape` for the first result; succeeds.
mlir::LogicalResult knownShape(InferredShapes &shapes,
                               llvm::ArrayRef<int64_t> shape);
/// Records an unknown (unranked) shape for the first result, for operands
/// that do not determine it yet; succeeds.
mlir::LogicalResult unknownShape(InferredShapes &shapes);
/// Fails for operands that do not fit the op, with `message` at `location`
/// when there is one.
mlir::LogicalResult misfit(std::optional<mlir::Location> location,
                           const llvm::Twine &message);
/// Records the outcome of a ShapeInference.h rule: its shape, or a misfit.
mlir::LogicalResult
fromSupportRule(std::optional<mlir::Location> location, InferredShapes &shapes,
                mlir::FailureOr<llvm::SmallVector<int64_t>> shape);

/// The result has the first operand's shape.
mlir::LogicalResult
inferSameShapeAsFirstOperand(std::optional<mlir::Location> location,
                             mlir::ValueShapeRange operands,
                             InferredShapes &shapes);
/// The result has the NumPy multidirectional broadcast of all operands.
mlir::LogicalResult inferBroadcastShape(std::optional<mlir::Location> location,
                                        mlir::ValueShapeRange operands,
                                        InferredShapes &shapes);
/// A reduction of `data` over the constant (or absent) `axes`.
mlir::LogicalResult inferReductionShape(std::optional<mlir::Location> location,
                                        const mlir::ValueShapeRange &operands,
                                        mlir::Value data, mlir::Value axes,
                                        int64_t keepdims, int64_t noopWithEmpty,
                                        InferredShapes &shapes);
/// The rule of the reductions (HL_ReduceOp), from the op's adaptor.
template <typename AdaptorT>
mlir::LogicalResult inferReductionShape(std::optional<mlir::Location> location,
                                        const mlir::ValueShapeRange &operands,
                                        AdaptorT op, InferredShapes &shapes) {
  return inferReductionShape(location, operands, op.getData(), op.getAxes(),
                             op.getKeepdims(), op.getNoopWithEmptyAxes(),
                             shapes);
}

/// Global pooling: `[N, C, D1, ...]` to `[N, C, 1, ...]`.
mlir::LogicalResult inferGlobalPoolShape(std::optional<mlir::Location> location,
                                         mlir::ValueShapeRange operands,
                                         InferredShapes &shapes);

/// A window generator (Hann, Hamming, Blackman): a 1-D result of the
/// length its constant `size` gives (HLSignalVisionOps.cpp).
mlir::LogicalResult
inferWindowLengthShape(std::optional<mlir::Location> location,
                       mlir::ValueShapeRange operands, InferredShapes &shapes);

/// The attributes of a sliding-window op (WindowOpInterface) that its
/// result shape depends on.
struct WindowAttrs {
  llvm::StringRef autoPad;
  std::optional<llvm::ArrayRef<int64_t>> strides, dilations, pads;
  bool ceilMode = false;
};

/// The window attributes of an op adaptor, read as WindowOpInterface's
/// defaults read them from the op.
template <typename AdaptorT>
WindowAttrs getWindowAttrs(AdaptorT op, bool ceilMode = false) {
  return {autoPadOf(op), op.getStrides(), op.getDilations(), op.getPads(),
          ceilMode};
}

/// The output of a sliding-window op (convolution, pooling) over the
/// ranked `input` `[N, C, D1, ...]` with `channels` output channels and
/// window `kernel`; a dynamic batch or spatial extent gives a dynamic one.
mlir::LogicalResult
inferSlidingWindowShape(std::optional<mlir::Location> location,
                        llvm::ArrayRef<int64_t> input, int64_t channels,
                        llvm::ArrayRef<int64_t> kernel,
                        const WindowAttrs &attrs, InferredShapes &shapes);

/// MaxPool and AveragePool: `kernel_shape` slides over the input's spatial
/// dimensions, the channels stay. (MaxPool's optional indices have
/// the output's shape, but whether the op has them is not among the
/// interface's arguments: only the output's shape is inferred.)
template <typename AdaptorT>
mlir::LogicalResult inferPoolShape(std::optional<mlir::Location> location,
                                   const mlir::ValueShapeRange &operands,
                                   AdaptorT op, InferredShapes &shapes) {
  std::optional<llvm::SmallVector<int64_t>> input =
      getRankedShape(operands, op.getInput());
  if (!input)
    return unknownShape(shapes);
  if (input->size() < 3)
    return misfit(location, "input rank below 3");
  return inferSlidingWindowShape(
      location, *input, (*input)[1], op.getKernelShape(),
      getWindowAttrs(op, op.getCeilMode() != 0), shapes);
}

} // namespace detail
} // namespace strata::hl

#endif // STRATA_DIALECTS_HL_IR_HLSHAPEINFERENCE_H
