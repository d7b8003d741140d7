//===- EdgeShapes.cpp - result shapes of edge ops at run time -------------===//
//
// ReifyRankedShapedTypeOpInterface for the edge ops that take dynamic
// (bounded) dimensions: each result extent as a static attribute or as
// index values computed from the operands' extents (tensor.dim), which the
// lowering to exec turns into the method's shape program
// (docs/dynamic-shapes.md).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace strata;
using namespace strata::edge;

/// Extent `dim` of `value`: an attribute when static, else tensor.dim.
static OpFoldResult extentOf(OpBuilder &builder, Location loc, Value value,
                             int64_t dim) {
  return tensor::getMixedSize(builder, loc, value, dim);
}

LogicalResult
edge::detail::reifyLikeOperands(Operation *op, OpBuilder &builder,
                                ReifiedRankedShapedTypeDims &shapes) {
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> extents;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        extents.push_back(builder.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      Value source;
      for (Value operand : op->getOperands()) {
        auto operandType = dyn_cast<RankedTensorType>(operand.getType());
        if (operandType && operandType.getRank() == type.getRank() &&
            operandType.isDynamicDim(d)) {
          source = operand;
          break;
        }
      }
      if (!source)
        return op->emitOpError("result dimension ")
               << d << " is dynamic but no operand's is";
      extents.push_back(extentOf(builder, op->getLoc(), source, d));
    }
    shapes.push_back(std::move(extents));
  }
  return success();
}

LogicalResult MatMulOp::reifyResultShapes(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  // [B..., M, K] x [B..., K, N] -> [B..., M, N]; a batch extent is the
  // operand's that is not 1.
  auto type = cast<RankedTensorType>(getType());
  auto lhsType = cast<RankedTensorType>(getLhs().getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> extents;
  for (int64_t d = 0; d < rank; ++d) {
    if (!type.isDynamicDim(d)) {
      extents.push_back(builder.getIndexAttr(type.getDimSize(d)));
      continue;
    }
    Value source = d == rank - 1             ? getRhs()
                   : d == rank - 2           ? getLhs()
                   : lhsType.isDynamicDim(d) ? getLhs()
                                             : getRhs();
    extents.push_back(extentOf(builder, getLoc(), source, d));
  }
  shapes.push_back(std::move(extents));
  return success();
}

/// The static extents of `type` as attributes and, at its dynamic ones,
/// `dynamic(d)`; one entry of `shapes`.
static LogicalResult
reifyEach(OpBuilder &builder, RankedTensorType type,
          ReifiedRankedShapedTypeDims &shapes,
          llvm::function_ref<FailureOr<OpFoldResult>(int64_t)> dynamic) {
  SmallVector<OpFoldResult> extents;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      extents.push_back(builder.getIndexAttr(type.getDimSize(d)));
      continue;
    }
    FailureOr<OpFoldResult> extent = dynamic(d);
    if (failed(extent))
      return failure();
    extents.push_back(*extent);
  }
  shapes.push_back(std::move(extents));
  return success();
}

/// The result's extents where an op takes its dynamic ones as index
/// operands (`sizes`, one per dynamic result dimension in order).
static LogicalResult reifyFromSizes(Operation *op, OpBuilder &builder,
                                    ValueRange sizes,
                                    ReifiedRankedShapedTypeDims &shapes) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (static_cast<int64_t>(sizes.size()) != type.getNumDynamicDims())
    return op->emitOpError("has ")
           << sizes.size() << " dynamic sizes for " << type.getNumDynamicDims()
           << " dynamic dims";
  return reifyEach(builder, type, shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     return OpFoldResult(sizes[type.getDynamicDimIndex(d)]);
                   });
}

LogicalResult
ReshapeOp::reifyResultShapes(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &shapes) {
  return reifyFromSizes(*this, builder, getDynamicSizes(), shapes);
}

LogicalResult FillOp::reifyResultShapes(OpBuilder &builder,
                                        ReifiedRankedShapedTypeDims &shapes) {
  return reifyFromSizes(*this, builder, getDynamicSizes(), shapes);
}

// indices[:-1] ++ input[batch_dims + K:].
LogicalResult
GatherNDOp::reifyResultShapes(OpBuilder &builder,
                              ReifiedRankedShapedTypeDims &shapes) {
  auto indicesType = cast<RankedTensorType>(getIndices().getType());
  int64_t leading = indicesType.getRank() - 1;
  int64_t tuple = indicesType.getDimSize(leading);
  if (ShapedType::isDynamic(tuple))
    return failure();
  int64_t skipped = static_cast<int64_t>(getBatchDims()) + tuple - leading;
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     return d < leading
                                ? extentOf(builder, getLoc(), getIndices(), d)
                                : extentOf(builder, getLoc(), getInput(),
                                           d + skipped);
                   });
}

