//===- HLSignalVisionOps.cpp - verifiers and folders of signal and vision ops//
//
// Also the window generators' shape rule (their length from a constant
// `size`).
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"
#include "HL/IR/HLShapeInference.h"

#include "strata/Support/Limits.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

//===----------------------------------------------------------------------===//
// Signal
//===----------------------------------------------------------------------===//

/// Folds a window op whose `size` is a constant equal to its static result
/// extent: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size
/// (periodic) or size - 1 (symmetric), evaluated in double and rounded once
/// to the result's float type.
template <typename WindowOp>
static OpFoldResult foldWindow(WindowOp op, Attribute sizeAttr) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  auto size = dyn_cast_or_null<DenseIntElementsAttr>(sizeAttr);
  if (!type || !isFoldableSize(type) || !size || size.getNumElements() != 1 ||
      !isa<FloatType>(type.getElementType()))
    return {};
  int64_t length = (*size.value_begin<APInt>()).getSExtValue();
  double period = static_cast<double>(op.getPeriodic() ? length : length - 1);
  if (length != type.getDimSize(0) || period <= 0)
    return {};
  auto [a0, a1, a2] = WindowOp::getCoefficients();
  SmallVector<Attribute> values;
  for (int64_t n = 0; n < length; ++n) {
    double phase = 2.0 * M_PI * static_cast<double>(n) / period;
    values.push_back(
        FloatAttr::get(type.getElementType(),
                       a0 - a1 * std::cos(phase) + a2 * std::cos(2.0 * phase)));
  }
  return DenseElementsAttr::get(type, values);
}

LogicalResult
strata::hl::detail::inferWindowLengthShape(std::optional<Location> location,
                               ValueShapeRange operands,
                               InferredShapes &shapes) {
  // The window ops' only operand is `size`.
  std::optional<SmallVector<int64_t>> size =
      operands.empty() ? std::nullopt : getKnownInts(operands, operands[0]);
  if (!size)
    return unknownShape(shapes);
  if (size->size() != 1 || (*size)[0] < 0)
    return misfit(location, "'size' must be one non-negative integer");
  return knownShape(shapes, *size);
}

OpFoldResult HannWindowOp::fold(FoldAdaptor adaptor) {
  return foldWindow(*this, adaptor.getSize());
}

OpFoldResult HammingWindowOp::fold(FoldAdaptor adaptor) {
  return foldWindow(*this, adaptor.getSize());
}

OpFoldResult BlackmanWindowOp::fold(FoldAdaptor adaptor) {
  return foldWindow(*this, adaptor.getSize());
}

LogicalResult DFTOp::verify() {
  if (getInverse() > 1 || getOnesided() > 1)
    return emitOpError("'inverse' and 'onesided' must be 0 or 1");
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type)
    return success();
  if (type.getRank() < 2)
    return emitOpError("input must have rank >= 2, got ") << type.getRank();
  int64_t last = type.getShape().back();
  if (!ShapedType::isDynamic(last) && last != 1 && last != 2)
    return emitOpError("the last dimension must be 1 (real) or 2 (complex), "
                       "got ")
           << last;
  // The axis counts the signal dimensions, not the trailing complex one.
  return verifyAxis(*this, static_cast<int64_t>(getAxis()), type.getRank() - 1);
}

LogicalResult STFTOp::verify() {
  if (getOnesided() > 1)
    return emitOpError("'onesided' must be 0 or 1");
  if (failed(verifyRank(*this, getSignal(), 3, "signal")))
    return failure();
  if (Value window = getWindow())
    return verifyRank(*this, window, 1, "window");
  return success();
}

//===----------------------------------------------------------------------===//
// Vision
//===----------------------------------------------------------------------===//

LogicalResult NonMaxSuppressionOp::verify() {
  if (getCenterPointBox() > 1)
    return emitOpError("'center_point_box' must be 0 or 1");
  if (failed(verifyRank(*this, getBoxes(), 3, "boxes")) ||
      failed(verifyRank(*this, getScores(), 3, "scores")))
    return failure();
  auto boxes = dyn_cast<RankedTensorType>(getBoxes().getType());
  if (boxes && !boxes.isDynamicDim(2) && boxes.getDimSize(2) != 4)
    return emitOpError("boxes must have 4 coordinates, got ")
           << boxes.getDimSize(2);
  return success();
}

