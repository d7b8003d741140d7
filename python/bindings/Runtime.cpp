//===- Runtime.cpp - strata.load, Program, Method
//--------------------------===//
//
// The runtime API of include/strata/Runtime as Python objects: a Program
// loaded from a file (memory-mapped, verified), its methods by name, and a
// Method called with numpy arrays. Inputs are set and outputs copied out
// exactly as strata-run does; every failure is the runtime's message.
//
//===----------------------------------------------------------------------===//
#include "Conversions.h"

#include "strata/Runtime/Backend.h"
#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Generate.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace py = pybind11;
using namespace strata::runtime;

namespace strata::python {
namespace {

/// A loaded program and what its methods run on. Shared by the Methods
/// loaded from it, which point into it.
struct LoadedProgram {
  std::string path;
  /// A program given as bytes: a page-aligned copy (segments are aligned
  /// within the file, so the file's start must be too).
  std::unique_ptr<uint8_t, decltype(&std::free)> bytes{nullptr, &std::free};
  BackendRegistry delegates;
  std::unique_ptr<DataLoader> loader;
  std::optional<Program> program;
  /// A stateful program's methods share its state: their calls and the
  /// state's reads and writes take turns under this lock.
  std::mutex stateMutex;
};

/// One method of a program, ready to run.
class PyMethod {
public:
  PyMethod(std::shared_ptr<LoadedProgram> owner, Method method)
      : owner(std::move(owner)), method(std::move(method)) {
    for (size_t i = 0; i < this->method.inputCount(); ++i)
      if (this->method.inputState(i) < 0)
        callerInputs.push_back(i);
    for (size_t i = 0; i < this->method.outputCount(); ++i)
      if (this->method.outputState(i) < 0)
        callerOutputs.push_back(i);
  }

  std::string name() const { return method.name(); }
  /// The inputs the caller gives (those no state feeds).
  size_t inputCount() const { return callerInputs.size(); }
  /// The names of the states the method carries.
  std::vector<std::string> stateNames() const {
    std::vector<std::string> names;
    if (ProgramState *state = method.state())
      for (size_t i = 0; i < method.inputCount(); ++i)
        if (method.inputState(i) >= 0)
          names.push_back(state->name(method.inputState(i)));
    return names;
  }
  std::vector<std::string> statesAppendedInPlace() const {
    return method.statesAppendedInPlace();
  }
  /// The outputs the caller gets (those that update no state: a KV
  /// cache's presents stay in the program; get_state reads them).
  size_t outputCount() const { return callerOutputs.size(); }
  bool isDynamic() const { return method.isDynamic(); }

  /// The model's names of the inputs and outputs (empty strings where the
  /// program names none).
  std::vector<std::string> inputNames() const {
    std::vector<std::string> names;
    for (size_t i : callerInputs)
      names.push_back(method.inputName(i));
    return names;
  }
  std::vector<std::string> outputNames() const {
    std::vector<std::string> names;
    for (size_t i : callerOutputs)
      names.push_back(method.outputName(i));
    return names;
  }

  /// Positional arrays, then keyword ones by input name, in input order: an
  /// unknown, repeated or missing name is an error naming it.
  std::vector<py::array> arguments(const py::args &args,
                                   const py::kwargs &kwargs) const {
    std::vector<py::object> slots(callerInputs.size());
    if (args.size() > slots.size())
      throw StrataError(takes() + ", got " +
                        std::to_string(args.size() + kwargs.size()));
    for (size_t i = 0; i < args.size(); ++i)
      slots[i] = py::reinterpret_borrow<py::object>(args[i]);
    for (auto [key, value] : kwargs) {
      std::string name = py::str(key);
      size_t i = 0;
      while (i < slots.size() && method.inputName(callerInputs[i]) != name)
        ++i;
      if (i == slots.size())
        throw StrataError("method '" + method.name() + "' has no input '" +
                          name + "' (its inputs: " + joinedInputNames() + ")");
      if (slots[i])
        throw StrataError("input '" + name + "' is given twice");
      slots[i] = py::reinterpret_borrow<py::object>(value);
    }
    std::vector<py::array> result;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!slots[i] && !kwargs.empty())
        throw StrataError("input '" + method.inputName(callerInputs[i]) +
                          "' is missing");
      if (slots[i])
        result.push_back(py::array::ensure(slots[i]));
    }
    return result;
  }

