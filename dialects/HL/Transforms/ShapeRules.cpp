//===- ShapeRules.cpp - static result shapes of hl ops from their operands ===//
//
// The forward shape rules the refinement pass applies: for an op whose result
// type is not static, the static shape its operands imply once they are
// static (or constant, for shape-bearing operands such as Reshape's target).
// Rules return std::nullopt when the operands do not determine a shape yet;
// the ops' verifiers still judge whether the refined IR is well formed.
//
//===----------------------------------------------------------------------===//
#include "HL/Transforms/ShapeRules.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;

namespace strata::hl {
namespace {

using Shape = SmallVector<int64_t>;

/// The shape of `value` when it is a statically shaped tensor.
std::optional<Shape> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return Shape(type.getShape());
}

/// The elements of `value` as a double when it is a one-element constant.
std::optional<double> constantScalar(Value value) {
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

/// `result` as an optional (the Support rules report a misfit as failure).
std::optional<Shape> toOptional(FailureOr<Shape> result) {
  return succeeded(result) ? std::optional<Shape>(std::move(*result))
                           : std::nullopt;
}

std::optional<Shape> inferReshape(ReshapeOp op) {
  auto input = staticShape(op.getData());
  auto target = getConstantIntValues(op.getShape());
  if (!input || !target)
    return std::nullopt;
  return toOptional(inferReshapeShape(*input, *target, op.getAllowzero() != 0));
}

std::optional<Shape> inferFlatten(FlattenOp op) {
  auto input = staticShape(op.getInput());
  if (!input)
    return std::nullopt;
  int64_t rank = input->size(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return std::nullopt;
  std::optional<int64_t> outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> &side = d < axis ? outer : inner;
    side = side ? llvm::checkedMul(*side, (*input)[d]) : std::nullopt;
  }
  if (!outer || !inner)
    return std::nullopt;
  return Shape{*outer, *inner};
}

std::optional<Shape> inferExpand(ExpandOp op) {
  auto input = staticShape(op.getInput());
  auto target = getConstantIntValues(op.getShape());
  if (!input || !target ||
      llvm::any_of(*target, [](int64_t e) { return e < 0; }))
    return std::nullopt;
  return toOptional(broadcastShapes(*input, *target));
}

std::optional<Shape> inferTile(TileOp op) {
  auto input = staticShape(op.getInput());
  auto repeats = getConstantIntValues(op.getRepeats());
  if (!input || !repeats || repeats->size() != input->size())
    return std::nullopt;
  Shape result;
  for (auto [extent, repeat] : llvm::zip_equal(*input, *repeats)) {
    std::optional<int64_t> tiled =
        repeat < 0 ? std::nullopt : llvm::checkedMul(extent, repeat);
    if (!tiled)
      return std::nullopt;
    result.push_back(*tiled);
  }
  return result;
}

std::optional<Shape> inferConstantOfShape(ConstantOfShapeOp op) {
  auto shape = getConstantIntValues(op.getInput());
  if (!shape || llvm::any_of(*shape, [](int64_t e) { return e < 0; }))
    return std::nullopt;
  return shape;
}

std::optional<Shape> inferRange(RangeOp op) {
  auto start = constantScalar(op.getStart());
  auto limit = constantScalar(op.getLimit());
  auto delta = constantScalar(op.getDelta());
  if (!start || !limit || !delta)
    return std::nullopt;
  auto count = rangeElementCount(*start, *limit, *delta);
  return succeeded(count) ? std::optional<Shape>(Shape{*count}) : std::nullopt;
}

/// Window generators with a constant size.
std::optional<Shape> inferWindow(Value size) {
  auto value = getConstantIntValues(size);
  if (!value || value->size() != 1 || (*value)[0] < 0)
    return std::nullopt;
  return Shape{(*value)[0]};
}

std::optional<Shape> inferShape(ShapeOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(op.getStart());
  int64_t end = op.getEnd() ? clampIndex(*op.getEnd()) : rank;
  return Shape{std::max<int64_t>(end - start, 0)};
}

std::optional<Shape> inferConcat(ConcatOp op) {
  SmallVector<Shape> shapes;
  for (Value input : op.getInputs()) {
    auto shape = staticShape(input);
    if (!shape)
      return std::nullopt;
    shapes.push_back(*shape);
  }
  return toOptional(inferConcatShape(shapes, op.getAxis()));
}

std::optional<Shape> inferGather(GatherOp op) {
  auto data = staticShape(op.getData());
  auto indices = staticShape(op.getIndices());
  if (!data || !indices)
    return std::nullopt;
  return toOptional(inferGatherShape(*data, *indices, op.getAxis()));
}

std::optional<Shape> inferSlice(SliceOp op) {
  auto data = staticShape(op.getData());
  auto starts = getConstantIntValues(op.getStarts());
  auto ends = getConstantIntValues(op.getEnds());
  auto axes = getConstantIntValues(op.getAxes());
  auto steps = getConstantIntValues(op.getSteps());
  if (!data || !starts || !ends || !axes || !steps)
    return std::nullopt;
  return toOptional(inferSliceShape(*data, *starts, *ends, *axes, *steps));
}

std::optional<Shape> inferSqueeze(SqueezeOp op) {
  auto input = staticShape(op.getData());
  if (!input)
    return std::nullopt;
  if (!op.getAxes())
    return toOptional(inferSqueezeShape(*input, std::nullopt));
  auto axes = getConstantIntValues(op.getAxes());
  if (!axes)
    return std::nullopt;
  return toOptional(inferSqueezeShape(*input, ArrayRef<int64_t>(*axes)));
}

std::optional<Shape> inferUnsqueeze(UnsqueezeOp op) {
  auto input = staticShape(op.getData());
  auto axes = getConstantIntValues(op.getAxes());
  if (!input || !axes)
    return std::nullopt;
  return toOptional(inferUnsqueezeShape(*input, *axes));
}

/// Reductions with constant (or absent) axes.
template <typename OpTy> std::optional<Shape> inferReduce(OpTy op) {
  auto input = staticShape(op.getData());
  if (!input)
    return std::nullopt;
  std::optional<Shape> axes;
  if (op.getAxes()) {
    axes = getConstantIntValues(op.getAxes());
    if (!axes)
      return std::nullopt;
  }
  int64_t rank = input->size();
  SmallVector<bool> reduced(rank, !axes || axes->empty());
  if ((!axes || axes->empty()) && op.getNoopWithEmptyAxes())
    return input;
  if (axes)
    for (int64_t a : *axes) {
      FailureOr<int64_t> axis = normalizeAxis(a, rank);
      if (failed(axis))
        return std::nullopt;
      reduced[*axis] = true;
    }
  Shape result;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      result.push_back((*input)[d]);
    else if (op.getKeepdims())
      result.push_back(1);
  }
  return result;
}

/// The output of a sliding-window op (convolution, pooling) over `input`
/// `[N, C, D1, ...]` with `channels` output channels, or nullopt.
std::optional<Shape>
inferSlidingWindow(const Shape &input, int64_t channels,
                   ArrayRef<int64_t> kernel, StringRef autoPad,
                   std::optional<ArrayRef<int64_t>> strides,
                   std::optional<ArrayRef<int64_t>> dilations,
                   std::optional<ArrayRef<int64_t>> pads, bool ceilMode) {
  size_t spatial = input.size() < 3 ? 0 : input.size() - 2;
  auto at = [](std::optional<ArrayRef<int64_t>> values, size_t i,
               int64_t fallback) {
    return values && i < values->size() ? (*values)[i] : fallback;
  };
  if (spatial == 0 || kernel.size() != spatial)
    return std::nullopt;
  Shape result{input[0], channels};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = input[2 + i], stride = at(strides, i, 1);
    if (stride <= 0)
      return std::nullopt;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      result.push_back(in / stride + (in % stride != 0 ? 1 : 0));
      continue;
    }
    bool valid = autoPad == "VALID";
    std::optional<int64_t> out = slidingWindowExtent(
        in, kernel[i], stride, at(dilations, i, 1), valid ? 0 : at(pads, i, 0),
        valid ? 0 : at(pads, spatial + i, 0), ceilMode);
    if (!out || *out <= 0)
      return std::nullopt;
    result.push_back(*out);
  }
  return result;
}

