//===- PatternUtils.cpp - helpers shared by hl -> edge patterns -----------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace strata::hl_to_edge {

RankedTensorType getStaticType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

RankedTensorType getRankedType(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

RankedTensorType getStaticButBatchType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0 ||
      ShapedType::isDynamicShape(type.getShape().drop_front()))
    return RankedTensorType();
  return type;
}

bool isRecurrentBatchOpen(RankedTensorType type, int64_t batchAxis) {
  return type && type.getRank() == 3 && type.getNumDynamicDims() == 1 &&
         type.isDynamicDim(batchAxis);
}

bool isRuntimeElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isF64())
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return false;
  if (intType.isUnsigned())
    return llvm::is_contained({8u, 16u, 32u, 64u}, intType.getWidth());
  return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
}

OpFoldResult extentOf(OpBuilder &builder, Location loc, Value value,
                      int64_t dim) {
  return tensor::getMixedSize(builder, loc, value, dim);
}

OpFoldResult productOf(OpBuilder &builder, Location loc,
                       ArrayRef<OpFoldResult> factors) {
  AffineExpr product = builder.getAffineConstantExpr(1);
  for (size_t i = 0; i < factors.size(); ++i)
    product = product * builder.getAffineSymbolExpr(i);
  return affine::makeComposedFoldedAffineApply(
      builder, loc, AffineMap::get(0, factors.size(), product), factors);
}

Value reshapeToExtents(OpBuilder &builder, Location loc, Value value,
                       ArrayRef<int64_t> shape,
                       ArrayRef<OpFoldResult> extents) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape && type.getNumDynamicDims() <= 1)
    return value;
  SmallVector<Value> dynamicSizes;
  for (auto [d, extent] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(extent))
      dynamicSizes.push_back(
          getValueOrCreateConstantIndexOp(builder, loc, extents[d]));
  return builder.create<edge::ReshapeOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), value,
      dynamicSizes);
}

Value reshapeTo(OpBuilder &builder, Location loc, Value value,
                ArrayRef<int64_t> shape) {
  // The same shape is the identity here: dynamic extents correspond in
  // order (below), so none trades places.
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  if (!ShapedType::isDynamicShape(shape))
    return builder.create<edge::ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), value);
  // Dynamic extents correspond in order once static unit extents are set
  // aside (the callers add or remove unit dimensions only); without that
  // correspondence the reshape keeps no sizes and its verifier names it.
  SmallVector<int64_t> inputDims, resultDims;
  for (auto [d, extent] : llvm::enumerate(type.getShape()))
    if (extent != 1)
      inputDims.push_back(d);
  for (auto [d, extent] : llvm::enumerate(shape))
    if (extent != 1)
      resultDims.push_back(d);
  SmallVector<OpFoldResult> extents(shape.size());
  bool corresponds = inputDims.size() == resultDims.size();
  for (size_t i = 0; corresponds && i < resultDims.size(); ++i) {
    int64_t in = type.getDimSize(inputDims[i]), out = shape[resultDims[i]];
    corresponds = in == out;
    extents[resultDims[i]] = extentOf(builder, loc, value, inputDims[i]);
  }
  if (!corresponds)
    return builder.create<edge::ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), value);
  return reshapeToExtents(builder, loc, value, shape, extents);
}

Value alignRank(OpBuilder &builder, Location loc, Value value, int64_t rank) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() >= rank)
    return value;
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return reshapeTo(builder, loc, value, shape);
}

FailureOr<AlignedOperands>
alignBinaryOperands(Operation *op, Value result, Value lhs, Value rhs,
                    bool (*accepts)(Type),
                    ConversionPatternRewriter &rewriter) {
  auto resultType = dyn_cast<RankedTensorType>(result.getType());
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  if (!resultType || !lhsType || !rhsType)
    return rewriter.notifyMatchFailure(op, "needs ranked operands");
  if (!accepts(lhsType.getElementType()))
    return rewriter.notifyMatchFailure(op, "no kernel for this type");
  int64_t rank = resultType.getRank();
  // Rank alignment prepends unit extents (a dynamic extent keeps its
  // size, reshapeTo).
  return AlignedOperands{resultType,
                         alignRank(rewriter, op->getLoc(), lhs, rank),
                         alignRank(rewriter, op->getLoc(), rhs, rank)};
}

Value splatConstant(OpBuilder &builder, Location loc, Type elementType,
                    int64_t rank, double value) {
  auto type = RankedTensorType::get(SmallVector<int64_t>(rank, 1), elementType);
  auto floatType = cast<FloatType>(elementType);
  return builder.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(
               type, builder.getFloatAttr(floatType, value).getValue()));
}

