//===- EdgeFolds.cpp - constant folding of edge elementwise ops -----------===//
//
// Elementwise ops on f32 constants fold (BatchNormalization's coefficients,
// Gemm's scaled bias, LayerNorm's epsilon), with the edge broadcasting rule:
// equal ranks, each operand extent equal to the result's or 1; so do casts
// of integer constants to f32. A multiplication or division by a broadcast
// 1 folds to its other operand.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Support/Limits.h"
#include "strata/Support/ResourceKey.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace strata::edge;
using strata::isFoldableSize;

namespace strata::edge {

std::optional<ArrayRef<char>> getRawConstantData(Attribute attr) {
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(attr)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
    return std::nullopt;
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.isSplat() || dense.getElementType().isInteger(1))
    return std::nullopt;
  return dense.getRawData();
}

std::optional<std::vector<float>> readF32Constant(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements || !elements.getElementType().isF32())
    return std::nullopt;
  int64_t count = elements.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return std::vector<float>(count, dense.getSplatValue<float>());
  std::optional<ArrayRef<char>> raw = getRawConstantData(attr);
  if (!raw || static_cast<int64_t>(raw->size()) != count * 4)
    return std::nullopt;
  std::vector<float> values(count);
  std::memcpy(values.data(), raw->data(), raw->size());
  return values;
}

ElementsAttr makeF32Constant(ShapedType type, ArrayRef<float> values) {
  if (!values.empty() &&
      llvm::all_of(values, [&](float v) { return v == values.front(); }))
    return DenseElementsAttr::get(type, values.front());
  return DenseElementsAttr::get(type, values);
}

ElementsAttr makeNamedF32Constant(ShapedType type, ArrayRef<float> values,
                                  StringRef name) {
  if (values.size() <= 4096 ||
      llvm::all_of(values, [&](float v) { return v == values.front(); }))
    return makeF32Constant(type, values);
  return DenseResourceElementsAttr::get(
      type, resourceKey(name),
      HeapAsmResourceBlob::allocateAndCopyInferAlign(values));
}

} // namespace strata::edge

namespace {

/// Folds `fn` over two constant operands with edge broadcasting.
template <typename Fn>
OpFoldResult foldBinary(Operation *op, Attribute lhsAttr, Attribute rhsAttr,
                        Fn fn) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  // A fused post-op chain (strata-edge-fuse) is not folded away.
  if (!type.getElementType().isF32() || !lhsAttr || !rhsAttr ||
      !type.hasStaticShape() || op->hasAttr("post_ops"))
    return {};
  auto lhsSplat = dyn_cast<SplatElementsAttr>(lhsAttr);
  auto rhsSplat = dyn_cast<SplatElementsAttr>(rhsAttr);
  if (lhsSplat && rhsSplat && lhsSplat.getElementType().isF32() &&
      rhsSplat.getElementType().isF32())
    return DenseElementsAttr::get(type, fn(lhsSplat.getSplatValue<float>(),
                                           rhsSplat.getSplatValue<float>()));
  // A result no larger than a non-splat operand holds no more data than the
  // model already does (BatchNorm folded into a 512x512x3x3 weight); past
  // that, only results of a foldable size are materialized.
  auto storedElements = [](Attribute attr) -> int64_t {
    auto elements = dyn_cast<ElementsAttr>(attr);
    return elements && !isa<SplatElementsAttr>(attr) ? elements.getNumElements()
                                                     : 0;
  };
  if (type.getNumElements() >
          std::max(storedElements(lhsAttr), storedElements(rhsAttr)) &&
      !isFoldableSize(type))
    return {};
  std::optional<std::vector<float>> lhs = readF32Constant(lhsAttr);
  std::optional<std::vector<float>> rhs = readF32Constant(rhsAttr);
  if (!lhs || !rhs)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> lhsShape =
      cast<ShapedType>(op->getOperand(0).getType()).getShape();
  ArrayRef<int64_t> rhsShape =
      cast<ShapedType>(op->getOperand(1).getType()).getShape();
  int64_t rank = shape.size();
  // Strides of each operand, 0 along broadcast dimensions.
  auto strides = [&](ArrayRef<int64_t> in) {
    SmallVector<int64_t> result(rank, 0);
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      result[d] = in[d] == 1 && shape[d] != 1 ? 0 : stride;
      stride *= in[d];
    }
    return result;
  };
  SmallVector<int64_t> lhsStrides = strides(lhsShape);
  SmallVector<int64_t> rhsStrides = strides(rhsShape);
  std::vector<float> out(type.getNumElements());
  SmallVector<int64_t> index(rank, 0);
  for (size_t linear = 0; linear < out.size(); ++linear) {
    int64_t l = 0, r = 0;
    for (int64_t d = 0; d < rank; ++d) {
      l += index[d] * lhsStrides[d];
      r += index[d] * rhsStrides[d];
    }
    out[linear] = fn((*lhs)[l], (*rhs)[r]);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return makeF32Constant(type, out);
}

