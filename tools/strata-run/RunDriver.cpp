//===- RunDriver.cpp - strata-run: load, feed, execute, compare, time -----===//
#include "RunDriver.h"

#include "strata/Runtime/Generate.h"

#include "strata/Runtime/TensorCompare.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Program.h"
#include "strata/Runtime/SampleSource.h"
#include "strata/Runtime/TensorIO.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sys/stat.h>

using namespace strata::runtime;

namespace strata::tools {

void printRunUsage() {
  std::printf(
      "usage: strata-run model.strata [options]\n"
      "  --input FILE      an input (.pb TensorProto or .npy); repeat in input "
      "order\n"
      "  --inputs DIR      inputs from DIR/input_N.pb (a test_data_set_N "
      "folder)\n"
      "  --inputs SPEC     or seeded random inputs: random, "
      "random-uniform[:LO,HI],\n"
      "                    random-normal[:MEAN,STD]\n"
      "  --input-shape I=DxD...  shape of random input I where the method has\n"
      "                    dynamic dimensions (default: their upper bounds)\n"
      "  --seed N          seed of the random inputs used when none are given "
      "(0);\n"
      "                    random: floats uniform in [-1, 1), integers in "
      "[-8, 8]\n"
      "  --output-dir DIR  write output_N.npy and output_N.pb to DIR\n"
      "  --expect DIR      compare with DIR/output_N.pb; exit 1 on mismatch\n"
      "  --atol A --rtol R each element: |got - want| <= A + R * |want| "
      "(1e-4, 1e-3)\n"
      "  --rel-l2 L        and ||got - want|| / ||want|| <= L (1e-3)\n"
      "  --min-sqnr DB     instead: pass when 20 log10(||want|| / ||got - "
      "want||)\n"
      "                    >= DB (quantized programs)\n"
      "  --steps N         run N times in a row, the program's state carried "
      "from\n"
      "                    each call to the next (the same inputs); report the "
      "last\n"
      "  --generate N      generate N tokens from --prompt IDS "
      "(comma-separated\n"
      "                    token ids) with --prefill-method (prefill, else "
      "the\n"
      "                    default) and --decode-method (decode, else the "
      "same):\n"
      "                    greedy, or sampled with --temperature T [--top-k "
      "K]\n"
      "                    [--top-p P] and --seed; prints the tokens and the\n"
      "                    prefill and decode tokens/s\n"
      "  --bench N         time N runs after warm-up: median, p10, p90 ms\n"
      "                    (each from the initial state)\n"
      "  --profile         time each instruction, with its ONNX node names\n"
      "  --profile-runs N  profile N runs; each line is its median (1)\n"
      "  --profile-tsv F   write the profile to F too, tab-separated, in ns:\n"
      "                    instruction I LABEL NS NODES and\n"
      "                    step I J OP IMPLEMENTATION LAYOUT NS NODES\n"
      "                    (NODES joined by '|')\n"
      "  --method NAME     the method to run (default: forward, else the "
      "first)\n"
      "  --no-mmap         read the file instead of mapping it\n"
      "  --threads N       threads of the delegates (oneDNN: OpenMP)\n"
      "  --delegate-option KEY=VALUE  a delegate config option (JSON value),\n"
      "                    e.g. repack_on_isa_mismatch=true\n"
      "  --list-kernels    print this runtime's kernels and delegates\n");
}

static bool parseNumber(const char *flag, const char *text, double &out) {
  char *end = nullptr;
  out = std::strtod(text, &end);
  if (!*text || *end || !std::isfinite(out)) {
    std::fprintf(stderr, "strata-run: %s takes a finite number, got '%s'\n",
                 flag, text);
    return false;
  }
  return true;
}

/// The options whose value is kept as given (a directory or a name).
static const std::pair<const char *, std::string RunOptions::*> kTextOptions[] =
    {{"--inputs", &RunOptions::inputsDir},
     {"--output-dir", &RunOptions::outputDir},
     {"--expect", &RunOptions::expectDir},
     {"--method", &RunOptions::method}};

bool parseRunOptions(int argc, char **argv, RunOptions &options, bool &help) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *&out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "strata-run: %s needs a value\n", arg.c_str());
        return false;
      }
      out = argv[++i];
      return true;
    };
    const char *v = nullptr;
    double number = 0;
    auto text =
        std::find_if(std::begin(kTextOptions), std::end(kTextOptions),
                     [&](const auto &option) { return arg == option.first; });
    if (arg == "--help" || arg == "-h") {
      help = true;
    } else if (arg == "--input") {
      if (!value(v))
        return false;
      options.inputs.push_back(v);
    } else if (arg == "--input-shape") {
      if (!value(v))
        return false;
      std::string spec = v;
      size_t eq = spec.find('=');
      char *end = nullptr;
      unsigned long index = std::strtoul(spec.c_str(), &end, 10);
      std::vector<int64_t> shape;
      bool ok = eq != std::string::npos && eq > 0 && end == spec.c_str() + eq;
      for (size_t at = eq + 1; ok && at <= spec.size();) {
        size_t x = spec.find('x', at);
        std::string part = spec.substr(at, x == std::string::npos ? x : x - at);
        char *partEnd = nullptr;
        long long extent = std::strtoll(part.c_str(), &partEnd, 10);
        ok = !part.empty() && *partEnd == 0 && extent >= 0;
        shape.push_back(extent);
        at = x == std::string::npos ? spec.size() + 1 : x + 1;
      }
      if (!ok) {
        std::fprintf(stderr,
                     "strata-run: --input-shape takes I=DxD..., e.g. 0=4x16, "
                     "got '%s'\n",
                     v);
        return false;
      }
      options.inputShapes.push_back({index, shape});
    } else if (text != std::end(kTextOptions)) {
      if (!value(v))
        return false;
      options.*text->second = v;
    } else if (arg == "--atol" || arg == "--rtol" || arg == "--rel-l2" ||
               arg == "--bench" || arg == "--seed" || arg == "--min-sqnr" ||
               arg == "--profile-runs" || arg == "--steps" ||
               arg == "--generate" || arg == "--temperature" ||
               arg == "--top-k" || arg == "--top-p") {
      if (!value(v) || !parseNumber(arg.c_str(), v, number))
        return false;
      bool count = arg == "--bench" || arg == "--seed" || arg == "--steps" ||
                   arg == "--generate" || arg == "--top-k" ||
                   arg == "--profile-runs";
      if (count &&
          (number != std::floor(number) || number < 0 || number > 9.0e15)) {
        std::fprintf(stderr,
                     "strata-run: %s takes a whole number from 0, got '%s'\n",
                     arg.c_str(), v);
        return false;
      }
      if (arg == "--atol")
        options.atol = number;
      else if (arg == "--rtol")
        options.rtol = number;
      else if (arg == "--rel-l2")
        options.relL2 = number;
      else if (arg == "--min-sqnr")
        options.minSQNR = number;
      else if (arg == "--bench")
        options.bench = static_cast<int>(number);
      else if (arg == "--generate") {
        if (number < 1 || number > 1e6) {
          std::fprintf(stderr, "strata-run: --generate needs 1 to 1000000\n");
          return false;
        }
        options.generate = static_cast<int64_t>(number);
      } else if (arg == "--temperature" || arg == "--top-p") {
        if (number < 0 || (arg == "--top-p" && (number <= 0 || number > 1))) {
          std::fprintf(stderr, "strata-run: %s out of range\n", arg.c_str());
          return false;
        }
        (arg == "--temperature" ? options.temperature : options.topP) = number;
      } else if (arg == "--top-k") {
        if (number < 0) {
          std::fprintf(stderr, "strata-run: --top-k needs 0 or more\n");
          return false;
        }
        options.topK = static_cast<int64_t>(number);
      } else if (arg == "--steps") {
        if (number < 1 || number > 1e6) {
          std::fprintf(stderr, "strata-run: --steps needs 1 to 1000000\n");
          return false;
        }
        options.steps = static_cast<int>(number);
      } else if (arg == "--profile-runs") {
        if (number < 1 || number > 10000) {
          std::fprintf(stderr, "strata-run: --profile-runs needs 1 to 10000\n");
          return false;
        }
        options.profileRuns = static_cast<int>(number);
        options.profile = true;
      } else
        options.seed = static_cast<uint64_t>(number);
    } else if (arg == "--threads") {
      if (!value(v) || !parseNumber(arg.c_str(), v, number))
        return false;
      options.threads = static_cast<int>(number);
    } else if (arg == "--delegate-option") {
      if (!value(v))
        return false;
      options.delegateOptions.push_back(v);
    } else if (arg == "--prompt") {
      if (!value(v))
        return false;
      options.prompt.clear();
      for (const char *at = v; *at;) {
        char *end = nullptr;
        errno = 0;
        long long id = std::strtoll(at, &end, 10);
        if (end == at || errno == ERANGE || id < 0 || *at == ' ' ||
            (*end && (*end != ',' || !end[1]))) {
          std::fprintf(stderr,
                       "strata-run: --prompt takes comma-separated token "
                       "ids, got '%s'\n",
                       v);
          return false;
        }
        options.prompt.push_back(id);
        at = *end ? end + 1 : end;
      }
    } else if (arg == "--prefill-method" || arg == "--decode-method") {
      if (!value(v))
        return false;
      (arg == "--prefill-method" ? options.prefillMethod
                                 : options.decodeMethod) = v;
    } else if (arg == "--list-kernels") {
      options.listKernels = true;
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (arg == "--profile-tsv") {
      if (!value(v))
        return false;
      options.profileTsv = v;
      options.profile = true;
    } else if (arg == "--no-mmap") {
      options.useFileLoader = true;
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "strata-run: unknown option '%s' (see --help)\n",
                   arg.c_str());
      return false;
    } else if (options.model.empty()) {
      options.model = arg;
    } else {
      std::fprintf(stderr, "strata-run: unexpected argument '%s'\n",
                   arg.c_str());
      return false;
    }
  }
  if (!help && options.model.empty() && !options.listKernels) {
    std::fprintf(stderr, "strata-run: no model given (see --help)\n");
    return false;
  }
  if (!options.inputs.empty() && !options.inputsDir.empty()) {
    std::fprintf(stderr,
                 "strata-run: --input and --inputs exclude each other\n");
    return false;
  }
  return true;
}

