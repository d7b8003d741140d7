//===- Backend.h - compile-time backends and their registry -----*- C++ -*-===//
//
// A Backend bundles what a target contributes to compilation: its pattern
// lists per phase (conversion, fusion, smooth, quantized) and the hooks the
// delegation stage calls (a partitioner, a preprocess step, the name of its
// runtime delegate). Backends are found by a registry:
//
//   setBackend("tensorrt");                 // unknown name: error listing
//   const Backend &b = *getBackend();       // auto-selects the only one
//   discoverBackends();                     // built-ins + plugins (cached)
//   resetBackends();                        // for tests
//
// Plugins are shared libraries found on a search path (STRATA_BACKEND_PATH,
// ':'-separated folders, every `*.so` in them) that export
//
//   extern "C" void strataRegisterBackends(strata::BackendRegistrar &);
//
// and are resolved against the host's Strata and MLIR symbols (the tools
// export them), as LLVM and MLIR pass plugins are.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_BACKENDS_BACKEND_H
#define STRATA_BACKENDS_BACKEND_H

#include "strata/Patterns/Pattern.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata {

/// Backend-specific compile options (`--backend-option key=value`).
using CompileSpecs = std::map<std::string, std::string>;

/// A compile spec a backend understands.
struct CompileSpecInfo {
  std::string name;
  std::string defaultValue;
  std::string description;
  /// Only the compile reads it (a path on the compiling machine, say): it
  /// is not recorded in the program with the others.
  bool compileTimeOnly = false;
};

/// What a backend's preprocess step returns for one outlined partition.
struct PreprocessResult {
  /// The backend's compiled form of the partition.
  std::vector<uint8_t> processedBytes;
  /// Delegate-internal node -> ONNX node names it came from.
  std::map<std::string, std::vector<std::string>> debugHandles;
  /// Data the backend wants stored as separate, deduplicated segments (by
  /// key; the runtime delegate's init gets them back by key).
  std::map<std::string, std::vector<uint8_t>> namedData;
  /// Working memory the delegate needs at execute: the lowering passes a
  /// planned u8 buffer of this size as the call's last output.
  uint64_t scratchBytes = 0;
  /// Decisions the backend made that the compile report lists, one line
  /// each (a convolution's algorithm and why).
  std::vector<std::string> notes;
};

/// The hooks of the delegation stage; empty for pattern-only backends.
struct BackendHooks {
  /// Whether the delegate runs `op` (an edge op: its kind, shapes, element
  /// types and attributes). The default partitioner claims exactly these.
  std::function<bool(mlir::Operation *)> supportsOp;
  /// Replaces the default partitioner: marks the ops of `func` it claims
  /// with the attribute `edge.backend = "<backend name>"`. Partitions are
  /// then formed from the marks without creating cycles.
  std::function<mlir::LogicalResult(mlir::func::FuncOp)> partitioner;
  /// Compiles one outlined partition with the given compile specs.
  std::function<mlir::FailureOr<PreprocessResult>(mlir::func::FuncOp,
                                                  const CompileSpecs &)>
      preprocess;
  /// The compile specs preprocess understands (others are rejected).
  std::vector<CompileSpecInfo> compileSpecs;
  /// Name of the runtime delegate that executes what preprocess produced.
  std::string runtimeDelegate;
  /// The partitioner's cost calibration for this delegate (JSON, see
  /// strata/Delegation/CostModel.h), measured by
  /// scripts/calibrate-partitioner.sh. Empty: every group of claimed ops is
  /// delegated.
  std::string costCalibration;
  /// With --quantize: the backend whose conversion, fusion and quantized
  /// patterns place the QDQ pairs, when this one has no quantized patterns
  /// of its own (a delegate whose int8 kernels want another backend's
  /// placement rules). Empty: this backend's own patterns.
  std::string quantizeWith;
  /// What the delegate runs fused, as strata-edge-fuse's options (e.g.
  /// "anchors=conv2d activations=relu fusions=conv-sum"); to_backend runs
  /// the pass with them on each partition before preprocess, so that the
  /// partition writer serializes one edge op at a time. Empty: no fusion.
  std::string fusions;