std::optional<std::vector<int64_t>> constantInts8(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = dyn_cast<IntegerType>(attr.getElementType());
  if (!type || type.getWidth() != 8)
    return std::nullopt;
  bool isUnsigned = type.isUnsigned();
  std::vector<int64_t> values;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(isUnsigned ? v.getZExtValue() : v.getSExtValue());
    return values;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob ||
      static_cast<int64_t>(blob->getData().size()) != resource.getNumElements())
    return std::nullopt;
  for (char c : blob->getData())
    values.push_back(isUnsigned ? static_cast<uint8_t>(c)
                                : static_cast<int8_t>(c));
  return values;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto intType = dyn_cast<IntegerType>(attr.getElementType());
  if (!intType || (intType.getWidth() != 32 && intType.getWidth() != 64))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr))
    return llvm::map_to_vector(dense.getValues<APInt>(),
                               [](const APInt &v) { return v.getSExtValue(); });
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  int64_t bytes = intType.getWidth() / 8;
  if (static_cast<int64_t>(data.size()) != attr.getNumElements() * bytes)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (int64_t i = 0, n = attr.getNumElements(); i < n; ++i) {
    if (bytes == 8) {
      int64_t v;
      std::memcpy(&v, data.data() + i * 8, 8);
      values.push_back(v);
    } else {
      int32_t v;
      std::memcpy(&v, data.data() + i * 4, 4);
      values.push_back(v);
    }
  }
  return values;
}

std::optional<SmallVector<double>> getConstantFloats(Value value) {
  return strata::hl::getConstantFloatValues(value);
}

/// The spatial pads (ONNX order: begins, then ends) of a 4-d hl.pad of
/// zeros on H and W only, which an average pool that counts padding
/// or a convolution can take over; none for any other pad.
std::optional<SmallVector<int64_t>> spatialZeroPads(hl::PadOp pad) {
  std::optional<SmallVector<int64_t>> pads =
      hl::getConstantIntValues(pad.getPads());
  auto type = dyn_cast<RankedTensorType>(pad.getData().getType());
  if (!pads || !type || type.getRank() != 4 || pads->size() != 8 ||
      pad.getMode() != "constant")
    return std::nullopt;
  if (Value value = pad.getConstantValue()) {
    std::optional<double> fill = getConstantScalar(value);
    if (!fill || *fill != 0.0)
      return std::nullopt;
  }
  const SmallVector<int64_t> &p = *pads;
  if (p[0] || p[1] || p[4] || p[5] ||
      llvm::any_of(p, [](int64_t v) { return v < 0; }))
    return std::nullopt;
  return SmallVector<int64_t>{p[2], p[3], p[6], p[7]};
}

std::optional<double> getConstantScalar(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || !attr.getElementType().isF32() || blob->getData().size() != 4)
    return std::nullopt;
  float v;
  std::memcpy(&v, blob->getData().data(), 4);
  return v;
}

FailureOr<Window> resolveWindow(ArrayRef<int64_t> spatial,
                                ArrayRef<int64_t> kernel,
                                std::optional<ArrayRef<int64_t>> strides,
                                std::optional<ArrayRef<int64_t>> dilations,
                                std::optional<ArrayRef<int64_t>> pads,
                                StringRef autoPad) {
  size_t rank = spatial.size();
  if (kernel.size() != rank)
    return failure();
  Window window;
  window.kernel.assign(kernel.begin(), kernel.end());
  window.strides =
      strides ? SmallVector<int64_t>(*strides) : SmallVector<int64_t>(rank, 1);
  window.dilations = dilations ? SmallVector<int64_t>(*dilations)
                               : SmallVector<int64_t>(rank, 1);
  if (window.strides.size() != rank || window.dilations.size() != rank)
    return failure();
  if (autoPad == "NOTSET") {
    window.pads =
        pads ? SmallVector<int64_t>(*pads) : SmallVector<int64_t>(2 * rank, 0);
    if (window.pads.size() != 2 * rank)
      return failure();
    return window;
  }
  window.pads.assign(2 * rank, 0);
  if (autoPad == "VALID")
    return window;
  // SAME_UPPER / SAME_LOWER: output = ceil(input / stride); the odd pad goes
  // to the end (upper) or the beginning (lower), as the ONNX spec states.
  for (size_t i = 0; i < rank; ++i) {
    int64_t out = (spatial[i] + window.strides[i] - 1) / window.strides[i];
    int64_t span = (window.kernel[i] - 1) * window.dilations[i] + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * window.strides[i] + span - spatial[i]);
    int64_t small = total / 2, large = total - small;
    window.pads[i] = autoPad == "SAME_LOWER" ? large : small;
    window.pads[rank + i] = autoPad == "SAME_LOWER" ? small : large;
  }
  return window;
}

Window liftWindowTo2D(const Window &window) {
  if (window.kernel.size() != 1)
    return window;
  Window lifted;
  lifted.kernel = {1, window.kernel[0]};
  lifted.strides = {1, window.strides[0]};
  lifted.dilations = {1, window.dilations[0]};
  lifted.pads = {0, window.pads[0], 0, window.pads[1]};
  return lifted;
}

} // namespace strata::hl_to_edge
