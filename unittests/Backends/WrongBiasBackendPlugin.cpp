//===- WrongBiasBackendPlugin.cpp - a plugin backend wrong on purpose -----===//
//
// Registers backend "test-wrong-bias", whose one pattern is wrong on
// purpose: it folds a per-channel constant added to a bias-free convolution
// into the convolution's bias, with the sign flipped. strata-compile
// --bisect must name the node it breaks (test/Compiler/bisect.test).
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOps.h"
#include "strata/Backends/Backend.h"

using namespace mlir;

namespace {

struct WrongConvAddBias : strata::StrataPattern {
  WrongConvAddBias(MLIRContext *context, const strata::PatternInfo &info)
      : StrataPattern(context, info, strata::hl::AddOp::getOperationName()) {}

  /// The per-channel constant `add` adds to a bias-free convolution.
  static DenseElementsAttr shiftOf(strata::hl::AddOp add) {
    auto conv = add.getLhs().getDefiningOp<strata::hl::ConvOp>();
    auto shift = add.getRhs().getDefiningOp<strata::hl::ConstantOp>();
    if (!conv || conv.getBias() || !conv->hasOneUse() || !shift)
      return nullptr;
    auto type = cast<RankedTensorType>(conv.getType());
    auto values = dyn_cast<DenseElementsAttr>(shift.getValue());
    if (!values || type.getRank() != 4 || !type.getElementType().isF32() ||
        add.getType() != type)
      return nullptr;
    ArrayRef<int64_t> shape = values.getType().getShape();
    bool perChannel = shape.size() == 3 && shape[0] == type.getDimSize(1) &&
                      shape[1] == 1 && shape[2] == 1;
    return perChannel ? values : nullptr;
  }

  FailureOr<SmallVector<Operation *>> matchOps(Operation *root) const override {
    auto add = cast<strata::hl::AddOp>(root);
    if (!shiftOf(add))
      return failure();
    return SmallVector<Operation *>{add.getLhs().getDefiningOp(), root};
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *> ops,
                             PatternRewriter &rewriter) const override {
    auto add = cast<strata::hl::AddOp>(root);
    auto conv = cast<strata::hl::ConvOp>(ops.front());
    SmallVector<float> bias;
    for (float v : shiftOf(add).getValues<float>())
      bias.push_back(-v); // The deliberate bug: the sign.
    auto biasType = RankedTensorType::get(
        {static_cast<int64_t>(bias.size())}, rewriter.getF32Type());
    Location loc = rewriter.getFusedLoc({conv.getLoc(), add.getLoc()});
    Value b = rewriter.create<strata::hl::ConstantOp>(
        loc, DenseElementsAttr::get(biasType, ArrayRef<float>(bias)));
    auto fused = rewriter.create<strata::hl::ConvOp>(
        loc, TypeRange{add.getType()},
        ValueRange{conv.getInput(), conv.getWeight(), b}, conv->getAttrs());
    rewriter.replaceOp(add, fused->getResults());
    rewriter.eraseOp(conv);
    return success();
  }
};

} // namespace

extern "C" void strataRegisterBackends(strata::BackendRegistrar &registrar) {
  llvm::Expected<strata::Backend> backend = strata::Backend::create(
      "test-wrong-bias",
      {strata::describePattern<WrongConvAddBias>(
          {"WrongConvAddBias", strata::PatternPhase::Conversion, 2, {},
           "conv(x) + c -> conv(x, bias -c): wrong on purpose"})},
      {}, {}, {}, {}, "a plugin whose one pattern is wrong on purpose");
  if (!backend) {
    registrar.fail(llvm::toString(backend.takeError()));
    return;
  }
  registrar.add(std::move(*backend));
}
