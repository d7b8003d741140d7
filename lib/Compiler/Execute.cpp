//===- Execute.cpp - run compiled programs in-process and compare ---------===//
#include "strata/Compiler/Execute.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"

#include <cstring>
#include <random>

using namespace strata::runtime;

namespace strata {

namespace {

/// Loads `bytes` and method `method` (the first when empty), then calls
/// `fn` with the method; the loader and program live for the call.
template <typename T, typename Fn>
Result<T> withMethod(const std::string &bytes, const std::string &method,
                     Fn fn) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  std::string name = method;
  if (name.empty()) {
    if (program->methodCount() == 0)
      return Error(ErrorCode::InvalidProgram, "the program has no method");
    name = program->methodName(0);
  }
  static const BackendRegistry delegates = [] {
    BackendRegistry registry;
    (void)onednn::registerBackend(registry);
    return registry;
  }();
  Result<Method> loaded =
      program->loadMethod(name, &portableKernelRegistry(), &delegates);
  if (!loaded.ok())
    return loaded.takeError();
  return fn(*loaded);
}

OwnedTensor copyOf(const TensorView &view) {
  OwnedTensor tensor;
  tensor.dtype = view.dtype;
  tensor.shape = view.shape;
  tensor.bytes.resize(view.nbytes());
  if (!tensor.bytes.empty())
    std::memcpy(tensor.bytes.data(), view.data, view.nbytes());
  return tensor;
}

} // namespace

Result<std::vector<OwnedTensor>>
runProgram(const std::string &bytes, const std::vector<OwnedTensor> &inputs,
           const std::string &method) {
  using Outputs = std::vector<OwnedTensor>;
  return withMethod<Outputs>(bytes, method, [&](Method &m) -> Result<Outputs> {
    if (inputs.size() != m.inputCount())
      return Error(ErrorCode::InvalidArgument,
                   "method '" + m.name() + "' takes " +
                       std::to_string(m.inputCount()) + " inputs, got " +
                       std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      OwnedTensor input = inputs[i];
      STRATA_RETURN_IF_ERROR(m.setInput(i, input.view()));
    }
    STRATA_RETURN_IF_ERROR(m.execute());
    Outputs outputs;
    for (size_t i = 0; i < m.outputCount(); ++i) {
      Result<TensorView> output = m.output(i);
      if (!output.ok())
        return output.takeError();
      outputs.push_back(copyOf(*output));
    }
    return outputs;
  });
}

Result<std::vector<OwnedTensor>> makeRandomInputs(const std::string &bytes,
                                                  uint64_t seed,
                                                  const std::string &method) {
  using Inputs = std::vector<OwnedTensor>;
  return withMethod<Inputs>(bytes, method, [&](Method &m) -> Result<Inputs> {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    Inputs inputs;
    for (size_t i = 0; i < m.inputCount(); ++i) {
      Result<TensorView> view = m.input(i);
      if (!view.ok())
        return view.takeError();
      OwnedTensor tensor = copyOf(*view);
      uint8_t *p = tensor.bytes.data();
      for (int64_t e = 0, n = view->numel(); e < n; ++e) {
        switch (tensor.dtype) {
        case DType::F32:
          reinterpret_cast<float *>(p)[e] = uniform(rng);
          break;
        case DType::I64:
          reinterpret_cast<int64_t *>(p)[e] = rng() % 10;
          break;
        case DType::I32:
          reinterpret_cast<int32_t *>(p)[e] = rng() % 10;
          break;
        default:
          p[e * dtypeSize(tensor.dtype)] = rng() % 10;
          break;
        }
      }
      inputs.push_back(std::move(tensor));
    }
    return inputs;
  });
}

} // namespace strata
