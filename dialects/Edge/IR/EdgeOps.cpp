//===- EdgeOps.cpp - edge ops: shared checks, constants, calls ------------===//
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
#include "Edge/IR/EdgeAttributes.h"
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

namespace strata::edge::detail {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual == expected)
    return success();
  return op->emitOpError("result shape [")
         << formatShape(actual) << "] should be [" << formatShape(expected)
         << "]";
}

/// Checks that every operand and the result share one element type (the
/// conv2d and matmul kernels take all-f32 or all-i32 operands).
LogicalResult verifySameElementTypes(Operation *op) {
  Type expected = getElementTypeOrSelf(op->getResult(0));
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand) != expected)
      return op->emitOpError("operand element type ")
             << getElementTypeOrSelf(operand) << " differs from the result's "
             << expected;
  return success();
}

InFlightDiagnostic inferError(std::optional<Location> location,
                              StringRef opName) {
  if (!location)
    return InFlightDiagnostic();
  InFlightDiagnostic diag = emitError(*location);
  diag << "'" << opName << "' op ";
  return diag;
}

RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

LogicalResult pushTensor(SmallVectorImpl<Type> &inferred,
                         ArrayRef<int64_t> shape, Type element) {
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

} // namespace strata::edge::detail

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// DelegateCallOp
//===----------------------------------------------------------------------===//

LogicalResult
DelegateCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getCalleeAttr());
  if (!callee)
    return emitOpError("calls @") << getCallee() << ", which is no function";
  if (!callee->hasAttr(kDelegateAttrName))
    return emitOpError("calls @")
           << getCallee() << ", which is no delegate (no " << kDelegateAttrName
           << ")";
  // The callee takes the tensors, then one index per extent.
  auto type = dyn_cast<FunctionType>(callee.getFunctionType());
  SmallVector<Type> inputs(getInputs().getTypes());
  inputs.append(getExtents().size(), IndexType::get(getContext()));
  if (!type || TypeRange(type.getInputs()) != TypeRange(inputs) ||
      TypeRange(type.getResults()) != getResultTypes())
    return emitOpError("types do not match @")
           << getCallee() << "'s " << callee.getFunctionType();
  return success();
}

/// Result `index`'s extent slots (-1: static), from `result_extents`.
static ArrayRef<int64_t> resultSlots(DelegateCallOp call, unsigned index) {
  ArrayAttr all = call.getResultExtentsAttr();
  if (!all || index >= all.size())
    return {};
  auto slots = dyn_cast<DenseI64ArrayAttr>(all[index]);
  return slots ? slots.asArrayRef() : ArrayRef<int64_t>();
}

LogicalResult DelegateCallOp::verify() {
  ArrayAttr all = getResultExtentsAttr();
  if (!all)
    return success();
  if (all.size() != getNumResults())
    return emitOpError("result_extents has ")
           << all.size() << " entries for " << getNumResults() << " results";
  for (auto [index, result] : llvm::enumerate(getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    ArrayRef<int64_t> slots = resultSlots(*this, index);
    if (static_cast<int64_t>(slots.size()) != type.getRank())
      return emitOpError("result_extents of result ")
             << index << " is not an array of " << type.getRank() << " slots";
    int64_t count = static_cast<int64_t>(getExtents().size());
    for (auto [d, slot] : llvm::enumerate(slots)) {
      if (!type.isDynamicDim(d) && slot != -1)
        return emitOpError("result ")
               << index << " dimension " << d
               << " is static and takes slot -1, not " << slot;
      if (type.isDynamicDim(d) && (slot < 0 || slot >= count))
        return emitOpError("result ")
               << index << " dimension " << d
               << " is dynamic and needs an extent slot below " << count
               << ", not " << slot;
    }
  }
  return success();
}

LogicalResult
DelegateCallOp::reifyResultShapes(OpBuilder &builder,
                                  ReifiedRankedShapedTypeDims &shapes) {
  for (auto [index, result] : llvm::enumerate(getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    ArrayRef<int64_t> slots = resultSlots(*this, index);
    SmallVector<OpFoldResult> extents;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        extents.push_back(builder.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      if (d >= static_cast<int64_t>(slots.size()) || slots[d] < 0 ||
          slots[d] >= static_cast<int64_t>(getExtents().size()))
        return emitOpError("result ")
               << index << " dimension " << d << " has no extent slot";
      extents.push_back(getExtents()[slots[d]]);
    }
    shapes.push_back(std::move(extents));
  }
  return success();
}

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GET_OP_CLASSES
#include "Edge/IR/EdgeOps.cpp.inc"
#pragma GCC diagnostic pop