namespace {

int fail(const Error &error) {
  std::fprintf(stderr, "strata-run: %s\n", error.toString().c_str());
  return 1;
}

/// Compares one output; prints a line; returns whether it passed.
bool compare(size_t index, const TensorView &got, OwnedTensor &want,
             const RunOptions &options) {
  TensorView expected = want.view();
  TensorComparison c =
      compareTensors(got, expected, options.atol, options.rtol);
  if (!c.typeMismatch.empty()) {
    std::printf("output %zu: FAIL type %s\n", index, c.typeMismatch.c_str());
    return false;
  }
  double maxAbs = c.maxAbs, relL2 = c.relL2;
  int64_t violations = c.mismatches, n = got.numel();
  double sqnr = relL2 > 0 ? -20.0 * std::log10(relL2) : INFINITY;
  if (options.minSQNR) {
    bool pass = sqnr >= *options.minSQNR;
    std::printf("output %zu: %s %s sqnr %.2f dB max_abs %.3e rel_l2 %.3e "
                "(limit %.2f dB)\n",
                index, pass ? "PASS" : "FAIL", got.typeString().c_str(), sqnr,
                maxAbs, relL2, *options.minSQNR);
    return pass;
  }
  bool pass = violations == 0 && relL2 <= options.relL2;
  std::printf("output %zu: %s %s max_abs %.3e rel_l2 %.3e (%lld of %lld "
              "elements outside atol %.1e + rtol %.1e; rel-l2 limit %.1e)\n",
              index, pass ? "PASS" : "FAIL", got.typeString().c_str(), maxAbs,
              relL2, static_cast<long long>(violations),
              static_cast<long long>(n), options.atol, options.rtol,
              options.relL2);
  return pass;
}

double percentile(std::vector<double> sorted, double p) {
  if (sorted.empty())
    return 0;
  double pos = p * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] +
         (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

} // namespace

/// The steps inside one delegate call, under its profile line: time, share
/// of the whole run, what ran, its implementation and layouts, its nodes.
static void printDelegateSteps(const std::vector<DelegateOpProfile> &steps,
                               uint64_t total) {
  for (size_t j = 0; j < steps.size(); ++j) {
    const DelegateOpProfile &step = steps[j];
    std::string nodes;
    for (const std::string &n : step.nodes)
      nodes += (nodes.empty() ? "" : ", ") + n;
    std::printf("       .%-4zu %-17s %9.3f ms %5.1f%%  %-30s %-22s %s\n", j,
                step.op.c_str(), step.nanoseconds / 1e6,
                total ? 100.0 * step.nanoseconds / total : 0.0,
                step.implementation.c_str(), step.layout.c_str(),
                nodes.c_str());
  }
}

/// Delegate steps summed by what ran and how, the costliest first.
static void
printStepSummary(const std::vector<std::vector<DelegateOpProfile>> &steps,
                 uint64_t total) {
  struct Sum {
    uint64_t ns = 0;
    size_t count = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums;
  for (const std::vector<DelegateOpProfile> &instruction : steps)
    for (const DelegateOpProfile &step : instruction) {
      Sum &sum = sums[{step.op, step.implementation}];
      sum.ns += step.nanoseconds;
      ++sum.count;
    }
  if (sums.empty())
    return;
  std::vector<std::pair<std::pair<std::string, std::string>, Sum>> sorted(
      sums.begin(), sums.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto &a, auto &b) { return a.second.ns > b.second.ns; });
  std::printf("profile: delegate steps by op and implementation\n");
  for (const auto &[key, sum] : sorted)
    std::printf("  %-17s %-30s %4zu steps %9.3f ms %5.1f%%\n",
                key.first.c_str(), key.second.c_str(), sum.count, sum.ns / 1e6,
                total ? 100.0 * sum.ns / total : 0.0);
}

/// The delegates this runtime links, configured from the options.
static Result<BackendRegistry> makeDelegates(const RunOptions &options) {
  BackendRegistry registry;
  STRATA_RETURN_IF_ERROR(registerLinkedDelegates(registry));
  for (const std::string &name : registry.names()) {
    BackendConfig &config = registry.lookup(name)->config();
    if (options.threads > 0 && config.get("threads"))
      STRATA_RETURN_IF_ERROR(
          config.set("threads", std::to_string(options.threads)));
    for (const std::string &item : options.delegateOptions) {
      size_t eq = item.find('=');
      if (eq == std::string::npos)
        return Error(ErrorCode::InvalidArgument,
                     "--delegate-option '" + item + "' is not KEY=VALUE");
      if (config.get(item.substr(0, eq)))
        STRATA_RETURN_IF_ERROR(
            config.set(item.substr(0, eq), item.substr(eq + 1)));
    }
  }
  return registry;
}

int listKernels() {
  for (const std::string &name : portableKernelRegistry().names())
    std::printf("%s\n", name.c_str());
  RunOptions none;
  Result<BackendRegistry> delegates = makeDelegates(none);
  if (!delegates.ok())
    return fail(delegates.error());
  for (const std::string &name : delegates->names())
    if (delegates->lookup(name)->isAvailable())
      std::printf("delegate:%s\n", name.c_str());
  return 0;
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// A loaded method with what it runs on. Not movable: the method points
/// into the program and the delegates.
struct RunSession {
  BackendRegistry delegates;
  std::unique_ptr<DataLoader> loader;
  std::optional<Program> program;
  std::optional<Method> method;
  std::string methodName;
  /// The inputs are kept here and set again before every execute: the
  /// memory plan may reuse an input's bytes for intermediates, so a method
  /// reads its inputs only once.
  std::vector<OwnedTensor> inputs;
  /// The file of each input (empty for random inputs), for messages.
  std::vector<std::string> inputFiles;
  /// The method's inputs the caller sets (those no state feeds), in order:
  /// `inputs` and `inputFiles` are theirs.
  std::vector<size_t> callerInputs;

  /// Sets every input; a failure names the input's file.
  Error setInputs() {
    for (size_t i = 0; i < inputs.size(); ++i) {
      Error error = method->setInput(callerInputs[i], inputs[i].view());
      if (!error.ok())
        return Error(error.code(),
                     (inputFiles.empty() ? "input " + std::to_string(i)
                                         : inputFiles[i]) +
                         ": " + error.message());
    }
    return Error::success();
  }
};

/// Loads the program and its method (--method, else forward, else the
/// first); prints the method's shape and the load and init times.
Error loadSession(const RunOptions &options, RunSession &session) {
  Clock::time_point loadStart = Clock::now();
  if (options.useFileLoader) {
    STRATA_ASSIGN_OR_RETURN(session.loader,
                            FileDataLoader::open(options.model));
  } else {
    STRATA_ASSIGN_OR_RETURN(session.loader,
                            MmapDataLoader::open(options.model));
  }
  STRATA_ASSIGN_OR_RETURN(Program program,
                          Program::load(*session.loader, Verification::Full));
  session.program.emplace(std::move(program));
  session.methodName = options.method;
  if (session.methodName.empty())
    session.methodName = session.program->defaultMethodName();
  double loadMs = msSince(loadStart);
  Clock::time_point initStart = Clock::now();
  STRATA_ASSIGN_OR_RETURN(Method method,
                          session.program->loadMethod(session.methodName,
                                                      &portableKernelRegistry(),
                                                      &session.delegates));
  session.method.emplace(std::move(method));
  double initMs = msSince(initStart);
  for (size_t i = 0; i < session.method->inputCount(); ++i)
    if (session.method->inputState(i) < 0)
      session.callerInputs.push_back(i);
  std::printf("method '%s': %zu inputs, %zu outputs, %zu instructions\n",
              session.methodName.c_str(), session.method->inputCount(),
              session.method->outputCount(),
              session.method->instructionCount());
  std::printf("load: %.3f ms, init: %.3f ms\n", loadMs, initMs);
  if (session.method->isDynamic())
    for (size_t i = 0; i < session.method->inputCount(); ++i)
      std::printf("input %zu: %s\n", i,
                  session.method->inputTypeString(i).c_str());
  if (ProgramState *state = session.method->state())
    for (size_t i = 0; i < session.method->inputCount(); ++i)
      if (int slot = session.method->inputState(i); slot >= 0)
        std::printf("input %zu: fed from state '%s'\n", i,
                    state->name(slot).c_str());
  return Error::success();
}

/// Where the inputs come from: --input files, an --inputs test_data_set
/// folder or random spec, else random draws of RandomDistribution::runDefault.
Result<SampleSource> openInputs(const RunOptions &options, Method &method,
                                const std::vector<size_t> &callerInputs) {
  RandomDistribution dist = RandomDistribution::runDefault();
  if (isRandomSpec(options.inputsDir)) {
    STRATA_ASSIGN_OR_RETURN(dist, parseRandomSpec(options.inputsDir, dist));
  } else if (!options.inputsDir.empty()) {
    STRATA_ASSIGN_OR_RETURN(
        SampleSource set, SampleSource::openTestDataSet(options.inputsDir, {}));
    if (set.inputFiles(0).empty())
      return Error(ErrorCode::NotFound,
                   options.inputsDir + ": no input_N.pb files");
    return set;
  } else if (!options.inputs.empty()) {
    return SampleSource::fromFiles(options.inputs, {});
  }
  for (const auto &[index, shape] : options.inputShapes)
    STRATA_RETURN_IF_ERROR(method.setInputShape(index, shape));
  std::vector<InputSpec> specs;
  for (size_t i : callerInputs) {
    STRATA_ASSIGN_OR_RETURN(TensorView slot, method.input(i));
    specs.push_back({slot.dtype, slot.shape});
  }
  return SampleSource::random(std::move(specs), dist, options.seed, 1);
}

/// Reads (or draws) the inputs and sets them.
Error prepareInputs(const RunOptions &options, RunSession &session) {
  STRATA_ASSIGN_OR_RETURN(
      SampleSource source,
      openInputs(options, *session.method, session.callerInputs));
  session.inputFiles = source.inputFiles(0);
  size_t count = session.callerInputs.size();
  if (!source.isRandom() && session.inputFiles.size() != count)
    return Error(
        ErrorCode::InvalidArgument,
        "method '" + session.methodName + "' takes " + std::to_string(count) +
            " inputs" +
            (count == session.method->inputCount()
                 ? std::string()
                 : " (its state feeds the other " +
                       std::to_string(session.method->inputCount() - count) +
                       ")") +
            ", " + std::to_string(session.inputFiles.size()) + " given");
  STRATA_ASSIGN_OR_RETURN(session.inputs, source.get(0));
  STRATA_RETURN_IF_ERROR(session.setInputs());
  if (source.isRandom() && count)
    std::printf("inputs: %s (seed %llu)\n",
                options.inputsDir.empty() ? "random"
                                          : options.inputsDir.c_str(),
                static_cast<unsigned long long>(options.seed));
  return Error::success();
}

/// Output `i` in the model's layout: a state stored in another layout (a
/// KV cache stored with its growing axis first) is read through the state,
/// into `bytes`.
Result<TensorView> modelOutput(Method &method, size_t i,
                               std::vector<uint8_t> &bytes) {
  STRATA_ASSIGN_OR_RETURN(TensorView out, method.output(i));
  ProgramState *state = method.state();
  int slot = method.outputState(i);
  if (!state || slot < 0 || state->permutation(slot).empty())
    return out;
  out.shape = state->shape(slot);
  bytes.resize(out.nbytes());
  state->read(slot, bytes.data());
  out.data = bytes.data();
  return out;
}

/// Prints each output's sum; writes them to --output-dir.
Error reportOutputs(const RunOptions &options, Method &method) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < method.outputCount(); ++i) {
    STRATA_ASSIGN_OR_RETURN(TensorView out, modelOutput(method, i, bytes));
    double sum = 0;
    for (int64_t j = 0; j < out.numel(); ++j)
      sum += elementAsDouble(out, j);
    std::printf("output %zu: %s sum %.6g\n", i, out.typeString().c_str(), sum);
  }
  if (options.outputDir.empty())
    return Error::success();
  ::mkdir(options.outputDir.c_str(), 0755);
  for (size_t i = 0; i < method.outputCount(); ++i) {
    STRATA_ASSIGN_OR_RETURN(TensorView out, modelOutput(method, i, bytes));
    std::string base = options.outputDir + "/output_" + std::to_string(i);
    STRATA_RETURN_IF_ERROR(writeFileAtomic(base + ".npy", serializeNpy(out)));
    STRATA_RETURN_IF_ERROR(writeFileAtomic(
        base + ".pb",
        serializeTensorProto(out, "output_" + std::to_string(i))));
  }
  return Error::success();
}

