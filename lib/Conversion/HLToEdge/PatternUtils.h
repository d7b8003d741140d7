//===- PatternUtils.h - helpers shared by hl -> edge patterns ---*- C++ -*-===//
#ifndef STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H
#define STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H

#include "Edge/IR/EdgeOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace strata::hl_to_edge {

/// The static tensor type of `value`, or null when it is not one.
mlir::RankedTensorType getStaticType(mlir::Value value);

/// Reshapes `value` to `shape` (same element type) unless it already has it.
mlir::Value reshapeTo(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value, llvm::ArrayRef<int64_t> shape);

/// Prepends unit extents so `value` has rank `rank` (rank-explicit
/// broadcasting of the edge contract).
mlir::Value alignRank(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value, int64_t rank);

/// A scalar constant of `elementType` shaped [1, ..., 1] with `rank` dims.
mlir::Value splatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Type elementType, int64_t rank, double value);

/// The integer values of a constant operand (dense or resource, i32/i64).
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);

/// The values of a constant float operand (dense of any float type, or an
/// f32 resource).
std::optional<llvm::SmallVector<double>> getConstantFloats(mlir::Value value);

/// The single value of a constant scalar (or one-element) float operand.
std::optional<double> getConstantScalar(mlir::Value value);

/// Explicit window attributes of an ONNX conv/pool on `spatial` input
/// extents: missing strides and dilations become 1, `auto_pad` becomes pads
/// (begin..., end...).
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, dilations, pads;
};
mlir::FailureOr<Window>
resolveWindow(llvm::ArrayRef<int64_t> spatial, llvm::ArrayRef<int64_t> kernel,
              std::optional<llvm::ArrayRef<int64_t>> strides,
              std::optional<llvm::ArrayRef<int64_t>> dilations,
              std::optional<llvm::ArrayRef<int64_t>> pads,
              llvm::StringRef autoPad);

/// Converts an ONNX 1-d window to the 2-d edge form (unit height) and ONNX
/// pads (begin..., end...) to edge's [top, left, bottom, right].
Window liftWindowTo2D(const Window &window);

/// Pattern families (one file each).
void populateLinearPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateElementwisePatterns(mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateShapePatterns(mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateMathPatterns(mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
void populateLogicPatterns(mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateResizePatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);

} // namespace strata::hl_to_edge

#endif // STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H
