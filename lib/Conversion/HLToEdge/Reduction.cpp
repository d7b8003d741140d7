//===- Reduction.cpp - hl reductions to edge ------------------------------===//
//
// ReduceSum/Mean/Max/Min/Prod map onto the edge reductions; the others
// decompose (f32 only, the type of the edge arithmetic kernels):
//   reduce_l1         = reduce_sum(|x|)
//   reduce_l2         = sqrt(reduce_sum(x * x))
//   reduce_sum_square = reduce_sum(x * x)
//   reduce_log_sum    = log(reduce_sum(x))
//   reduce_log_sum_exp = log(reduce_sum(exp(x - m))) + m, m = reduce_max(x)
// LogSoftmax is x - m - log(reduce_sum(exp(x - m))) along its axis, and
// ArgMax/ArgMin map onto edge.arg_max/arg_min; Hardmax is the one-hot of
// arg_max (equal against a constant iota, cast to the input type); TopK is
// arg_top_k plus a gather_elements of its indices.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/ShapeInference.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// How an hl reduction lowers.
enum class Kind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};

/// The reduced type of `type` over sorted `axes`.
RankedTensorType reducedType(RankedTensorType type, ArrayRef<int64_t> axes,
                             bool keepDims) {
  SmallVector<int64_t> shape;
  for (auto [dim, extent] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      shape.push_back(extent);
    else if (keepDims)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, type.getElementType());
}

/// Builds `EdgeOp` over `axes` of `x`.
template <typename EdgeOp>
Value reduce(OpBuilder &builder, Location loc, Value x, ArrayRef<int64_t> axes,
             bool keepDims) {
  return builder.create<EdgeOp>(loc, x, axes, keepDims);
}

/// log(reduce_sum(exp(x - m))) + m with m = reduce_max(x), over `axes`
/// with kept dimensions.
Value logSumExp(OpBuilder &builder, Location loc, Value x,
                ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  RankedTensorType kept = reducedType(type, axes, true);
  Value max = reduce<edge::ReduceMaxOp>(builder, loc, x, axes, true);
  Value shifted = builder.create<edge::SubOp>(loc, x, max);
  Value sum = reduce<edge::ReduceSumOp>(
      builder, loc, builder.create<edge::ExpOp>(loc, shifted), axes, true);
  Value log = builder.create<edge::LogOp>(loc, sum);
  return builder.create<edge::AddOp>(loc, kept, log, max);
}

