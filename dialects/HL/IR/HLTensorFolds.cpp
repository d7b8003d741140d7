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

/// Element `flat` of a row-major tensor of `shape`, as its coordinates.
static SmallVector<int64_t> coordinatesOf(int64_t flat,
                                          ArrayRef<int64_t> shape) {
  SmallVector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = flat % shape[d];
    flat /= shape[d];
  }
  return at;
}

/// The row-major offset of `at` in a tensor of `shape`.
static int64_t offsetOf(ArrayRef<int64_t> at, ArrayRef<int64_t> shape) {
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    offset = offset * shape[d] + at[d];
  return offset;
}

// Any rank: F.pad's pad-list reversal slices a [k, 2] shape tensor with
// step -1 along axis 0.
OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto starts = denseInts(adaptor.getStarts());
  auto ends = denseInts(adaptor.getEnds());
  auto axes = denseInts(adaptor.getAxes());
  auto steps = denseInts(adaptor.getSteps());
  if (!resultType || !data || !starts || !ends || !axes || !steps ||
      starts->size() != ends->size() || starts->size() != axes->size() ||
      starts->size() != steps->size() || !isFoldableSize(data.getType()))
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> first(rank, 0), step(rank, 1), count(shape);
  for (size_t k = 0; k < starts->size(); ++k) {
    int64_t axis = (*axes)[k].getSExtValue();
    if (axis < 0)
      axis += rank;
    int64_t st = (*steps)[k].getSExtValue();
    if (axis < 0 || axis >= rank || st == 0)
      return {};
    SliceAxis range = resolveSliceAxis(shape[axis], (*starts)[k].getSExtValue(),
                                       (*ends)[k].getSExtValue(), st);
    first[axis] = range.first;
    step[axis] = st;
    count[axis] = range.count;
  }
  if (ArrayRef<int64_t>(count) != resultType.getShape())
    return {};
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < resultType.getNumElements(); ++i) {
    SmallVector<int64_t> at = coordinatesOf(i, count);
    for (int64_t d = 0; d < rank; ++d)
      at[d] = first[d] + at[d] * step[d];
    values.push_back(all[offsetOf(at, shape)]);
  }
  return DenseElementsAttr::get(resultType, values);
}

// Any rank: Swin's attention mask concatenates index tuples along the last
// axis.
OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  if (!resultType || !isFoldableSize(resultType))
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t rank = shape.size(), axis = getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return {};
  SmallVector<SmallVector<Attribute>> parts;
  SmallVector<int64_t> extents;
  for (Attribute operand : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
    if (!dense || dense.getType().getRank() != rank)
      return {};
    parts.emplace_back(dense.getValues<Attribute>());
    extents.push_back(dense.getType().getShape()[axis]);
  }
  // Per slab of the dimensions before `axis`, each part's run in turn.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= shape[d];
  SmallVector<Attribute> values;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t p = 0; p < parts.size(); ++p) {
      int64_t run = extents[p] * inner;
      if (static_cast<int64_t>(parts[p].size()) != outer * run)
        return {};
      values.append(parts[p].begin() + o * run,
                    parts[p].begin() + (o + 1) * run);
    }
  if (static_cast<int64_t>(values.size()) != resultType.getNumElements())
    return {};
  return DenseElementsAttr::get(resultType, values);
}

