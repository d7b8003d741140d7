//===- Shape.cpp - ONNX constants and shape operators to hl ---------------===//
//
// Constant nodes, Shape/Size, Reshape, Flatten, Squeeze/Unsqueeze, Concat,
// Gather and Expand: the ops of exporters' shape arithmetic. Where ONNX
// shape inference left a result without a static shape, these handlers
// compute it. Every op is built with
// createOrFold, so static shape chains become constants during import.
// Normalisations: Reshape-1 and Squeeze/Unsqueeze before 13 take their
// shape/axes from attributes, which become constant operands.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace strata::importer {

/// The static shape of `value`, if it has one.
static std::optional<ArrayRef<int64_t>> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

/// Constant: one of value (tensor), value_float(s), value_int(s).
static LogicalResult convertConstant(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  Value result;
  if (ctx.attr("value")) {
    FailureOr<Value> value = ctx.constFromTensorAttr("value");
    if (failed(value))
      return failure();
    result = *value;
  } else if (ctx.attr("value_float")) {
    result = ctx.constScalar(b.getF32Type(), ctx.getFloat("value_float", 0));
  } else if (ctx.attr("value_int")) {
    result = ctx.constI64({ctx.getInt("value_int", 0)}, /*scalar=*/true);
  } else if (auto ints = ctx.getInts("value_ints")) {
    result = ctx.constI64(*ints);
  } else if (auto floats = ctx.getFloats("value_floats")) {
    auto type = RankedTensorType::get({static_cast<int64_t>(floats->size())},
                                      b.getF32Type());
    result = b.create<hl::ConstantOp>(
        ctx.loc(), DenseElementsAttr::get(type, ArrayRef<float>(*floats)));
  } else {
    return ctx.emitError() << "only tensor, float and int constants are "
                              "supported (no sparse or string constants)";
  }
  ctx.setOutput(0, result);
  return success();
}

/// Reshape; opset 1 carries the shape as an attribute.
static LogicalResult convertReshape(NodeContext &ctx) {
  Value shape = ctx.input(1);
  if (ctx.opset() < 5) {
    auto attr = ctx.getInts("shape");
    if (!attr)
      return ctx.emitError() << "missing 'shape' attribute";
    shape = ctx.constI64(*attr);
  }
  auto input = staticShape(ctx.input(0));
  auto target = hl::getConstantIntValues(shape);
  bool allowZero = ctx.getInt("allowzero", 0) != 0;
  if (input && target) {
    auto result = inferReshapeShape(*input, *target, allowZero);
    if (succeeded(result))
      ctx.refineOutputShape(0, *result);
  }
  ctx.setOutput(
      0, ctx.create<hl::ReshapeOp>(
             ctx.outputType(0), ctx.input(0), shape,
             ctx.builder().getI64IntegerAttr(ctx.getInt("allowzero", 0))));
  return success();
}

/// Flatten (axis is signed).
static LogicalResult convertFlatten(NodeContext &ctx) {
  ctx.setOutput(0, ctx.create<hl::FlattenOp>(
                       ctx.outputType(0), ctx.input(0),
                       getSI64Attr(ctx.builder(), ctx.getInt("axis", 1))));
  return success();
}

/// Squeeze and Unsqueeze: `axes` attribute before opset 13, input after.
template <typename OpTy> static LogicalResult convertSqueeze(NodeContext &ctx) {
  Value axes = ctx.input(1);
  if (auto attr = ctx.getInts("axes"))
    axes = ctx.constI64(*attr);
  SmallVector<Value> operands = {ctx.input(0)};
  if (axes)
    operands.push_back(axes);
  else if (std::is_same_v<OpTy, hl::UnsqueezeOp>)
    return ctx.emitError() << "missing axes";
  auto input = staticShape(ctx.input(0));
  auto axisValues = hl::getConstantIntValues(axes);
  if (input && (axisValues || !axes)) {
    FailureOr<SmallVector<int64_t>> result =
        std::is_same_v<OpTy, hl::UnsqueezeOp>
            ? inferUnsqueezeShape(*input, *axisValues)
            : inferSqueezeShape(
                  *input, axisValues
                              ? std::optional<ArrayRef<int64_t>>(*axisValues)
                              : std::nullopt);
    if (succeeded(result))
      ctx.refineOutputShape(0, *result);
  }
  ctx.setOutput(0, ctx.create<OpTy>(ctx.outputType(0), operands,
                                    ArrayRef<NamedAttribute>{}));
  return success();
}

/// ConstantOfShape: the fill value defaults to a float 0.
static LogicalResult convertConstantOfShape(NodeContext &ctx) {
  ElementsAttr value;
  if (ctx.attr("value")) {
    FailureOr<Value> constant = ctx.constFromTensorAttr("value");
    if (failed(constant))
      return failure();
    auto op = constant->getDefiningOp<hl::ConstantOp>();
    value = op.getValue();
    op.erase();
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.builder().getF32Type()), 0.0f);
  }
  ctx.setOutput(
      0, ctx.create<hl::ConstantOfShapeOp>(
             ctx.outputType(0, value.getElementType()), ctx.input(0), value));
  return success();
}

/// Shape: the result has end - start entries.
static LogicalResult convertShape(NodeContext &ctx) {
  if (auto type = dyn_cast<RankedTensorType>(ctx.input(0).getType())) {
    int64_t rank = type.getRank();
    auto clampIndex = [&](int64_t i) {
      return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
    };
    int64_t start = clampIndex(ctx.getInt("start", 0));
    int64_t end = clampIndex(ctx.getInt("end", rank));
    ctx.refineOutputShape(0, {std::max<int64_t>(end - start, 0)});
  }
  return ctx.convertGeneric(hl::ShapeOp::getOperationName());
}

/// Concat of static shapes.
static LogicalResult convertConcat(NodeContext &ctx) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : ctx.presentInputs()) {
    auto shape = staticShape(v);
    if (!shape)
      return ctx.convertGeneric(hl::ConcatOp::getOperationName());
    shapes.emplace_back(*shape);
  }
  auto result = inferConcatShape(shapes, ctx.getInt("axis", 0));
  if (succeeded(result))
    ctx.refineOutputShape(0, *result);
  return ctx.convertGeneric(hl::ConcatOp::getOperationName());
}

/// Gather of static shapes.
static LogicalResult convertGather(NodeContext &ctx) {
  auto data = staticShape(ctx.input(0));
  auto indices = staticShape(ctx.input(1));
  if (data && indices) {
    auto result = inferGatherShape(*data, *indices, ctx.getInt("axis", 0));
    if (succeeded(result))
      ctx.refineOutputShape(0, *result);
  }
  return ctx.convertGeneric(hl::GatherOp::getOperationName());
}

void populateShapeHandlers(OpTable &t) {
  t.on("Concat", 4, convertConcat);
  t.on("Gather", 1, convertGather);
  t.on("Constant", 1, convertConstant);
  t.on("Shape", 1, convertShape);
  t.on("Size", 1, generic<hl::SizeOp>());
  t.on("Reshape", 1, convertReshape);
  t.on("Flatten", 1, convertFlatten);
  t.on("Squeeze", 1, convertSqueeze<hl::SqueezeOp>);
  t.on("Unsqueeze", 1, convertSqueeze<hl::UnsqueezeOp>);
  t.on("Expand", 8, generic<hl::ExpandOp>());
  t.on("ConstantOfShape", 9, convertConstantOfShape);
}

} // namespace strata::importer
