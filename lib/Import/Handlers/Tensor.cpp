//===- Tensor.cpp - ONNX data-movement operators to hl --------------------===//
//
// Normalisations here: Split/Slice/Pad/TopK attribute forms become constant
// operands, Slice's absent axes/steps are materialised, Scatter becomes
// ScatterElements, Upsample becomes Resize.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::importer {

/// Split: `split` attribute before opset 13, optional input after.
static LogicalResult convertSplit(NodeContext &ctx) {
  Value split = ctx.input(1);
  if (auto attr = ctx.getInts("split"))
    split = ctx.constI64(*attr);
  // The parts' extents where ONNX left them open (the input's shape came
  // through a computation its inference does not follow): the constant
  // `split`, or equal parts.
  int64_t axis = ctx.getInt("axis", 0);
  auto inputType = dyn_cast<RankedTensorType>(ctx.input(0).getType());
  if (inputType && inputType.hasStaticShape()) {
    int64_t rank = inputType.getRank();
    int64_t a = axis < 0 ? axis + rank : axis;
    std::optional<SmallVector<int64_t>> sizes;
    if (split)
      sizes = hl::getConstantIntValues(split);
    else if (a >= 0 && a < rank && ctx.numOutputs() > 0 &&
             inputType.getDimSize(a) % ctx.numOutputs() == 0)
      sizes = SmallVector<int64_t>(ctx.numOutputs(),
                                   inputType.getDimSize(a) / ctx.numOutputs());
    if (a >= 0 && a < rank && sizes && sizes->size() == ctx.numOutputs())
      for (auto [i, size] : llvm::enumerate(*sizes)) {
        SmallVector<int64_t> shape(inputType.getShape());
        shape[a] = size;
        ctx.refineOutputShape(i, shape);
      }
  }
  SmallVector<Type> types;
  for (unsigned i = 0; i < ctx.numOutputs(); ++i)
    types.push_back(ctx.outputType(i));
  SmallVector<Value> operands = {ctx.input(0)};
  if (split)
    operands.push_back(split);
  auto op = ctx.builder().create<hl::SplitOp>(
      ctx.loc(), types, operands,
      ctx.builder().getNamedAttr("axis",
                                 ctx.builder().getI64IntegerAttr(axis)));
  ctx.setOutputs(ctx.refineAndFold(op));
  return success();
}

/// The static result type of a slice when ONNX inferred none but the data
/// shape and every index operand are known.
static Type refineSliceType(Type inferred, Value data, Value starts, Value ends,
                            Value axes, Value steps) {
  auto resultType = dyn_cast<RankedTensorType>(inferred);
  auto dataType = dyn_cast<RankedTensorType>(data.getType());
  if ((resultType && resultType.hasStaticShape()) || !dataType)
    return inferred;
  auto s = hl::getConstantIntValues(starts), e = hl::getConstantIntValues(ends);
  auto a = hl::getConstantIntValues(axes), st = hl::getConstantIntValues(steps);
  if (!s || !e || !a || !st || s->size() != a->size() ||
      e->size() != a->size() || st->size() != a->size())
    return inferred;
  SmallVector<int64_t> shape(dataType.getShape());
  int64_t rank = dataType.getRank();
  for (size_t i = 0; i < a->size(); ++i) {
    int64_t axis = (*a)[i] < 0 ? (*a)[i] + rank : (*a)[i];
    if (axis < 0 || axis >= rank || (*st)[i] == 0)
      return inferred;
    int64_t n = shape[axis];
    if (ShapedType::isDynamic(n))
      continue;
    shape[axis] = resolveSliceAxis(n, (*s)[i], (*e)[i], (*st)[i]).count;
  }
  return RankedTensorType::get(shape, dataType.getElementType());
}

/// Slice: attributes before opset 10; absent axes are [0, n), steps 1.
static LogicalResult convertSlice(NodeContext &ctx) {
  Value starts, ends, axes, steps;
  size_t count = 0;
  if (ctx.opset() < 10) {
    auto s = ctx.getInts("starts"), e = ctx.getInts("ends");
    if (!s || !e)
      return ctx.emitError() << "missing starts/ends";
    starts = ctx.constI64(*s);
    ends = ctx.constI64(*e);
    count = s->size();
    if (auto a = ctx.getInts("axes"))
      axes = ctx.constI64(*a);
  } else {
    starts = ctx.input(1);
    ends = ctx.input(2);
    axes = ctx.input(3);
    steps = ctx.input(4);
    auto type = dyn_cast<RankedTensorType>(starts.getType());
    if (!type || !type.hasStaticShape())
      if (!axes || !steps)
        return ctx.emitError() << "needs static starts to materialise axes";
    count = type ? type.getNumElements() : 0;
  }
  SmallVector<int64_t> iota, ones(count, 1);
  for (size_t i = 0; i < count; ++i)
    iota.push_back(i);
  if (!axes)
    axes = ctx.constI64(iota);
  if (!steps)
    steps = ctx.constI64(ones);
  Type type = refineSliceType(ctx.outputType(0), ctx.input(0), starts, ends,
                              axes, steps);
  ctx.setOutput(0, ctx.create<hl::SliceOp>(type, ctx.input(0), starts, ends,
                                           axes, steps));
  return success();
}