/// --expect DIR: compares each output with DIR/output_N.pb; prints PASS or
/// FAIL. Returns whether all passed.
Result<bool> checkExpected(const RunOptions &options, Method &method) {
  STRATA_ASSIGN_OR_RETURN(SampleSource set,
                          SampleSource::openTestDataSet(options.expectDir, {}));
  if (!set.hasExpected(0))
    return Error(ErrorCode::NotFound,
                 options.expectDir + ": no output_N.pb files");
  STRATA_ASSIGN_OR_RETURN(std::vector<OwnedTensor> wants, set.expected(0));
  if (wants.size() != method.outputCount())
    return Error(ErrorCode::InvalidArgument,
                 options.expectDir + ": " + std::to_string(wants.size()) +
                     " expected outputs, the method has " +
                     std::to_string(method.outputCount()));
  bool passed = true;
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < wants.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(TensorView out, modelOutput(method, i, bytes));
    passed &= compare(i, out, wants[i], options);
  }
  std::printf("%s\n", passed ? "PASS" : "FAIL");
  return passed;
}

/// Each instruction's and delegate step's median time over the runs.
struct ProfileTimes {
  std::vector<uint64_t> instructions;
  std::vector<std::vector<DelegateOpProfile>> steps;
};

uint64_t median(std::vector<uint64_t> values) {
  if (values.empty())
    return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2,
                   values.end());
  return values[values.size() / 2];
}

