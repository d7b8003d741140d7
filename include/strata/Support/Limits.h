//===- Limits.h - sizes the compiler refuses or does not fold --*- C++ -*-===//
//
// A model states its tensor shapes; the compiler must not take them on
// trust. The importer refuses tensors past kMaxTensorBytes, and folders and
// lowerings that would write a constant element by element stop at
// kMaxFoldedElements (the op is then left to the runtime kernels, or the
// pattern reports a match failure).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_LIMITS_H
#define STRATA_SUPPORT_LIMITS_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace strata {

/// The most bytes one tensor of a model may hold: 2 GiB, the most a
/// protobuf model file holds without external data. Larger ones are
/// refused at import with an error naming the value.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 31;

/// The most elements a folder or lowering materializes as a non-splat
/// constant (1 Mi): shape arithmetic and small tables fold; anything larger
/// is computed at run time instead of filling the program file.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 20;

/// Whether `type` has a static shape of at most kMaxFoldedElements
/// elements.
inline bool isFoldableSize(mlir::ShapedType type) {
  if (!type || !type.hasStaticShape())
    return false;
  int64_t count = 1;
  for (int64_t extent : type.getShape()) {
    if (extent == 0)
      return true;
    if (count > kMaxFoldedElements / extent)
      return false;
    count *= extent;
  }
  return true;
}

} // namespace strata

#endif // STRATA_SUPPORT_LIMITS_H
