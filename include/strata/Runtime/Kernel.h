//===- Kernel.h - kernels, their parameters and the registry -----*- C++
//-*-===//
//
// A kernel is looked up by name (the exec.kernel name) in a KernelRegistry.
// Registration is an explicit call (registerPortableKernels), never a static
// initialiser. Every kernel validates its operands and parameters when the
// Method is loaded, so that a mismatched shape, dtype or parameter fails at
// load with the kernel's name, and never reads out of bounds at execute
// time. A kernel comes in one of two forms:
// - typed: `prepare` decodes the parameters into a state struct once at
//   load, and `execute` receives that state and the operands (KernelIO),
//   never the parameters, so it cannot look anything up by name on the hot
//   path (ExecuTorch hands its kernels typed arguments the same way);
// - legacy: one function called at load with `validateOnly` set and then on
//   every execute, reading its parameters from KernelContext::params.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_KERNEL_H
#define STRATA_RUNTIME_KERNEL_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime {

/// One kernel parameter (an attribute of the edge op the kernel came from).
struct Param {
  enum class Kind { Int, Float, Bool, String, IntList, FloatList };
  std::string name;
  Kind kind = Kind::Int;
  int64_t intValue = 0; ///< Int, and Bool as 0/1.
  double floatValue = 0;
  std::string stringValue;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

/// A kernel's parameters with typed lookups. Lookups of a parameter of the
/// wrong kind fail with an error naming it.
class Params {
public:
  Params() = default;
  explicit Params(std::vector<Param> params) : params_(std::move(params)) {}

  /// The parameter called `name`, or null.
  const Param *find(const std::string &name) const;
  bool has(const std::string &name) const { return find(name) != nullptr; }

  /// Integer `name`, or `fallback` when absent.
  Result<int64_t> getInt(const std::string &name, int64_t fallback) const;
  /// Float `name` (an integer is accepted), or `fallback` when absent.
  Result<double> getFloat(const std::string &name, double fallback) const;
  /// Bool `name` (an integer 0/1 is accepted), or `fallback` when absent.
  Result<bool> getBool(const std::string &name, bool fallback) const;
  /// Integer list `name`, or `fallback` when absent.
  Result<std::vector<int64_t>> getInts(const std::string &name,
                                       std::vector<int64_t> fallback) const;

  /// Float list `name` (an integer list is accepted), or `fallback` when
  /// absent.
  Result<std::vector<double>> getFloats(const std::string &name,
                                        std::vector<double> fallback) const;
  /// String `name`, or `fallback` when absent.
  Result<std::string> getString(const std::string &name,
                                std::string fallback) const;

  /// Integer `name`; an error naming it when absent (for the parameters
  /// the edge contract always states).
  Result<int64_t> requireInt(const std::string &name) const;
  /// Bool `name`; an error naming it when absent.
  Result<bool> requireBool(const std::string &name) const;
  /// Integer list `name`; an error naming it when absent.
  Result<std::vector<int64_t>> requireInts(const std::string &name) const;

  const std::vector<Param> &all() const { return params_; }

private:
  std::vector<Param> params_;
};

/// What a kernel sees when it computes: its operand views and a scratch
/// area, but no parameters.
struct KernelIO {
  std::vector<TensorView> ins;
  /// A kernel whose result extents depend on the data (NonZero, Unique)
  /// gets those dimensions at their bounds: it writes its results in the
  /// layout of their actual shapes, never past the bounds, and stores the
  /// actual extents in `shape`, which the method reads back.
  std::vector<TensorView> outs;
  /// Scratch memory owned by the method (grown on demand, reused by every
  /// kernel of the method; not preserved between calls).
  std::vector<float> *scratch = nullptr;
  /// Instruction index and kernel name, for messages.
  size_t instruction = 0;
  std::string kernelName;

  /// Returns an InvalidArgument error prefixed with the kernel name.
  Error fail(const std::string &message) const;
  /// Scratch space of at least `count` floats.
  float *scratchFloats(size_t count);
};

/// What a kernel sees at load, and a legacy kernel on every call: its
/// operands and its parameters.
struct KernelContext : KernelIO {
  Params params;
  /// Set for the load-time call of a legacy kernel: validate operands,
  /// compute nothing.
  bool validateOnly = false;
};

/// A legacy kernel: validates `ctx`, then (unless ctx.validateOnly)
/// computes.
using KernelFn = Error (*)(KernelContext &ctx);

/// The state a typed kernel's `prepare` builds for one instruction: its
/// parameters decoded and checked against the operands' shapes. Each kernel
/// family derives its own (through TypedKernelState).
class KernelState {
public:
  virtual ~KernelState() = default;
};

/// Validates the operands and parameters of `ctx` and decodes them, once
/// when the method is loaded.
using KernelPrepareFn =
    Result<std::unique_ptr<KernelState>> (*)(const KernelContext &ctx);
/// Computes from the state `prepare` built; sees no parameters.
using KernelExecuteFn = Error (*)(const KernelState &state, KernelIO &io);

/// A registered kernel: a legacy function, or a typed prepare/execute pair.
struct KernelEntry {
  KernelFn fn = nullptr;
  KernelPrepareFn prepare = nullptr;
  KernelExecuteFn execute = nullptr;

  bool isTyped() const { return prepare != nullptr; }
};

/// A KernelState holding a kernel family's own state struct.
template <typename State> class TypedKernelState final : public KernelState {
public:
  explicit TypedKernelState(State state) : state(std::move(state)) {}
  State state;
};

/// The registry entry of a typed kernel written as
///   Result<State> prepare(const KernelContext &ctx);
///   Error execute(const State &state, KernelIO &io);
/// so that neither function handles the type-erased KernelState.
template <typename State, Result<State> (*Prepare)(const KernelContext &),
          Error (*Execute)(const State &, KernelIO &)>
KernelEntry typedKernel() {
  KernelEntry entry;
  entry.prepare =
      [](const KernelContext &ctx) -> Result<std::unique_ptr<KernelState>> {
    Result<State> state = Prepare(ctx);
    if (!state.ok())
      return state.takeError();
    return std::unique_ptr<KernelState>(
        new TypedKernelState<State>(std::move(*state)));
  };
  entry.execute = [](const KernelState &state, KernelIO &io) {
    return Execute(static_cast<const TypedKernelState<State> &>(state).state,
                   io);
  };
  return entry;
}

/// Kernels by name.
class KernelRegistry {
public:
  /// Adds the legacy kernel `fn` under `name`; fails when the name is taken.
  Error add(const std::string &name, KernelFn fn);
  /// Adds the typed kernel `entry` under `name`; fails when the name is
  /// taken or the entry lacks prepare or execute.
  Error add(const std::string &name, KernelEntry entry);
  /// The kernel called `name`, or null.
  const KernelEntry *lookup(const std::string &name) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;
  size_t size() const { return kernels_.size(); }

private:
  std::map<std::string, KernelEntry> kernels_;
};

/// Registers every portable (reference) float32 kernel: conv2d, matmul, add,
/// sub, mul, div, relu, sigmoid, tanh, exp, sqrt, neg, abs, clip, max_pool2d,
/// avg_pool2d, reduce_mean, reshape, transpose, softmax, concat, copy.
Error registerPortableKernels(KernelRegistry &registry);

/// A registry holding the portable kernels, built on first use.
const KernelRegistry &portableKernelRegistry();

} // namespace strata::runtime

#endif // STRATA_RUNTIME_KERNEL_H