/// Runs the method --profile-runs times with profiling on. After the first
/// run (a warm-up: arenas and constants are paged in); the memory plan may
/// reuse input bytes, so these runs' outputs are not the ones reported;
/// only their times are used.
Result<ProfileTimes> collectProfile(const RunOptions &options,
                                    RunSession &session) {
  Method &method = *session.method;
  size_t count = method.instructionCount();
  std::vector<std::vector<uint64_t>> instructionRuns(count);
  ProfileTimes times;
  times.steps.resize(count);
  std::vector<std::vector<std::vector<uint64_t>>> stepRuns(count);
  for (int run = 0; run < options.profileRuns; ++run) {
    if (ProgramState *state = method.state())
      state->reset();
    STRATA_RETURN_IF_ERROR(session.setInputs());
    method.setProfiling(true);
    Error e = method.execute();
    method.setProfiling(false);
    STRATA_RETURN_IF_ERROR(e);
    for (size_t i = 0; i < count; ++i) {
      instructionRuns[i].push_back(method.instructionTimesNs()[i]);
      const std::vector<DelegateOpProfile> &now = method.delegateProfile(i);
      if (run == 0) {
        times.steps[i] = now;
        stepRuns[i].resize(now.size());
      }
      for (size_t j = 0; j < now.size() && j < times.steps[i].size(); ++j)
        stepRuns[i][j].push_back(now[j].nanoseconds);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    times.instructions.push_back(median(instructionRuns[i]));
    for (size_t j = 0; j < times.steps[i].size(); ++j)
      times.steps[i][j].nanoseconds = median(stepRuns[i][j]);
  }
  return times;
}

std::string joined(const std::vector<std::string> &names, const char *sep) {
  std::string text;
  for (const std::string &n : names)
    text += (text.empty() ? "" : sep) + n;
  return text;
}

/// --profile: each instruction's time with its ONNX node names and its
/// delegate steps; --profile-tsv writes the same as tab-separated lines.
Error profile(const RunOptions &options, RunSession &session) {
  STRATA_ASSIGN_OR_RETURN(ProfileTimes times, collectProfile(options, session));
  Method &method = *session.method;
  uint64_t total = 0;
  for (uint64_t t : times.instructions)
    total += t;
  std::printf("profile: %zu instructions, %.3f ms%s\n",
              method.instructionCount(), total / 1e6,
              options.profileRuns > 1 ? " (medians)" : "");
  std::string tsv;
  for (size_t i = 0; i < method.instructionCount(); ++i) {
    const std::vector<std::string> &names = method.instructionNodeNames(i);
    uint64_t t = times.instructions[i];
    std::printf("  %4zu %-24s %9.3f ms %5.1f%%  %s\n", i,
                method.instructionLabel(i).c_str(), t / 1e6,
                total ? 100.0 * t / total : 0.0, joined(names, ", ").c_str());
    printDelegateSteps(times.steps[i], total);
    tsv += "instruction\t" + std::to_string(i) + "\t" +
           method.instructionLabel(i) + "\t" + std::to_string(t) + "\t" +
           joined(names, "|") + "\n";
    for (size_t j = 0; j < times.steps[i].size(); ++j) {
      const DelegateOpProfile &step = times.steps[i][j];
      tsv += "step\t" + std::to_string(i) + "\t" + std::to_string(j) + "\t" +
             step.op + "\t" + step.implementation + "\t" + step.layout + "\t" +
             std::to_string(step.nanoseconds) + "\t" + joined(step.nodes, "|") +
             "\n";
    }
  }
  if (!options.profileTsv.empty())
    STRATA_RETURN_IF_ERROR(writeFileAtomic(options.profileTsv, tsv));
  printStepSummary(times.steps, total);
  return Error::success();
}

/// --bench N: N timed runs after a warm-up (median, p10, p90), the time to
/// set the inputs, and load + init once more.
Error bench(const RunOptions &options, RunSession &session) {
  Method &method = *session.method;
  // A stateful method's runs each start from the initial state (resetting
  // it is not timed): otherwise a KV cache grows until it is full.
  auto resetState = [&] {
    if (ProgramState *state = method.state())
      state->reset();
  };
  int warmup = std::max(1, options.bench / 10);
  auto millis = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  for (int i = 0; i < warmup; ++i) {
    resetState();
    STRATA_RETURN_IF_ERROR(session.setInputs());
    STRATA_RETURN_IF_ERROR(method.execute());
  }
  // Each timed run is preceded by setting the inputs, timed apart.
  std::vector<double> ms, copyMs;
  for (int i = 0; i < options.bench; ++i) {
    resetState();
    auto copyStart = Clock::now();
    STRATA_RETURN_IF_ERROR(session.setInputs());
    auto start = Clock::now();
    STRATA_RETURN_IF_ERROR(method.execute());
    auto end = Clock::now();
    copyMs.push_back(millis(copyStart, start));
    ms.push_back(millis(start, end));
  }
  std::sort(ms.begin(), ms.end());
  std::sort(copyMs.begin(), copyMs.end());
  std::printf("bench: %d runs after %d warm-up: median %.3f ms, p10 %.3f "
              "ms, p90 %.3f ms\n",
              options.bench, warmup, percentile(ms, 0.5), percentile(ms, 0.1),
              percentile(ms, 0.9));
  std::printf("bench: setting the inputs before each run: median %.1f us "
              "(not in the figures above)\n",
              1e3 * percentile(copyMs, 0.5));
  // Load + init once more in this process (what a server reloading a
  // model pays; oneDNN's primitive cache is warm, as ONNX Runtime's
  // second session creation is).
  auto start = Clock::now();
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<MmapDataLoader> again,
                          MmapDataLoader::open(options.model));
  STRATA_ASSIGN_OR_RETURN(Program reloaded,
                          Program::load(*again, Verification::Full));
  STRATA_ASSIGN_OR_RETURN(Method reinit,
                          reloaded.loadMethod(session.methodName,
                                              &portableKernelRegistry(),
                                              &session.delegates));
  (void)reinit;
  std::printf("load+init again: %.3f ms\n", msSince(start));
  return Error::success();
}

