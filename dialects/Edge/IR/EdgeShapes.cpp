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

#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
