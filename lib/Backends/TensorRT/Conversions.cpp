//===- Conversions.cpp - tensorrt structural conversions ------------------===//
//
// Rewrites that put a graph in the shape TensorRT fuses best:
// - Flatten + Gemm becomes a convolution over the whole spatial extent
//   (1x1 after global pooling) + Flatten, so the classifier head fuses with
//   the convolutions before it; the weight is reshaped (and transposed,
//   scaled by alpha) at compile time, the bias scaled by beta.
// - Pooling that changes nothing (1x1 windows, unit strides, no padding;
//   global pooling of a 1x1 map) is removed.
//
//===----------------------------------------------------------------------===//
#include "TensorRTPatterns.h"

#include "Edge/IR/EdgeConstants.h"
#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"
#include "strata/Support/Locations.h"

using namespace mlir;
using namespace strata::patterns;

namespace strata::tensorrt {
namespace {

using OpList = SmallVector<Operation *>;

struct FlattenGemmToConv : StrataPattern {
  FlattenGemmToConv(MLIRContext *context, const PatternInfo &info)
      : StrataPattern(context, info, hl::GemmOp::getOperationName()) {}

  FailureOr<OpList> matchOps(Operation *root) const override {
    auto gemm = cast<hl::GemmOp>(root);
    auto flatten = gemm.getA().getDefiningOp<hl::FlattenOp>();
    if (!flatten || flatten.getAxis() != 1 || gemm.getTransA() != 0 ||
        !isConstant(gemm.getB()) || (gemm.getC() && !isConstant(gemm.getC())))
      return failure();
    auto inputType = dyn_cast<RankedTensorType>(flatten.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(gemm.getB().getType());
    auto resultType = dyn_cast<RankedTensorType>(gemm.getType());
    if (!inputType || !inputType.hasStaticShape() || inputType.getRank() != 4 ||
        !inputType.getElementType().isF32() || !weightType ||
        !weightType.getElementType().isF32() || !weightType.hasStaticShape() ||
        weightType.getRank() != 2 || !resultType ||
        !resultType.hasStaticShape())
      return failure();
    int64_t features = inputType.getDimSize(1) * inputType.getDimSize(2) *
                       inputType.getDimSize(3);
    int64_t outputs = resultType.getDimSize(1);
    int64_t k = weightType.getDimSize(gemm.getTransB() ? 1 : 0);
    int64_t m = weightType.getDimSize(gemm.getTransB() ? 0 : 1);
    if (k != features || m != outputs)
      return failure();
    if (Value c = gemm.getC()) {
      auto cType = dyn_cast<RankedTensorType>(c.getType());
      if (!cType || !cType.hasStaticShape() ||
          !cType.getElementType().isF32() ||
          (cType.getNumElements() != m && cType.getNumElements() != 1))
        return failure();
    }
    return OpList{flatten, root};
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *> ops,
                             PatternRewriter &rewriter) const override {
    auto gemm = cast<hl::GemmOp>(root);
    auto flatten = cast<hl::FlattenOp>(ops[0]);
    auto inputType = cast<RankedTensorType>(flatten.getInput().getType());
    auto weightType = cast<RankedTensorType>(gemm.getB().getType());
    auto resultType = cast<RankedTensorType>(gemm.getType());
    auto weights = edge::readF32Constant(
        gemm.getB().getDefiningOp<hl::ConstantOp>().getValue());
    if (!weights)
      return rewriter.notifyMatchFailure(root, "weight is not f32 data");
    int64_t m = resultType.getDimSize(1);
    int64_t k = weightType.getNumElements() / m;
    float alpha = gemm.getAlpha().convertToFloat();
    float beta = gemm.getBeta().convertToFloat();
    // Conv weight [M, C, H, W] is the gemm's [M, K] weight, row for row.
    std::vector<float> convWeight(m * k);
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < k; ++col)
        convWeight[row * k + col] =
            alpha * (gemm.getTransB() ? (*weights)[row * k + col]
                                      : (*weights)[col * m + row]);
    std::string name = getNodeName(gemm->getLoc());
    Location loc = gemm->getLoc();
    Type f32 = rewriter.getF32Type();
    int64_t h = inputType.getDimSize(2), w = inputType.getDimSize(3);
    auto convWeightType =
        RankedTensorType::get({m, inputType.getDimSize(1), h, w}, f32);
    Value weight = rewriter.create<hl::ConstantOp>(
        loc, edge::makeNamedF32Constant(convWeightType, convWeight,
                                        name + ".conv_weight"));
    Value bias;
    if (Value c = gemm.getC()) {
      auto values =
          edge::readF32Constant(c.getDefiningOp<hl::ConstantOp>().getValue());
      if (!values)
        return rewriter.notifyMatchFailure(root, "bias is not f32 data");
      std::vector<float> scaled(m);
      for (int64_t i = 0; i < m; ++i)
        scaled[i] = beta * (*values)[values->size() == 1 ? 0 : i];
      bias = rewriter.create<hl::ConstantOp>(
          loc, edge::makeNamedF32Constant(RankedTensorType::get({m}, f32),
                                          scaled, name + ".conv_bias"));
    }
    auto convType =
        RankedTensorType::get({inputType.getDimSize(0), m, 1, 1}, f32);
    auto conv = rewriter.create<hl::ConvOp>(
        loc, convType, flatten.getInput(), weight, bias,
        /*auto_pad=*/"NOTSET", /*dilations=*/nullptr, /*group=*/1,
        rewriter.getDenseI64ArrayAttr({h, w}), /*pads=*/nullptr,
        /*strides=*/nullptr);
    rewriter.replaceOpWithNewOp<hl::FlattenOp>(gemm, resultType, conv,
                                               /*axis=*/1);
    if (flatten->use_empty())
      rewriter.eraseOp(flatten);
    return success();
  }
};

/// Whether a window attribute is absent or all `value`.
bool allOr(std::optional<ArrayRef<int64_t>> values, int64_t value) {
  return !values ||
         llvm::all_of(*values, [&](int64_t v) { return v == value; });
}

struct RemoveIdentityPooling : StrataPattern {
  using StrataPattern::StrataPattern;

