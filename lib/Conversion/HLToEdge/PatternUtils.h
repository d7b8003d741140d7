//===- PatternUtils.h - helpers shared by hl -> edge patterns ---*- C++ -*-===//
#ifndef STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H
#define STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H

#include "Edge/IR/EdgeOps.h"
#include "HL/IR/HLOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace strata::hl_to_edge {

/// The static tensor type of `value`, or null when it is not one.
mlir::RankedTensorType getStaticType(mlir::Value value);

/// The ranked tensor type of `value` (static or with bounded dynamic
/// extents), or null: what shape-agnostic lowerings take.
mlir::RankedTensorType getRankedType(mlir::Value value);

/// The ranked tensor type of `value` when every extent but the first (a
/// batch) is static, or null: what window ops take with dynamic shapes.
mlir::RankedTensorType getStaticButBatchType(mlir::Value value);

/// Whether `type` is a recurrent layer's [*, *, *] tensor open at
/// `batchAxis` alone (X or an initial state at a dynamic batch, the
/// layout's batch axis).
bool isRecurrentBatchOpen(mlir::RankedTensorType type, int64_t batchAxis);

/// True for the element types the portable runtime's dtype-generic kernels
/// read: f32, f16, f64, bool, signless i8-i64 and unsigned ui8-ui64 (bf16
/// only through cast, which callers allow themselves).
bool isRuntimeElementType(mlir::Type type);

/// Reshapes `value` to `shape` (same element type) unless it already has it.
/// A dynamic extent of `shape` is the input's that corresponds to it once
/// static unit extents are set aside on both sides (adding or removing unit
/// dimensions, as rank alignment and 1-d lifting do); a reshape without
/// that correspondence takes its extents from reshapeToExtents.
mlir::Value reshapeTo(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value, llvm::ArrayRef<int64_t> shape);

/// Reshapes `value` to `shape`, each dynamic extent of `shape` taking the
/// entry of `extents` at its position (static entries of `shape` win).
mlir::Value reshapeToExtents(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::Value value, llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<mlir::OpFoldResult> extents);

/// Extent `dim` of `value`: an index attribute when static, else a
/// tensor.dim.
mlir::OpFoldResult extentOf(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value value, int64_t dim);

/// The elements of a 0-d or 1-d integer hl value that the model computes
/// from shapes (Shape, Gather, Slice, Concat, Unsqueeze, Cast, + - * and
/// division by a constant on extents), as index values over the extents of
/// the (converted) values it reads, or std::nullopt (ShapeValues.cpp).
std::optional<llvm::SmallVector<mlir::OpFoldResult>>
evaluateShapeValue(mlir::ConversionPatternRewriter &rewriter,
                   mlir::Location loc, mlir::Value value);

/// Whether `extent` is a tensor.dim of `value` at `dim`.
bool isExtentOf(mlir::OpFoldResult extent, mlir::Value value, int64_t dim);

/// The product of `factors` (static or dynamic extents), folded.
mlir::OpFoldResult productOf(mlir::OpBuilder &builder, mlir::Location loc,
                             llvm::ArrayRef<mlir::OpFoldResult> factors);

/// Prepends unit extents so `value` has rank `rank` (rank-explicit
/// broadcasting of the edge contract).
mlir::Value alignRank(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value, int64_t rank);

/// An element-type predicate of the lowerings below: every type.
inline bool anyElementType(mlir::Type) { return true; }

/// A unary hl op -> the edge op of the same meaning, for a static input of
/// an element type `Accepts` takes.
template <typename HLOp, typename EdgeOp,
          bool (*Accepts)(mlir::Type) = anyElementType>
struct UnaryLowering : public mlir::OpConversionPattern<HLOp> {
  using mlir::OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  mlir::LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    // Static or bounded dynamic: the edge op has the input's shape.
    auto type =
        mlir::dyn_cast<mlir::RankedTensorType>(adaptor.getInput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    if (!Accepts(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "no kernel for this type");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, adaptor.getInput());
    return mlir::success();
  }
};

/// The operands of a broadcasting binary op reshaped to its result's rank
/// (the edge contract's rank-explicit broadcasting), when the result and
/// both operands are static and `Accepts` takes the lhs's element type.
struct AlignedOperands {
  mlir::RankedTensorType resultType;
  mlir::Value lhs, rhs;
};
mlir::FailureOr<AlignedOperands>
alignBinaryOperands(mlir::Operation *op, mlir::Value result, mlir::Value lhs,
                    mlir::Value rhs, bool (*accepts)(mlir::Type),
                    mlir::ConversionPatternRewriter &rewriter);

/// A broadcasting binary hl op -> `EdgeOp` on rank-aligned operands
/// (swapped with `Swap`: a > b is b < a), for element types `Accepts`
/// takes: the one lowering of the arithmetic, comparison, logical, bitwise
/// and min/max ops.
template <typename HLOp, typename EdgeOp,
          bool (*Accepts)(mlir::Type) = anyElementType, bool Swap = false>
