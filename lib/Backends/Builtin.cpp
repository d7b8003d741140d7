//===- Builtin.cpp - the built-in backends --------------------------------===//
//
// portable, tensorrt, onednn and xnnpack.
//
//===----------------------------------------------------------------------===//
#include "OneDNN/OneDNNBackend.h"
#include "TensorRT/TensorRTPatterns.h"
#include "XNNPACK/XNNPACKBackend.h"
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

/// The hooks of a backend whose partitions run on the runtime delegate
/// `delegate`. Its int8 comes from TensorRT's QDQ placement (input,
/// per-channel weights and residual quantized), the graph both delegates'
/// int8 convolutions want.
static BackendHooks
delegateHooks(std::function<bool(mlir::Operation *)> supportsOp,
              decltype(BackendHooks::preprocess) preprocess,
              const char *delegate, const char *fusions) {
  BackendHooks hooks;
  hooks.supportsOp = std::move(supportsOp);
  hooks.preprocess = std::move(preprocess);
  hooks.runtimeDelegate = delegate;
  hooks.quantizeWith = "tensorrt";
  hooks.fusions = fusions;
  return hooks;
}

Backend makePortableBackend() {
  return checked(Backend::create(
      "portable", {}, {}, {}, {}, {},
      "reference kernels for every edge op; no rewrites beyond lowering"));
}

Backend makeTensorRTBackend() {
  return checked(Backend::create(
      "tensorrt", tensorrt::getConversionPatterns(),
      tensorrt::getFusionPatterns(), tensorrt::getSmoothPatterns(),
      tensorrt::getQuantizedPatterns(), {},
      "TensorRT's conversions, fusions and QDQ placement rules (its product "
      "is the QDQ ONNX export)"));
}

Backend makeOneDNNBackend() {
  BackendHooks hooks = delegateHooks(onednn::supportsOp, onednn::preprocess,
                                     "onednn", onednn::kFusions);
  hooks.costCalibration =
#include "OneDNNPartitionCost.inc"
      ;
  hooks.compileSpecs = {
      {"winograd", "true",
       "run wide 3x3 stride-1 convolutions on the delegate's Winograd "
       "kernel, where its rule says that pays (faster; rel-L2 about 1e-6 "
       "against a direct convolution) and where its error on the layer's "
       "own weights is within winograd_budget; false: direct convolutions "
       "only"},
      {"winograd_budget", "2",
       "the most a layer's Winograd rel-L2 error may be, as a multiple of "
       "a float32 direct convolution's, both measured at compile time on "
       "seeded inputs against float64",
       /*compileTimeOnly=*/true},
      {"winograd_size_budget", "0.07",
       "the most the Winograd kernel's transformed weights may add to a "
       "partition, as a share of its constants' bytes (the layers with the "
       "largest results get it first)",
       /*compileTimeOnly=*/true},
      {"winograd_init_layer_bytes", "1048576",
       "past the size budget, a layer whose plain weights take at most this "
       "many bytes gets its Winograd transform at init instead (stored "
       "plain; below about this size the transform costs init less than "
       "the oneDNN primitive it replaces); 0: never",
       /*compileTimeOnly=*/true},
      {"activation_layout", "auto",
       "layout of f32 activations between convolutions: auto (nChw16c "
       "for depthwise-separable graphs on AVX-512, else oneDNN's choice per "
       "convolution), open (oneDNN's choice) or blocked (nChw16c; needs "
       "AVX-512)"},
      {"keep_plain_weights", "false",
       "also store plain weights, so that init on another CPU can repack "
       "them (runtime option repack_on_isa_mismatch)"},
      {"tune_threads", "1",
       "OpenMP threads the program will run on: oneDNN's choice of "
       "convolution implementation depends on it, and tune measures on it"},
      {"tune", "false",
       "time each convolution's implementations and keep the fastest "
       "(opt-in: the output then depends on the measurements); with "
       "tuning_file, only those the file lacks, and the file is updated",
       /*compileTimeOnly=*/true},
      {"tuning_file", "",
       "JSON file of tuning records: convolutions it has a record for get "
       "the recorded implementation, without measuring",
       /*compileTimeOnly=*/true}};
  return checked(Backend::create(
      "onednn", {}, {}, {}, {}, std::move(hooks),
      "x86 CPU delegate on oneDNN: convolutions, matmuls, pooling, "
      "element-wise and layout ops with fused post-ops, weights pre-packed "
      "at compile time; int8 convolutions (VNNI) after --quantize, with "
      "tensorrt's QDQ placement"));
}

Backend makeXNNPACKBackend() {
  return checked(Backend::create(
      "xnnpack", {}, {}, {}, {},
      delegateHooks(xnnpack::supportsOp, xnnpack::preprocess, "xnnpack",
                    xnnpack::kFusions),
      "CPU delegate on XNNPACK (x86 and ARM): convolutions (grouped, "
      "depthwise), fully connected, pooling, broadcasting element-wise ops "
      "and softmax, NHWC inside, with fused clamps; weights packed by "
      "XNNPACK at init"));
}

std::vector<Backend> getBuiltinBackends() {
  std::vector<Backend> backends;
  backends.push_back(makePortableBackend());
  backends.push_back(makeTensorRTBackend());
  backends.push_back(makeOneDNNBackend());
  backends.push_back(makeXNNPACKBackend());
  return backends;
}

} // namespace strata
