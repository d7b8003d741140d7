//===- Kernel.cpp - kernel parameters and the kernel registry -------------===//
#include "strata/Runtime/Kernel.h"

namespace strata::runtime {

const Param *Params::find(const std::string &name) const {
  for (const Param &param : params_)
    if (param.name == name)
      return &param;
  return nullptr;
}

static Error wrongKind(const std::string &name, const char *expected) {
  return Error(ErrorCode::InvalidArgument,
               "parameter '" + name + "' is not " + expected);
}

Result<int64_t> Params::getInt(const std::string &name,
                               int64_t fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind != Param::Kind::Int && param->kind != Param::Kind::Bool)
    return wrongKind(name, "an integer");
  return param->intValue;
}

Result<double> Params::getFloat(const std::string &name,
                                double fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind == Param::Kind::Float)
    return param->floatValue;
  if (param->kind == Param::Kind::Int)
    return static_cast<double>(param->intValue);
  return wrongKind(name, "a float");
}

Result<bool> Params::getBool(const std::string &name, bool fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind != Param::Kind::Int && param->kind != Param::Kind::Bool)
    return wrongKind(name, "a bool");
  return param->intValue != 0;
}

Result<std::vector<int64_t>>
Params::getInts(const std::string &name, std::vector<int64_t> fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind != Param::Kind::IntList)
    return wrongKind(name, "an integer list");
  return param->ints;
}

Result<std::vector<double>>
Params::getFloats(const std::string &name, std::vector<double> fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind == Param::Kind::FloatList)
    return param->floats;
  if (param->kind == Param::Kind::IntList)
    return std::vector<double>(param->ints.begin(), param->ints.end());
  return wrongKind(name, "a float list");
}

Result<std::string> Params::getString(const std::string &name,
                                      std::string fallback) const {
  const Param *param = find(name);
  if (!param)
    return fallback;
  if (param->kind != Param::Kind::String)
    return wrongKind(name, "a string");
  return param->stringValue;
}

static Error missing(const std::string &name) {
  return Error(ErrorCode::InvalidArgument,
               "parameter '" + name + "' is missing");
}

Result<int64_t> Params::requireInt(const std::string &name) const {
  if (!has(name))
    return missing(name);
  return getInt(name, 0);
}

Result<bool> Params::requireBool(const std::string &name) const {
  if (!has(name))
    return missing(name);
  return getBool(name, false);
}

Result<std::vector<int64_t>>
Params::requireInts(const std::string &name) const {
  if (!has(name))
    return missing(name);
  return getInts(name, {});
}

Error KernelIO::fail(const std::string &message) const {
  return Error(ErrorCode::InvalidArgument,
               "kernel '" + kernelName + "' (instruction " +
                   std::to_string(instruction) + "): " + message);
}

float *KernelIO::scratchFloats(size_t count) {
  if (scratch->size() < count)
    scratch->resize(count);
  return scratch->data();
}

Error KernelRegistry::add(const std::string &name, KernelFn fn) {
  if (!fn)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + name + "' has no function");
  KernelEntry entry;
  entry.fn = fn;
  if (!kernels_.emplace(name, entry).second)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + name + "' is already registered");
  return Error::success();
}

Error KernelRegistry::add(const std::string &name, KernelEntry entry) {
  if (entry.fn || !entry.prepare || !entry.execute)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + name +
                     "' must have a prepare and an execute function");
  if (!kernels_.emplace(name, entry).second)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + name + "' is already registered");
  return Error::success();
}

const KernelEntry *KernelRegistry::lookup(const std::string &name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &entry : kernels_)
    result.push_back(entry.first);
  return result;
}

const KernelRegistry &portableKernelRegistry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    Error error = registerPortableKernels(r);
    (void)error;
    assert(error.ok() && "portable kernels register once");
    return r;
  }();
  return registry;
}

} // namespace strata::runtime