  /// The inputs' types as the tools print them ("f32[batch: 1..8, 4]").
  std::vector<std::string> inputTypes() const {
    std::vector<std::string> types;
    for (size_t i : callerInputs)
      types.push_back(method.inputTypeString(i));
    return types;
  }

  /// Runs the method on `inputs` (one array per input, in order) and
  /// returns copies of its outputs.
  std::vector<py::array> call(const std::vector<py::array> &inputs) {
    Prepared prepared = prepare(inputs);
    std::vector<py::array> outputs;
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_lock<std::mutex> state(owner->stateMutex, std::defer_lock);
    if (method.state())
      state.lock();
    outputs = runLocked(prepared.views);
    return outputs;
  }

  /// Runs the method with per-instruction timing, as strata-run --profile
  /// does, and returns one dict per instruction (and per step inside a
  /// delegate): index, label, nodes, nanoseconds; delegate steps add op,
  /// layout and implementation.
  py::list profile(const std::vector<py::array> &inputs) {
    Prepared prepared = prepare(inputs);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_lock<std::mutex> state(owner->stateMutex, std::defer_lock);
    if (method.state())
      state.lock();
    method.setProfiling(true);
    struct Off {
      Method &method;
      ~Off() { method.setProfiling(false); }
    } off{method};
    std::vector<py::array> outputs = runLocked(prepared.views);
    py::gil_scoped_acquire acquire;
    outputs.clear();
    py::list rows;
    const std::vector<uint64_t> &times = method.instructionTimesNs();
    for (size_t i = 0; i < method.instructionCount(); ++i) {
      py::dict row;
      row["index"] = i;
      row["label"] = method.instructionLabel(i);
      row["nodes"] = method.instructionNodeNames(i);
      row["nanoseconds"] = i < times.size() ? times[i] : 0;
      py::list steps;
      for (const DelegateOpProfile &step : method.delegateProfile(i)) {
        py::dict entry;
        entry["op"] = step.op;
        entry["nodes"] = step.nodes;
        entry["layout"] = step.layout;
        entry["implementation"] = step.implementation;
        entry["nanoseconds"] = step.nanoseconds;
        steps.append(entry);
      }
      row["steps"] = steps;
      rows.append(row);
    }
    return rows;
  }

private:
  /// The inputs as C-contiguous arrays of the caller's dtype (a wrong
  /// dtype is the runtime's error, as for strata-run) and views of them,
  /// made with the GIL held.
  struct Prepared {
    std::vector<py::array> arrays;
    std::vector<TensorView> views;
  };
  Prepared prepare(const std::vector<py::array> &inputs) const {
    if (inputs.size() != callerInputs.size())
      throw StrataError(takes() + ", got " + std::to_string(inputs.size()));
    Prepared prepared;
    for (size_t i = 0; i < inputs.size(); ++i) {
      // Values in the other byte order are converted (a copy).
      py::array input = inputs[i];
      if (input && !input.dtype().attr("isnative").cast<bool>())
        input = input.attr("astype")(input.dtype().attr("newbyteorder")("="));
      prepared.arrays.push_back(py::array::ensure(input, py::array::c_style));
      if (!prepared.arrays.back())
        throw StrataError("input " + std::to_string(i) +
                          " is not an array numpy can convert");
      prepared.views.push_back(viewOf(prepared.arrays.back()));
    }
    return prepared;
  }

  /// Sets the inputs, executes and copies the outputs out; called without
  /// the GIL and with `mutex` held (one call of a method at a time: calls
  /// from several threads take turns). The arrays behind `inputs` stay
  /// alive in the caller's frame; the GIL is taken back only to build the
  /// outputs.
  std::vector<py::array> runLocked(const std::vector<TensorView> &inputs) {
    // The arrays are read where they are when the runtime can bind them
    // (Method::setInput with bind), and released before they can go.
    struct Release {
      Method &method;
      ~Release() { method.releaseInputs(); }
    } release{method};
    for (size_t i = 0; i < inputs.size(); ++i) {
      Result<bool> bound =
          method.setInput(callerInputs[i], inputs[i], /*bind=*/true);
      if (!bound.ok())
        throw StrataError("input " + std::to_string(i) + ": " +
                          bound.error().message());
    }
    lastInputData.clear();
    for (size_t i = 0; i < inputs.size(); ++i)
      lastInputData.push_back(
          reinterpret_cast<uintptr_t>(method.inputData(callerInputs[i])));
    check(method.execute());
    py::gil_scoped_acquire acquire;
    std::vector<py::array> outputs;
    for (size_t i : callerOutputs)
      outputs.push_back(copyOf(take(method.output(i))));
    return outputs;
  }

public:
  /// The addresses the last call read its inputs from (the caller's arrays
  /// where they were bound, else the arena); called with the GIL.
  std::vector<uintptr_t> lastInputAddresses() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    return lastInputData;
  }

