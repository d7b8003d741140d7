//===- HLOps.h - hl dialect and operations ----------------------*- C++ -*-===//
//
// The `hl` dialect: ONNX operator semantics, one op per supported operator.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_HL_IR_HLOPS_H
#define STRATA_DIALECTS_HL_IR_HLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

#include "HL/IR/HLInterfaces.h"
#include "HL/IR/HLOpsDialect.h.inc"

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GET_OP_CLASSES
#include "HL/IR/HLOps.h.inc"
#pragma GCC diagnostic pop

namespace strata::hl {
/// The integer elements of `value` when a constant produces it (shape
/// operands, axes, slice bounds), std::nullopt otherwise.
std::optional<llvm::SmallVector<int64_t>>
getConstantIntValues(mlir::Value value);
/// The floating-point elements of `value`, as doubles, when a constant
/// produces it (dense, or an f32 resource as the importer keeps
/// initializers), std::nullopt otherwise.
std::optional<llvm::SmallVector<double>>
getConstantFloatValues(mlir::Value value);
} // namespace strata::hl

#endif // STRATA_DIALECTS_HL_IR_HLOPS_H
