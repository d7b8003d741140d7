//===- Builtin.cpp - the built-in backends: portable and tensorrt ---------===//
#include "TensorRT/TensorRTPatterns.h"
#include "strata/Backends/Backend.h"

#include "llvm/Support/ErrorHandling.h"

namespace strata {

/// Built-in lists are checked by the same validation as plugins'; a
/// mistake in them is a bug in Strata, not a user error.
static Backend checked(llvm::Expected<Backend> backend) {
  if (!backend)
    llvm::report_fatal_error(llvm::toString(backend.takeError()).c_str());
  return std::move(*backend);
}

Backend makePortableBackend() {
  return checked(Backend::create(
      "portable", {}, {}, {}, {}, {},
      "reference kernels for every edge op; no rewrites beyond lowering"));
}

Backend makeTensorRTBackend() {
  return checked(Backend::create(
      "tensorrt", tensorrt::getConversionPatterns(),
      tensorrt::getFusionPatterns(), {}, tensorrt::getQuantizedPatterns(), {},
      "TensorRT's conversions, fusions and QDQ placement rules (its product "
      "is the QDQ ONNX export)"));
}

std::vector<Backend> getBuiltinBackends() {
  std::vector<Backend> backends;
  backends.push_back(makePortableBackend());
  backends.push_back(makeTensorRTBackend());
  return backends;
}

} // namespace strata