template <typename HLOp, Kind K>
struct ReduceLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  static constexpr bool isDirect =
      K == Kind::Sum || K == Kind::Max || K == Kind::Min || K == Kind::Prod;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getRankedType(adaptor.getData());
    RankedTensorType resultType = getRankedType(op.getOutput());
    if (!type || !resultType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Type element = type.getElementType();
    // log_sum_exp's decomposition has f64 kernels throughout.
    bool isFloat32 =
        element.isF32() || (K == Kind::LogSumExp && element.isF64());
    if (!isFloat32 &&
        !(isDirect && (element.isF64() || element.isInteger(8) ||
                       element.isInteger(32) || element.isInteger(64))))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    SmallVector<int64_t> axes;
    Value axesOperand = adaptor.getAxes();
    std::optional<SmallVector<int64_t>> values;
    if (axesOperand && !(values = getConstantInts(axesOperand))) {
      // Axes known only at run time: with keepdims the static result shape
      // fixes the result. Every dimension whose extent changed is reduced;
      // whether an extent-1 dimension is reduced does not change a value,
      // so any run-time axes consistent with the result type agree.
      if (!op.getKeepdims() || resultType.getRank() != type.getRank() ||
          !type.hasStaticShape() || !resultType.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "run-time axes need keepdims");
      SmallVector<int64_t> changed;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (resultType.getDimSize(d) == type.getDimSize(d))
          continue;
        if (resultType.getDimSize(d) != 1)
          return rewriter.notifyMatchFailure(op, "inconsistent result type");
        changed.push_back(d);
      }
      if (changed.empty()) {
        if (!isDirect && K != Kind::Mean)
          return rewriter.notifyMatchFailure(op, "composite reduction of "
                                                 "unit extents");
        rewriter.replaceOp(op, adaptor.getData());
        return success();
      }
      values = changed;
    }
    if (values) {
      for (int64_t axis : *values) {
        FailureOr<int64_t> normalized = normalizeAxis(axis, type.getRank());
        if (failed(normalized))
          return rewriter.notifyMatchFailure(op, "axis out of range");
        axes.push_back(*normalized);
      }
    }
    if (axes.empty()) {
      if (op.getNoopWithEmptyAxes()) {
        if (!isDirect && K != Kind::Mean)
          return rewriter.notifyMatchFailure(op, "no-op of a composite "
                                                 "reduction");
        rewriter.replaceOp(op, adaptor.getData());
        return success();
      }
      for (int64_t d = 0; d < type.getRank(); ++d)
        axes.push_back(d);
    }
    llvm::sort(axes);
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    if (type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "scalar input");
    bool keepDims = op.getKeepdims() != 0;
    Location loc = op.getLoc();
    Value x = adaptor.getData();
    Value result;
    switch (K) {
    case Kind::Sum:
      result = reduce<edge::ReduceSumOp>(rewriter, loc, x, axes, keepDims);
      break;
    case Kind::Mean:
      result = reduce<edge::ReduceMeanOp>(rewriter, loc, x, axes, keepDims);
      break;
    case Kind::Max:
      result = reduce<edge::ReduceMaxOp>(rewriter, loc, x, axes, keepDims);
      break;
    case Kind::Min:
      result = reduce<edge::ReduceMinOp>(rewriter, loc, x, axes, keepDims);
      break;
    case Kind::Prod:
      result = reduce<edge::ReduceProdOp>(rewriter, loc, x, axes, keepDims);
      break;
    case Kind::L1:
      result = reduce<edge::ReduceSumOp>(
          rewriter, loc, rewriter.create<edge::AbsOp>(loc, x), axes, keepDims);
      break;
    case Kind::L2:
    case Kind::SumSquare: {
      Value square = rewriter.create<edge::MulOp>(loc, x, x);
      result = reduce<edge::ReduceSumOp>(rewriter, loc, square, axes, keepDims);
      if (K == Kind::L2)
        result = rewriter.create<edge::SqrtOp>(loc, result);
      break;
    }
    case Kind::LogSum:
      result = rewriter.create<edge::LogOp>(
          loc, reduce<edge::ReduceSumOp>(rewriter, loc, x, axes, keepDims));
      break;
    case Kind::LogSumExp:
      result = reshapeTo(rewriter, loc, logSumExp(rewriter, loc, x, axes),
                         resultType.getShape());
      break;
    }
    if (result.getType() != resultType)
      return rewriter.notifyMatchFailure(op, "unexpected result type");
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// hl.log_softmax -> edge.log_softmax (f32).
struct LogSoftmaxLowering : public OpConversionPattern<hl::LogSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::LogSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (!type.getElementType().isF32() || type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<edge::LogSoftmaxOp>(op, adaptor.getInput(),
                                                    *axis);
    return success();
  }
};

/// hl.hardmax -> cast(arg_max(x) == iota) along the axis: 1 at the first
/// maximum, 0 elsewhere.
struct HardmaxLowering : public OpConversionPattern<hl::HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::HardmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    if (type.getRank() == 0 ||
        !(type.getElementType().isF32() || type.getElementType().isF64()))
      return rewriter.notifyMatchFailure(op,
                                         "needs a float input of rank >= 1");
    int64_t rank = type.getRank();
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis) || type.getDimSize(*axis) == 0)
      return rewriter.notifyMatchFailure(op, "axis out of range or empty");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    SmallVector<int64_t> keptShape(type.getShape());
    keptShape[*axis] = 1;
    Value argMax = rewriter.create<edge::ArgMaxOp>(
        loc, adaptor.getInput(), *axis,
        /*keep_dims=*/true, /*select_last_index=*/false);
    SmallVector<int64_t> iotaShape(rank, 1);
    iotaShape[*axis] = type.getDimSize(*axis);
    Value iota = rewriter.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(
                 RankedTensorType::get(iotaShape, i64),
                 ArrayRef<int64_t>(llvm::to_vector(
                     llvm::seq<int64_t>(0, type.getDimSize(*axis))))));
    Value hit = rewriter.create<edge::EqualOp>(loc, argMax, iota);
    rewriter.replaceOpWithNewOp<edge::CastOp>(op, type, hit);
    return success();
  }
};