  template <typename PoolOp> static bool isIdentityWindow(PoolOp pool) {
    return llvm::all_of(pool.getKernelShape(),
                        [](int64_t k) { return k == 1; }) &&
           allOr(pool.getStrides(), 1) && allOr(pool.getPads(), 0) &&
           allOr(pool.getDilations(), 1) &&
           (pool.getAutoPad() == "NOTSET" || pool.getAutoPad() == "VALID");
  }

  FailureOr<OpList> matchOps(Operation *root) const override {
    bool identity = false;
    if (auto pool = dyn_cast<hl::MaxPoolOp>(root))
      identity = isIdentityWindow(pool) && !pool.getIndices();
    else if (auto pool = dyn_cast<hl::AveragePoolOp>(root))
      identity = isIdentityWindow(pool);
    else if (isa<hl::GlobalAveragePoolOp, hl::GlobalMaxPoolOp>(root)) {
      auto type = dyn_cast<RankedTensorType>(root->getOperand(0).getType());
      identity = type && type.hasStaticShape() &&
                 llvm::all_of(type.getShape().drop_front(2),
                              [](int64_t d) { return d == 1; });
    }
    if (!identity ||
        root->getOperand(0).getType() != root->getResult(0).getType())
      return failure();
    return OpList{root};
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *>,
                             PatternRewriter &rewriter) const override {
    rewriter.replaceOp(root, root->getOperand(0));
    return success();
  }
};

} // namespace

std::vector<PatternDescriptor> getConversionPatterns() {
  std::vector<PatternDescriptor> patterns;
  patterns.push_back(describePattern<FlattenGemmToConv>(
      {"FlattenGemmToConv",
       PatternPhase::Conversion,
       2,
       {},
       "Flatten + Gemm -> Conv over the spatial extent + Flatten"}));
  patterns.push_back(describePattern<RemoveIdentityPooling>(
      {"RemoveIdentityPooling",
       PatternPhase::Conversion,
       1,
       {},
       "drops pooling with 1x1 windows, unit strides and no padding"}));
  appendAttentionConversions(patterns);
  return patterns;
}

std::vector<PatternDescriptor> getFusionPatterns() {
  std::vector<PatternDescriptor> patterns;
  appendLayerFusions(patterns);
  appendAttentionFusions(patterns);
  return patterns;
}

} // namespace strata::tensorrt