/// Whether `op` (a multiplication or a division by `one`) gives `x`
/// unchanged: `one` is a splat of 1 of x's element type with every extent 1,
/// so it broadcasts nothing onto x, and no post-op is fused. x * 1 and x / 1
/// are x exactly in IEEE arithmetic, NaNs, infinities and signed zeros
/// included. PyTorch's attention export scales by 1.0 twice per layer
/// (`scores * 1.0 + mask * 1.0`).
bool isIdentityOperand(Operation *op, Value x, Attribute one) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(one);
  if (!splat || op->hasAttr("post_ops") ||
      x.getType() != op->getResult(0).getType() ||
      splat.getElementType() != getElementTypeOrSelf(x.getType()) ||
      !llvm::all_of(splat.getType().getShape(),
                    [](int64_t extent) { return extent == 1; }))
    return false;
  if (isa<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().isExactlyValue(1.0);
  if (isa<IntegerType>(splat.getElementType()))
    return splat.getSplatValue<APInt>().isOne();
  return false;
}

template <typename Fn>
OpFoldResult foldUnary(Operation *op, Attribute inputAttr, Fn fn) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  if (!type.getElementType().isF32() || !inputAttr)
    return {};
  if (auto splat = dyn_cast<SplatElementsAttr>(inputAttr);
      splat && splat.getElementType().isF32() && type.hasStaticShape())
    return DenseElementsAttr::get(type, fn(splat.getSplatValue<float>()));
  std::optional<std::vector<float>> input = readF32Constant(inputAttr);
  if (!input)
    return {};
  for (float &value : *input)
    value = fn(value);
  return makeF32Constant(type, *input);
}

} // namespace

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getType());
  auto input = dyn_cast_or_null<ElementsAttr>(adaptor.getInput());
  auto intType =
      input ? dyn_cast<IntegerType>(input.getElementType()) : IntegerType();
  if (!type.getElementType().isF32() || !intType || intType.getWidth() == 1 ||
      intType.getWidth() % 8 != 0 || intType.getWidth() > 64 ||
      !isFoldableSize(type))
    return {};
  bool isUnsigned = intType.isUnsigned();
  auto toFloat = [&](const APInt &v) {
    return isUnsigned ? static_cast<float>(v.getZExtValue())
                      : static_cast<float>(v.getSExtValue());
  };
  int64_t count = type.getNumElements();
  std::vector<float> values;
  values.reserve(count);
  if (auto dense = dyn_cast<DenseIntElementsAttr>(input)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(toFloat(v));
  } else if (std::optional<ArrayRef<char>> raw = getRawConstantData(input)) {
    // A resource (the importer's form from 64 bytes on): little-endian
    // elements of the type's width.
    unsigned bytes = intType.getWidth() / 8;
    if (static_cast<int64_t>(raw->size()) != count * bytes)
      return {};
    for (int64_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      for (unsigned b = 0; b < bytes; ++b)
        bits |= static_cast<uint64_t>(
                    static_cast<unsigned char>((*raw)[i * bytes + b]))
                << (8 * b);
      values.push_back(toFloat(APInt(intType.getWidth(), bits)));
    }
  }
  if (static_cast<int64_t>(values.size()) != count)
    return {};
  return makeF32Constant(type, values);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](float a, float b) { return a + b; });
}
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](float a, float b) { return a - b; });
}
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isIdentityOperand(*this, getLhs(), adaptor.getRhs()))
    return getLhs();
  if (isIdentityOperand(*this, getRhs(), adaptor.getLhs()))
    return getRhs();
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](float a, float b) { return a * b; });
}
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isIdentityOperand(*this, getLhs(), adaptor.getRhs()))
    return getLhs();
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](float a, float b) { return a / b; });
}
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](float a, float b) { return std::pow(a, b); });
}
OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(),
                   [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}
OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(),
                   [](float x) { return std::tanh(x); });
}
OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(),
                   [](float x) { return std::exp(x); });
}
OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(),
                   [](float x) { return std::sqrt(x); });
}
OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(), [](float x) { return -x; });
}
OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(*this, adaptor.getInput(),
                   [](float x) { return std::fabs(x); });
}
