//===- Signal.cpp - hl window generators to edge --------------------------===//
//
// Hann, Hamming and Blackman windows whose size is a run-time value but
// whose result is static (the declared graph output fixes it). A constant
// size has been folded by shape refinement. Otherwise the window is the
// cosine sum of its ONNX function body over an edge.range of the size, so
// the range kernel rejects, at run time, a size other than the compiled
// length:
//   n = range(0, N, 1); phase = n * (2 pi / D), D = N (periodic) or N - 1
//   w = a0 - a1 cos(phase) + a2 cos(2 phase)
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

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
    if (!resultType || !sizeType || sizeType.getNumElements() != 1 ||
        !isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs a static float result and a one-element size");
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
      period =
          rewriter.create<edge::SubOp>(loc, scalarType, sizeF, constant(1.0));
    Value step = rewriter.create<edge::DivOp>(loc, scalarType,
                                              constant(2.0 * M_PI), period);
    Value phase = rewriter.create<edge::MulOp>(loc, vectorType, n, step);
    auto [a0, a1, a2] = WindowOp::getCoefficients();
    auto cosineTerm = [&](Value angle, double coefficient) -> Value {
      Value c = rewriter.create<edge::CosOp>(loc, vectorType, angle);
      return rewriter.create<edge::MulOp>(loc, vectorType, c,
                                          constant(coefficient));
    };
    Value window = rewriter.create<edge::SubOp>(loc, vectorType, constant(a0),
                                                cosineTerm(phase, a1));
    if (a2 != 0.0) {
      Value doubled =
          rewriter.create<edge::MulOp>(loc, vectorType, phase, constant(2.0));
      window = rewriter.create<edge::AddOp>(loc, vectorType, window,
                                            cosineTerm(doubled, a2));
    }
    if (resultType.getElementType() != computeType)
      window = rewriter.create<edge::CastOp>(loc, resultType, window);
    rewriter.replaceOp(op, window);
    return success();
  }
};

} // namespace

void strata::hl_to_edge::populateSignalPatterns(TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<WindowLowering<hl::HannWindowOp>,
               WindowLowering<hl::HammingWindowOp>,
               WindowLowering<hl::BlackmanWindowOp>>(converter,
                                                     patterns.getContext());
}
