//===- HLArithmeticFolds.cpp - exact arithmetic folders on small constants ===//
//
// Exporters compute sizes in floating point: torchvision's detection
// transform takes ReduceMax of a constant image size, divides it by the
// stride, rounds up with Ceil and casts back to int64 to build a Pad's pads;
// Resize scales go through Cast and Mul. Until those fold, every extent
// downstream is unknown at compile time. The folders here evaluate such
// computations on small constants (isFoldableSize) when the result is exact
// and independent of evaluation order: IEEE arithmetic of one operation in
// the element type, rounding to integral values, casts within range, min
// and max, and the order-free reductions (max and min of anything, sums and
// products of integers). Sums of floats, whose value depends on the order a
// kernel adds in, and transcendental functions stay for the kernels.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/IR/HLOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "strata/Support/Limits.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace strata::hl;
using namespace strata::hl::detail;

namespace {

/// The static result type of `op` when it is small enough to fold.
RankedTensorType foldableResultType(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && strata::isFoldableSize(type) ? type : RankedTensorType();
}

/// Element `i` of `a` read for a result of `n` elements: the splat value,
/// or element `i` when `a` has `n` elements (other broadcasts do not fold).
std::optional<APFloat> floatAt(DenseFPElementsAttr a, int64_t n, int64_t i) {
  if (a.isSplat())
    return a.getSplatValue<APFloat>();
  if (a.getNumElements() != n)
    return std::nullopt;
  return *(a.value_begin<APFloat>() + i);
}

/// Folds a binary float op elementwise; `fn` returns none where the value
/// is not exact in the kernels' sense (a NaN operand, say).
OpFoldResult foldFloatBinaryImpl(
    Operation *op, Attribute lhs, Attribute rhs,
    llvm::function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>
        fn) {
  RankedTensorType resultType = foldableResultType(op);
  auto l = dyn_cast_or_null<DenseFPElementsAttr>(lhs);
  auto r = dyn_cast_or_null<DenseFPElementsAttr>(rhs);
  if (!resultType || !l || !r || !isa<FloatType>(resultType.getElementType()))
    return {};
  int64_t n = resultType.getNumElements();
  SmallVector<APFloat> values;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<APFloat> a = floatAt(l, n, i), b = floatAt(r, n, i);
    if (!a || !b)
      return {};
    std::optional<APFloat> v = fn(*a, *b);
    if (!v)
      return {};
    values.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, values);
}

