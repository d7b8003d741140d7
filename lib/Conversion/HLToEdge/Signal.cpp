//===- Signal.cpp - hl signal ops (windows, DFT) to edge ------------------===//
//
// Windows. Hann, Hamming and Blackman windows whose size is a run-time value
// but whose result is static (the declared graph output fixes it). A
// constant size has been folded by shape refinement. Otherwise the window is
// the cosine sum of its ONNX function body over an edge.range of the size,
// so the range kernel rejects, at run time, a size other than the compiled
// length:
//   n = range(0, N, 1); phase = n * (2 pi / D), D = N (periodic) or N - 1
//   w = a0 - a1 cos(phase) + a2 cos(2 phase)
//
// DFT. With static lengths the DFT is linear in the input: one matmul by a
// constant real matrix of [n_in * c, k * 2] (c = 1 real or 2 complex
// components in, interleaved real/imaginary out) computes it. The signal
// axis and the component axis move last, the other axes fold into the rows:
//
//   y_re[k] = sum_j  x_re[j] cos(t) + x_im[j] sin(t)
//   y_im[k] = sum_j -x_re[j] sin(t) + x_im[j] cos(t),   t = 2 pi k j / n
//
// (inverse: t -> -t and a factor 1 / n). `dft_length` n shorter than the
// axis ignores the samples past n; longer zero-pads them (zero rows).
// `onesided` keeps frequencies 0 .. n / 2. This is how accelerators without a
// DFT unit run it, and for the short transforms of inference models the
// matmul is as fast as an FFT would be.
//
// STFT. With a constant frame step, frame length and window, each frame's
// DFT is a dot product of the signal with window * cos and window * sin
// rows, so the whole transform is one strided 1-d convolution: the signal
// [batch, 1, 1, samples * c] (c real or complex components as input
// channels) by [bins * 2, c, 1, frame] at stride (1, step) gives
// [batch, bins * 2, 1, frames], which a transpose and a reshape turn into
// ONNX's [batch, frames, bins, 2]. Each output channel pair (2k, 2k + 1) is
// bin k's real and imaginary part, with the DFT's signs above. `onesided`
// keeps bins 0 .. frame / 2. Delegates run it as the convolution it is.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "Edge/IR/EdgeConstants.h"
#include "HL/IR/HLOps.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

template <typename WindowOp>
struct WindowLowering : public OpConversionPattern<WindowOp> {
  using OpConversionPattern<WindowOp>::OpConversionPattern;
  using OpAdaptor = typename WindowOp::Adaptor;