// tf2onnx writes Pad's pads as Concat(Split(constant)). Any rank: each
// result is a run of the axis's slabs, in order.
LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  // The importer keeps initializers of 64 bytes and more as resources; a
  // small integer one (the pads) is read from its blob.
  auto inputType = dyn_cast<RankedTensorType>(getInput().getType());
  auto integer = inputType ? dyn_cast<IntegerType>(inputType.getElementType())
                           : IntegerType();
  if (!data && integer && inputType.hasStaticShape())
    if (std::optional<SmallVector<int64_t>> ints = getConstantInts(getInput()))
      if (static_cast<int64_t>(ints->size()) == inputType.getNumElements())
        data = DenseElementsAttr::get(
            inputType, llvm::map_to_vector(*ints, [&](int64_t v) {
              return APInt(integer.getWidth(), v, /*isSigned=*/true);
            }));
  if (!data || !isFoldableSize(data.getType()))
    return failure();
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t rank = shape.size(), axis = getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return failure();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= shape[d];
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<OpFoldResult> folded;
  int64_t offset = 0;
  for (Value output : getOutputs()) {
    auto type = dyn_cast<RankedTensorType>(output.getType());
    if (!type || !type.hasStaticShape() || type.getRank() != rank)
      return failure();
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && type.getShape()[d] != shape[d])
        return failure();
    int64_t extent = type.getShape()[axis];
    if (offset + extent > shape[axis])
      return failure();
    SmallVector<Attribute> values;
    for (int64_t o = 0; o < outer; ++o) {
      auto begin = all.begin() + (o * shape[axis] + offset) * inner;
      values.append(begin, begin + extent * inner);
    }
    folded.push_back(DenseElementsAttr::get(type, values));
    offset += extent;
  }
  if (offset != shape[axis])
    return failure();
  results.append(folded.begin(), folded.end());
  return success();
}

// numpy broadcasting of a constant to the static result shape.
OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!resultType || !data || !isFoldableSize(resultType))
    return {};
  if (data.isSplat())
    return data.resizeSplat(resultType);
  ArrayRef<int64_t> in = data.getType().getShape(), out = resultType.getShape();
  int64_t rank = out.size(), offset = rank - static_cast<int64_t>(in.size());
  if (offset < 0)
    return {};
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d)
    if (in[d] != 1 && in[d] != out[d + offset])
      return {};
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<Attribute> values;
  SmallVector<int64_t> at(in.size());
  for (int64_t i = 0; i < resultType.getNumElements(); ++i) {
    SmallVector<int64_t> o = coordinatesOf(i, out);
    for (size_t d = 0; d < in.size(); ++d)
      at[d] = in[d] == 1 ? 0 : o[d + offset];
    values.push_back(all[offsetOf(at, in)]);
  }
  return DenseElementsAttr::get(resultType, values);
}

// Constant data, indices and updates, without a reduction: the data with
// each indexed slice replaced (Swin's shifted-window mask).
OpFoldResult ScatterNDOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto indices = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getIndices());
  auto updates = dyn_cast_or_null<DenseElementsAttr>(adaptor.getUpdates());
  if (!resultType || !data || !indices || !updates ||
      getReduction() != "none" || data.getType() != resultType ||
      !isFoldableSize(resultType) || !isFoldableSize(updates.getType()))
    return {};
  ArrayRef<int64_t> shape = resultType.getShape(),
                    indexShape = indices.getType().getShape();
  if (indexShape.empty())
    return {};
  int64_t k = indexShape.back(), rank = shape.size();
  if (k < 1 || k > rank)
    return {};
  int64_t slice = 1;
  for (int64_t d = k; d < rank; ++d)
    slice *= shape[d];
  int64_t tuples = indices.getNumElements() / k;
  if (updates.getNumElements() != tuples * slice)
    return {};
  SmallVector<Attribute> values(data.getValues<Attribute>());
  SmallVector<Attribute> fresh(updates.getValues<Attribute>());
  SmallVector<int64_t> index(indices.getValues<int64_t>());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t i = index[t * k + d];
      if (i < 0)
        i += shape[d];
      if (i < 0 || i >= shape[d])
        return {};
      base = base * shape[d] + i;
    }
    std::copy(fresh.begin() + t * slice, fresh.begin() + (t + 1) * slice,
              values.begin() + base * slice);
  }
  return DenseElementsAttr::get(resultType, values);
}

// Zero pads are the identity (PyTorch writes AvgPool2d(2, 2) with
// count_include_pad as a Pad of zeros before the AveragePool).
OpFoldResult PadOp::fold(FoldAdaptor) {
  // The importer keeps initializers as resources: read them through the
  // value.
  auto pads = getConstantIntValues(getPads());
  if (!pads || getData().getType() != getType() ||
      llvm::any_of(*pads, [](int64_t p) { return p != 0; }))
    return {};
  return getData();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  if (!resultType || !data || !isFoldableSize(data.getType()))
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> given = getPerm())
    perm.assign(given->begin(), given->end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if (static_cast<int64_t>(perm.size()) != rank)
    return {};
  if (data.isSplat())
    return data.resizeSplat(resultType);
  SmallVector<Attribute> all(data.getValues<Attribute>());
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < resultType.getNumElements(); ++i) {
    SmallVector<int64_t> out = coordinatesOf(i, resultType.getShape());
    SmallVector<int64_t> in(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (perm[d] < 0 || perm[d] >= rank)
        return {};
      in[perm[d]] = out[d];
    }
    values.push_back(all[offsetOf(in, shape)]);
  }
  return DenseElementsAttr::get(resultType, values);
}