std::optional<Shape> inferConv(ConvOp op) {
  auto input = staticShape(op.getInput());
  auto weight = staticShape(op.getWeight());
  if (!input || !weight || weight->size() < 3)
    return std::nullopt;
  ArrayRef<int64_t> kernel = ArrayRef<int64_t>(*weight).drop_front(2);
  return inferSlidingWindow(*input, (*weight)[0], kernel, op.getAutoPad(),
                            op.getStrides(), op.getDilations(), op.getPads(),
                            /*ceilMode=*/false);
}

template <typename PoolOp> std::optional<Shape> inferPool(PoolOp op) {
  auto input = staticShape(op.getInput());
  if (!input || input->size() < 3)
    return std::nullopt;
  return inferSlidingWindow(*input, (*input)[1], op.getKernelShape(),
                            op.getAutoPad(), op.getStrides(), op.getDilations(),
                            op.getPads(), op.getCeilMode() != 0);
}

/// Global pooling: `[N, C, D1, ...]` to `[N, C, 1, ...]`.
std::optional<Shape> inferGlobalPool(Value inputValue) {
  auto input = staticShape(inputValue);
  if (!input || input->size() < 3)
    return std::nullopt;
  Shape result(*input);
  std::fill(result.begin() + 2, result.end(), 1);
  return result;
}