  LogicalResult
  matchAndRewrite(WindowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getStaticType(op.getOutput());
    RankedTensorType sizeType = getStaticType(adaptor.getSize());
    if (sizeType.getNumElements() != 1 ||
        !isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs a float result and a one-element size");
    Location loc = op.getLoc();
    // f64 windows compute in f64, every other float type in f32.
    Type computeType = resultType.getElementType().isF64()
                           ? Type(rewriter.getF64Type())
                           : Type(rewriter.getF32Type());
    auto scalarType = RankedTensorType::get({1}, computeType);
    auto vectorType = RankedTensorType::get(resultType.getShape(), computeType);
    auto constant = [&](double value) {
      return splatConstant(rewriter, loc, computeType, /*rank=*/1, value);
    };
    Value size = reshapeTo(rewriter, loc, adaptor.getSize(), {1});
    Value sizeF = rewriter.create<edge::CastOp>(loc, scalarType, size);
    Value n = rewriter.create<edge::RangeOp>(loc, vectorType, constant(0.0),
                                             sizeF, constant(1.0));
    Value period = sizeF;
    if (!op.getPeriodic())
      period = rewriter.create<edge::SubOp>(loc, sizeF, constant(1.0));
    Value step =
        rewriter.create<edge::DivOp>(loc, constant(2.0 * M_PI), period);
    Value phase = rewriter.create<edge::MulOp>(loc, n, step);
    auto [a0, a1, a2] = WindowOp::getCoefficients();
    auto cosineTerm = [&](Value angle, double coefficient) -> Value {
      Value c = rewriter.create<edge::CosOp>(loc, angle);
      return rewriter.create<edge::MulOp>(loc, c, constant(coefficient));
    };
    Value window =
        rewriter.create<edge::SubOp>(loc, constant(a0), cosineTerm(phase, a1));
    if (a2 != 0.0) {
      Value doubled = rewriter.create<edge::MulOp>(loc, phase, constant(2.0));
      window =
          rewriter.create<edge::AddOp>(loc, window, cosineTerm(doubled, a2));
    }
    if (resultType.getElementType() != computeType)
      window = rewriter.create<edge::CastOp>(loc, resultType, window);
    rewriter.replaceOp(op, window);
    return success();
  }
};

struct DFTLowering : public OpConversionPattern<hl::DFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hl::DFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getInput());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 input");
    int64_t rank = type.getRank();
    // An I64Attr reads back as uint64_t: cast before checking the sign.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t components = type.getDimSize(rank - 1);
    if (rank < 3 || axis < 1 || axis >= rank - 1 ||
        (components != 1 && components != 2))
      return rewriter.notifyMatchFailure(
          op, "needs [batch, ..., signal, 1 or 2] with the axis on a signal "
              "dimension");
    int64_t samples = type.getDimSize(axis), length = samples;
    if (Value dftLength = adaptor.getDftLength()) {
      auto values = getConstantInts(dftLength);
      if (!values || values->size() != 1 || (*values)[0] < 1)
        return rewriter.notifyMatchFailure(op,
                                           "needs a constant dft_length >= 1");
      length = (*values)[0];
    }
    bool inverse = op.getInverse() != 0;
    int64_t frequencies = op.getOnesided() ? length / 2 + 1 : length;
    if (resultType.getDimSize(axis) != frequencies ||
        resultType.getDimSize(rank - 1) != 2)
      return rewriter.notifyMatchFailure(op, "unexpected result shape");
    if (samples * components * frequencies * 2 > (int64_t(1) << 26))
      return rewriter.notifyMatchFailure(op, "DFT matrix too large");

    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    // Move the signal axis next to the component axis: [rest..., n, c].
    SmallVector<int64_t> permutation, rest;
    for (int64_t d = 0; d < rank - 1; ++d)
      if (d != axis) {
        permutation.push_back(d);
        rest.push_back(type.getDimSize(d));
      }
    permutation.push_back(axis);
    permutation.push_back(rank - 1);
    Value x = adaptor.getInput();
    bool identity = llvm::equal(permutation, llvm::seq<int64_t>(0, rank));
    SmallVector<int64_t> permuted(rest);
    permuted.append({samples, components});
    if (!identity)
      x = rewriter.create<edge::TransposeOp>(loc, x, permutation);
    int64_t rows = 1;
    for (int64_t r : rest)
      rows *= r;
    x = reshapeTo(rewriter, loc, x, {rows, samples * components});

    // The DFT matrix, [samples * components, frequencies * 2].
    std::vector<float> matrix(samples * components * frequencies * 2, 0.0f);
    double sign = inverse ? -1.0 : 1.0, scale = inverse ? 1.0 / length : 1.0;
    for (int64_t j = 0; j < std::min(samples, length); ++j)
      for (int64_t k = 0; k < frequencies; ++k) {
        // (k * j) mod n keeps the angle small and exact.
        double t = sign * 2.0 * M_PI * static_cast<double>((k * j) % length) /
                   static_cast<double>(length);
        double c = std::cos(t) * scale, s = std::sin(t) * scale;
        float *re = &matrix[(j * components) * frequencies * 2];
        re[k * 2] = static_cast<float>(c);
        re[k * 2 + 1] = static_cast<float>(-s);
        if (components == 2) {
          float *im = &matrix[(j * components + 1) * frequencies * 2];
          im[k * 2] = static_cast<float>(s);
          im[k * 2 + 1] = static_cast<float>(c);
        }
      }
    auto matrixType =
        RankedTensorType::get({samples * components, frequencies * 2}, f32);
    Value dft = rewriter.create<edge::ConstantOp>(
        loc, edge::makeF32Constant(matrixType, matrix));
    Value y = rewriter.create<edge::MatMulOp>(loc, x, dft);

    // Back to the input's axis order.
    SmallVector<int64_t> outPermuted(rest);
    outPermuted.append({frequencies, 2});
    y = reshapeTo(rewriter, loc, y, outPermuted);
    if (!identity) {
      SmallVector<int64_t> inversePermutation(rank);
      for (int64_t d = 0; d < rank; ++d)
        inversePermutation[permutation[d]] = d;
      y = rewriter.create<edge::TransposeOp>(loc, y, inversePermutation);
    }
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct STFTLowering : public OpConversionPattern<hl::STFTOp> {
  using OpConversionPattern::OpConversionPattern;

  /// edge.stft, whose kernel reads the frame step, the frame length (the
  /// window's extent when only the window is given) and the window at run
  /// time and checks them against the compiled result shape.
  static LogicalResult lowerAtRunTime(hl::STFTOp op, OpAdaptor adaptor,
                                      ConversionPatternRewriter &rewriter,
                                      RankedTensorType resultType) {
    Location loc = op.getLoc();
    auto indexVector = [&](Value value) -> Value {
      RankedTensorType type = getStaticType(value);
      if (!type || type.getNumElements() != 1)
        return Value();
      value = reshapeTo(rewriter, loc, value, {1});
      if (!type.getElementType().isInteger(64))
        value = rewriter.create<edge::CastOp>(
            loc, RankedTensorType::get({1}, rewriter.getI64Type()), value);
      return value;
    };
    Value step = indexVector(adaptor.getFrameStep());
    if (!step)
      return op.emitOpError("needs a scalar frame_step");
    Value window = adaptor.getWindow();
    RankedTensorType windowType;
    if (window)
      windowType = getStaticType(window);
    if (window && (!windowType || windowType.getRank() != 1 ||
                   !windowType.getElementType().isF32()))
      return op.emitOpError("needs a static f32 1-d window");
    Value length;
    if (Value frameLength = adaptor.getFrameLength()) {
      length = indexVector(frameLength);
      if (!length)
        return op.emitOpError("needs a scalar frame_length");
    } else {
      auto type = RankedTensorType::get({1}, rewriter.getI64Type());
      length = rewriter.create<edge::ConstantOp>(
          loc, DenseElementsAttr::get(
                   type, ArrayRef<int64_t>{windowType.getDimSize(0)}));
    }
    rewriter.replaceOpWithNewOp<edge::STFTOp>(
        op, resultType, adaptor.getSignal(), step, length, window,
        rewriter.getBoolAttr(op.getOnesided() != 0));
    return success();
  }

  LogicalResult
  matchAndRewrite(hl::STFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getStaticType(adaptor.getSignal());
    RankedTensorType resultType = getStaticType(op.getOutput());
    if (!type || !resultType || !type.getElementType().isF32() ||
        type.getRank() != 3 ||
        (type.getDimSize(2) != 1 && type.getDimSize(2) != 2))
      return rewriter.notifyMatchFailure(
          op, "needs a static f32 signal [batch, samples, 1 or 2]");
    if (op.getOnesided() && type.getDimSize(2) == 2)
      return op.emitOpError("onesided needs a real signal ([batch, "
                            "samples, 1])");
    Value windowValue = adaptor.getWindow();
    Value frameLength = adaptor.getFrameLength();
    if (!windowValue && !frameLength)
      return op.emitOpError("needs a window or a frame_length");
    auto step = getConstantInts(adaptor.getFrameStep());
    std::optional<SmallVector<double>> window;
    if (windowValue)
      window = getConstantFloats(windowValue);
    std::optional<SmallVector<int64_t>> lengthValues;
    if (frameLength)
      lengthValues = getConstantInts(frameLength);
    // A parameter fed at run time: the STFT kernel.
    if (!step || (windowValue && !window) || (frameLength && !lengthValues))
      return lowerAtRunTime(op, adaptor, rewriter, resultType);
    if (step->size() != 1 || (*step)[0] < 1)
      return op.emitOpError("needs a frame_step >= 1");
    int64_t length = window ? static_cast<int64_t>(window->size()) : 0;
    if (lengthValues) {
      if (lengthValues->size() != 1 || (*lengthValues)[0] < 1)
        return op.emitOpError("needs a frame_length >= 1");
      if (window && (*lengthValues)[0] != length)
        return op.emitOpError("frame_length ")
               << (*lengthValues)[0] << " differs from the window's length "
               << length;
      length = (*lengthValues)[0];
    }
    int64_t batch = type.getDimSize(0), samples = type.getDimSize(1);
    int64_t components = type.getDimSize(2), hop = (*step)[0];
    if (length > samples)
      return op.emitOpError("frame length ")
             << length << " is longer than the signal (" << samples << ")";
    int64_t frames = (samples - length) / hop + 1;
    int64_t bins = op.getOnesided() ? length / 2 + 1 : length;
    if (resultType.getShape() != ArrayRef<int64_t>{batch, frames, bins, 2})
      return op.emitOpError("frame step ")
             << hop << " and length " << length << " give [" << batch << ", "
             << frames << ", " << bins << ", 2], the result is " << resultType;
    if (length * components * bins * 2 > (int64_t(1) << 26))
      return op.emitOpError("frame length ")
             << length << " needs a convolution kernel of more than 2^26 "
             << "entries";

    // The kernel [bins * 2, components, 1, length].
    std::vector<float> kernel(bins * 2 * components * length, 0.0f);
    for (int64_t k = 0; k < bins; ++k)
      for (int64_t j = 0; j < length; ++j) {
        double t = 2.0 * M_PI * static_cast<double>((k * j) % length) /
                   static_cast<double>(length);
        double w = window ? (*window)[j] : 1.0;
        double c = std::cos(t) * w, s = std::sin(t) * w;
        float *re = &kernel[(2 * k) * components * length];
        float *im = &kernel[(2 * k + 1) * components * length];
        re[j] = static_cast<float>(c);
        im[j] = static_cast<float>(-s);
        if (components == 2) {
          re[length + j] = static_cast<float>(s);
          im[length + j] = static_cast<float>(c);
        }
      }
    Location loc = op.getLoc();
    auto kernelType = RankedTensorType::get({bins * 2, components, 1, length},
                                            rewriter.getF32Type());
    Value weight = rewriter.create<edge::ConstantOp>(
        loc, edge::makeF32Constant(kernelType, kernel));
    Value x = adaptor.getSignal();
    if (components != 1)
      x = rewriter.create<edge::TransposeOp>(loc, x,
                                             ArrayRef<int64_t>{0, 2, 1});
    x = reshapeTo(rewriter, loc, x, {batch, components, 1, samples});
    Value y = rewriter.create<edge::Conv2DOp>(
        loc, x, weight, Value(), ArrayRef<int64_t>{1, hop},
        ArrayRef<int64_t>{1, 1}, ArrayRef<int64_t>{0, 0, 0, 0},
        /*group=*/1);
    y = reshapeTo(rewriter, loc, y, {batch, bins * 2, frames});
    y = rewriter.create<edge::TransposeOp>(loc, y, ArrayRef<int64_t>{0, 2, 1});
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, y, {batch, frames, bins, 2}));
    return success();
  }
};

} // namespace

void hl_to_edge::populateSignalPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<WindowLowering<hl::HannWindowOp>,
               WindowLowering<hl::HammingWindowOp>,
               WindowLowering<hl::BlackmanWindowOp>, DFTLowering, STFTLowering>(
      converter, patterns.getContext());
}
