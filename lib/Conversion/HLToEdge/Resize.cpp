//===- Resize.cpp - hl.resize to edge.resize ------------------------------===//
//
// hl.resize carries ONNX Resize's inputs (roi, scales or sizes, optionally
// per listed axis); edge.resize wants one scale per dimension and, for
// tf_crop_and_resize, a full-rank roi. The lowering resolves them:
//   scales constant         -> `scales` attribute (unlisted axes scale 1)
//   scales at run time      -> `scales` operand (only without `axes`)
//   sizes, policy stretch   -> scale = result extent / input extent (the
//                              static result shape already fixes the sizes)
//   sizes, not_larger/_smaller -> one scale, the min/max of sizes/input
//                              over the listed axes (sizes must be constant)
//   roi constant / run time -> `roi` attribute / operand
// A dynamic extent (a bounded batch) takes constant scales that leave it
// as it is.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// Scatters per-axis `values` (one per entry of `axes`) into a full-rank
/// vector whose other entries are `fill`.
SmallVector<double> scatterToRank(ArrayRef<double> values,
                                  ArrayRef<int64_t> axes, int64_t rank,
                                  double fill) {
  SmallVector<double> full(rank, fill);
  for (auto [i, axis] : llvm::enumerate(axes))
    full[axis] = values[i];
  return full;
}

/// hl.resize -> edge.resize.
struct ResizeLowering : public OpConversionPattern<hl::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Static, or a dynamic batch that constant scales leave as it is.
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!inputType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    bool dynamic = !inputType.hasStaticShape() || !resultType.hasStaticShape();
    if (!inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "edge.resize supports f32 only");
    ArrayRef<int64_t> in = inputType.getShape();
    ArrayRef<int64_t> out = resultType.getShape();
    int64_t rank = in.size();
    if (llvm::is_contained(in, 0))
      return rewriter.notifyMatchFailure(op, "input has an empty dimension");

    // The axes that scales/sizes/roi describe, normalised.
    SmallVector<int64_t> axes;
    std::optional<ArrayRef<int64_t>> givenAxes = op.getAxes();
    bool explicitAxes = givenAxes.has_value();
    if (explicitAxes)
      for (int64_t axis : *givenAxes)
        axes.push_back(axis < 0 ? axis + rank : axis);
    else
      axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    int64_t listed = axes.size();

    // Per-dimension scales, as an attribute or a run-time operand.
    DenseF64ArrayAttr scalesAttr;
    Value dynamicScales;
    if (Value scales = adaptor.getScales()) {
      if (std::optional<SmallVector<double>> values =
              getConstantFloats(scales)) {
        if (static_cast<int64_t>(values->size()) != listed)
          return rewriter.notifyMatchFailure(op, "scales do not fit the axes");
        scalesAttr = rewriter.getDenseF64ArrayAttr(
            scatterToRank(*values, axes, rank, 1.0));
      } else if (explicitAxes) {
        return rewriter.notifyMatchFailure(
            op, "scales must be constant when 'axes' is given");
      } else {
        RankedTensorType type = getStaticType(scales);
        if (!type || !type.getElementType().isF32())
          return rewriter.notifyMatchFailure(op, "run-time scales must be f32");
        dynamicScales = scales;
      }
    } else if (dynamic) {
      return rewriter.notifyMatchFailure(op, "sizes need static shapes");
    } else {
      FailureOr<SmallVector<double>> fromSizes =
          scalesFromSizes(op, adaptor.getSizes(), axes, in, out, rewriter);
      if (failed(fromSizes))
        return failure();
      scalesAttr = rewriter.getDenseF64ArrayAttr(*fromSizes);
    }

    if (dynamic) {
      if (!scalesAttr)
        return rewriter.notifyMatchFailure(
            op, "a dynamic extent needs constant scales");
      for (int64_t d = 0; d < rank; ++d)
        if ((inputType.isDynamicDim(d) || resultType.isDynamicDim(d)) &&
            (scalesAttr[d] != 1.0 || in[d] != out[d]))
          return rewriter.notifyMatchFailure(
              op, "a dynamic extent must not be resampled");
    }

    // The region of interest, only read by tf_crop_and_resize.
    DenseF64ArrayAttr roiAttr;
    Value dynamicRoi;
    if (op.getCoordinateTransformationMode() == "tf_crop_and_resize") {
      Value roi = adaptor.getRoi();
      if (!roi)
        return rewriter.notifyMatchFailure(op,
                                           "tf_crop_and_resize needs a roi");
      if (std::optional<SmallVector<double>> values = getConstantFloats(roi)) {
        if (static_cast<int64_t>(values->size()) != 2 * listed)
          return rewriter.notifyMatchFailure(op, "roi does not fit the axes");
        SmallVector<double> full = scatterToRank(
            ArrayRef<double>(*values).take_front(listed), axes, rank, 0.0);
        llvm::append_range(
            full, scatterToRank(ArrayRef<double>(*values).drop_front(listed),
                                axes, rank, 1.0));
        roiAttr = rewriter.getDenseF64ArrayAttr(full);
      } else if (explicitAxes) {
        return rewriter.notifyMatchFailure(
            op, "roi must be constant when 'axes' is given");
      } else {
        RankedTensorType type = getStaticType(roi);
        if (!type || !type.getElementType().isF32())
          return rewriter.notifyMatchFailure(op, "run-time roi must be f32");
        dynamicRoi = roi;
      }
    }

    rewriter.replaceOpWithNewOp<edge::ResizeOp>(
        op, resultType, adaptor.getInput(), dynamicRoi, dynamicScales,
        op.getMode(), op.getCoordinateTransformationMode(), op.getNearestMode(),
        op.getCubicCoeffA(), op.getExcludeOutside() != 0,
        op.getExtrapolationValue(), op.getAntialias() != 0, scalesAttr,
        roiAttr);
    return success();
  }