/// --generate: tokens from --prompt with the prefill and decode methods.
Error generateTokens(const RunOptions &options, RunSession &session) {
  if (options.prompt.empty())
    return Error(ErrorCode::InvalidArgument,
                 "--generate needs --prompt IDS (comma-separated token ids)");
  Program &program = *session.program;
  // Without a prefill method, the session's (--method, else the default)
  // runs the prompt.
  GenerationMethods names = generationMethods(
      program,
      options.prefillMethod.empty() && !program.hasMethod("prefill")
          ? session.methodName
          : options.prefillMethod,
      options.decodeMethod);
  const std::string &prefillName = names.prefill, &decodeName = names.decode;
  // The session's method may be one of them (loadSession loaded it); the
  // others are loaded here, sharing the program's state.
  std::deque<std::pair<std::string, Method>> others;
  auto methodNamed = [&](const std::string &name) -> Result<Method *> {
    if (name == session.methodName)
      return &*session.method;
    for (auto &[loadedName, method] : others)
      if (loadedName == name)
        return &method;
    STRATA_ASSIGN_OR_RETURN(Method loaded,
                            program.loadMethod(name, &portableKernelRegistry(),
                                               &session.delegates));
    others.emplace_back(name, std::move(loaded));
    return &others.back().second;
  };
  STRATA_ASSIGN_OR_RETURN(Method * prefill, methodNamed(prefillName));
  STRATA_ASSIGN_OR_RETURN(Method * decode, methodNamed(decodeName));
  GenerateOptions generate;
  generate.prompt = options.prompt;
  generate.maxNewTokens = options.generate;
  generate.sampling.temperature = options.temperature;
  generate.sampling.topK = options.topK;
  generate.sampling.topP = options.topP;
  generate.sampling.seed = options.seed;
  STRATA_ASSIGN_OR_RETURN(
      GenerateResult result,
      strata::runtime::generate(*prefill, *decode, generate));
  std::string tokens;
  for (int64_t token : result.tokens)
    tokens += (tokens.empty() ? "" : ",") + std::to_string(token);
  std::printf("generated: %s\n", tokens.c_str());
  size_t promptTokens = options.prompt.size();
  std::printf("prefill: %zu tokens in %.3f ms (%.1f tokens/s), method '%s'\n",
              promptTokens, result.prefillMs,
              result.prefillMs > 0 ? 1e3 * promptTokens / result.prefillMs : 0,
              prefillName.c_str());
  std::printf("decode: %lld tokens in %.3f ms (%.1f tokens/s), method '%s'\n",
              static_cast<long long>(result.decodeCalls), result.decodeMs,
              result.decodeMs > 0 ? 1e3 * result.decodeCalls / result.decodeMs
                                  : 0,
              decodeName.c_str());
  return Error::success();
}

} // namespace

