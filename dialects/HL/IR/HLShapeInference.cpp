//===- HLShapeInference.cpp - shape rules shared by hl op families --------===//
//
// The entry point that asks an op's InferShapedTypeOpInterface for its first
// result's static shape, and the rules several op families share: same shape
// as the first operand, NumPy broadcasting, reductions, sliding windows.
// Rules report operands that do not determine a shape yet as an unranked
// shape, and fail only for operands that do not fit the op.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLShapeInference.h"
#include "HL/IR/HLOps.h"

#include "strata/Support/ShapeInference.h"

using namespace mlir;

namespace strata::hl {

using Shape = SmallVector<int64_t>;

std::optional<Shape> inferRankedResultShape(Operation *op) {
  auto rule = dyn_cast<InferShapedTypeOpInterface>(op);
  if (!rule || op->getNumResults() == 0)
    return std::nullopt;
  // No location: a misfit is the verifier's to report, not the caller's.
  SmallVector<ShapedTypeComponents> shapes;
  if (failed(rule.inferReturnTypeComponents(
          op->getContext(), /*location=*/std::nullopt, op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), shapes)) ||
      shapes.empty() || !shapes.front().hasRank())
    return std::nullopt;
  return Shape(shapes.front().getDims());
}

std::optional<Shape> inferStaticResultShape(Operation *op) {
  std::optional<Shape> shape = inferRankedResultShape(op);
  if (!shape || ShapedType::isDynamicShape(*shape))
    return std::nullopt;
  return shape;
}

namespace detail {

std::optional<Shape> getRankedShape(const ValueShapeRange &operands,
                                    Value value) {
  if (!value)
    return std::nullopt;
  ShapeAdaptor shape = operands.getShape(value);
  if (!shape || !shape.hasRank())
    return std::nullopt;
  Shape dims;
  shape.getDims(dims);
  return dims;
}

FailureOr<Shape> broadcastPartialShapes(ArrayRef<int64_t> a,
                                        ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1 || x == y)
      result[i] = y;
    else if (y == 1)
      result[i] = x;
    else if (ShapedType::isDynamic(x))
      result[i] = y;
    else if (ShapedType::isDynamic(y))
      result[i] = x;
    else
      return failure();
  }
  return result;
}

std::optional<Shape> getStaticShape(const ValueShapeRange &operands,
                                    Value value) {
  if (!value)
    return std::nullopt;
  ShapeAdaptor shape = operands.getShape(value);
  if (!shape || !shape.hasRank() || !shape.hasStaticShape())
    return std::nullopt;
  Shape dims;
  shape.getDims(dims);
  return dims;
}

std::optional<Shape> getKnownInts(const ValueShapeRange &operands,
                                  Value value) {
  if (!value)
    return std::nullopt;
  if (ValueShapeRange::ValueShapeMapFn asShape =
          operands.getValueToShapeMapping())
    if (ShapeAdaptor known = asShape(value);
        known && known.hasRank() && known.hasStaticShape()) {
      Shape values;
      known.getDims(values);
      return values;
    }
  return getConstantIntValues(value);
}

LogicalResult knownShape(InferredShapes &shapes, ArrayRef<int64_t> shape) {
  shapes.emplace_back(shape);
  return success();
}

LogicalResult unknownShape(InferredShapes &shapes) {
  shapes.emplace_back();
  return success();
}

LogicalResult misfit(std::optional<Location> location, const Twine &message) {
  return emitOptionalError(location, message);
}

LogicalResult fromSupportRule(std::optional<Location> location,
                              InferredShapes &shapes, FailureOr<Shape> shape) {
  if (failed(shape))
    return misfit(location, "operand shapes do not fit the op");
  return knownShape(shapes, *shape);
}

LogicalResult inferSameShapeAsFirstOperand(std::optional<Location>,
                                           ValueShapeRange operands,
                                           InferredShapes &shapes) {
  if (operands.empty())
    return unknownShape(shapes);
  std::optional<Shape> shape = getRankedShape(operands, operands[0]);
  return shape ? knownShape(shapes, *shape) : unknownShape(shapes);
}

