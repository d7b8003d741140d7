//===- Linear.cpp - hl conv/deform_conv/gemm/matmul to edge ---------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/WindowExtent.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace strata::hl_to_edge {

FailureOr<Value> buildConv(OpBuilder &builder, Location loc, Value input,
                           Value weight, Value bias,
                           RankedTensorType resultType,
                           const ConvAttributes &attrs) {
  // A dynamic batch at most: the window needs the spatial extents.
  RankedTensorType inputType = getStaticButBatchType(input);
  RankedTensorType weightType = getStaticType(weight);
  if (!inputType || !weightType || resultType.getRank() == 0 ||
      ShapedType::isDynamicShape(resultType.getShape().drop_front()))
    return failure();
  int64_t rank = inputType.getRank();
  if (rank != 3 && rank != 4)
    return failure();
  FailureOr<Window> window = resolveWindow(
      inputType.getShape().drop_front(2), weightType.getShape().drop_front(2),
      attrs.strides, attrs.dilations, attrs.pads, attrs.autoPad);
  if (failed(window))
    return failure();
  Window window2D = liftWindowTo2D(*window);
  auto to4D = [&](Value value, RankedTensorType type) {
    if (type.getRank() == 4)
      return value;
    ArrayRef<int64_t> s = type.getShape();
    return reshapeTo(builder, loc, value, {s[0], s[1], 1, s[2]});
  };
  Value input4D = to4D(input, inputType);
  Value weight4D = to4D(weight, weightType);
  Value conv = builder.create<edge::Conv2DOp>(
      loc, input4D, weight4D, bias, window2D.strides, window2D.dilations,
      window2D.pads, attrs.group);
  return reshapeTo(builder, loc, conv, resultType.getShape());
}

Value buildMatMul(OpBuilder &builder, Location loc, Value lhs, Value rhs,
                  RankedTensorType resultType) {
  // 1-d operands are promoted and the promoted dimension reshaped away.
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (lhsType.getRank() == 1)
    lhs = reshapeTo(builder, loc, lhs, {1, lhsType.getDimSize(0)});
  if (rhsType.getRank() == 1)
    rhs = reshapeTo(builder, loc, rhs, {rhsType.getDimSize(0), 1});
  int64_t rank = std::max(cast<RankedTensorType>(lhs.getType()).getRank(),
                          cast<RankedTensorType>(rhs.getType()).getRank());
  lhs = alignRank(builder, loc, lhs, rank);
  rhs = alignRank(builder, loc, rhs, rank);
  ArrayRef<int64_t> l = cast<RankedTensorType>(lhs.getType()).getShape();
  ArrayRef<int64_t> r = cast<RankedTensorType>(rhs.getType()).getShape();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i + 2 < rank; ++i)
    shape.push_back(std::max(l[i], r[i]));
  shape.append({l[rank - 2], r[rank - 1]});
  Value product = builder.create<edge::MatMulOp>(loc, lhs, rhs);
  return reshapeTo(builder, loc, product, resultType.getShape());
}

} // namespace strata::hl_to_edge

namespace {

/// hl.conv (1-d or 2-d) -> edge.conv2d with explicit window attributes; a
/// 1-d convolution runs as a 2-d one of unit height.
struct ConvLowering : public OpConversionPattern<hl::ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getOutput().getType());
    // A zero Pad of H and W before the convolution (tf2onnx writes Keras'
    // ZeroPadding2D before strided convolutions so) becomes the
    // convolution's own padding: the same values, without the copy.
    Value input = adaptor.getInput();
    std::optional<ArrayRef<int64_t>> pads = op.getPads();
    SmallVector<int64_t> merged;
    if (auto pad = op.getInput().getDefiningOp<hl::PadOp>();
        pad && op.getAutoPad() == "NOTSET") {
      std::optional<SmallVector<int64_t>> spatial = spatialZeroPads(pad);
      Value data = spatial ? rewriter.getRemappedValue(pad.getData()) : Value();
      if (data && getStaticButBatchType(data) && (!pads || pads->size() == 4)) {
        merged = *spatial;
        for (auto [i, own] :
             llvm::enumerate(pads.value_or(ArrayRef<int64_t>())))
          merged[i] += own;
        input = data;
        pads = ArrayRef<int64_t>(merged);
      }
    }
    FailureOr<Value> conv =
        buildConv(rewriter, op.getLoc(), input, adaptor.getWeight(),
                  adaptor.getBias(), resultType,
                  {op.getStrides(), op.getDilations(), pads, op.getAutoPad(),
                   static_cast<int64_t>(op.getGroup())});
    if (failed(conv))
      return rewriter.notifyMatchFailure(
          op, "needs 1-d or 2-d shapes and consistent attributes");
    rewriter.replaceOp(op, *conv);
    return success();
  }
};