std::optional<Shape> inferGemm(GemmOp op) {
  auto a = staticShape(op.getA());
  auto b = staticShape(op.getB());
  if (!a || !b || a->size() != 2 || b->size() != 2)
    return std::nullopt;
  return Shape{(*a)[op.getTransA() ? 1 : 0], (*b)[op.getTransB() ? 0 : 1]};
}

/// numpy matmul: 1-D operands are promoted and their unit dimension
/// dropped again; batch dimensions broadcast.
std::optional<Shape> inferMatMul(MatMulOp op) {
  auto lhs = staticShape(op.getLhs());
  auto rhs = staticShape(op.getRhs());
  if (!lhs || !rhs || lhs->empty() || rhs->empty())
    return std::nullopt;
  bool lhsVector = lhs->size() == 1, rhsVector = rhs->size() == 1;
  Shape l = lhsVector ? Shape{1, (*lhs)[0]} : *lhs;
  Shape r = rhsVector ? Shape{(*rhs)[0], 1} : *rhs;
  if (l.back() != r[r.size() - 2])
    return std::nullopt;
  FailureOr<Shape> batch = broadcastShapes(ArrayRef<int64_t>(l).drop_back(2),
                                           ArrayRef<int64_t>(r).drop_back(2));
  if (failed(batch))
    return std::nullopt;
  Shape result(*batch);
  if (!lhsVector)
    result.push_back(l[l.size() - 2]);
  if (!rhsVector)
    result.push_back(r.back());
  return result;
}

std::optional<Shape> inferTranspose(TransposeOp op) {
  auto input = staticShape(op.getData());
  if (!input)
    return std::nullopt;
  int64_t rank = input->size();
  SmallVector<int64_t> perm;
  if (auto attr = op.getPerm())
    perm.assign(attr->begin(), attr->end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if (static_cast<int64_t>(perm.size()) != rank)
    return std::nullopt;
  Shape result;
  for (int64_t d : perm) {
    if (d < 0 || d >= rank)
      return std::nullopt;
    result.push_back((*input)[d]);
  }
  return result;
}

/// Pad: each extent grows by its begin and end pads (negative pads crop).
std::optional<Shape> inferPad(PadOp op) {
  auto input = staticShape(op.getData());
  auto pads = getConstantIntValues(op.getPads());
  if (!input || !pads || pads->size() != 2 * input->size())
    return std::nullopt;
  size_t rank = input->size();
  Shape result;
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> begin = llvm::checkedAdd((*input)[d], (*pads)[d]);
    std::optional<int64_t> extent =
        begin ? llvm::checkedAdd(*begin, (*pads)[d + rank]) : std::nullopt;
    if (!extent || *extent < 0)
      return std::nullopt;
    result.push_back(*extent);
  }
  return result;
}

