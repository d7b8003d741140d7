//===- ApplyBackendPatterns.cpp - a backend's patterns as a pass ----------===//
#include "strata/Backends/Backend.h"
#include "strata/Backends/Passes.h"
#include "strata/Patterns/Plan.h"

namespace strata {
#define GEN_PASS_DEF_APPLYBACKENDPATTERNS
#include "strata/Backends/Passes.h.inc"
} // namespace strata

using namespace mlir;

namespace strata {
namespace {

struct ApplyBackendPatternsPass
    : impl::ApplyBackendPatternsBase<ApplyBackendPatternsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<const Backend &> selected = lookupBackend(backend);
    if (!selected) {
      module.emitError(llvm::toString(selected.takeError()));
      return signalPassFailure();
    }
    std::vector<PatternDescriptor> all = selected->getPatterns(quantize);
    std::vector<PatternDescriptor> chosen;
    for (const PatternDescriptor &d : all)
      if (patterns.empty() || llvm::is_contained(patterns, d.info.name))
        chosen.push_back(d);
    for (const std::string &name : patterns)
      if (llvm::none_of(all, [&](auto &d) { return d.info.name == name; })) {
        module.emitError("backend '")
            << backend << "' has no pattern '" << name << "'"
            << (quantize ? "" : " (quantized ones need quantize=true)");
        return signalPassFailure();
      }
    FailureOr<TransformReport> report =
        transformInPlace(module, chosen, planIn, planOut);
    if (failed(report))
      return signalPassFailure();
    std::string error;
    if (!reportOut.empty() &&
        failed(writeJSONFile(reportOut, report->toJSON(), error))) {
      module.emitError(error);
      return signalPassFailure();
    }
  }
};

} // namespace
} // namespace strata
