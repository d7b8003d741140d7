//===- EdgeElementwiseOps.cpp - binary, clip and cast verifiers -----------===//
//
// Every verifier here checks that the result type is exactly the one the
// operands and attributes imply: backends and the portable runtime rely on
// it and never re-derive shapes (EdgeOpUtils.h has the shared checks).
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

/// Rank-explicit broadcasting: each operand extent is the result's or 1.
static LogicalResult verifyExplicitBroadcast(Operation *op,
                                             ValueRange operands) {
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  for (Value operand : operands) {
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip_equal(shapeOf(operand), out))) {
      auto [in, res] = pair;
      if (in != res && in != 1)
        return op->emitOpError("operand extent ")
               << in << " at dimension " << i << " neither equals the "
               << "result's " << res << " nor is 1";
    }
  }
  SmallVector<int64_t> expected(shapeOf(operands.front()));
  for (Value operand : operands.drop_front()) {
    auto broadcast = broadcastShapes(expected, shapeOf(operand));
    if (failed(broadcast))
      return op->emitOpError("operands do not broadcast");
    expected = *broadcast;
  }
  return verifyResultShape(op, expected);
}
static LogicalResult verifyExplicitBroadcast(Operation *op) {
  return verifyExplicitBroadcast(op, op->getOperands());
}

/// A binary op that may carry a post-op chain: explicit broadcasting of
/// lhs and rhs, one element type for them and the result (an 8-bit result
/// after a chain ending in `quantize`), then the chain.
template <typename OpT> static LogicalResult verifyFusibleBinary(OpT op) {
  if (failed(verifyExplicitBroadcast(op, {op.getLhs(), op.getRhs()})))
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
LogicalResult PowOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult MaximumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyFusibleBinary(*this); }
LogicalResult EqualOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LessOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LessEqualOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalAndOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalOrOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult LogicalXorOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseAndOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseOrOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult BitwiseXorOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult SelectOp::verify() { return verifyExplicitBroadcast(*this); }
LogicalResult ModOp::verify() {
  if (!getFmod() && isa<FloatType>(getElementTypeOrSelf(getOutput())))
    return emitOpError("float remainders need 'fmod'");
  return verifyExplicitBroadcast(*this);
}

//===----------------------------------------------------------------------===//
// BitShiftOp
//===----------------------------------------------------------------------===//

LogicalResult BitShiftOp::verify() {
  if (getDirection() != "left" && getDirection() != "right")
    return emitOpError("direction must be \"left\" or \"right\", got \"")
           << getDirection() << "\"";
  return verifyExplicitBroadcast(*this);
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