LogicalResult inferBroadcastShape(std::optional<Location> location,
                                  ValueShapeRange operands,
                                  InferredShapes &shapes) {
  if (operands.empty())
    return unknownShape(shapes);
  Shape result;
  for (Value operand : operands) {
    std::optional<Shape> shape = getRankedShape(operands, operand);
    if (!shape)
      return unknownShape(shapes);
    FailureOr<Shape> broadcast = broadcastPartialShapes(result, *shape);
    if (failed(broadcast))
      return misfit(location, "operand shapes do not broadcast");
    result = std::move(*broadcast);
  }
  return knownShape(shapes, result);
}

LogicalResult inferReductionShape(std::optional<Location> location,
                                  const ValueShapeRange &operands, Value data,
                                  Value axes, int64_t keepdims,
                                  int64_t noopWithEmpty,
                                  InferredShapes &shapes) {
  std::optional<Shape> input = getRankedShape(operands, data);
  std::optional<Shape> axisList = getKnownInts(operands, axes);
  if (!input || (axes && !axisList))
    return unknownShape(shapes);
  bool all = !axisList || axisList->empty();
  if (all && noopWithEmpty)
    return knownShape(shapes, *input);
  int64_t rank = input->size();
  SmallVector<bool> reduced(rank, all);
  for (int64_t a : axisList.value_or(Shape())) {
    FailureOr<int64_t> axis = normalizeAxis(a, rank);
    if (failed(axis))
      return misfit(location, "reduction axis out of range");
    reduced[*axis] = true;
  }
  Shape result;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      result.push_back((*input)[d]);
    else if (keepdims)
      result.push_back(1);
  }
  return knownShape(shapes, result);
}

LogicalResult inferGlobalPoolShape(std::optional<Location> location,
                                   ValueShapeRange operands,
                                   InferredShapes &shapes) {
  std::optional<Shape> shape =
      operands.empty() ? std::nullopt : getRankedShape(operands, operands[0]);
  if (!shape)
    return unknownShape(shapes);
  if (shape->size() < 3)
    return misfit(location, "input rank below 3");
  std::fill(shape->begin() + 2, shape->end(), 1);
  return knownShape(shapes, *shape);
}

LogicalResult inferSlidingWindowShape(std::optional<Location> location,
                                      ArrayRef<int64_t> input, int64_t channels,
                                      ArrayRef<int64_t> kernel,
                                      const WindowAttrs &attrs,
                                      InferredShapes &shapes) {
  size_t spatial = input.size() < 3 ? 0 : input.size() - 2;
  auto at = [](std::optional<ArrayRef<int64_t>> values, size_t i,
               int64_t fallback) {
    return values && i < values->size() ? (*values)[i] : fallback;
  };
  if (spatial == 0 || kernel.size() != spatial)
    return misfit(location, "window rank does not fit the input");
  Shape result{input[0], channels};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = input[2 + i], stride = at(attrs.strides, i, 1);
    if (stride <= 0)
      return misfit(location, "non-positive stride");
    if (ShapedType::isDynamic(in)) {
      result.push_back(ShapedType::kDynamic);
      continue;
    }
    if (attrs.autoPad == "SAME_UPPER" || attrs.autoPad == "SAME_LOWER") {
      result.push_back(in / stride + (in % stride != 0 ? 1 : 0));
      continue;
    }
    bool valid = attrs.autoPad == "VALID";
    std::optional<int64_t> out = slidingWindowExtent(
        in, kernel[i], stride, at(attrs.dilations, i, 1),
        valid ? 0 : at(attrs.pads, i, 0),
        valid ? 0 : at(attrs.pads, spatial + i, 0), attrs.ceilMode);
    if (!out || *out <= 0)
      return misfit(location, "the window does not fit the padded input");
    result.push_back(*out);
  }
  return knownShape(shapes, result);
}

} // namespace detail
} // namespace strata::hl
