//===- HLTensorShapes.cpp - shape rules of the hl tensor ops --------------===//
//
// InferShapedTypeOpInterface for the data-movement and shape ops; their
// verifiers live in HLTensorOps.cpp and their folders in HLTensorFolds.cpp.
// Shape-bearing operands (Reshape's target, Slice's bounds, Pad's pads)
// determine the result once they are constant.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOps.h"
#include "HL/IR/HLShapeInference.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl;
using namespace strata::hl::detail;

using Shape = SmallVector<int64_t>;

/// The element of `value` as a double when it is a one-element constant.
static std::optional<double> constantScalar(Value value) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      attr.getNumElements() != 1)
    return std::nullopt;
  if (auto ints = dyn_cast<DenseIntElementsAttr>(attr))
    return static_cast<double>((*ints.value_begin<APInt>()).getSExtValue());
  if (auto floats = dyn_cast<DenseFPElementsAttr>(attr))
    return (*floats.value_begin<APFloat>()).convertToDouble();
  return std::nullopt;
}

static bool anyNegative(ArrayRef<int64_t> values) {
  return llvm::any_of(values, [](int64_t v) { return v < 0; });
}

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getStaticShape(operands, op.getData());
  std::optional<Shape> target = getKnownInts(operands, op.getShape());
  if (input && target)
    return fromSupportRule(
        location, shapes,
        inferReshapeShape(*input, *target, op.getAllowzero() != 0));
  // Dynamic extents: the rank is the target's length; a positive entry is
  // itself, 0 copies the input's extent, the rest stays dynamic.
  std::optional<Shape> targetShape = getRankedShape(operands, op.getShape());
  if (!targetShape || targetShape->size() != 1 ||
      ShapedType::isDynamic(targetShape->front()))
    return unknownShape(shapes);
  Shape result(targetShape->front(), ShapedType::kDynamic);
  std::optional<Shape> ranked = getRankedShape(operands, op.getData());
  if (target)
    for (auto [i, entry] : llvm::enumerate(*target)) {
      if (entry > 0)
        result[i] = entry;
      else if (entry == 0 && op.getAllowzero() != 0)
        result[i] = 0;
      else if (entry == 0 && ranked && i < ranked->size())
        result[i] = (*ranked)[i];
    }
  return knownShape(shapes, result);
}

LogicalResult FlattenOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getRankedShape(operands, op.getInput());
  if (!input)
    return unknownShape(shapes);
  int64_t rank = input->size(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return misfit(location, "'axis' out of range");
  // Each side the product of its extents; open where one of them is.
  std::optional<int64_t> outer = 1, inner = 1;
  bool outerOpen = false, innerOpen = false;
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> &side = d < axis ? outer : inner;
    if (ShapedType::isDynamic((*input)[d])) {
      (d < axis ? outerOpen : innerOpen) = true;
      continue;
    }
    side = side ? llvm::checkedMul(*side, (*input)[d]) : std::nullopt;
  }
  if (!outer || !inner)
    return misfit(location, "extent overflows");
  return knownShape(shapes, {outerOpen ? ShapedType::kDynamic : *outer,
                             innerOpen ? ShapedType::kDynamic : *inner});
}

LogicalResult SqueezeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getStaticShape(operands, op.getData());
  if (!input) {
    // Dynamic extents: listed axes go (each of extent 1, or open), the
    // others stay; without axes, which go depends on the extents.
    std::optional<Shape> ranked = getRankedShape(operands, op.getData());
    std::optional<Shape> axes = getKnownInts(operands, op.getAxes());
    if (!ranked || !op.getAxes() || !axes)
      return unknownShape(shapes);
    int64_t rank = ranked->size();
    SmallVector<bool> dropped(rank, false);
    for (int64_t axis : *axes) {
      if (axis < -rank || axis >= rank)
        return misfit(location, "axis out of range");
      int64_t d = axis < 0 ? axis + rank : axis;
      if ((*ranked)[d] != 1 && !ShapedType::isDynamic((*ranked)[d]))
        return misfit(location, "squeezed axis of extent other than 1");
      dropped[d] = true;
    }
    Shape result;
    for (int64_t d = 0; d < rank; ++d)
      if (!dropped[d])
        result.push_back((*ranked)[d]);
    return knownShape(shapes, result);
  }
  if (!op.getAxes())
    return fromSupportRule(location, shapes,
                           inferSqueezeShape(*input, std::nullopt));
  std::optional<Shape> axes = getKnownInts(operands, op.getAxes());
  if (!axes)
    return unknownShape(shapes);
  return fromSupportRule(location, shapes,
                         inferSqueezeShape(*input, ArrayRef<int64_t>(*axes)));
}

