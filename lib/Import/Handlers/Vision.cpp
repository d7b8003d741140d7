//===- Vision.cpp - ONNX detection, sampling and set operators to hl ------===//
//
// Normalisations: NonMaxSuppression's absent max_output_boxes_per_class and
// iou_threshold become constants with ONNX's defaults; Unique always has its
// four results; RoiAlign before opset 16, which had no
// coordinate_transformation_mode and sampled as output_half_pixel does,
// states that mode (hl's default is opset 16's half_pixel).
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace strata::importer {

static LogicalResult convertNMS(NodeContext &ctx) {
  if (!ctx.input(0) || !ctx.input(1))
    return ctx.emitError() << "needs its boxes and scores";
  OpBuilder &b = ctx.builder();
  Value maxBoxes = ctx.input(2) ? ctx.input(2) : ctx.constI64({0});
  Value iou = ctx.input(3);
  if (!iou)
    iou = ctx.constScalar(b.getF32Type(), 0.0);
  SmallVector<Value> operands = {ctx.input(0), ctx.input(1), maxBoxes, iou};
  if (Value score = ctx.input(4))
    operands.push_back(score);
  ctx.setOutput(
      0, ctx.create<hl::NonMaxSuppressionOp>(
             ctx.valueDependentType(
                 0, {0}, SmallVector<int64_t>{ShapedType::kDynamic, 3}),
             operands,
             b.getNamedAttr("center_point_box", b.getI64IntegerAttr(ctx.getInt(
                                                    "center_point_box", 0)))));
  return success();
}

static LogicalResult convertUnique(NodeContext &ctx) {
  if (!ctx.input(0))
    return ctx.emitError() << "needs its input";
  OpBuilder &b = ctx.builder();
  auto indexType =
      RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type());
  // The distinct count depends on the data: values (along the axis),
  // first indices and counts.
  // With a ranked input, the shapes it implies: values keep the other
  // extents, the inverse indices have one entry per element (or slice).
  auto input = dyn_cast<RankedTensorType>(ctx.input(0).getType());
  bool hasAxis = ctx.attr("axis") != nullptr;
  int64_t axis = ctx.getInt("axis", 0);
  std::optional<SmallVector<int64_t>> values, perDistinct, perSlice;
  if (input) {
    int64_t dim = axis < 0 ? axis + input.getRank() : axis;
    values = hasAxis ? SmallVector<int64_t>(input.getShape())
                     : SmallVector<int64_t>{ShapedType::kDynamic};
    perDistinct = SmallVector<int64_t>{ShapedType::kDynamic};
    int64_t slices = !hasAxis ? (input.hasStaticShape() ? input.getNumElements()
                                                        : ShapedType::kDynamic)
                     : dim >= 0 && dim < input.getRank() ? input.getDimSize(dim)
                                                         : ShapedType::kDynamic;
    perSlice = SmallVector<int64_t>{slices};
  }
  SmallVector<Type> types = {
      ctx.valueDependentType(0, {hasAxis ? axis : 0}, values)};
  for (unsigned i = 1; i < 4; ++i)
    types.push_back(
        !ctx.hasOutput(i) ? Type(indexType)
        : i == 2
            ? (perSlice ? Type(RankedTensorType::get(*perSlice, b.getI64Type()))
                        : ctx.outputType(i))
            : ctx.valueDependentType(i, {0}, perDistinct));
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("sorted", b.getI64IntegerAttr(ctx.getInt("sorted", 1)))};
  if (ctx.attr("axis"))
    attrs.push_back(
        b.getNamedAttr("axis", b.getI64IntegerAttr(ctx.getInt("axis", 0))));
  auto op = b.create<hl::UniqueOp>(ctx.loc(), types, ctx.input(0), attrs);
  ctx.setOutputs(op.getResults());
  return success();
}

static LogicalResult convertRoiAlign(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  std::string transform =
      ctx.getString("coordinate_transformation_mode",
                    ctx.opset() < 16 ? "output_half_pixel" : "half_pixel");
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("coordinate_transformation_mode",
                     b.getStringAttr(transform)),
      b.getNamedAttr("mode", b.getStringAttr(ctx.getString("mode", "avg"))),
      b.getNamedAttr("output_height",
                     b.getI64IntegerAttr(ctx.getInt("output_height", 1))),
      b.getNamedAttr("output_width",
                     b.getI64IntegerAttr(ctx.getInt("output_width", 1))),
      b.getNamedAttr("sampling_ratio",
                     b.getI64IntegerAttr(ctx.getInt("sampling_ratio", 0))),
      b.getNamedAttr("spatial_scale",
                     b.getF32FloatAttr(ctx.getFloat("spatial_scale", 1.0f)))};
  ctx.setOutput(0, ctx.create<hl::RoiAlignOp>(
                       ctx.outputType(0),
                       ValueRange{ctx.input(0), ctx.input(1), ctx.input(2)},
                       attrs));
  return success();
}

void populateVisionHandlers(OpTable &t) {
  t.on("NonMaxSuppression", 10, convertNMS);
  t.on("RoiAlign", 10, convertRoiAlign);
  t.on("GridSample", 16, generic<hl::GridSampleOp>());
  t.on("MaxUnpool", 9, generic<hl::MaxUnpoolOp>());
  t.on("Unique", 11, convertUnique);
  t.on("Det", 11, generic<hl::DetOp>());
}

} // namespace strata::importer