LogicalResult RoiAlignOp::verify() {
  if (getMode() != "avg" && getMode() != "max")
    return emitOpError("'mode' must be avg or max, got '") << getMode() << "'";
  if (getCoordinateTransformationMode() != "half_pixel" &&
      getCoordinateTransformationMode() != "output_half_pixel")
    return emitOpError("'coordinate_transformation_mode' must be half_pixel "
                       "or output_half_pixel");
  if (failed(verifyRank(*this, getInput(), 4, "input")) ||
      failed(verifyRank(*this, getRois(), 2, "rois")))
    return failure();
  if (static_cast<int64_t>(getOutputHeight()) < 1 ||
      static_cast<int64_t>(getOutputWidth()) < 1)
    return emitOpError("output extents must be positive");
  return success();
}

LogicalResult GridSampleOp::verify() {
  if (!llvm::is_contained({"bilinear", "nearest", "bicubic"}, getMode()))
    return emitOpError("'mode' must be bilinear, nearest or bicubic, got '")
           << getMode() << "'";
  if (!llvm::is_contained({"zeros", "border", "reflection"}, getPaddingMode()))
    return emitOpError("'padding_mode' must be zeros, border or reflection");
  if (getAlignCorners() > 1)
    return emitOpError("'align_corners' must be 0 or 1");
  if (failed(verifyRank(*this, getInput(), 4, "input")) ||
      failed(verifyRank(*this, getGrid(), 4, "grid")))
    return failure();
  auto grid = dyn_cast<RankedTensorType>(getGrid().getType());
  if (grid && !grid.isDynamicDim(3) && grid.getDimSize(3) != 2)
    return emitOpError("grid's last dimension must be 2, got ")
           << grid.getDimSize(3);
  auto input = dyn_cast<RankedTensorType>(getInput().getType());
  if (input && grid && !input.isDynamicDim(0) && !grid.isDynamicDim(0) &&
      input.getDimSize(0) != grid.getDimSize(0))
    return emitOpError("input and grid must have one batch extent, got ")
           << input.getDimSize(0) << " and " << grid.getDimSize(0);
  return success();
}

LogicalResult MaxUnpoolOp::verify() {
  std::optional<int64_t> rank = rankOf(getInput());
  if (rank && *rank < 3)
    return emitOpError("input must have rank >= 3 ([N, C, D1, ...]), got ")
           << *rank;
  if (rank && static_cast<int64_t>(getKernelShape().size()) != *rank - 2)
    return emitOpError("'kernel_shape' has ")
           << getKernelShape().size() << " entries, expected " << *rank - 2;
  auto input = dyn_cast<RankedTensorType>(getInput().getType());
  auto indices = dyn_cast<RankedTensorType>(getIndices().getType());
  if (input && indices &&
      !isCompatibleShape(input.getShape(), indices.getShape()))
    return emitOpError("indices must have the input's shape");
  return success();
}

LogicalResult UniqueOp::verify() {
  if (getSorted() > 1)
    return emitOpError("'sorted' must be 0 or 1");
  if (auto axis = getAxis())
    return verifyAxis(*this, static_cast<int64_t>(*axis), rankOf(getInput()));
  return success();
}

LogicalResult DetOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type)
    return success();
  if (type.getRank() < 2)
    return emitOpError("input must have rank >= 2, got ") << type.getRank();
  int64_t m = type.getShape().end()[-2], n = type.getShape().back();
  if (!isCompatibleShape({m}, {n}))
    return emitOpError("matrices must be square, got ") << m << "x" << n;
  std::optional<int64_t> resultRank = rankOf(getOutput());
  if (resultRank && *resultRank != type.getRank() - 2)
    return emitOpError("result rank ")
           << *resultRank << " should be " << type.getRank() - 2;
  return success();
}