LogicalResult UnsqueezeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // Unit extents inserted: a dynamic extent stays where it moves to.
  std::optional<Shape> input = getRankedShape(operands, op.getData());
  std::optional<Shape> axes = getKnownInts(operands, op.getAxes());
  if (!input || !axes)
    return unknownShape(shapes);
  return fromSupportRule(location, shapes, inferUnsqueezeShape(*input, *axes));
}

LogicalResult TransposeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getRankedShape(operands, op.getData());
  if (!input)
    return unknownShape(shapes);
  int64_t rank = input->size();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> attr = op.getPerm())
    perm.assign(attr->begin(), attr->end());
  else
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  if (static_cast<int64_t>(perm.size()) != rank)
    return misfit(location, "'perm' does not fit the input rank");
  Shape result;
  for (int64_t d : perm) {
    if (d < 0 || d >= rank)
      return misfit(location, "'perm' entry out of range");
    result.push_back((*input)[d]);
  }
  return knownShape(shapes, result);
}

//===----------------------------------------------------------------------===//
// Expansion and padding
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getStaticShape(operands, op.getInput());
  std::optional<Shape> target = getKnownInts(operands, op.getShape());
  if (!input || !target)
    return unknownShape(shapes);
  if (anyNegative(*target))
    return misfit(location, "negative target extent");
  return fromSupportRule(location, shapes, broadcastShapes(*input, *target));
}

LogicalResult TileOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getStaticShape(operands, op.getInput());
  std::optional<Shape> repeats = getKnownInts(operands, op.getRepeats());
  if (!input || !repeats)
    return unknownShape(shapes);
  if (repeats->size() != input->size())
    return misfit(location, "'repeats' does not fit the input rank");
  Shape result;
  for (auto [extent, repeat] : llvm::zip_equal(*input, *repeats)) {
    std::optional<int64_t> tiled =
        repeat < 0 ? std::nullopt : llvm::checkedMul(extent, repeat);
    if (!tiled)
      return misfit(location, "negative or overflowing repeat");
    result.push_back(*tiled);
  }
  return knownShape(shapes, result);
}

LogicalResult PadOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // Each extent grows by its begin and end pads (negative pads crop); a
  // dynamic extent stays dynamic.
  std::optional<Shape> input = getRankedShape(operands, op.getData());
  std::optional<Shape> pads = getKnownInts(operands, op.getPads());
  if (!input || !pads)
    return unknownShape(shapes);
  size_t rank = input->size();
  if (pads->size() != 2 * rank)
    return misfit(location, "'pads' does not fit the input rank");
  Shape result;
  for (size_t d = 0; d < rank; ++d) {
    if (ShapedType::isDynamic((*input)[d])) {
      result.push_back(ShapedType::kDynamic);
      continue;
    }
    std::optional<int64_t> begin = llvm::checkedAdd((*input)[d], (*pads)[d]);
    std::optional<int64_t> extent =
        begin ? llvm::checkedAdd(*begin, (*pads)[d + rank]) : std::nullopt;
    if (!extent || *extent < 0)
      return misfit(location, "pads crop below zero or overflow");
    result.push_back(*extent);
  }
  return knownShape(shapes, result);
}

