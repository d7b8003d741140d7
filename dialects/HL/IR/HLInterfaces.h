//===- HLInterfaces.h - hl op interfaces ------------------------*- C++ -*-===//
#ifndef STRATA_DIALECTS_HL_IR_HLINTERFACES_H
#define STRATA_DIALECTS_HL_IR_HLINTERFACES_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <type_traits>

namespace strata::hl::detail {

/// `kernel_shape` as a (possibly empty) list, whether the op's attribute is
/// required or optional.
inline llvm::ArrayRef<int64_t> orEmpty(llvm::ArrayRef<int64_t> values) {
  return values;
}
inline llvm::ArrayRef<int64_t>
orEmpty(std::optional<llvm::ArrayRef<int64_t>> values) {
  return values.value_or(llvm::ArrayRef<int64_t>());
}

template <typename OpT, typename = void>
struct HasAutoPad : std::false_type {};
template <typename OpT>
struct HasAutoPad<OpT, std::void_t<decltype(std::declval<OpT &>().getAutoPad())>>
    : std::true_type {};
template <typename OpT, typename = void> struct HasGroup : std::false_type {};
template <typename OpT>
struct HasGroup<OpT, std::void_t<decltype(std::declval<OpT &>().getGroup())>>
    : std::true_type {};

/// The op's `auto_pad`, NOTSET for an op without one.
template <typename OpT> llvm::StringRef autoPadOf(OpT op) {
  if constexpr (HasAutoPad<OpT>::value)
    return op.getAutoPad();
  else
    return "NOTSET";
}

/// The op's `group`, 1 for an op without one.
template <typename OpT> int64_t groupOf(OpT op) {
  if constexpr (HasGroup<OpT>::value)
    return static_cast<int64_t>(op.getGroup());
  else
    return 1;
}

/// The WindowOpInterface verifier (HLInterfaces.td).
mlir::LogicalResult verifyWindowOpInterface(mlir::Operation *op);

} // namespace strata::hl::detail

// TableGen's default interface methods leave parameters unused.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "HL/IR/HLInterfaces.h.inc"
#pragma GCC diagnostic pop

#endif // STRATA_DIALECTS_HL_IR_HLINTERFACES_H
