//===- ElementsBytes.h - an elements attribute as a byte buffer -*- C++ -*-===//
//
// The one reading of constant data for every writer of it (the program
// emitter, the ONNX exporter): dense and dense_resource elements as a
// row-major little-endian buffer, splats expanded, i1 one byte per element.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_ELEMENTSBYTES_H
#define STRATA_SUPPORT_ELEMENTSBYTES_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <string>

namespace strata {

/// Bytes one element of `type` (an integer or float) takes: i1 takes one.
uint64_t elementStorageBytes(mlir::Type type);

/// The bytes of `value`; on failure (another attribute kind, a resource
/// without data or of the wrong size) returns failure with the reason in
/// `error`.
mlir::FailureOr<std::string> getElementsBytes(mlir::ElementsAttr value,
                                              std::string &error);

} // namespace strata

#endif // STRATA_SUPPORT_ELEMENTSBYTES_H