//===----------------------------------------------------------------------===//
// Concatenation and indexing
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  SmallVector<Shape> inputs;
  bool dynamic = false;
  for (Value input : op.getInputs()) {
    std::optional<Shape> shape = getRankedShape(operands, input);
    if (!shape)
      return unknownShape(shapes);
    dynamic |= ShapedType::isDynamicShape(*shape);
    inputs.push_back(std::move(*shape));
  }
  if (!dynamic)
    return fromSupportRule(location, shapes,
                           inferConcatShape(inputs, op.getAxis()));
  // Dynamic extents: the axis sums (dynamic if any term is), the other
  // extents are any input's static one.
  int64_t rank = inputs.front().size(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return misfit(location, "'axis' out of range");
  Shape result(rank, ShapedType::kDynamic);
  result[axis] = 0;
  for (const Shape &shape : inputs) {
    if (static_cast<int64_t>(shape.size()) != rank)
      return misfit(location, "inputs differ in rank");
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        result[d] =
            ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(result[d])
                ? ShapedType::kDynamic
                : result[d] + shape[d];
      } else if (!ShapedType::isDynamic(shape[d])) {
        if (!ShapedType::isDynamic(result[d]) && result[d] != shape[d])
          return misfit(location, "inputs differ outside the axis");
        result[d] = shape[d];
      }
    }
  }
  return knownShape(shapes, result);
}

LogicalResult GatherOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> data = getRankedShape(operands, op.getData());
  std::optional<Shape> indices = getRankedShape(operands, op.getIndices());
  if (!data || !indices)
    return unknownShape(shapes);
  int64_t rank = data->size(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return misfit(location, "'axis' out of range");
  // data[:axis] ++ indices ++ data[axis + 1:], dynamic extents included.
  Shape result(data->begin(), data->begin() + axis);
  llvm::append_range(result, *indices);
  result.append(data->begin() + axis + 1, data->end());
  return knownShape(shapes, result);
}

LogicalResult GatherNDOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> data = getRankedShape(operands, op.getData());
  std::optional<Shape> indices = getRankedShape(operands, op.getIndices());
  if (!data || !indices || indices->empty() ||
      ShapedType::isDynamic(indices->back()))
    return unknownShape(shapes);
  int64_t batch = op.getBatchDims(), k = indices->back();
  int64_t rank = data->size();
  if (batch < 0 || k < 1 || batch + k > rank)
    return misfit(location, "index tuples of " + std::to_string(k) + " after " +
                                std::to_string(batch) +
                                " batch dimensions do not fit data of rank " +
                                std::to_string(rank));
  // indices[:-1] ++ data[batch + k:], dynamic extents included.
  Shape result(indices->begin(), indices->end() - 1);
  result.append(data->begin() + batch + k, data->end());
  return knownShape(shapes, result);
}

LogicalResult TopKOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> input = getRankedShape(operands, op.getInput());
  if (!input || input->empty())
    return unknownShape(shapes);
  int64_t rank = input->size(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return misfit(location, "'axis' out of range");
  // k along the axis: a constant's, else open (read at run time).
  Shape result = *input;
  std::optional<Shape> k = getKnownInts(operands, op.getK());
  result[axis] = k && k->size() == 1 ? (*k)[0] : ShapedType::kDynamic;
  if (k && k->size() == 1 && (*k)[0] < 0)
    return misfit(location, "negative k");
  // Values and indices: one shape.
  shapes.emplace_back(result);
  shapes.emplace_back(result);
  return success();
}

LogicalResult SliceOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> data = getRankedShape(operands, op.getData());
  std::optional<Shape> starts = getKnownInts(operands, op.getStarts());
  std::optional<Shape> ends = getKnownInts(operands, op.getEnds());
  std::optional<Shape> axes = getKnownInts(operands, op.getAxes());
  std::optional<Shape> steps = getKnownInts(operands, op.getSteps());
  if (!data)
    return unknownShape(shapes);
  if (!starts || !ends || !axes || !steps) {
    // Bounds known at run time: the rank stays, and the extents of axes
    // that cannot be sliced (absent from constant axes) stay too.
    Shape result(data->size(), ShapedType::kDynamic);
    if (axes)
      for (int64_t d = 0; d < static_cast<int64_t>(data->size()); ++d)
        if (!llvm::is_contained(*axes, d) &&
            !llvm::is_contained(*axes, d - static_cast<int64_t>(data->size())))
          result[d] = (*data)[d];
    return knownShape(shapes, result);
  }
  if (!ShapedType::isDynamicShape(*data))
    return fromSupportRule(
        location, shapes,
        inferSliceShape(*data, *starts, *ends, *axes, *steps));
  // A dynamic extent that is sliced is dynamic; the static ones follow the
  // rule (applied to the data with its dynamic extents set to 1, which no
  // sliced static axis reads).
  Shape probe(*data);
  for (int64_t &extent : probe)
    if (ShapedType::isDynamic(extent))
      extent = 1;
  FailureOr<Shape> sliced =
      inferSliceShape(probe, *starts, *ends, *axes, *steps);
  if (failed(sliced))
    return misfit(location, "operand shapes do not fit the op");
  for (auto [d, extent] : llvm::enumerate(*data))
    if (ShapedType::isDynamic(extent))
      (*sliced)[d] = ShapedType::kDynamic;
  return knownShape(shapes, *sliced);
}

