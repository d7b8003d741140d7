//===- Execute.cpp - run compiled programs in-process and compare ---------===//
#include "strata/Calibration/Execute.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/HalfFloat.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"

#include <cstring>
#include <optional>
#include <random>

using namespace strata::runtime;

namespace strata {

namespace {

/// The delegates the compiler's runs can use.
const BackendRegistry &compilerDelegates() {
  static const BackendRegistry delegates = [] {
    BackendRegistry registry;
    (void)registerLinkedDelegates(registry);
    return registry;
  }();
  return delegates;
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

struct ProgramSession::State {
  std::string bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;
  std::optional<Method> method;
};

ProgramSession::ProgramSession() : state(std::make_unique<State>()) {}
ProgramSession::~ProgramSession() = default;

Result<std::unique_ptr<ProgramSession>>
ProgramSession::open(std::string bytes, const std::string &method) {
  std::unique_ptr<ProgramSession> session(new ProgramSession());
  State &s = *session->state;
  s.bytes = std::move(bytes);
  s.loader = std::make_unique<BufferDataLoader>(s.bytes.data(), s.bytes.size());
  Result<Program> program = Program::load(*s.loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  s.program.emplace(std::move(*program));
  std::string name = method;
  if (name.empty()) {
    if (s.program->methodCount() == 0)
      return Error(ErrorCode::InvalidProgram, "the program has no method");
    name = s.program->methodName(0);
  }
  Result<Method> loaded = s.program->loadMethod(name, &portableKernelRegistry(),
                                                &compilerDelegates());
  if (!loaded.ok())
    return loaded.takeError();
  s.method.emplace(std::move(*loaded));
  return session;
}

size_t ProgramSession::inputCount() const {
  return state->method->inputCount();
}
size_t ProgramSession::outputCount() const {
  return state->method->outputCount();
}
Result<TensorView> ProgramSession::input(size_t index) {
  return state->method->input(index);
}
Result<TensorView> ProgramSession::output(size_t index) {
  return state->method->output(index);
}

Error ProgramSession::run(const std::vector<OwnedTensor> &inputs) {
  Method &m = *state->method;
  if (inputs.size() != m.inputCount())
    return Error(ErrorCode::InvalidArgument,
                 "method '" + m.name() + "' takes " +
                     std::to_string(m.inputCount()) + " inputs, got " +
                     std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    OwnedTensor input = inputs[i];
    STRATA_RETURN_IF_ERROR(m.setInput(i, input.view()));
  }
  return m.execute();
}

Result<std::vector<OwnedTensor>>
runProgram(const std::string &bytes, const std::vector<OwnedTensor> &inputs,
           const std::string &method) {
  Result<std::unique_ptr<ProgramSession>> session =
      ProgramSession::open(bytes, method);
  if (!session.ok())
    return session.takeError();
  STRATA_RETURN_IF_ERROR((*session)->run(inputs));
  std::vector<OwnedTensor> outputs;
  for (size_t i = 0; i < (*session)->outputCount(); ++i) {
    Result<TensorView> output = (*session)->output(i);
    if (!output.ok())
      return output.takeError();
    outputs.push_back(copyOf(*output));
  }
  return outputs;
}

/// Writes one random element of `dtype` at `at`: floating types uniform in
/// [-1, 1) (rounded to the type), booleans 0 or 1, integers in [0, 10)
/// (valid indices and counts for most models), every byte of the element
/// written.
static void writeRandomElement(DType dtype, uint8_t *at, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto store = [at](auto value) { std::memcpy(at, &value, sizeof(value)); };
  switch (dtype) {
  case DType::F32:
    return store(uniform(rng));
  case DType::F64:
    return store(static_cast<double>(uniform(rng)));
  case DType::F16:
    return store(floatToHalf(uniform(rng)));
  case DType::BF16:
    return store(floatToBFloat16(uniform(rng)));
  case DType::Bool:
    return store(static_cast<uint8_t>(rng() % 2));
  case DType::I8:
    return store(static_cast<int8_t>(rng() % 10));
  case DType::U8:
    return store(static_cast<uint8_t>(rng() % 10));
  case DType::I16:
    return store(static_cast<int16_t>(rng() % 10));
  case DType::U16:
    return store(static_cast<uint16_t>(rng() % 10));
  case DType::I32:
    return store(static_cast<int32_t>(rng() % 10));
  case DType::U32:
    return store(static_cast<uint32_t>(rng() % 10));
  case DType::I64:
    return store(static_cast<int64_t>(rng() % 10));
  case DType::U64:
    return store(static_cast<uint64_t>(rng() % 10));
  }
}

Result<std::vector<OwnedTensor>> makeRandomInputs(const std::string &bytes,
                                                  uint64_t seed,
                                                  const std::string &method) {
  Result<std::unique_ptr<ProgramSession>> session =
      ProgramSession::open(bytes, method);
  if (!session.ok())
    return session.takeError();
  ProgramSession &m = **session;
  std::mt19937_64 rng(seed);
  std::vector<OwnedTensor> inputs;
  for (size_t i = 0; i < m.inputCount(); ++i) {
    Result<TensorView> view = m.input(i);
    if (!view.ok())
      return view.takeError();
    OwnedTensor tensor = copyOf(*view);
    uint8_t *p = tensor.bytes.data();
    size_t size = dtypeSize(tensor.dtype);
    for (int64_t e = 0, n = view->numel(); e < n; ++e)
      writeRandomElement(tensor.dtype, p + e * size, rng);
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

} // namespace strata