  bool delegates() const { return static_cast<bool>(preprocess); }
};

/// A compile-time backend. Construct with Backend::create, which checks
/// that every pattern sits in the list of its own phase.
class Backend {
public:
  static llvm::Expected<Backend>
  create(std::string name, std::vector<PatternDescriptor> conversion,
         std::vector<PatternDescriptor> fusion,
         std::vector<PatternDescriptor> smooth,
         std::vector<PatternDescriptor> quantized, BackendHooks hooks = {},
         std::string description = "");

  const std::string &getName() const { return name; }
  const std::string &getDescription() const { return description; }
  llvm::ArrayRef<PatternDescriptor> getConversionPatterns() const {
    return conversion;
  }
  llvm::ArrayRef<PatternDescriptor> getFusionPatterns() const { return fusion; }
  llvm::ArrayRef<PatternDescriptor> getSmoothPatterns() const { return smooth; }
  llvm::ArrayRef<PatternDescriptor> getQuantizedPatterns() const {
    return quantized;
  }
  const BackendHooks &getHooks() const { return hooks; }
  /// Where it came from: "built-in" or the plugin's path.
  const std::string &getSource() const { return source; }
  void setSource(std::string path) { source = std::move(path); }

  /// Every list in phase order: what transform() takes. The quantized and
  /// smooth lists are included only when `quantize` is set.
  std::vector<PatternDescriptor> getPatterns(bool quantize = false) const;

private:
  Backend() = default;
  std::string name, description, source = "built-in";
  std::vector<PatternDescriptor> conversion, fusion, smooth, quantized;
  BackendHooks hooks;
};

/// Handed to plugins to add their backends.
class BackendRegistrar {
public:
  virtual ~BackendRegistrar();
  virtual void add(Backend backend) = 0;
  /// Reports a backend that failed to build (e.g. Backend::create's error).
  virtual void fail(std::string message) = 0;
};

/// A registry of backends: built-ins plus plugins from a search path.
class BackendRegistry {
public:
  /// `builtins` produces the built-in backends; `searchPath` lists plugin
  /// folders (':'-separated; empty: none).
  BackendRegistry(std::function<std::vector<Backend>()> builtins,
                  std::string searchPath);

  /// Built-ins and plugins, found once and cached until reset().
  llvm::Expected<const std::vector<Backend> &> discover();
  /// Selects the backend named `name`.
  llvm::Error set(llvm::StringRef name);
  /// The selected backend; with none selected, the only one discovered.
  llvm::Expected<const Backend &> get();
  /// The backend named `name`, leaving the selection as it is.
  llvm::Expected<const Backend &> find(llvm::StringRef name);
  /// The name set() selected ("" when none is).
  const std::string &getSelectedName() const { return selected; }
  /// Forgets the discovered backends and the selection.
  void reset();
  /// How many times discovery ran (for tests of the cache).
  int getDiscoveryCount() const { return discoveries; }

private:
  std::function<std::vector<Backend>()> builtins;
  std::string searchPath;
  std::optional<std::vector<Backend>> cache;
  std::string selected;
  int discoveries = 0;
};

/// The process-wide registry: the built-in `portable`, `tensorrt`,
/// `onednn` and `xnnpack` backends plus plugins from $STRATA_BACKEND_PATH.
BackendRegistry &getBackendRegistry();
llvm::Error setBackend(llvm::StringRef name);
llvm::Expected<const Backend &> getBackend();
/// The backend named `name`, leaving the selection as it is (what the
/// compile pipeline uses: compiling never changes the selection).
llvm::Expected<const Backend &> lookupBackend(llvm::StringRef name);
/// The name setBackend selected ("" when none is).
std::string getSelectedBackendName();
llvm::Expected<const std::vector<Backend> &> discoverBackends();
void resetBackends();

/// The built-in backends.
Backend makePortableBackend();
Backend makeTensorRTBackend();
Backend makeOneDNNBackend();
Backend makeXNNPACKBackend();
std::vector<Backend> getBuiltinBackends();

} // namespace strata

#endif // STRATA_BACKENDS_BACKEND_H