//===----------------------------------------------------------------------===//
// Generators and shape queries
//===----------------------------------------------------------------------===//

LogicalResult ConstantOfShapeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<Shape> shape = getKnownInts(operands, op.getInput());
  if (!shape) {
    // Extents read at run time (a Shape of a value-dependent result): the
    // rank is the shape operand's length.
    std::optional<Shape> length = getRankedShape(operands, op.getInput());
    if (length && length->size() == 1 && !ShapedType::isDynamic((*length)[0]))
      return knownShape(shapes, Shape((*length)[0], ShapedType::kDynamic));
    return unknownShape(shapes);
  }
  if (anyNegative(*shape))
    return misfit(location, "negative extent");
  return knownShape(shapes, *shape);
}

/// `value` without the integer casts around it (exporters cast shape
/// arithmetic to int64 that already is).
static Value withoutIntegerCasts(Value value) {
  while (auto cast = value.getDefiningOp<CastOp>()) {
    auto from = dyn_cast<ShapedType>(cast.getInput().getType());
    auto to = dyn_cast<ShapedType>(cast.getType());
    if (!from || !to || !from.getElementType().isInteger() ||
        !to.getElementType().isInteger() ||
        from.getElementType().getIntOrFloatBitWidth() >
            to.getElementType().getIntOrFloatBitWidth())
      break;
    value = cast.getInput();
  }
  return value;
}

/// `limit` - `start` where `limit` is `start` + a constant (arange(p, p +
/// s) over a cache of run-time length p and s new tokens).
static std::optional<double> constantSpan(Value start, Value limit) {
  auto add = withoutIntegerCasts(limit).getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  Value from = withoutIntegerCasts(start);
  for (auto [base, offset] : {std::pair{add.getLhs(), add.getRhs()},
                              std::pair{add.getRhs(), add.getLhs()}})
    if (withoutIntegerCasts(base) == from)
      if (std::optional<double> span = constantScalar(offset))
        return span;
  return std::nullopt;
}

LogicalResult RangeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  std::optional<double> start = constantScalar(op.getStart());
  std::optional<double> limit = constantScalar(op.getLimit());
  std::optional<double> delta = constantScalar(op.getDelta());
  // A run-time integer start and a limit a constant after it: the count is
  // known (in floats, (p + c) - p need not be c).
  auto elements = dyn_cast<ShapedType>(op.getStart().getType());
  if (!start && !limit && delta && elements &&
      elements.getElementType().isInteger())
    if (std::optional<double> span =
            constantSpan(op.getStart(), op.getLimit())) {
      start = 0;
      limit = span;
    }
  if (!start || !limit || !delta)
    return unknownShape(shapes);
  FailureOr<int64_t> count = rangeElementCount(*start, *limit, *delta);
  if (failed(count))
    return misfit(location, "no element count for these bounds");
  return knownShape(shapes, {*count});
}

LogicalResult ShapeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location>, ValueShapeRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  Adaptor op(operands.getValues(), attributes, properties, regions);
  // The extents [start, end) of the input's shape, bounds clamped.
  ShapeAdaptor input = operands.getShape(op.getData());
  if (!input || !input.hasRank())
    return unknownShape(shapes);
  int64_t rank = input.getRank();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(op.getStart());
  int64_t end = op.getEnd() ? clampIndex(*op.getEnd()) : rank;
  return knownShape(shapes, {std::max<int64_t>(end - start, 0)});
}

LogicalResult SizeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location>, ValueShapeRange, DictionaryAttr,
    OpaqueProperties, RegionRange,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  // A scalar, whatever the input.
  return knownShape(shapes, {});
}