/// Resize: the listed axes (all without `axes`) take constant `sizes`
/// (stretch), or one common scale of them rounded half up (not_larger /
/// not_smaller), or floor(extent * scale) for constant `scales`; the other
/// axes keep their extent. tf_crop_and_resize with scales also depends on
/// the roi and is left alone.
std::optional<Shape> inferResize(ResizeOp op) {
  auto input = staticShape(op.getInput());
  if (!input)
    return std::nullopt;
  int64_t rank = input->size();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> listed = op.getAxes()) {
    for (int64_t a : *listed) {
      FailureOr<int64_t> axis = normalizeAxis(a, rank);
      if (failed(axis))
        return std::nullopt;
      axes.push_back(*axis);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  Shape result = *input;
  if (Value sizesValue = op.getSizes()) {
    auto sizes = getConstantIntValues(sizesValue);
    if (!sizes || sizes->size() != axes.size())
      return std::nullopt;
    StringRef policy = op.getKeepAspectRatioPolicy();
    if (policy == "stretch") {
      for (auto [i, axis] : llvm::enumerate(axes))
        result[axis] = (*sizes)[i];
    } else {
      bool notLarger = policy == "not_larger";
      double common = notLarger ? INFINITY : 0.0;
      for (auto [i, axis] : llvm::enumerate(axes)) {
        if ((*input)[axis] <= 0)
          return std::nullopt;
        double ratio = static_cast<double>((*sizes)[i]) / (*input)[axis];
        common = notLarger ? std::min(common, ratio) : std::max(common, ratio);
      }
      for (int64_t axis : axes)
        result[axis] = static_cast<int64_t>(common * (*input)[axis] + 0.5);
    }
  } else if (Value scalesValue = op.getScales()) {
    auto scales = getConstantFloatValues(scalesValue);
    if (!scales || scales->size() != axes.size() ||
        op.getCoordinateTransformationMode() == "tf_crop_and_resize")
      return std::nullopt;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      double extent = std::floor((*input)[axis] * (*scales)[i]);
      if (!(extent >= 0 && extent < 9.0e18))
        return std::nullopt;
      result[axis] = static_cast<int64_t>(extent);
    }
  } else {
    return std::nullopt;
  }
  if (llvm::any_of(result, [](int64_t d) { return d < 0; }))
    return std::nullopt;
  return result;
}

/// Ops whose traits say how the result shape follows the operands'.
std::optional<Shape> inferFromTraits(Operation *op) {
  if (op->getNumOperands() == 0)
    return std::nullopt;
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      op->hasTrait<OpTrait::SameOperandsAndResultShape>())
    return staticShape(op->getOperand(0));
  if (op->hasTrait<OpTrait::ResultsBroadcastableShape>()) {
    Shape result;
    for (Value operand : op->getOperands()) {
      auto shape = staticShape(operand);
      if (!shape)
        return std::nullopt;
      auto broadcast = broadcastShapes(result, *shape);
      if (failed(broadcast))
        return std::nullopt;
      result = *broadcast;
    }
    return result;
  }
  return std::nullopt;
}

} // namespace

std::optional<SmallVector<int64_t>> inferStaticResultShape(Operation *op) {
  if (op->getNumResults() == 0)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<Shape>>(op)
      .Case([](ReshapeOp op) { return inferReshape(op); })
      .Case([](FlattenOp op) { return inferFlatten(op); })
      .Case([](ExpandOp op) { return inferExpand(op); })
      .Case([](TileOp op) { return inferTile(op); })
      .Case([](ConstantOfShapeOp op) { return inferConstantOfShape(op); })
      .Case([](RangeOp op) { return inferRange(op); })
      .Case([](ShapeOp op) { return inferShape(op); })
      .Case<HannWindowOp, HammingWindowOp, BlackmanWindowOp>(
          [](auto op) { return inferWindow(op.getSize()); })
      .Case([](ConcatOp op) { return inferConcat(op); })
      .Case([](GatherOp op) { return inferGather(op); })
      .Case([](SliceOp op) { return inferSlice(op); })
      .Case([](SqueezeOp op) { return inferSqueeze(op); })
      .Case([](UnsqueezeOp op) { return inferUnsqueeze(op); })
      .Case([](ConvOp op) { return inferConv(op); })
      .Case<MaxPoolOp, AveragePoolOp>([](auto op) { return inferPool(op); })
      .Case<GlobalAveragePoolOp, GlobalMaxPoolOp>(
          [](auto op) { return inferGlobalPool(op.getInput()); })
      .Case([](GemmOp op) { return inferGemm(op); })
      .Case([](MatMulOp op) { return inferMatMul(op); })
      .Case([](TransposeOp op) { return inferTranspose(op); })
      .Case([](PadOp op) { return inferPad(op); })
      .Case([](ResizeOp op) { return inferResize(op); })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceL1Op, ReduceL2Op, ReduceLogSumOp, ReduceLogSumExpOp,
            ReduceSumSquareOp>([](auto op) { return inferReduce(op); })
      // Ops whose verifier ties the (first) result's type to the first
      // operand's (AllTypesMatch in ODS, which leaves no C++ trait).
      .Case<ClipOp, TriluOp, CumSumOp, ScatterElementsOp, ScatterNDOp,
            ReverseSequenceOp, BatchNormalizationOp, InstanceNormalizationOp,
            LayerNormalizationOp>(
          [](Operation *op) { return staticShape(op->getOperand(0)); })
      .Case([](SizeOp) { return Shape{}; })
      .Default([](Operation *op) { return inferFromTraits(op); });
}

} // namespace strata::hl