/// Whether a 2-d transposed convolution of `input` (lifted to 4-d) by
/// `weight` with these attributes gives `out4D`: the channel counts and each
/// spatial extent.
static LogicalResult
checkTransposedExtents(RankedTensorType input, RankedTensorType weight,
                       ArrayRef<int64_t> out4D, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                       ArrayRef<int64_t> outputPadding, int64_t group) {
  if (group < 1 || input.getDimSize(1) != weight.getDimSize(0) ||
      input.getDimSize(1) % group != 0 ||
      llvm::checkedMul(weight.getDimSize(1), group) != out4D[1])
    return failure();
  int64_t lifted = 4 - input.getRank();
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = i < lifted ? 1 : input.getDimSize(2 + i - lifted);
    int64_t kernel = i < lifted ? 1 : weight.getDimSize(2 + i - lifted);
    std::optional<int64_t> extent =
        transposedWindowExtent(in, kernel, strides[i], dilations[i], pads[i],
                               pads[2 + i], outputPadding[i]);
    if (!extent || *extent != out4D[2 + i])
      return failure();
  }
  return success();
}

/// hl.conv_transpose (1-d or 2-d) -> edge.conv_transpose2d. Explicit pads
/// are used as given; with auto_pad SAME_* or an output_shape the total
/// padding follows from the (static) result extent, its smaller half at the
/// beginning for SAME_UPPER and NOTSET, at the end for SAME_LOWER.
struct ConvTransposeLowering : public OpConversionPattern<hl::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A dynamic batch at most: the window needs the spatial extents.
    RankedTensorType inputType = getStaticButBatchType(adaptor.getInput());
    RankedTensorType weightType = getStaticType(adaptor.getWeight());
    RankedTensorType resultType = getStaticButBatchType(op.getOutput());
    if (!inputType || !weightType || !resultType)
      return rewriter.notifyMatchFailure(op, "needs static spatial extents");
    if (!inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    int64_t rank = inputType.getRank();
    if ((rank != 3 && rank != 4) || weightType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "only 1-d and 2-d");
    int64_t spatial = rank - 2;
    auto orDefault = [&](std::optional<ArrayRef<int64_t>> values,
                         int64_t fallback) {
      return values ? SmallVector<int64_t>(*values)
                    : SmallVector<int64_t>(spatial, fallback);
    };
    SmallVector<int64_t> strides = orDefault(op.getStrides(), 1);
    SmallVector<int64_t> dilations = orDefault(op.getDilations(), 1);
    SmallVector<int64_t> outputPadding = orDefault(op.getOutputPadding(), 0);
    if (static_cast<int64_t>(strides.size()) != spatial ||
        static_cast<int64_t>(dilations.size()) != spatial ||
        static_cast<int64_t>(outputPadding.size()) != spatial)
      return rewriter.notifyMatchFailure(op, "inconsistent attributes");
    StringRef autoPad = op.getAutoPad();
    SmallVector<int64_t> pads(2 * spatial, 0);
    if (autoPad == "NOTSET" && !op.getOutputShape()) {
      if (auto given = op.getPads()) {
        if (static_cast<int64_t>(given->size()) != 2 * spatial)
          return rewriter.notifyMatchFailure(op, "inconsistent pads");
        pads.assign(given->begin(), given->end());
      }
    } else if (autoPad != "VALID") {
      for (int64_t i = 0; i < spatial; ++i) {
        std::optional<int64_t> full = transposedWindowExtent(
            inputType.getDimSize(2 + i), weightType.getDimSize(2 + i),
            strides[i], dilations[i], 0, 0, outputPadding[i]);
        if (!full)
          return rewriter.notifyMatchFailure(op, "window out of range");
        int64_t total = *full - resultType.getDimSize(2 + i);
        if (total < 0) {
          // A larger requested output: zeros appended at the end.
          outputPadding[i] -= total;
          continue;
        }
        int64_t small = total / 2, large = total - small;
        pads[i] = autoPad == "SAME_LOWER" ? large : small;
        pads[spatial + i] = autoPad == "SAME_LOWER" ? small : large;
      }
    }
    Location loc = op.getLoc();
    auto to4D = [&](Value value, RankedTensorType type) {
      if (type.getRank() == 4)
        return value;
      ArrayRef<int64_t> s = type.getShape();
      return reshapeTo(rewriter, loc, value, {s[0], s[1], 1, s[2]});
    };
    ArrayRef<int64_t> out = resultType.getShape();
    SmallVector<int64_t> out4D(out);
    if (rank == 3) {
      strides.insert(strides.begin(), 1);
      dilations.insert(dilations.begin(), 1);
      outputPadding.insert(outputPadding.begin(), 0);
      pads = {0, pads[0], 0, pads[1]};
      out4D = {out[0], out[1], 1, out[2]};
    }
    // The edge op infers its result: refuse here (not in its builder, which
    // cannot fail gracefully) attributes that do not give the declared one.
    if (failed(checkTransposedExtents(inputType, weightType, out4D, strides,
                                      dilations, pads, outputPadding,
                                      op.getGroup())))
      return rewriter.notifyMatchFailure(
          op, "the attributes do not give the declared output shape");
    Value conv = rewriter.create<edge::ConvTranspose2DOp>(
        loc, to4D(adaptor.getInput(), inputType),
        to4D(adaptor.getWeight(), weightType), adaptor.getBias(), strides,
        dilations, pads, outputPadding, op.getGroup());
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, conv, out));
    return success();
  }
};

