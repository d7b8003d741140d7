//===- Kernel.h - kernels, their parameters and the registry -----*- C++ -*-===//
//
// A kernel is a plain function looked up by name (the exec.kernel name) in a
// KernelRegistry. Registration is an explicit call (registerPortableKernels),
// never a static initialiser. Each kernel validates its operands first: the
// Method calls it once at load time with `validateOnly` set, so that a
// mismatched shape, dtype or parameter fails at load with the kernel's name,
// and never reads out of bounds at execute time.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_KERNEL_H
#define STRATA_RUNTIME_KERNEL_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/Tensor.h"

#include <map>
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
  Result<std::vector<int64_t>>
  getInts(const std::string &name, std::vector<int64_t> fallback) const;

  /// Float list `name` (an integer list is accepted), or `fallback` when
  /// absent.
  Result<std::vector<double>> getFloats(const std::string &name,
                                        std::vector<double> fallback) const;
  /// String `name`, or `fallback` when absent.
  Result<std::string> getString(const std::string &name,
                                std::string fallback) const;

  const std::vector<Param> &all() const { return params_; }

private:
  std::vector<Param> params_;
};

/// What a kernel sees: its operand views, parameters and a scratch area.
struct KernelContext {
  std::vector<TensorView> ins;
  std::vector<TensorView> outs;
  Params params;
  /// Set for the load-time call: validate operands, compute nothing.
  bool validateOnly = false;
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

/// A kernel: validates `ctx`, then (unless ctx.validateOnly) computes.
using KernelFn = Error (*)(KernelContext &ctx);

/// Kernels by name.
class KernelRegistry {
public:
  /// Adds `fn` under `name`; fails when the name is taken.
  Error add(const std::string &name, KernelFn fn);
  /// The kernel called `name`, or null.
  KernelFn lookup(const std::string &name) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;
  size_t size() const { return kernels_.size(); }

private:
  std::map<std::string, KernelFn> kernels_;
};

/// Registers every portable (reference) float32 kernel: conv2d, matmul, add,
/// sub, mul, div, relu, sigmoid, tanh, exp, sqrt, neg, abs, clip, max_pool2d,
/// avg_pool2d, reduce_mean, reshape, transpose, softmax, concat, copy.
Error registerPortableKernels(KernelRegistry &registry);

/// A registry holding the portable kernels, built on first use.
const KernelRegistry &portableKernelRegistry();

} // namespace strata::runtime

#endif // STRATA_RUNTIME_KERNEL_H