struct BinaryLowering : public mlir::OpConversionPattern<HLOp> {
  using mlir::OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  mlir::LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    mlir::FailureOr<AlignedOperands> aligned =
        alignBinaryOperands(op, op.getOutput(), adaptor.getLhs(),
                            adaptor.getRhs(), Accepts, rewriter);
    if (mlir::failed(aligned))
      return mlir::failure();
    if (Swap)
      std::swap(aligned->lhs, aligned->rhs);
    rewriter.replaceOpWithNewOp<EdgeOp>(op, aligned->lhs, aligned->rhs);
    return mlir::success();
  }
};

/// A scalar constant of `elementType` shaped [1, ..., 1] with `rank` dims.
mlir::Value splatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Type elementType, int64_t rank, double value);

/// The integer values of a constant 8-bit operand (weights and zero points,
/// dense or resource), sign- or zero-extended by its type.
std::optional<std::vector<int64_t>> constantInts8(mlir::Value value);

/// The integer values of a constant operand (dense or resource, i32/i64).
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);

/// The values of a constant float operand (dense of any float type, or an
/// f32 resource).
std::optional<llvm::SmallVector<double>> getConstantFloats(mlir::Value value);

/// The single value of a constant scalar (or one-element) float operand.
std::optional<double> getConstantScalar(mlir::Value value);

/// The spatial pads (ONNX order: begins, then ends) of a 4-d hl.pad of zeros
/// on H and W only, which an average pool that counts padding or a
/// convolution can take over; none for any other pad.
std::optional<llvm::SmallVector<int64_t>> spatialZeroPads(hl::PadOp pad);

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

/// ONNX convolution attributes (before defaults and auto_pad resolve).
struct ConvAttributes {
  std::optional<llvm::ArrayRef<int64_t>> strides, dilations, pads;
  llvm::StringRef autoPad;
  int64_t group;
};
/// An ONNX 1-d or 2-d convolution of static `input` by `weight` (optional
/// `bias`) as edge.conv2d (1-d ones with unit height) producing
/// `resultType`; fails on other ranks or inconsistent attributes.
mlir::FailureOr<mlir::Value> buildConv(mlir::OpBuilder &builder,
                                       mlir::Location loc, mlir::Value input,
                                       mlir::Value weight, mlir::Value bias,
                                       mlir::RankedTensorType resultType,
                                       const ConvAttributes &attrs);

/// NumPy-style matmul of static `lhs` and `rhs` (1-d operands promoted,
/// batch ranks aligned) as edge.matmul, reshaped to `resultType`.
mlir::Value buildMatMul(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value lhs, mlir::Value rhs,
                        mlir::RankedTensorType resultType);

/// Scale, zero point and axis of an affine (de)quantization in edge's form:
/// scalars per tensor (a one-element 1-D scale counts as one, axis 0), 1-D
/// per axis with a non-negative axis; a missing zero point becomes zeros of
/// the storage type.
struct AffineParams {
  mlir::Value scale, zeroPoint;
  int64_t axis;
};
/// Resolves ONNX's scale / optional zero point / axis for a tensor of rank
/// `rank` stored as `storage`; fails on non-f32 or non-static scales.
mlir::FailureOr<AffineParams>
resolveAffineParams(mlir::OpBuilder &builder, mlir::Location loc,
                    mlir::Value scale, mlir::Value zeroPoint,
                    mlir::Type storage, int64_t axis, int64_t rank);

/// Pattern families (one file each).
void populateLinearPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateElementwisePatterns(mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateShapeValuePatterns(mlir::TypeConverter &converter,
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
void populateSignalPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateIndexOperandPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateRecurrentPatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateControlFlowPatterns(mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateLoopPatterns(mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
void populateQuantizationPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateScaledIntegerLinearPatterns(mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
void populateIntegerLinearPatterns(mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// hl.matmul_nbits with constant weights to edge.weight_quantized_matmul.
void populateBlockQuantizedLinearPatterns(mlir::TypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);
void populateEinsumPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateFusedPatterns(mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateGridSamplePatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateValueDependentPatterns(mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// Whether `op`'s results have an extent that depends on the data (NonZero,
/// Compress, Unique, NonMaxSuppression, TopK with a k that is not a
/// constant): its lowering bounds it, its kernel reports it.
bool isValueDependent(mlir::Operation *op);
/// The user's bound of `op`'s value-dependent extent (strata-compile
/// --max-extent NODE=N, the function's `hl.max_extents`), or null.
mlir::IntegerAttr getGivenExtentBound(mlir::Operation *op);
void populateVisionPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateResizePatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);

} // namespace strata::hl_to_edge

#endif // STRATA_LIB_CONVERSION_HLTOEDGE_PATTERNUTILS_H
