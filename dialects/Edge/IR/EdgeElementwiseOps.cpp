//===- EdgeElementwiseOps.cpp - binary, clip and cast verifiers -----------===//
//
// The result type is exactly the one the operands and attributes imply:
// ops whose result follows from them infer it (InferTypeOpInterface, whose
// verifier compares it with the actual one), the others' verifiers check
// it. Backends and the portable runtime rely on it and never re-derive
// shapes (EdgeOpUtils.h has the shared helpers).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"
#include "EdgeOpUtils.h"

#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

/// Rank-explicit broadcasting: the operands share one rank and each result
/// extent is the one extent of that dimension other than 1 (or 1).
static FailureOr<SmallVector<int64_t>>
inferExplicitBroadcast(std::optional<Location> location, StringRef opName,
                       ValueRange operands) {
  SmallVector<int64_t> shape;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return inferError(location, opName)
             << "operand " << i << " must be a ranked tensor";
    if (i == 0) {
      shape.assign(type.getShape().begin(), type.getShape().end());
      continue;
    }
    if (type.getRank() != static_cast<int64_t>(shape.size()))
      return inferError(location, opName)
             << "requires the same rank for all operands and results";
    for (auto [d, extent] : llvm::enumerate(type.getShape())) {
      if (extent == shape[d] || extent == 1)
        continue;
      // A dynamic extent broadcasts with 1 (to itself) and with a static
      // one other than 1 (to it: they must agree at run time).
      if (ShapedType::isDynamic(extent)) {
        if (shape[d] == 1)
          shape[d] = extent;
        continue;
      }
      if (ShapedType::isDynamic(shape[d])) {
        shape[d] = extent;
        continue;
      }
      if (shape[d] != 1)
        return inferError(location, opName)
               << "operand extents " << shape[d] << " and " << extent
               << " at dimension " << d << " do not broadcast";
      shape[d] = extent;
    }
  }
  return shape;
}

/// The broadcast of `operands` with `element` (null: the first operand's).
template <typename OpT>
static LogicalResult inferBroadcast(std::optional<Location> location,
                                    ValueRange operands, Type element,
                                    SmallVectorImpl<Type> &inferred) {
  auto shape =
      inferExplicitBroadcast(location, OpT::getOperationName(), operands);
  if (failed(shape))
    return failure();
  return pushTensor(inferred, *shape,
                    element ? element : getElementTypeOrSelf(operands[0]));
}

/// lhs and rhs broadcast; the result has the lhs's element type.
template <typename OpT>
static LogicalResult inferBinary(std::optional<Location> location,
                                 typename OpT::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  return inferBroadcast<OpT>(location, {adaptor.getLhs(), adaptor.getRhs()},
                             Type(), inferred);
}

/// lhs and rhs broadcast to an i1 result.
template <typename OpT>
static LogicalResult inferCompare(std::optional<Location> location,
                                  typename OpT::Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  Value lhs = adaptor.getLhs();
  if (!lhs)
    return failure();
  return inferBroadcast<OpT>(location, {lhs, adaptor.getRhs()},
                             IntegerType::get(lhs.getContext(), 1), inferred);
}

/// All three operands broadcast; the result has the on_true element type.
template <typename OpT>
static LogicalResult inferSelect(std::optional<Location> location,
                                 typename OpT::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  return inferBroadcast<OpT>(
      location,
      {adaptor.getCondition(), adaptor.getOnTrue(), adaptor.getOnFalse()},
      getElementTypeOrSelf(adaptor.getOnTrue()), inferred);
}

