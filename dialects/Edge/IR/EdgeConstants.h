//===- EdgeConstants.h - reading and making edge constants -----*- C++ -*-===//
//
// Shared by the folders and canonicalizations of the edge ops: constant
// data comes as dense attributes or as dense_resource blobs (the importer's
// weights); folded results of more than a few thousand elements become
// resource blobs again so that printed IR stays small.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_DIALECTS_EDGE_IR_EDGECONSTANTS_H
#define STRATA_DIALECTS_EDGE_IR_EDGECONSTANTS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <vector>

namespace strata::edge {

/// The raw bytes of a constant with addressable, byte-aligned storage (dense
/// non-splat or resource); std::nullopt otherwise.
std::optional<llvm::ArrayRef<char>> getRawConstantData(mlir::Attribute attr);

/// The f32 values of a constant attribute (splats expanded);
/// std::nullopt when `attr` is not an f32 constant.
std::optional<std::vector<float>> readF32Constant(mlir::Attribute attr);

/// An f32 constant of `type` holding `values`: a splat when all are equal, a
/// dense attribute otherwise. Dense attributes are uniqued by the context, so
/// compiling one model again (calibration and mixed precision compile it
/// dozens of times in one context) folds to the same storage instead of
/// adding a copy of every folded weight each time.
mlir::ElementsAttr makeF32Constant(mlir::ShapedType type,
                                   llvm::ArrayRef<float> values);

/// As makeF32Constant, but a large constant becomes a resource blob named
/// `name`, which the ONNX export keeps as the initializer's name. For
/// weights that a backend's hl patterns create once per compile; every
/// call adds a blob that lives as long as the context.
mlir::ElementsAttr makeNamedF32Constant(mlir::ShapedType type,
                                        llvm::ArrayRef<float> values,
                                        llvm::StringRef name);

} // namespace strata::edge

#endif // STRATA_DIALECTS_EDGE_IR_EDGECONSTANTS_H