/// Gather of static extents from the shape of a value whose other extents
/// may be dynamic: Shape(x)[-1] of x : [?, ?, 192] is 192.
static OpFoldResult foldGatherOfShape(GatherOp op, ArrayRef<APInt> indices) {
  auto shape = op.getData().getDefiningOp<ShapeOp>();
  RankedTensorType resultType = staticResultType(op);
  auto type = shape ? dyn_cast<RankedTensorType>(shape.getData().getType())
                    : RankedTensorType();
  if (!type || !resultType || op.getAxis() != 0 ||
      !resultType.getElementType().isInteger(64))
    return {};
  int64_t rank = type.getRank();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(shape.getStart());
  int64_t end = shape.getEnd() ? clampIndex(*shape.getEnd()) : rank;
  int64_t n = std::max<int64_t>(end - start, 0);
  SmallVector<int64_t> values;
  for (const APInt &index : indices) {
    int64_t i = index.getSExtValue();
    if (i < 0)
      i += n;
    if (i < 0 || i >= n || type.isDynamicDim(start + i))
      return {};
    values.push_back(type.getDimSize(start + i));
  }
  if (static_cast<int64_t>(values.size()) != resultType.getNumElements())
    return {};
  return DenseIntElementsAttr::get(resultType, values);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto indices = denseInts(adaptor.getIndices());
  if (!data && indices)
    if (OpFoldResult folded = foldGatherOfShape(*this, *indices))
      return folded;
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
  // A ranked squeeze that keeps the type removed nothing; unranked types
  // say nothing of what it removes.
  if (getData().getType() == getType() && isa<RankedTensorType>(getType()))
    return getData();
  return reshapeConstant(*this, adaptor.getData());
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(*this, adaptor.getData());
}

OpFoldResult strata::hl::detail::foldIntBinary(
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

/// Folds a binary op with boolean results over integer constants (equal
/// shapes, or one a splat): `fn` of each pair of elements.
static OpFoldResult
foldToBool(Operation *op, Attribute lhs, Attribute rhs,
           llvm::function_ref<bool(const APInt &, const APInt &)> fn) {
  RankedTensorType resultType = staticResultType(op);
  auto l = dyn_cast_or_null<DenseIntElementsAttr>(lhs);
  auto r = dyn_cast_or_null<DenseIntElementsAttr>(rhs);
  if (!resultType || !l || !r || !strata::isFoldableSize(resultType))
    return {};
  int64_t n = resultType.getNumElements();
  SmallVector<bool> values;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<Attribute> a = elementAt(l, n, i), b = elementAt(r, n, i);
    if (!a || !b)
      return {};
    values.push_back(
        fn(cast<IntegerAttr>(*a).getValue(), cast<IntegerAttr>(*b).getValue()));
  }
  return DenseElementsAttr::get(resultType, values);
}

// Equal and Where on constants: PyTorch exports expand(n, -1, -1) as
// Where(Equal(shape, -1), ones, shape) over constant shapes.
OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldToBool(*this, adaptor.getLhs(), adaptor.getRhs(),
                    [](const APInt &a, const APInt &b) { return a == b; });
}

/// Folds an ordering of integer constants (shape tests: exporters compare
/// extents before an If); `fn` compares as signed, unsigned operands are
/// compared with their sign bits flipped, which orders them the same way.
static OpFoldResult
foldIntCompare(Operation *op, Attribute lhs, Attribute rhs,
               llvm::function_ref<bool(const APInt &, const APInt &)> fn) {
  auto l = dyn_cast_or_null<DenseIntElementsAttr>(lhs);
  bool isUnsigned = l && l.getElementType().isUnsignedInteger();
  return foldToBool(op, lhs, rhs, [&](const APInt &x, const APInt &y) {
    if (!isUnsigned)
      return fn(x, y);
    return fn(x ^ APInt::getSignMask(x.getBitWidth()),
              y ^ APInt::getSignMask(y.getBitWidth()));
  });
}

OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldIntCompare(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b) { return a.slt(b); });
}
OpFoldResult LessOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldIntCompare(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b) { return a.sle(b); });
}
OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldIntCompare(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b) { return a.sgt(b); });
}
OpFoldResult GreaterOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldIntCompare(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b) { return a.sge(b); });
}

/// Folds a logical op over boolean constants (conditions built from shape
/// tests).
static OpFoldResult foldBoolBinary(Operation *op, Attribute lhs, Attribute rhs,
                                   llvm::function_ref<bool(bool, bool)> fn) {
  return foldToBool(op, lhs, rhs, [&](const APInt &a, const APInt &b) {
    return fn(!a.isZero(), !b.isZero());
  });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](bool a, bool b) { return a && b; });
}
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](bool a, bool b) { return a || b; });
}
OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](bool a, bool b) { return a != b; });
}

OpFoldResult BitwiseAndOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a & b; });
}
OpFoldResult BitwiseOrOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a | b; });
}
OpFoldResult BitwiseXorOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &a, const APInt &b) { return a ^ b; });
}

OpFoldResult BitwiseNotOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto input = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  if (!resultType || !input || !isFoldableSize(resultType) ||
      input.getNumElements() != resultType.getNumElements())
    return {};
  SmallVector<APInt> values;
  for (const APInt &v : input.getValues<APInt>())
    values.push_back(~v);
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto input = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  if (!resultType || !input || !isFoldableSize(resultType) ||
      input.getNumElements() != resultType.getNumElements())
    return {};
  SmallVector<bool> values;
  for (const APInt &v : input.getValues<APInt>())
    values.push_back(v.isZero());
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
    std::optional<Attribute> v = cast<IntegerAttr>(*pick).getValue().isZero()
                                     ? elementAt(y, n, i)
                                     : elementAt(x, n, i);
    if (!v)
      return {};
    values.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult folded =
          foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](const APInt &a, const APInt &b) { return a + b; }))
    return folded;
  return foldFloatBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                         [](APFloat &a, const APFloat &b) {
                           return a.add(b, APFloat::rmNearestTiesToEven);
                         });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult folded =
          foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](const APInt &a, const APInt &b) { return a - b; }))
    return folded;
  return foldFloatBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                         [](APFloat &a, const APFloat &b) {
                           return a.subtract(b, APFloat::rmNearestTiesToEven);
                         });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult folded =
          foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                        [](const APInt &a, const APInt &b) { return a * b; }))
    return folded;
  return foldFloatBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                         [](APFloat &a, const APFloat &b) {
                           return a.multiply(b, APFloat::rmNearestTiesToEven);
                         });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getElementTypeOrSelf(getType()).isUnsignedInteger();
  if (OpFoldResult folded = foldIntBinary(
          *this, adaptor.getLhs(), adaptor.getRhs(),
          [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
            if (b.isZero())
              return std::nullopt;
            return isUnsigned ? a.udiv(b) : a.sdiv(b);
          }))
    return folded;
  return foldFloatBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                         [](APFloat &a, const APFloat &b) {
                           return a.divide(b, APFloat::rmNearestTiesToEven);
                         });
}

// Integer Mod: with fmod = 0 the result takes the divisor's sign (Python's
// %), with fmod = 1 the dividend's (C's fmod).
OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getElementTypeOrSelf(getType()).isUnsignedInteger();
  bool cStyle = getFmod() != 0;
  return foldIntBinary(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        if (isUnsigned)
          return a.urem(b);
        APInt r = a.srem(b);
        if (!cStyle && !r.isZero() && r.isNegative() != b.isNegative())
          r += b;
        return r;
      });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = staticResultType(*this);
  auto input = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  if (!resultType || !input || !isa<IntegerType>(resultType.getElementType()))
    return foldFloatNeg(*this, adaptor.getInput());
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