/// Maps each element of a float constant through `fn`.
OpFoldResult
foldFloatUnary(Operation *op, Attribute input,
               llvm::function_ref<std::optional<APFloat>(APFloat)> fn) {
  RankedTensorType resultType = foldableResultType(op);
  auto x = dyn_cast_or_null<DenseFPElementsAttr>(input);
  if (!resultType || !x || x.getType().getShape() != resultType.getShape())
    return {};
  SmallVector<APFloat> values;
  for (APFloat v : x.getValues<APFloat>()) {
    std::optional<APFloat> y = fn(v);
    if (!y)
      return {};
    values.push_back(*y);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult foldRoundToIntegral(Operation *op, Attribute input,
                                 APFloat::roundingMode mode) {
  return foldFloatUnary(op, input, [&](APFloat v) -> std::optional<APFloat> {
    v.roundToIntegral(mode);
    return v;
  });
}

/// max (`isMax`) or min of two numbers of one kind; NaNs are left to the
/// kernels, whose propagation rules differ between backends.
OpFoldResult foldMinMax(Operation *op, Attribute lhs, Attribute rhs,
                        bool isMax) {
  RankedTensorType resultType = foldableResultType(op);
  if (!resultType)
    return {};
  if (isa<FloatType>(resultType.getElementType()))
    return foldFloatBinaryImpl(
        op, lhs, rhs,
        [&](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
          if (a.isNaN() || b.isNaN() || (a.isZero() && b.isZero()))
            return std::nullopt; // NaN rules, and -0 vs +0, differ.
          return isMax ? llvm::maximum(a, b) : llvm::minimum(a, b);
        });
  bool isUnsigned = resultType.getElementType().isUnsignedInteger();
  return foldIntBinary(
      op, lhs, rhs,
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        bool aLess = isUnsigned ? a.ult(b) : a.slt(b);
        return aLess == isMax ? b : a;
      });
}

/// The reduction kinds whose value does not depend on the order in which a
/// kernel combines the elements (for floats: max and min only).
enum class Reduction { Max, Min, Sum, Prod };

/// Folds a reduction of a constant over the axes its `axes` operand lists
/// (all when absent, none when empty and `noop_with_empty_axes` is set).
template <typename ReduceOp>
OpFoldResult foldReduction(ReduceOp op, Attribute data, Reduction kind) {
  RankedTensorType resultType = foldableResultType(op);
  auto input = dyn_cast_or_null<DenseElementsAttr>(data);
  if (!resultType || !input)
    return {};
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type elementType = resultType.getElementType();
  bool isFloat = isa<FloatType>(elementType);
  if ((!isFloat && !isa<IntegerType>(elementType)) ||
      (isFloat && (kind == Reduction::Sum || kind == Reduction::Prod)) ||
      inputType.getNumElements() == 0)
    return {};
  SmallVector<bool> reduced(rank, op.getAxes() == nullptr);
  if (Value axes = op.getAxes()) {
    std::optional<SmallVector<int64_t>> listed = getConstantInts(axes);
    if (!listed)
      return {};
    if (listed->empty())
      reduced.assign(rank, op.getNoopWithEmptyAxes() == 0);
    for (int64_t axis : *listed) {
      if (axis < -rank || axis >= rank)
        return {};
      reduced[axis < 0 ? axis + rank : axis] = true;
    }
  }
  int64_t kept = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d])
      kept *= inputType.getDimSize(d);
  if (kept != resultType.getNumElements())
    return {};
  // The flat index into the result of each input element: its coordinates
  // along the kept dimensions, row-major.
  auto resultIndex = [&](int64_t flat) {
    int64_t index = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t extent = inputType.getDimSize(d);
      if (!reduced[d]) {
        index += (flat % extent) * stride;
        stride *= extent;
      }
      flat /= extent;
    }
    return index;
  };
  SmallVector<std::optional<APFloat>> floats(kept);
  SmallVector<std::optional<APInt>> ints(kept);
  bool isUnsigned = elementType.isUnsignedInteger();
  int64_t flat = 0;
  if (isFloat) {
    for (APFloat v : input.getValues<APFloat>()) {
      if (v.isNaN() || v.isZero()) // NaN rules, and -0 vs +0, differ.
        return {};
      std::optional<APFloat> &acc = floats[resultIndex(flat++)];
      if (!acc)
        acc = v;
      else
        acc = kind == Reduction::Max ? llvm::maximum(*acc, v)
                                     : llvm::minimum(*acc, v);
    }
    SmallVector<APFloat> values;
    for (std::optional<APFloat> &v : floats)
      values.push_back(*v);
    return DenseElementsAttr::get(resultType, values);
  }
  for (APInt v : input.getValues<APInt>()) {
    std::optional<APInt> &acc = ints[resultIndex(flat++)];
    if (!acc) {
      acc = v;
      continue;
    }
    switch (kind) {
    case Reduction::Max:
      if (isUnsigned ? acc->ult(v) : acc->slt(v))
        acc = v;
      break;
    case Reduction::Min:
      if (isUnsigned ? v.ult(*acc) : v.slt(*acc))
        acc = v;
      break;
    case Reduction::Sum:
      *acc += v; // Wraps, as the kernels do.
      break;
    case Reduction::Prod:
      *acc *= v;
      break;
    }
  }
  SmallVector<APInt> values;
  for (std::optional<APInt> &v : ints)
    values.push_back(*v);
  return DenseElementsAttr::get(resultType, values);
}

} // namespace

OpFoldResult strata::hl::detail::foldFloatBinary(
    Operation *op, Attribute lhs, Attribute rhs,
    llvm::function_ref<APFloat::opStatus(APFloat &, const APFloat &)> fn) {
  return foldFloatBinaryImpl(
      op, lhs, rhs,
      [&](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat v = a;
        fn(v, b);
        return v;
      });
}