/// hl.gemm -> [transpose] + matmul [* alpha] [+ beta * C].
struct GemmLowering : public OpConversionPattern<hl::GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getOutput().getType());
    if (!isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer gemm is not supported");
    Location loc = op.getLoc();
    auto transpose = [&](Value value) -> Value {
      return rewriter.create<edge::TransposeOp>(loc, value,
                                                ArrayRef<int64_t>{1, 0});
    };
    Value a = op.getTransA() ? transpose(adaptor.getA()) : adaptor.getA();
    Value b = op.getTransB() ? transpose(adaptor.getB()) : adaptor.getB();
    Type elementType = resultType.getElementType();
    Value result = rewriter.create<edge::MatMulOp>(loc, a, b);
    auto scale = [&](Value value, float factor) -> Value {
      if (factor == 1.0f)
        return value;
      Value constant = splatConstant(
          rewriter, loc, elementType,
          cast<RankedTensorType>(value.getType()).getRank(), factor);
      return rewriter.create<edge::MulOp>(loc, value, constant);
    };
    result = scale(result, op.getAlpha().convertToFloat());
    if (Value c = adaptor.getC()) {
      if (op.getBeta().convertToFloat() != 0.0f) {
        Value bias = scale(alignRank(rewriter, loc, c, 2),
                           op.getBeta().convertToFloat());
        result = rewriter.create<edge::AddOp>(loc, result, bias);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// hl.matmul (NumPy semantics) -> edge.matmul.
struct MatMulLowering : public OpConversionPattern<hl::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    auto lhsType = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rhsType = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
    if (!resultType || !lhsType || !rhsType)
      return rewriter.notifyMatchFailure(op, "needs ranked operands");
    // 1-d promotion and rank alignment add unit extents (reshapeTo keeps a
    // dynamic extent's size).
    rewriter.replaceOp(op, buildMatMul(rewriter, op.getLoc(), adaptor.getLhs(),
                                       adaptor.getRhs(), resultType));
    return success();
  }
};

/// hl.deform_conv (2-d, f32) -> edge.deform_conv2d with explicit window
/// attributes; an absent bias becomes zeros.
struct DeformConvLowering : public OpConversionPattern<hl::DeformConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DeformConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = getStaticType(adaptor.getInput());
    RankedTensorType weightType = getStaticType(adaptor.getWeight());
    if (inputType.getRank() != 4 || !inputType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs a 4-d f32 input");
    FailureOr<Window> window = resolveWindow(
        inputType.getShape().drop_front(2), weightType.getShape().drop_front(2),
        op.getStrides(), op.getDilations(), op.getPads(), "NOTSET");
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "inconsistent window attributes");
    Window window2D = liftWindowTo2D(*window);
    Location loc = op.getLoc();
    Value bias = adaptor.getBias();
    if (!bias)
      bias = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get({weightType.getDimSize(0)},
                                         rewriter.getF32Type()),
                   0.0f));
    rewriter.replaceOpWithNewOp<edge::DeformConv2DOp>(
        op, adaptor.getInput(), adaptor.getWeight(), bias, adaptor.getOffset(),
        adaptor.getMask(), window2D.strides, window2D.dilations, window2D.pads,
        static_cast<int64_t>(op.getGroup()),
        static_cast<int64_t>(op.getOffsetGroup()));
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateLinearPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ConvLowering, GemmLowering, MatMulLowering,
               ConvTransposeLowering, DeformConvLowering>(
      converter, patterns.getContext());
}