/// hl.top_k with static results -> indices = edge.arg_top_k (k is the
/// result's extent), values = gather_elements(x, indices). Only sorted
/// results are produced, which ONNX allows for sorted = 0 too.
struct TopKLowering : public OpConversionPattern<hl::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A k read at run time: the results' extent along the axis is
    // value-dependent, bounded by the axis' extent (the input may have
    // bounded dynamic extents).
    bool runtimeK = isValueDependent(op);
    RankedTensorType type = runtimeK ? getRankedType(adaptor.getInput())
                                     : getStaticType(adaptor.getInput());
    RankedTensorType indicesType = runtimeK ? getRankedType(op.getIndices())
                                            : getStaticType(op.getIndices());
    if (!type || !indicesType)
      return op.emitOpError("needs a static input and results (a run-time "
                            "k: dynamic only along the axis), got ")
             << adaptor.getInput().getType() << " -> "
             << op.getIndices().getType();
    if (type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs an input of rank >= 1");
    Type element = type.getElementType();
    if (!(element.isF32() || element.isF64() || element.isInteger(32) ||
          element.isInteger(64)))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    Value indices;
    if (runtimeK) {
      RankedTensorType kType = getStaticType(adaptor.getK());
      if (!kType || kType.getNumElements() != 1)
        return op.emitOpError("needs a one-element k, got ")
               << adaptor.getK().getType();
      SmallVector<int64_t> shape(type.getShape());
      shape[*axis] = ShapedType::kDynamic;
      indices = rewriter.create<edge::ArgTopKOp>(
          loc, RankedTensorType::get(shape, rewriter.getI64Type()),
          adaptor.getInput(), adaptor.getK(), rewriter.getI64IntegerAttr(*axis),
          rewriter.getBoolAttr(op.getLargest() != 0));
    } else {
      indices = rewriter.create<edge::ArgTopKOp>(
          loc, indicesType, adaptor.getInput(), *axis, op.getLargest() != 0);
    }
    Value values = rewriter.create<edge::GatherElementsOp>(
        loc, adaptor.getInput(), indices, *axis);
    rewriter.replaceOp(op, {values, indices});
    return success();
  }
};

/// hl.arg_max / hl.arg_min -> edge.arg_max / edge.arg_min.
template <typename HLOp, typename EdgeOp>
struct ArgReduceLowering : public OpConversionPattern<HLOp> {
  using OpConversionPattern<HLOp>::OpConversionPattern;
  using OpAdaptor = typename HLOp::Adaptor;

  LogicalResult
  matchAndRewrite(HLOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getData());
    if (type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs an input of rank >= 1");
    Type element = type.getElementType();
    if (!(element.isF32() || element.isF64() || element.isInteger(8) ||
          element.isInteger(32) || element.isInteger(64)))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    FailureOr<int64_t> axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    rewriter.replaceOpWithNewOp<EdgeOp>(op, adaptor.getData(), *axis,
                                        op.getKeepdims() != 0,
                                        op.getSelectLastIndex() != 0);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateReductionPatterns(
    TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<hl::ReduceSumOp, Kind::Sum>,
               ReduceLowering<hl::ReduceMeanOp, Kind::Mean>,
               ReduceLowering<hl::ReduceMaxOp, Kind::Max>,
               ReduceLowering<hl::ReduceMinOp, Kind::Min>,
               ReduceLowering<hl::ReduceProdOp, Kind::Prod>,
               ReduceLowering<hl::ReduceL1Op, Kind::L1>,
               ReduceLowering<hl::ReduceL2Op, Kind::L2>,
               ReduceLowering<hl::ReduceSumSquareOp, Kind::SumSquare>,
               ReduceLowering<hl::ReduceLogSumOp, Kind::LogSum>,
               ReduceLowering<hl::ReduceLogSumExpOp, Kind::LogSumExp>,
               LogSoftmaxLowering, HardmaxLowering, TopKLowering,
               ArgReduceLowering<hl::ArgMaxOp, edge::ArgMaxOp>,
               ArgReduceLowering<hl::ArgMinOp, edge::ArgMinOp>>(
      converter, patterns.getContext());
}
