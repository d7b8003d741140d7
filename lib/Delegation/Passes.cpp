//===- Passes.cpp - strata-partition and strata-to-backend ----------------===//
#include "strata/Delegation/Delegation.h"

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace strata {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_PARTITION
#define GEN_PASS_DEF_TOBACKEND
#include "strata/Delegation/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata

using namespace mlir;

namespace strata {
namespace {

FailureOr<const Backend *> lookupBackend(ModuleOp module, StringRef name) {
  llvm::Expected<const std::vector<Backend> &> all = discoverBackends();
  if (!all) {
    module.emitError(llvm::toString(all.takeError()));
    return failure();
  }
  for (const Backend &backend : *all)
    if (backend.getName() == name)
      return &backend;
  std::string known;
  for (const Backend &backend : *all)
    known += (known.empty() ? "" : ", ") + backend.getName();
  module.emitError("unknown backend '") << name << "' (known: " << known << ")";
  return failure();
}

struct PartitionPass : impl::PartitionBase<PartitionPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<const Backend *> selected = lookupBackend(module, backend);
    if (failed(selected))
      return signalPassFailure();
    llvm::Expected<std::optional<CostCalibration>> calibration =
        loadCostCalibration(cost, **selected);
    if (!calibration) {
      module.emitError(llvm::toString(calibration.takeError()));
      return signalPassFailure();
    }
    if (failed(partition(module, **selected,
                         *calibration ? &**calibration : nullptr)))
      signalPassFailure();
  }
};

struct ToBackendPass : impl::ToBackendBase<ToBackendPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    FailureOr<CompileSpecs> parsed = parseCompileSpecs(specs, error);
    if (failed(parsed)) {
      module.emitError(error);
      return signalPassFailure();
    }
    std::set<std::string> backends;
    for (auto func : module.getOps<func::FuncOp>())
      if (auto b = func->getAttrOfType<StringAttr>(delegation::kDelegateAttr))
        backends.insert(b.str());
    for (const std::string &name : backends) {
      FailureOr<const Backend *> selected = lookupBackend(module, name);
      if (failed(selected) ||
          failed(toBackend(module, **selected, *parsed,
                           [this](OpPassManager &pm, Operation *op) {
                             return runPipeline(pm, op);
                           })))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace strata