STRATA_EDGE_INFER_WITH(AddOp, inferBinary)
STRATA_EDGE_INFER_WITH(SubOp, inferBinary)
STRATA_EDGE_INFER_WITH(MulOp, inferBinary)
STRATA_EDGE_INFER_WITH(DivOp, inferBinary)
STRATA_EDGE_INFER_WITH(PowOp, inferBinary)
STRATA_EDGE_INFER_WITH(MaximumOp, inferBinary)
STRATA_EDGE_INFER_WITH(MinimumOp, inferBinary)
STRATA_EDGE_INFER_WITH(ModOp, inferBinary)
STRATA_EDGE_INFER_WITH(BitShiftOp, inferBinary)
STRATA_EDGE_INFER_WITH(BitwiseAndOp, inferBinary)
STRATA_EDGE_INFER_WITH(BitwiseOrOp, inferBinary)
STRATA_EDGE_INFER_WITH(BitwiseXorOp, inferBinary)
STRATA_EDGE_INFER_WITH(LogicalAndOp, inferBinary)
STRATA_EDGE_INFER_WITH(LogicalOrOp, inferBinary)
STRATA_EDGE_INFER_WITH(LogicalXorOp, inferBinary)
STRATA_EDGE_INFER_WITH(EqualOp, inferCompare)
STRATA_EDGE_INFER_WITH(LessOp, inferCompare)
STRATA_EDGE_INFER_WITH(LessEqualOp, inferCompare)
STRATA_EDGE_INFER_WITH(SelectOp, inferSelect)

/// The fusible ops infer their unfused type; a chain that ends in
/// `quantize` makes an 8-bit result of that shape compatible with it.
#define STRATA_EDGE_QUANTIZABLE_RESULT(OP)                                     \
  bool OP::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {     \
    return isCompatibleWithQuantizedResult(inferred, actual);                  \
  }
STRATA_EDGE_QUANTIZABLE_RESULT(AddOp)
STRATA_EDGE_QUANTIZABLE_RESULT(SubOp)
STRATA_EDGE_QUANTIZABLE_RESULT(MulOp)
STRATA_EDGE_QUANTIZABLE_RESULT(DivOp)
STRATA_EDGE_QUANTIZABLE_RESULT(MaximumOp)
STRATA_EDGE_QUANTIZABLE_RESULT(MinimumOp)
#undef STRATA_EDGE_QUANTIZABLE_RESULT

/// A binary op that may carry a post-op chain: one element type for lhs,
/// rhs and the result (an 8-bit result after a chain ending in
/// `quantize`), then the chain, once inference takes the operands.
template <typename OpT> static LogicalResult verifyFusibleBinary(OpT op) {
  if (failed(verifyInferable(op)))
    return failure();
  Type element = getElementTypeOrSelf(op.getLhs());
  SmallVector<PostOpAttr> steps = getPostOpSteps(op);
  bool quantizes =
      !steps.empty() && steps.back().getKind() == PostOpKind::Quantize;
  if (getElementTypeOrSelf(op.getRhs()) != element ||
      (!quantizes && getElementTypeOrSelf(op.getOutput()) != element))
    return op.emitOpError("requires the same element type for all operands "
                          "and results");
  return verifyPostOps(op, op.getPostOpsAttr(), op.getPostOperands(),
                       {PostOpKind::Relu, PostOpKind::Clip, PostOpKind::GeluErf,
                        PostOpKind::Swish, PostOpKind::HardSwish,
                        PostOpKind::Add, PostOpKind::Quantize});
}

LogicalResult AddOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult SubOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MulOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult DivOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MaximumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult ModOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  if (!getFmod() && isa<FloatType>(getElementTypeOrSelf(getOutput())))
    return emitOpError("float remainders need 'fmod'");
  return success();
}

//===----------------------------------------------------------------------===//
// BitShiftOp
//===----------------------------------------------------------------------===//

LogicalResult BitShiftOp::verify() {
  if (failed(verifyInferable(*this)))
    return failure();
  if (getDirection() != "left" && getDirection() != "right")
    return emitOpError("direction must be \"left\" or \"right\", got \"")
           << getDirection() << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// ClipOp
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError("'min' ")
           << getMin().convertToFloat() << " exceeds 'max' "
           << getMax().convertToFloat();
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto isQuantized = [](Value value) {
    return isa<quant::QuantizedType>(
        cast<ShapedType>(value.getType()).getElementType());
  };
  if (isQuantized(getInput()) || isQuantized(getOutput()))
    return emitOpError("does not take quantized types: use quantize and "
                       "dequantize");
  return success();
}