private:
  /// Written by runLocked, under `mutex`.
  std::vector<uintptr_t> lastInputData;

  /// "method 'decode' takes 2 inputs (its state feeds the others)".
  std::string takes() const {
    return "method '" + method.name() + "' takes " +
           std::to_string(callerInputs.size()) + " inputs" +
           (callerInputs.size() == method.inputCount()
                ? std::string()
                : " (its state feeds the others)");
  }

  std::string joinedInputNames() const {
    if (method.inputCount() && method.inputName(0).empty())
      return "the program names none";
    std::string joined;
    for (size_t k = 0; k < callerInputs.size(); ++k)
      joined += (k ? ", '" : "'") + method.inputName(callerInputs[k]) + "'";
    return joined;
  }

  std::shared_ptr<LoadedProgram> owner;
  Method method;
  std::vector<size_t> callerInputs, callerOutputs;
  std::mutex mutex;
  friend class PyProgram;
};

/// A program file, its methods loaded on demand.
class PyProgram {
public:
  static PyProgram load(const std::string &path, int threads) {
    std::shared_ptr<LoadedProgram> loaded = withDelegates(threads);
    loaded->path = path;
    loaded->loader = take(MmapDataLoader::open(path));
    loaded->program.emplace(
        take(Program::load(*loaded->loader, Verification::Full)));
    return PyProgram(std::move(loaded));
  }

  /// A program held in memory (strata.compile's result), verified as a
  /// file is; `name` stands for its file in messages.
  static PyProgram fromBytes(const py::bytes &data, const std::string &name,
                             int threads) {
    std::string_view view = data;
    std::shared_ptr<LoadedProgram> loaded = withDelegates(threads);
    loaded->path = name;
    size_t capacity = (view.size() + 4095) / 4096 * 4096;
    loaded->bytes.reset(static_cast<uint8_t *>(
        std::aligned_alloc(4096, capacity ? capacity : 4096)));
    if (!loaded->bytes)
      throw StrataError(name + ": cannot allocate " +
                        std::to_string(view.size()) + " bytes");
    std::memcpy(loaded->bytes.get(), view.data(), view.size());
    loaded->loader = std::make_unique<BufferDataLoader>(loaded->bytes.get(),
                                                        view.size(), name);
    loaded->program.emplace(
        take(Program::load(*loaded->loader, Verification::Full)));
    return PyProgram(std::move(loaded));
  }