LogicalResult
TransposeOp::reifyResultShapes(OpBuilder &builder,
                               ReifiedRankedShapedTypeDims &shapes) {
  ArrayRef<int64_t> permutation = getPermutation();
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     return extentOf(builder, getLoc(), getInput(),
                                     permutation[d]);
                   });
}

LogicalResult ConcatOp::reifyResultShapes(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  int64_t axis = static_cast<int64_t>(getAxis());
  return reifyEach(
      builder, cast<RankedTensorType>(getType()), shapes,
      [&](int64_t d) -> FailureOr<OpFoldResult> {
        if (d != axis)
          return extentOf(builder, getLoc(), getInputs().front(), d);
        // The sum of the inputs' extents along the axis.
        AffineExpr sum = builder.getAffineConstantExpr(0);
        SmallVector<OpFoldResult> terms;
        for (Value input : getInputs()) {
          sum = sum + builder.getAffineSymbolExpr(terms.size());
          terms.push_back(extentOf(builder, getLoc(), input, axis));
        }
        return affine::makeComposedFoldedAffineApply(
            builder, getLoc(), AffineMap::get(0, terms.size(), sum), terms);
      });
}

/// The extent of a sliding window's output along a spatial dimension of
/// dynamic extent `in`: floor((in + padBegin + padEnd - dilation * (kernel
/// - 1) - 1) / stride) + 1 (WindowExtent.h without ceil mode, whose dropped
/// last window has no affine form here).
static FailureOr<OpFoldResult>
reifyWindowExtent(Operation *op, OpBuilder &builder, OpFoldResult in,
                  int64_t kernel, int64_t stride, int64_t dilation,
                  int64_t padBegin, int64_t padEnd, bool ceilMode) {
  if (ceilMode || stride < 1)
    return op->emitOpError("a dynamic spatial extent with ceil_mode has no "
                           "run-time shape rule yet");
  AffineExpr s0 = builder.getAffineSymbolExpr(0);
  AffineExpr extent =
      (s0 + padBegin + padEnd - dilation * (kernel - 1) - 1).floorDiv(stride) +
      1;
  return affine::makeComposedFoldedAffineApply(
      builder, op->getLoc(), AffineMap::get(0, 1, extent), {in});
}

/// A 2-d window op over NCHW `input`: the batch extent is the input's, the
/// channel extent static, the spatial ones from the window.
static LogicalResult reifyWindowOp(Operation *op, OpBuilder &builder,
                                   Value input, ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> dilations,
                                   ArrayRef<int64_t> pads, bool ceilMode,
                                   ReifiedRankedShapedTypeDims &shapes) {
  return reifyEach(
      builder, cast<RankedTensorType>(op->getResult(0).getType()), shapes,
      [&](int64_t d) -> FailureOr<OpFoldResult> {
        if (d == 0)
          return extentOf(builder, op->getLoc(), input, 0);
        if (d < 2 || kernel.size() != 2 || strides.size() != 2 ||
            dilations.size() != 2 || pads.size() != 4)
          return op->emitOpError("dimension ") << d << " cannot be dynamic";
        int64_t i = d - 2;
        return reifyWindowExtent(
            op, builder, extentOf(builder, op->getLoc(), input, d), kernel[i],
            strides[i], dilations[i], pads[i], pads[2 + i], ceilMode);
      });
}

LogicalResult Conv2DOp::reifyResultShapes(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  ArrayRef<int64_t> weight =
      cast<RankedTensorType>(getWeight().getType()).getShape();
  if (weight.size() != 4)
    return failure();
  return reifyWindowOp(*this, builder, getInput(), weight.drop_front(2),
                       getStrides(), getDilations(), getPads(),
                       /*ceilMode=*/false, shapes);
}

LogicalResult
MaxPool2DOp::reifyResultShapes(OpBuilder &builder,
                               ReifiedRankedShapedTypeDims &shapes) {
  return reifyWindowOp(*this, builder, getInput(), getKernel(), getStrides(),
                       getDilations(), getPads(), getCeilMode(), shapes);
}

LogicalResult
AvgPool2DOp::reifyResultShapes(OpBuilder &builder,
                               ReifiedRankedShapedTypeDims &shapes) {
  return reifyWindowOp(*this, builder, getInput(), getKernel(), getStrides(),
                       getDilations(), getPads(), getCeilMode(), shapes);
}

LogicalResult
edge::detail::reifyReduction(Operation *op, OpBuilder &builder,
                             ArrayRef<int64_t> axes, bool keepDims,
                             ReifiedRankedShapedTypeDims &shapes) {
  // Result dimension d is the d-th input dimension that is kept.
  Value input = op->getOperand(0);
  SmallVector<int64_t> kept;
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (keepDims || !llvm::is_contained(axes, d))
      kept.push_back(d);
  return reifyEach(builder, cast<RankedTensorType>(op->getResult(0).getType()),
                   shapes, [&](int64_t d) -> FailureOr<OpFoldResult> {
                     if (d >= static_cast<int64_t>(kept.size()) ||
                         llvm::is_contained(axes, kept[d]))
                       return op->emitOpError("dimension ")
                              << d << " cannot be dynamic";
                     return extentOf(builder, op->getLoc(), input, kept[d]);
                   });
}

