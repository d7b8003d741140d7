//===- HLTensorFolds.cpp - folders of the hl shape-computing ops ----------===//
//
// Exporters leave shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape) in graphs whose shapes are all static. These folders turn such
// chains into constants; the importer builds every op with createOrFold, so
// an imported model already has constant shape operands. Folders only fire
// when the result type is static, so a fold never changes a type.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "strata/Support/Limits.h"
#include "strata/Support/ShapeInference.h"

using namespace mlir;
using namespace strata::hl;
using namespace strata::hl::detail;

/// The result type of `op` when it is a static ranked tensor, else null.
static RankedTensorType staticResultType(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

/// The elements of `attr` as APInts when it is a dense integer constant.
static std::optional<SmallVector<APInt>> denseInts(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  return SmallVector<APInt>(dense.getValues<APInt>());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto inputType = dyn_cast<RankedTensorType>(getData().getType());
  RankedTensorType resultType = staticResultType(*this);
  if (!inputType || !resultType)
    return {};
  int64_t rank = inputType.getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(static_cast<int64_t>(getStart()));
  int64_t end = getEnd() ? clampIndex(static_cast<int64_t>(*getEnd())) : rank;
  SmallVector<int64_t> extents;
  for (int64_t d = start; d < end; ++d) {
    if (inputType.isDynamicDim(d))
      return {};
    extents.push_back(inputType.getDimSize(d));
  }
  if (resultType.getNumElements() != static_cast<int64_t>(extents.size()))
    return {};
  return DenseElementsAttr::get(resultType, ArrayRef<int64_t>(extents));
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto inputType = dyn_cast<RankedTensorType>(getData().getType());
  RankedTensorType resultType = staticResultType(*this);
  if (!inputType || !inputType.hasStaticShape() || !resultType)
    return {};
  return DenseElementsAttr::get(resultType, inputType.getNumElements());
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  if (!resultType || resultType.getRank() != 1 || !isFoldableSize(resultType))
    return {};
  SmallVector<Attribute> values;
  for (Attribute operand : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
    if (!dense)
      return {};
    llvm::append_range(values, dense.getValues<Attribute>());
  }
  if (static_cast<int64_t>(values.size()) != resultType.getNumElements())
    return {};
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto starts = denseInts(adaptor.getStarts());
  auto ends = denseInts(adaptor.getEnds());
  auto steps = denseInts(adaptor.getSteps());
  if (!resultType || !data || data.getType().getRank() != 1 || !starts ||
      !ends || !steps || starts->size() != 1 || !isFoldableSize(data.getType()))
    return {};
  int64_t n = data.getNumElements();
  int64_t step = (*steps)[0].getSExtValue();
  int64_t start = (*starts)[0].getSExtValue();
  int64_t end = (*ends)[0].getSExtValue();
  if (step == 0)
    return {};
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  // ONNX clamps starts/ends to [0, n] for positive steps, [-1, n-1] otherwise.
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  start = std::clamp(start, lo, hi);
  end = std::clamp(end, lo, hi);
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<Attribute> values;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
    values.push_back(all[i]);
  if (static_cast<int64_t>(values.size()) != resultType.getNumElements())
    return {};
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto indices = denseInts(adaptor.getIndices());
  if (!resultType || !data || !indices || data.getType().getRank() != 1 ||
      !isFoldableSize(data.getType()) || !isFoldableSize(resultType))
    return {};
  int64_t n = data.getNumElements();
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<Attribute> values;
  for (const APInt &index : *indices) {
    int64_t i = index.getSExtValue();
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      return {};
    values.push_back(all[i]);
  }
  if (static_cast<int64_t>(values.size()) != resultType.getNumElements())
    return {};
  return DenseElementsAttr::get(resultType, values);
}

/// Folds a constant through a shape-only change to the static result type.
static OpFoldResult reshapeConstant(Operation *op, Attribute operand) {
  RankedTensorType resultType = staticResultType(op);
  auto data = dyn_cast_or_null<DenseElementsAttr>(operand);
  if (!resultType || !data ||
      data.getNumElements() != resultType.getNumElements())
    return {};
  return data.reshape(resultType);
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getData().getType() == getType())
    return getData();
  return reshapeConstant(*this, adaptor.getData());
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(*this, adaptor.getData());
}