  std::vector<std::string> methods() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < owner->program->methodCount(); ++i)
      names.push_back(owner->program->methodName(i));
    return names;
  }

  /// Method `name` (loaded once, then the same object).
  std::shared_ptr<PyMethod> method(const std::string &name) {
    auto found = loaded.find(name);
    if (found != loaded.end())
      return found->second;
    auto method = std::make_shared<PyMethod>(
        owner, take(owner->program->loadMethod(name, &portableKernelRegistry(),
                                               &owner->delegates)));
    loaded.emplace(name, method);
    return method;
  }

  /// Program::defaultMethodName, strata-run's default.
  std::string defaultMethod() const {
    std::string name = owner->program->defaultMethodName();
    if (name.empty())
      throw StrataError(owner->path + ": the program has no method");
    return name;
  }

  const std::string &path() const { return owner->path; }

  /// Tokens from `prompt` (runtime::generate): the prefill method runs the
  /// prompt, the decode method one token at a time, sharing the state.
  py::dict generate(const std::vector<int64_t> &prompt, int64_t maxNewTokens,
                    double temperature, int64_t topK, double topP,
                    uint64_t seed, std::optional<int64_t> stopToken,
                    std::optional<std::string> prefillName,
                    std::optional<std::string> decodeName) {
    GenerationMethods names = generationMethods(
        *owner->program, prefillName.value_or(""), decodeName.value_or(""));
    std::shared_ptr<PyMethod> prefill = method(names.prefill);
    std::shared_ptr<PyMethod> decode = method(names.decode);
    GenerateOptions options;
    options.prompt = prompt;
    options.maxNewTokens = maxNewTokens;
    options.sampling.temperature = temperature;
    options.sampling.topK = topK;
    options.sampling.topP = topP;
    options.sampling.seed = seed;
    options.stopToken = stopToken;
    std::optional<Result<GenerateResult>> result;
    {
      py::gil_scoped_release release;
      // Both methods' locks at once (no order to deadlock on), then the
      // state's, as a call takes them.
      std::unique_lock<std::mutex> first(prefill->mutex, std::defer_lock),
          second(decode->mutex, std::defer_lock);
      if (decode != prefill)
        std::lock(first, second);
      else
        first.lock();
      std::lock_guard<std::mutex> state(owner->stateMutex);
      result.emplace(
          runtime::generate(prefill->method, decode->method, options));
    }
    GenerateResult generated = take(std::move(*result));
    py::dict out;
    out["tokens"] = generated.tokens;
    out["prefill_ms"] = generated.prefillMs;
    out["decode_ms"] = generated.decodeMs;
    out["prefill_tokens_per_s"] =
        generated.prefillMs > 0 ? 1e3 * prompt.size() / generated.prefillMs
                                : 0.0;
    out["decode_tokens_per_s"] =
        generated.decodeMs > 0
            ? 1e3 * generated.decodeCalls / generated.decodeMs
            : 0.0;
    return out;
  }

  /// The states the methods carry, by name.
  std::vector<std::string> stateNames() const {
    std::vector<std::string> names;
    if (ProgramState *state = owner->program->state().get())
      for (size_t i = 0; i < state->size(); ++i)
        names.push_back(state->name(i));
    return names;
  }

  /// Every state back to its start.
  void resetState() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(owner->stateMutex);
    if (ProgramState *state = owner->program->state().get())
      state->reset();
  }

  /// A copy of state `name` at its current shape. The state is read
  /// without the GIL (a method call holds the state's lock and takes the
  /// GIL back at its end).
  py::array getState(const std::string &name) {
    ProgramState &state = stateOrThrow();
    TensorView current;
    std::vector<uint8_t> bytes;
    int index = -1;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(owner->stateMutex);
      index = state.find(name);
      if (index >= 0) {
        // In the model's layout, whatever the layout it is stored in.
        current = state.view(index);
        current.shape = state.shape(index);
        bytes.resize(current.nbytes());
        state.read(index, bytes.data());
      }
    }
    if (index < 0)
      throw StrataError("no state '" + name + "' (states: " + joinedStates() +
                        ")");
    current.data = bytes.data();
    return copyOf(current);
  }

  /// Sets state `name` to `value` (its dtype and rank, within the state's
  /// capacity).
  void setState(const std::string &name, const py::array &value) {
    ProgramState &state = stateOrThrow();
    // Values in the other byte order are converted (a copy), as inputs are.
    py::array array = value;
    if (array && !array.dtype().attr("isnative").cast<bool>())
      array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
    array = py::array::ensure(array, py::array::c_style);
    if (!array)
      throw StrataError("state '" + name + "': not an array numpy can convert");
    TensorView view = viewOf(array);
    int index = -1;
    Error error = Error::success();
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(owner->stateMutex);
      index = state.find(name);
      if (index >= 0)
        error = state.set(index, view);
    }
    if (index < 0)
      throw StrataError("no state '" + name + "' (states: " + joinedStates() +
                        ")");
    check(std::move(error));
  }

private:
  ProgramState &stateOrThrow() const {
    if (!owner->program->state())
      throw StrataError(owner->path + ": the program carries no state");
    return *owner->program->state();
  }
  std::string joinedStates() const {
    std::string joined;
    for (const std::string &name : stateNames())
      joined += (joined.empty() ? "'" : ", '") + name + "'";
    return joined;
  }

  explicit PyProgram(std::shared_ptr<LoadedProgram> owner)
      : owner(std::move(owner)) {}

  /// A program's state with the linked delegates, on `threads` threads.
  static std::shared_ptr<LoadedProgram> withDelegates(int threads) {
    auto loaded = std::make_shared<LoadedProgram>();
    check(registerLinkedDelegates(loaded->delegates));
    for (const std::string &name : loaded->delegates.names()) {
      BackendConfig &config = loaded->delegates.lookup(name)->config();
      if (threads > 0 && config.get("threads"))
        check(config.set("threads", std::to_string(threads)));
    }
    return loaded;
  }

  std::shared_ptr<LoadedProgram> owner;
  std::map<std::string, std::shared_ptr<PyMethod>> loaded;
};

} // namespace