/// Pad: pads/value attributes before opset 11.
static LogicalResult convertPad(NodeContext &ctx) {
  Value data = ctx.input(0);
  Value pads = ctx.input(1), value = ctx.input(2);
  if (ctx.opset() < 11) {
    auto attr = ctx.getInts("pads");
    if (!attr)
      return ctx.emitError() << "missing 'pads'";
    pads = ctx.constI64(*attr);
    value = ctx.constScalar(getElementTypeOrSelf(data.getType()),
                            ctx.getFloat("value", 0));
  }
  if (ctx.input(3))
    return ctx.emitError() << "the 'axes' input is not supported";
  SmallVector<Value> operands = {data, pads};
  if (value)
    operands.push_back(value);
  OpBuilder &b = ctx.builder();
  ctx.setOutput(0, ctx.create<hl::PadOp>(
                       ctx.outputType(0), operands,
                       b.getNamedAttr("mode", b.getStringAttr(ctx.getString(
                                                  "mode", "constant")))));
  return success();
}

/// NonZero: its count depends on the data.
static LogicalResult convertNonZero(NodeContext &ctx) {
  if (!ctx.input(0))
    return ctx.emitError() << "needs its input";
  std::optional<SmallVector<int64_t>> implied;
  if (auto input = dyn_cast<RankedTensorType>(ctx.input(0).getType()))
    implied = SmallVector<int64_t>{input.getRank(), ShapedType::kDynamic};
  ctx.setOutput(0, ctx.create<hl::NonZeroOp>(
                       ctx.valueDependentType(0, {1}, implied), ctx.input(0)));
  return success();
}

/// The shape of `value` when it is ranked: what a value-dependent op's
/// result keeps apart from its data-sized extent.
static std::optional<SmallVector<int64_t>> rankedShape(Value value) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return SmallVector<int64_t>(type.getShape());
  return std::nullopt;
}

/// Compress: the selected extent (along the axis, or of the flattened
/// input) depends on the data.
static LogicalResult convertCompress(NodeContext &ctx) {
  if (!ctx.input(0) || !ctx.input(1))
    return ctx.emitError() << "needs its input and condition";
  OpBuilder &b = ctx.builder();
  SmallVector<NamedAttribute> attrs;
  int64_t dim = 0;
  if (ctx.attr("axis")) {
    dim = ctx.getInt("axis", 0);
    attrs.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(dim)));
  }
  std::optional<SmallVector<int64_t>> implied = rankedShape(ctx.input(0));
  if (!ctx.attr("axis") && implied)
    implied = SmallVector<int64_t>{ShapedType::kDynamic};
  auto op = b.create<hl::CompressOp>(
      ctx.loc(), ctx.valueDependentType(0, {dim}, implied),
      ValueRange{ctx.input(0), ctx.input(1)}, attrs);
  ctx.setOutput(0, op);
  return success();
}

/// TopK: `k` attribute in opset 1.
static LogicalResult convertTopK(NodeContext &ctx) {
  Value k =
      ctx.opset() < 10 ? ctx.constI64({ctx.getInt("k", 0)}) : ctx.input(1);
  if (!ctx.input(0) || !k)
    return ctx.emitError() << "needs its input and k";
  OpBuilder &b = ctx.builder();
  // A k that is not a constant is read at run time: the results' extent
  // along the axis depends on it.
  bool runtimeK = k && !k.getDefiningOp<hl::ConstantOp>();
  int64_t axis = ctx.getInt("axis", -1);
  auto typeOf = [&](unsigned i) {
    return runtimeK
               ? ctx.valueDependentType(i, {axis}, rankedShape(ctx.input(0)))
               : ctx.outputType(i);
  };
  auto op = b.create<hl::TopKOp>(
      ctx.loc(), TypeRange{typeOf(0), typeOf(1)}, ValueRange{ctx.input(0), k},
      ArrayRef<NamedAttribute>{
          b.getNamedAttr("axis", b.getI64IntegerAttr(ctx.getInt("axis", -1))),
          b.getNamedAttr("largest",
                         b.getI64IntegerAttr(ctx.getInt("largest", 1))),
          b.getNamedAttr("sorted",
                         b.getI64IntegerAttr(ctx.getInt("sorted", 1)))});
  ctx.setOutputs(op.getResults());
  return success();
}

/// Whether `value` is absent or a constant with no elements (how opset 11-12
/// models leave out Resize's roi/scales).
static bool isEmpty(Value value) {
  if (!value)
    return true;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 0;
}

/// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes; 18+: antialias,
/// axes, keep_aspect_ratio_policy) and Upsample.
static LogicalResult convertResize(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  Value roi, scales, sizes;
  SmallVector<NamedAttribute> attrs;
  if (ctx.opType() == "Upsample" || ctx.opset() < 11) {
    if (ctx.opType() == "Upsample" && ctx.opset() < 9) {
      auto attr = ctx.getFloats("scales");
      if (!attr)
        return ctx.emitError() << "missing 'scales'";
      auto type = RankedTensorType::get({static_cast<int64_t>(attr->size())},
                                        b.getF32Type());
      scales = b.create<hl::ConstantOp>(
          ctx.loc(), DenseElementsAttr::get(type, ArrayRef<float>(*attr)));
    } else {
      scales = ctx.input(1);
    }
    // Opset-10 Resize and Upsample index the input as floor(out / scale).
    attrs.push_back(b.getNamedAttr("coordinate_transformation_mode",
                                   b.getStringAttr("asymmetric")));
    attrs.push_back(b.getNamedAttr("nearest_mode", b.getStringAttr("floor")));
  } else {
    roi = isEmpty(ctx.input(1)) ? Value() : ctx.input(1);
    scales = isEmpty(ctx.input(2)) ? Value() : ctx.input(2);
    sizes = isEmpty(ctx.input(3)) ? Value() : ctx.input(3);
    for (StringRef name : {"coordinate_transformation_mode", "nearest_mode",
                           "keep_aspect_ratio_policy"})
      if (ctx.attr(name))
        attrs.push_back(
            b.getNamedAttr(name, b.getStringAttr(ctx.getString(name, ""))));
    for (StringRef name : {"cubic_coeff_a", "extrapolation_value"})
      if (ctx.attr(name))
        attrs.push_back(
            b.getNamedAttr(name, b.getF32FloatAttr(ctx.getFloat(name, 0))));
    for (StringRef name : {"exclude_outside", "antialias"})
      if (ctx.attr(name))
        attrs.push_back(
            b.getNamedAttr(name, b.getI64IntegerAttr(ctx.getInt(name, 0))));
    if (std::optional<SmallVector<int64_t>> axes = ctx.getInts("axes"))
      attrs.push_back(b.getNamedAttr("axes", b.getDenseI64ArrayAttr(*axes)));
  }
  std::string mode = ctx.getString("mode", "nearest");
  if (mode == "bilinear" || mode == "trilinear")
    mode = "linear";
  attrs.push_back(b.getNamedAttr("mode", b.getStringAttr(mode)));
  SmallVector<Value> operands = {ctx.input(0)};
  for (Value v : {roi, scales, sizes})
    if (v)
      operands.push_back(v);
  attrs.push_back(b.getNamedAttr(
      "operandSegmentSizes",
      b.getDenseI32ArrayAttr({1, roi ? 1 : 0, scales ? 1 : 0, sizes ? 1 : 0})));
  ctx.setOutput(0,
                ctx.create<hl::ResizeOp>(ctx.outputType(0), operands, attrs));
  return success();
}

void populateTensorHandlers(OpTable &t) {
  t.on("Transpose", 1, generic<hl::TransposeOp>());
  t.on("Split", 2, convertSplit);
  t.on("Slice", 1, convertSlice);
  t.on("GatherElements", 11, generic<hl::GatherElementsOp>());
  t.on("GatherND", 11, generic<hl::GatherNDOp>());
  t.on("Scatter", 9, generic<hl::ScatterElementsOp>());
  t.on("ScatterElements", 11, generic<hl::ScatterElementsOp>());
  t.on("ScatterND", 11, generic<hl::ScatterNDOp>());
  t.on("Tile", 6, generic<hl::TileOp>());
  t.on("Pad", 2, convertPad);
  t.on("Range", 11, generic<hl::RangeOp>());
  t.on("DepthToSpace", 1, generic<hl::DepthToSpaceOp>());
  t.on("SpaceToDepth", 1, generic<hl::SpaceToDepthOp>());
  t.on("Trilu", 14, generic<hl::TriluOp>());
  t.on("OneHot", 9, generic<hl::OneHotOp>());
  t.on("NonZero", 9, convertNonZero);
  t.on("Compress", 9, convertCompress);
  t.on("ReverseSequence", 10, generic<hl::ReverseSequenceOp>());
  t.on("EyeLike", 9, generic<hl::EyeLikeOp>({"dtype"}));
  t.on("TopK", 1, convertTopK);
  t.on("CumSum", 11, generic<hl::CumSumOp>());
  t.on("Einsum", 12, generic<hl::EinsumOp>());
  t.on("Resize", 10, convertResize);
  t.on("Upsample", 7, convertResize);
}

} // namespace strata::importer