OpFoldResult strata::hl::detail::foldFloatCast(RankedTensorType resultType,
                                               Attribute input) {
  auto x = dyn_cast_or_null<DenseFPElementsAttr>(input);
  if (!x || !strata::isFoldableSize(resultType))
    return {};
  Type to = resultType.getElementType();
  if (auto floatType = dyn_cast<FloatType>(to)) {
    SmallVector<APFloat> values;
    for (APFloat v : x.getValues<APFloat>()) {
      bool losesInfo = false;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      values.push_back(v);
    }
    return DenseElementsAttr::get(resultType, values);
  }
  auto intType = dyn_cast<IntegerType>(to);
  if (!intType)
    return {};
  if (intType.getWidth() == 1) { // Booleans: non-zero (NaN included).
    SmallVector<bool> flags;
    for (const APFloat &v : x.getValues<APFloat>())
      flags.push_back(!v.isZero());
    return DenseElementsAttr::get(resultType, ArrayRef<bool>(flags));
  }
  SmallVector<APInt> values;
  for (const APFloat &v : x.getValues<APFloat>()) {
    // Truncation toward zero, as static_cast in the kernels; values out of
    // range (and NaN) are undefined there and are not folded.
    APSInt result(intType.getWidth(), intType.isUnsigned());
    bool isExact = false;
    if (v.convertToInteger(result, APFloat::rmTowardZero, &isExact) &
        APFloat::opInvalidOp)
      return {};
    values.push_back(result);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult strata::hl::detail::foldIntToFloatCast(RankedTensorType resultType,
                                                    Attribute input) {
  auto x = dyn_cast_or_null<DenseIntElementsAttr>(input);
  auto floatType = dyn_cast<FloatType>(resultType.getElementType());
  if (!x || !floatType || !strata::isFoldableSize(resultType))
    return {};
  bool isSigned = !x.getElementType().isUnsignedInteger() &&
                  !x.getElementType().isInteger(1);
  SmallVector<APFloat> values;
  for (const APInt &v : x.getValues<APInt>()) {
    APFloat f(floatType.getFloatSemantics());
    f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
    values.push_back(f);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult strata::hl::detail::foldFloatNeg(Operation *op, Attribute input) {
  return foldFloatUnary(op, input, [](APFloat v) -> std::optional<APFloat> {
    v.changeSign();
    return v;
  });
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldRoundToIntegral(*this, adaptor.getInput(),
                             APFloat::rmTowardPositive);
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldRoundToIntegral(*this, adaptor.getInput(),
                             APFloat::rmTowardNegative);
}

OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  return foldRoundToIntegral(*this, adaptor.getInput(),
                             APFloat::rmNearestTiesToEven);
}

// 1 / x, one correctly rounded division (edge computes it as div(1, x)).
OpFoldResult ReciprocalOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(*this, adaptor.getInput(),
                        [](APFloat v) -> std::optional<APFloat> {
                          APFloat one(v.getSemantics(), 1);
                          one.divide(v, APFloat::rmNearestTiesToEven);
                          return one;
                        });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  RankedTensorType resultType = foldableResultType(*this);
  if (!resultType)
    return {};
  if (auto ints = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput())) {
    if (resultType.getElementType().isUnsignedInteger())
      return ints;
    return ints.mapValues(resultType.getElementType(),
                          [](const APInt &v) { return v.abs(); });
  }
  return foldFloatUnary(
      *this, adaptor.getInput(),
      [](APFloat v) -> std::optional<APFloat> { return llvm::abs(v); });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldMinMax(*this, adaptor.getLhs(), adaptor.getRhs(), true);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldMinMax(*this, adaptor.getLhs(), adaptor.getRhs(), false);
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldReduction(*this, adaptor.getData(), Reduction::Max);
}

OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldReduction(*this, adaptor.getData(), Reduction::Min);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldReduction(*this, adaptor.getData(), Reduction::Sum);
}

OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldReduction(*this, adaptor.getData(), Reduction::Prod);
}