/// Folds an integer binary op over constants whose shapes are equal or one
/// of which is a splat (the shape-arithmetic cases); `fn` fails on division
/// by zero.
static OpFoldResult foldIntBinary(
    Operation *op, Attribute lhs, Attribute rhs,
    llvm::function_ref<std::optional<APInt>(const APInt &, const APInt &)> fn) {
  RankedTensorType resultType = staticResultType(op);
  auto l = dyn_cast_or_null<DenseIntElementsAttr>(lhs);
  auto r = dyn_cast_or_null<DenseIntElementsAttr>(rhs);
  if (!resultType || !l || !r || !isa<IntegerType>(resultType.getElementType()))
    return {};
  int64_t n = resultType.getNumElements();
  auto get = [&](DenseIntElementsAttr a, int64_t i) -> std::optional<APInt> {
    if (a.isSplat())
      return a.getSplatValue<APInt>();
    if (a.getNumElements() != n)
      return std::nullopt;
    return *(a.value_begin<APInt>() + i);
  };
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<APInt> a = get(l, i), b = get(r, i);
    if (!a || !b)
      return {};
    std::optional<APInt> v = fn(*a, *b);
    if (!v)
      return {};
    values.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, values);
}

/// Element `i` of constant `a` read for a result of `n` elements: the
/// splat value, or element `i` when `a` has `n` elements (the shape
/// arithmetic cases; other broadcasts do not fold).
static std::optional<Attribute> elementAt(DenseElementsAttr a, int64_t n,
                                          int64_t i) {
  if (a.isSplat())
    return a.getSplatValue<Attribute>();
  if (a.getNumElements() != n)
    return std::nullopt;
  return a.getValues<Attribute>()[i];
}

// Equal and Where on constants: PyTorch exports expand(n, -1, -1) as
// Where(Equal(shape, -1), ones, shape) over constant shapes.
OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto l = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getLhs());
  auto r = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getRhs());
  if (!resultType || !l || !r || !isFoldableSize(resultType))
    return {};
  int64_t n = resultType.getNumElements();
  SmallVector<bool> values;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<Attribute> a = elementAt(l, n, i), b = elementAt(r, n, i);
    if (!a || !b)
      return {};
    values.push_back(cast<IntegerAttr>(*a).getValue() ==
                     cast<IntegerAttr>(*b).getValue());
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto c = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getCondition());
  auto x = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  auto y = dyn_cast_or_null<DenseElementsAttr>(adaptor.getY());
  if (!resultType || !c || !x || !y || !isFoldableSize(resultType))
    return {};
  int64_t n = resultType.getNumElements();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<Attribute> pick = elementAt(c, n, i);
    if (!pick)
      return {};
    std::optional<Attribute> v =
        cast<IntegerAttr>(*pick).getValue().isZero() ? elementAt(y, n, i)
                                                     : elementAt(x, n, i);
    if (!v)
      return {};
    values.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getElementTypeOrSelf(getType()).isUnsignedInteger();
  return foldIntBinary(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        return isUnsigned ? a.udiv(b) : a.sdiv(b);
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto input = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  if (!resultType || !input || !isa<IntegerType>(resultType.getElementType()))
    return {};
  return input.mapValues(resultType.getElementType(),
                         [](const APInt &v) { return -v; });
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getData().getType() == getType() &&
      cast<RankedTensorType>(getType()).hasStaticShape())
    return getData();
  return reshapeConstant(*this, adaptor.getData());
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto value = dyn_cast<DenseElementsAttr>(getValue());
  if (!resultType || !value || value.getNumElements() != 1 ||
      value.getElementType() != resultType.getElementType())
    return {};
  return DenseElementsAttr::get(resultType,
                                *value.getValues<Attribute>().begin());
}

/// The scalar value of a one-element integer or float constant as a double.
static std::optional<double> scalarValue(Attribute attr) {
  if (auto ints = dyn_cast_or_null<DenseIntElementsAttr>(attr)) {
    if (ints.getNumElements() != 1)
      return std::nullopt;
    return static_cast<double>((*ints.value_begin<APInt>()).getSExtValue());
  }
  if (auto floats = dyn_cast_or_null<DenseFPElementsAttr>(attr)) {
    if (floats.getNumElements() != 1)
      return std::nullopt;
    return (*floats.value_begin<APFloat>()).convertToDouble();
  }
  return std::nullopt;
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  std::optional<double> start = scalarValue(adaptor.getStart());
  std::optional<double> limit = scalarValue(adaptor.getLimit());
  std::optional<double> delta = scalarValue(adaptor.getDelta());
  if (!resultType || resultType.getRank() != 1 || !start || !limit || !delta)
    return {};
  FailureOr<int64_t> count = strata::rangeElementCount(*start, *limit, *delta);
  if (failed(count) || *count != resultType.getDimSize(0) ||
      !isFoldableSize(resultType))
    return {};
  // ONNX defines element i as start + i * delta, computed in the element type.
  Type elementType = resultType.getElementType();
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < *count; ++i) {
    double v = *start + static_cast<double>(i) * *delta;
    if (auto intType = dyn_cast<IntegerType>(elementType))
      values.push_back(IntegerAttr::get(intType, static_cast<int64_t>(v)));
    else if (auto floatType = dyn_cast<FloatType>(elementType))
      values.push_back(FloatAttr::get(floatType, v));
    else
      return {};
  }
  return DenseElementsAttr::get(resultType, values);
}
