//===- HLOpUtils.cpp - helpers shared by hl verifiers and folders ---------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace strata::hl::detail {

std::optional<int64_t> rankOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return std::nullopt;
  return type.getRank();
}

LogicalResult verifyAxis(Operation *op, int64_t axis,
                         std::optional<int64_t> rank, StringRef name,
                         int64_t extra) {
  if (!rank)
    return success();
  int64_t hi = *rank + extra;
  if (axis < -hi || axis >= hi)
    return op->emitOpError("'") << name << "' " << axis << " is outside ["
                                << -hi << ", " << hi - 1 << "]";
  return success();
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  if (!value)
    return std::nullopt;
  Attribute constant;
  if (!matchPattern(value, m_Constant(&constant)))
    return std::nullopt;
  SmallVector<int64_t> result;
  if (auto attr = dyn_cast<DenseIntElementsAttr>(constant)) {
    for (const APInt &v : attr.getValues<APInt>())
      result.push_back(v.getSExtValue());
    return result;
  }
  // The importer keeps initializers as resources: small i64/i32 ones
  // (pads, shapes, axes) are read from the blob.
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant);
  if (!resource || resource.getNumElements() > 4096)
    return std::nullopt;
  auto integer = dyn_cast<IntegerType>(resource.getElementType());
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!integer || !blob || (integer.getWidth() != 64 && integer.getWidth() != 32))
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  size_t width = integer.getWidth() / 8;
  if (data.size() != resource.getNumElements() * width)
    return std::nullopt;
  for (size_t i = 0; i < data.size(); i += width) {
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, data.data() + i, 8);
      result.push_back(v);
    } else {
      int32_t v;
      std::memcpy(&v, data.data() + i, 4);
      result.push_back(v);
    }
  }
  return result;
}

LogicalResult verifyWindowOp(Operation *op, Value input, StringRef autoPad,
                             ArrayRef<int64_t> kernelShape,
                             std::optional<ArrayRef<int64_t>> strides,
                             std::optional<ArrayRef<int64_t>> dilations,
                             std::optional<ArrayRef<int64_t>> pads) {
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"},
                          autoPad))
    return op->emitOpError("'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER "
                           "or VALID, got '")
           << autoPad << "'";
  if (autoPad != "NOTSET" && pads)
    return op->emitOpError("'pads' cannot be given with auto_pad = ")
           << autoPad;
  std::optional<int64_t> rank = rankOf(input);
  if (!rank)
    return success();
  if (*rank < 3)
    return op->emitOpError("input must have rank >= 3 ([N, C, D1, ...]), got ")
           << *rank;
  return verifyWindowAttributes([&] { return op->emitOpError(); }, *rank - 2,
                                kernelShape, strides.value_or(std::nullopt),
                                dilations.value_or(std::nullopt),
                                pads.value_or(std::nullopt));
}

LogicalResult verifyWindowOpInterface(Operation *op) {
  auto window = cast<WindowOpInterface>(op);
  if (failed(verifyWindowOp(op, window.getWindowInput(),
                            window.getWindowAutoPad(),
                            window.getWindowKernelShape(),
                            window.getWindowStrides(),
                            window.getWindowDilations(), window.getWindowPads())))
    return failure();
  if (window.getWindowGroup() < 1)
    return op->emitOpError("'group' must be positive, got ")
           << window.getWindowGroup();
  return success();
}

LogicalResult verifyRank(Operation *op, Value value, int64_t rank,
                         StringRef what) {
  std::optional<int64_t> actual = rankOf(value);
  if (actual && *actual != rank)
    return op->emitOpError()
           << what << " must have rank " << rank << ", got " << *actual;
  return success();
}

} // namespace strata::hl::detail

#include "HL/IR/HLInterfaces.cpp.inc"

std::optional<SmallVector<int64_t>>
strata::hl::getConstantIntValues(Value value) {
  return detail::getConstantInts(value);
}

std::optional<SmallVector<double>>
strata::hl::getConstantFloatValues(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    return llvm::map_to_vector(
        dense.getValues<APFloat>(),
        [](const APFloat &v) { return v.convertToDouble(); });
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || !attr.getElementType().isF32() ||
      static_cast<int64_t>(blob->getData().size()) != attr.getNumElements() * 4)
    return std::nullopt;
  SmallVector<double> values;
  for (int64_t i = 0, n = attr.getNumElements(); i < n; ++i) {
    float v;
    std::memcpy(&v, blob->getData().data() + i * 4, 4);
    values.push_back(v);
  }
  return values;
}