LogicalResult PadOp::reifyResultShapes(OpBuilder &builder,
                                       ReifiedRankedShapedTypeDims &shapes) {
  // input[d] + pads[d] + pads[rank + d], with constant pads.
  DenseIntElementsAttr pads;
  int64_t rank = cast<RankedTensorType>(getType()).getRank();
  if (!matchPattern(getPads(), m_Constant(&pads)) ||
      pads.getNumElements() != 2 * rank)
    return emitOpError("dynamic extents need constant pads");
  SmallVector<int64_t> values(pads.getValues<int64_t>());
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     AffineExpr padded = builder.getAffineSymbolExpr(0) +
                                         values[d] + values[rank + d];
                     return affine::makeComposedFoldedAffineApply(
                         builder, getLoc(), AffineMap::get(0, 1, padded),
                         {extentOf(builder, getLoc(), getInput(), d)});
                   });
}

LogicalResult GatherOp::reifyResultShapes(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  // input[:axis] ++ indices ++ input[axis + 1:].
  int64_t axis = static_cast<int64_t>(getAxis());
  int64_t indexRank = cast<RankedTensorType>(getIndices().getType()).getRank();
  return reifyEach(
      builder, cast<RankedTensorType>(getType()), shapes,
      [&](int64_t d) -> FailureOr<OpFoldResult> {
        if (d < axis)
          return extentOf(builder, getLoc(), getInput(), d);
        if (d < axis + indexRank)
          return extentOf(builder, getLoc(), getIndices(), d - axis);
        return extentOf(builder, getLoc(), getInput(), d - indexRank + 1);
      });
}

LogicalResult
GatherElementsOp::reifyResultShapes(OpBuilder &builder,
                                    ReifiedRankedShapedTypeDims &shapes) {
  // The result has the indices' shape.
  auto type = cast<RankedTensorType>(getType());
  SmallVector<OpFoldResult> extents;
  for (int64_t d = 0; d < type.getRank(); ++d)
    extents.push_back(extentOf(builder, getLoc(), getIndices(), d));
  shapes.push_back(std::move(extents));
  return success();
}

LogicalResult RangeOp::reifyResultShapes(OpBuilder &builder,
                                         ReifiedRankedShapedTypeDims &shapes) {
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t) -> FailureOr<OpFoldResult> {
                     // A value-dependent length has no shape rule.
                     if (!getLength())
                       return failure();
                     return OpFoldResult(getLength());
                   });
}

LogicalResult SliceOp::reifyResultShapes(OpBuilder &builder,
                                         ReifiedRankedShapedTypeDims &shapes) {
  return reifyFromSizes(*this, builder, getDynamicSizes(), shapes);
}

/// A recurrent layer's results: [S, D, N, H] and [D, N, H], the batch N
/// (the one extent that may be dynamic) X's.
template <typename OpT>
static LogicalResult reifyRecurrent(OpT op, OpBuilder &builder,
                                    ReifiedRankedShapedTypeDims &shapes) {
  for (Value result : op->getResults())
    if (failed(reifyEach(builder, cast<RankedTensorType>(result.getType()),
                         shapes, [&](int64_t) -> FailureOr<OpFoldResult> {
                           return extentOf(builder, op.getLoc(), op.getX(), 1);
                         })))
      return failure();
  return success();
}

LogicalResult RNNOp::reifyResultShapes(OpBuilder &builder,
                                       ReifiedRankedShapedTypeDims &shapes) {
  return reifyRecurrent(*this, builder, shapes);
}
LogicalResult GRUOp::reifyResultShapes(OpBuilder &builder,
                                       ReifiedRankedShapedTypeDims &shapes) {
  return reifyRecurrent(*this, builder, shapes);
}
LogicalResult LSTMOp::reifyResultShapes(OpBuilder &builder,
                                        ReifiedRankedShapedTypeDims &shapes) {
  return reifyRecurrent(*this, builder, shapes);
}

LogicalResult ResizeOp::reifyResultShapes(OpBuilder &builder,
                                          ReifiedRankedShapedTypeDims &shapes) {
  // A dynamic extent is not resampled (the verifier asks scale 1 of it).
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     return extentOf(builder, getLoc(), getInput(), d);
                   });
}

LogicalResult
ConvTranspose2DOp::reifyResultShapes(OpBuilder &builder,
                                     ReifiedRankedShapedTypeDims &shapes) {
  // A dynamic batch at most (the spatial extents follow from static ones).
  return reifyEach(builder, cast<RankedTensorType>(getType()), shapes,
                   [&](int64_t d) -> FailureOr<OpFoldResult> {
                     if (d != 0)
                       return failure();
                     return extentOf(builder, getLoc(), getInput(), 0);
                   });
}