private:
  /// The per-dimension scales that ONNX derives from `sizes` (Resize-19):
  /// sizes / input extents, or with keep_aspect_ratio_policy one common
  /// scale for the listed axes.
  static FailureOr<SmallVector<double>>
  scalesFromSizes(hl::ResizeOp op, Value sizes, ArrayRef<int64_t> axes,
                  ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                  ConversionPatternRewriter &rewriter) {
    int64_t rank = in.size();
    std::optional<SmallVector<int64_t>> constant = getConstantInts(sizes);
    if (constant && constant->size() != axes.size())
      return rewriter.notifyMatchFailure(op, "sizes do not fit the axes");
    StringRef policy = op.getKeepAspectRatioPolicy();
    if (policy == "stretch") {
      // The static result shape is the sizes (checked when they are known).
      if (constant)
        for (auto [i, axis] : llvm::enumerate(axes))
          if ((*constant)[i] != out[axis])
            return rewriter.notifyMatchFailure(
                op, "sizes disagree with the result shape");
      SmallVector<double> scales(rank);
      for (int64_t d = 0; d < rank; ++d)
        scales[d] = static_cast<double>(out[d]) / in[d];
      return scales;
    }
    if (!constant)
      return rewriter.notifyMatchFailure(
          op, "sizes must be constant with keep_aspect_ratio_policy " +
                  policy.str());
    double common = policy == "not_larger" ? INFINITY : 0.0;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      double ratio = static_cast<double>((*constant)[i]) / in[axis];
      common = policy == "not_larger" ? std::min(common, ratio)
                                      : std::max(common, ratio);
    }
    SmallVector<double> scales(rank, 1.0);
    for (int64_t axis : axes) {
      scales[axis] = common;
      // Resize-19 rounds half up: int(scale * in + 0.5).
      if (static_cast<int64_t>(common * in[axis] + 0.5) != out[axis])
        return rewriter.notifyMatchFailure(
            op, "result shape disagrees with keep_aspect_ratio_policy");
    }
    return scales;
  }
};

} // namespace

void strata::hl_to_edge::populateResizePatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(converter, patterns.getContext());
}