void bindRuntime(py::module_ &m) {
  py::class_<PyMethod, std::shared_ptr<PyMethod>>(
      m, "Method", "One entry point of a loaded program.")
      .def_property_readonly("name", &PyMethod::name)
      .def_property_readonly("input_count", &PyMethod::inputCount)
      .def_property_readonly("output_count", &PyMethod::outputCount)
      .def_property_readonly("is_dynamic", &PyMethod::isDynamic)
      .def_property_readonly("input_types", &PyMethod::inputTypes)
      .def_property_readonly(
          "last_input_addresses", &PyMethod::lastInputAddresses,
          "The addresses the last call read its inputs from: an "
          "array's own where it was read without a copy (C order, "
          "the input's dtype), else the program's arena.")
      .def_property_readonly("input_names", &PyMethod::inputNames,
                             "The names of the inputs the caller gives (a "
                             "state feeds the others).")
      .def_property_readonly("state_names", &PyMethod::stateNames,
                             "The states this method carries between calls.")
      .def_property_readonly(
          "states_appended_in_place", &PyMethod::statesAppendedInPlace,
          "The states each call appends its new rows to in their own buffer "
          "(a KV cache): nothing of them is copied per call.")
      .def_property_readonly("output_names", &PyMethod::outputNames)
      .def(
          "__call__",
          [](PyMethod &method, const py::args &args, const py::kwargs &kw) {
            return method.call(method.arguments(args, kw));
          },
          "Runs the method on one numpy array per input, in order or by "
          "input name (lists and scalars convert as numpy converts them); "
          "returns its outputs as a list of numpy arrays.")
      .def(
          "profile",
          [](PyMethod &method, const py::args &args, const py::kwargs &kw) {
            return method.profile(method.arguments(args, kw));
          },
          "Runs the method once with per-instruction timing (strata-run "
          "--profile); returns a list of dicts, one per instruction.");

  py::class_<PyProgram>(m, "Program", py::dynamic_attr(),
                        "A loaded .strata program.")
      .def_static("from_bytes", &PyProgram::fromBytes, py::arg("data"),
                  py::arg("name") = "<memory>", py::arg("threads") = 0,
                  "Verifies and loads a program held in memory (a copy).")
      .def_static("load", &PyProgram::load, py::arg("path"),
                  py::arg("threads") = 0,
                  "Memory-maps and verifies the program at `path`; the "
                  "delegates run on `threads` threads (0: their default).")
      .def_property_readonly("path", &PyProgram::path)
      .def_property_readonly("methods", &PyProgram::methods)
      .def_property_readonly("default_method", &PyProgram::defaultMethod)
      .def("method", &PyProgram::method, py::arg("name"))
      .def_property_readonly("state_names", &PyProgram::stateNames,
                             "The states the methods carry between calls "
                             "(strata-compile --state), shared by them.")
      .def("generate", &PyProgram::generate, py::arg("prompt"),
           py::arg("max_new_tokens") = 16, py::arg("temperature") = 0.0,
           py::arg("top_k") = 0, py::arg("top_p") = 1.0, py::arg("seed") = 0,
           py::arg("stop_token") = py::none(), py::arg("prefill") = py::none(),
           py::arg("decode") = py::none(),
           "Generates up to `max_new_tokens` token ids after `prompt` (a "
           "list of ids) with the prefill method (prefill, else the default) "
           "and the decode method (decode, else the same), which share the "
           "program's state (reset first): greedy with temperature 0, else "
           "sampled among the top_k most likely (0: all) whose "
           "probabilities reach top_p, seeded. Returns a dict: tokens, "
           "prefill_ms, decode_ms, prefill_tokens_per_s, "
           "decode_tokens_per_s.")
      .def("reset_state", &PyProgram::resetState,
           "Every state back to its start (zeros; an empty KV cache).")
      .def("get_state", &PyProgram::getState, py::arg("name"),
           "A copy of state `name` at its current shape.")
      .def("set_state", &PyProgram::setState, py::arg("name"), py::arg("value"),
           "Sets state `name` (its dtype and rank, within its capacity).")
      .def(
          "run",
          [](PyProgram &program, const py::args &args, const py::kwargs &kw) {
            std::shared_ptr<PyMethod> method =
                program.method(program.defaultMethod());
            return method->call(method->arguments(args, kw));
          },
          "Runs the default method (forward, else the first) on one numpy "
          "array per input, in order or by input name.");
}

} // namespace strata::python
