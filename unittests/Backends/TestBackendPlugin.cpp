//===- TestBackendPlugin.cpp - a backend plugin built by the test suite ---===//
//
// Registers backend "test-plugin" with one fusion pattern, NegNeg, which
// groups two consecutive hl.neg ops. Loaded by BackendRegistryTest from a
// search path, as STRATA_BACKEND_PATH would load it into strata-compile.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOps.h"
#include "strata/Backends/Backend.h"

using namespace mlir;

namespace {

struct NegNeg : strata::FusionPattern {
  NegNeg(MLIRContext *context, const strata::PatternInfo &info)
      : FusionPattern(context, info, strata::hl::NegOp::getOperationName()) {}
  FailureOr<SmallVector<Operation *>> matchOps(Operation *root) const override {
    auto outer = cast<strata::hl::NegOp>(root);
    auto inner = outer.getInput().getDefiningOp<strata::hl::NegOp>();
    if (!inner || !inner->hasOneUse())
      return failure();
    return SmallVector<Operation *>{inner, root};
  }
  std::string getKind(ArrayRef<Operation *>) const override {
    return "neg_neg";
  }
};

} // namespace

extern "C" void strataRegisterBackends(strata::BackendRegistrar &registrar) {
  llvm::Expected<strata::Backend> backend = strata::Backend::create(
      "test-plugin", {},
      {strata::describePattern<NegNeg>(
          {"NegNeg", strata::PatternPhase::Fusion, 2, {}, "neg(neg(x))"})},
      {}, {}, {}, "a plugin built by the test suite");
  if (!backend) {
    registrar.fail(llvm::toString(backend.takeError()));
    return;
  }
  registrar.add(std::move(*backend));
}
