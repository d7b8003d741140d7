//===- Execute.cpp - run compiled programs in-process and compare ---------===//
#include "strata/Calibration/Execute.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"
#include "strata/Runtime/SampleSource.h"

#include <cstring>
#include <optional>

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
const Method &ProgramSession::method() const { return *state->method; }

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

namespace {

/// Seeded inputs for the program's method: at the input shapes its symbols
/// have at `extents`, or with none, at the inputs' own (bound) shapes.
Result<std::vector<OwnedTensor>>
randomInputs(const std::string &bytes, uint64_t seed,
             const std::vector<int64_t> *extents, const std::string &method) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<ProgramSession> session,
                          ProgramSession::open(bytes, method));
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < session->inputCount(); ++i) {
    STRATA_ASSIGN_OR_RETURN(TensorView view, session->input(i));
    specs.push_back(
        {view.dtype,
         extents ? session->method().inputShapeAt(i, *extents) : view.shape});
  }
  return makeRandomSample(specs, RandomDistribution::verifyDefault(), seed,
                          /*index=*/0);
}

} // namespace

Result<std::vector<OwnedTensor>> makeRandomInputs(const std::string &bytes,
                                                  uint64_t seed,
                                                  const std::string &method) {
  return randomInputs(bytes, seed, nullptr, method);
}

Result<std::vector<OwnedTensor>>
makeRandomInputsAt(const std::string &bytes, uint64_t seed,
                   const std::vector<int64_t> &extents,
                   const std::string &method) {
  return randomInputs(bytes, seed, &extents, method);
}

std::vector<Method::DimSymbol> programDimSymbols(const std::string &bytes,
                                                 const std::string &method) {
  Result<std::unique_ptr<ProgramSession>> session =
      ProgramSession::open(bytes, method);
  if (!session.ok())
    return {};
  return (*session)->method().dimSymbols();
}

} // namespace strata