int runProgram(const RunOptions &options) {
  if (options.listKernels)
    return listKernels();
  RunSession session;
  Result<BackendRegistry> delegates = makeDelegates(options);
  if (!delegates.ok())
    return fail(delegates.error());
  session.delegates = std::move(*delegates);
  if (options.generate > 0) {
    if (options.steps > 1 || !options.expectDir.empty() || options.bench ||
        options.profile || !options.outputDir.empty())
      return fail(Error(ErrorCode::InvalidArgument,
                        "--generate runs on its own: not with --steps, "
                        "--expect, --output-dir, --bench or --profile"));
    if (Error e = loadSession(options, session); !e.ok())
      return fail(e);
    Error e = generateTokens(options, session);
    return e.ok() ? 0 : fail(e);
  }
  if (Error e = loadSession(options, session); !e.ok())
    return fail(e);
  if (Error e = prepareInputs(options, session); !e.ok())
    return fail(e);
  for (int step = 0; step < options.steps; ++step) {
    if (step > 0)
      if (Error e = session.setInputs(); !e.ok())
        return fail(e);
    if (Error e = session.method->execute(); !e.ok())
      return fail(e);
  }
  if (options.steps > 1)
    std::printf("steps: %d, the state carried\n", options.steps);
  if (Error e = reportOutputs(options, *session.method); !e.ok())
    return fail(e);
  bool passed = true;
  if (!options.expectDir.empty()) {
    Result<bool> checked = checkExpected(options, *session.method);
    if (!checked.ok())
      return fail(checked.error());
    passed = *checked;
  }
  if (options.profile)
    if (Error e = profile(options, session); !e.ok())
      return fail(e);
  if (options.bench > 0)
    if (Error e = bench(options, session); !e.ok())
      return fail(e);
  return passed ? 0 : 1;
}

} // namespace strata::tools
