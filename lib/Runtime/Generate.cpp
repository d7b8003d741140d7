//===- Generate.cpp - token generation over a stateful decoder ------------===//
//
// See Generate.h. The sampler is splitmix64 over a 64-bit state: the same
// seed gives the same tokens on every platform (std::mt19937_64's
// distributions are not specified bit for bit).
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/Generate.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <numeric>
#include <string>

namespace strata::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// splitmix64: the next 64 random bits.
uint64_t nextBits(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A uniform double in [0, 1) from 53 random bits.
double uniform(uint64_t &state) {
  return static_cast<double>(nextBits(state) >> 11) * 0x1.0p-53;
}

/// The caller's inputs of a decoder method, found by name.
struct DecoderInputs {
  int ids = -1, mask = -1, positions = -1;
};

Result<DecoderInputs> findInputs(Method &method) {
  DecoderInputs found;
  for (size_t i = 0; i < method.inputCount(); ++i) {
    if (method.inputState(i) >= 0)
      continue;
    const std::string &name = method.inputName(i);
    int index = static_cast<int>(i);
    if (name == "input_ids")
      found.ids = index;
    else if (name == "attention_mask")
      found.mask = index;
    else if (name == "position_ids")
      found.positions = index;
    else
      return Error(ErrorCode::InvalidArgument,
                   "method '" + method.name() + "': input " +
                       std::to_string(i) + " ('" + name +
                       "') is none of input_ids, attention_mask and "
                       "position_ids, and no state feeds it");
  }
  if (found.ids < 0)
    return Error(ErrorCode::InvalidArgument,
                 "method '" + method.name() +
                     "' has no input named input_ids (generation feeds token "
                     "ids by that name)");
  return found;
}

/// A [1, count] integer tensor of the input's dtype holding `values`.
Error setIntegers(Method &method, int index,
                  const std::vector<int64_t> &values) {
  STRATA_ASSIGN_OR_RETURN(TensorView slot, method.input(index));
  TensorView view;
  view.dtype = slot.dtype;
  view.shape = {1, static_cast<int64_t>(values.size())};
  std::vector<int32_t> narrow;
  if (slot.dtype == DType::I64) {
    view.data = const_cast<int64_t *>(values.data());
  } else if (slot.dtype == DType::I32) {
    for (int64_t value : values)
      if (value < INT32_MIN || value > INT32_MAX)
        return Error(
            ErrorCode::InvalidArgument,
            "method '" + method.name() + "': " + std::to_string(value) +
                " does not fit input '" + method.inputName(index) + "' (i32)");
    narrow.assign(values.begin(), values.end());
    view.data = narrow.data();
  } else {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + method.name() + "': input '" +
                     method.inputName(index) + "' is " + slot.typeString() +
                     "; generation feeds i64 or i32");
  }
  return method.setInput(static_cast<size_t>(index), view);
}

/// The output holding the logits: `logits` by name, else the first.
Result<size_t> logitsOutput(Method &method) {
  for (size_t i = 0; i < method.outputCount(); ++i)
    if (method.outputName(i) == "logits")
      return i;
  for (size_t i = 0; i < method.outputCount(); ++i)
    if (method.outputState(i) < 0)
      return i;
  return Error(ErrorCode::InvalidArgument,
               "method '" + method.name() + "' returns no logits");
}

/// Runs `method` on `tokens` after `past` cached ones; returns the next
/// token.
Result<int64_t> step(Method &method, const DecoderInputs &inputs,
                     const std::vector<int64_t> &tokens, int64_t past,
                     const SamplingOptions &sampling, uint64_t &rngState) {
  STRATA_RETURN_IF_ERROR(setIntegers(method, inputs.ids, tokens));
  int64_t count = static_cast<int64_t>(tokens.size());
  if (inputs.mask >= 0)
    STRATA_RETURN_IF_ERROR(setIntegers(method, inputs.mask,
                                       std::vector<int64_t>(past + count, 1)));
  if (inputs.positions >= 0) {
    std::vector<int64_t> positions(count);
    std::iota(positions.begin(), positions.end(), past);
    STRATA_RETURN_IF_ERROR(setIntegers(method, inputs.positions, positions));
  }
  STRATA_RETURN_IF_ERROR(method.execute());
  STRATA_ASSIGN_OR_RETURN(size_t index, logitsOutput(method));
  STRATA_ASSIGN_OR_RETURN(TensorView logits, method.output(index));
  if (logits.dtype != DType::F32 || logits.shape.empty() || logits.numel() == 0)
    return Error(ErrorCode::InvalidArgument,
                 "method '" + method.name() + "': the logits are " +
                     logits.typeString() + "; generation samples f32 ones");
  int64_t vocabulary = logits.shape.back();
  if (vocabulary <= 0)
    return Error(ErrorCode::InvalidArgument,
                 "method '" + method.name() + "': the logits are " +
                     logits.typeString() + ", over no token");
  const float *last = logits.as<float>() + (logits.numel() - vocabulary);
  for (int64_t i = 0; i < vocabulary; ++i)
    if (!std::isfinite(last[i]))
      return Error(ErrorCode::ExecutionFailed,
                   "method '" + method.name() + "': logit " +
                       std::to_string(i) + " is " + std::to_string(last[i]) +
                       "; a token cannot be chosen");
  return sampleToken(last, vocabulary, sampling, rngState);
}

} // namespace

int64_t sampleToken(const float *logits, int64_t count,
                    const SamplingOptions &options, uint64_t &rngState) {
  if (count <= 0)
    return 0;
  if (!(options.temperature > 0) || options.topK == 1)
    return std::max_element(logits, logits + count) - logits;
  // The candidates by decreasing logit (ties: the lower id first).
  std::vector<int64_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  if (options.topK > 0 && options.topK < count)
    order.resize(options.topK);
  std::vector<double> weights(order.size());
  double top = logits[order.front()], total = 0;
  for (size_t i = 0; i < order.size(); ++i)
    total += weights[i] =
        std::exp((logits[order[i]] - top) / options.temperature);
  if (options.topP < 1) {
    double kept = 0;
    size_t keep = 0;
    while (keep < weights.size() && kept < options.topP * total)
      kept += weights[keep++];
    weights.resize(std::max<size_t>(keep, 1));
    total = 0;
    for (double w : weights)
      total += w;
  }
  double pick = uniform(rngState) * total;
  size_t last = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] > 0)
      last = i;
    pick -= weights[i];
    if (pick < 0 && weights[i] > 0)
      return order[i];
  }
  // Rounding left the pick at the total: the last candidate that can be
  // drawn.
  return order[last];
}

GenerationMethods generationMethods(const Program &program,
                                    const std::string &prefill,
                                    const std::string &decode) {
  GenerationMethods methods;
  methods.prefill = !prefill.empty() ? prefill
                    : program.hasMethod("prefill")
                        ? "prefill"
                        : program.defaultMethodName();
  methods.decode = !decode.empty()               ? decode
                   : program.hasMethod("decode") ? "decode"
                                                 : methods.prefill;
  return methods;
}

Result<GenerateResult> generate(Method &prefill, Method &decode,
                                const GenerateOptions &options) {
  if (options.prompt.empty())
    return Error(ErrorCode::InvalidArgument, "generation needs a prompt");
  if (options.maxNewTokens < 1)
    return Error(ErrorCode::InvalidArgument,
                 "generation makes at least one token");
  if (!prefill.state() || !decode.state())
    return Error(ErrorCode::InvalidArgument,
                 "method '" + (prefill.state() ? decode : prefill).name() +
                     "' carries no state: generation needs the KV cache in "
                     "the program (strata-compile --state past-present)");
  if (prefill.state() != decode.state())
    return Error(ErrorCode::InvalidArgument, "methods '" + prefill.name() +
                                                 "' and '" + decode.name() +
                                                 "' carry different states");
  STRATA_ASSIGN_OR_RETURN(DecoderInputs prefillInputs, findInputs(prefill));
  STRATA_ASSIGN_OR_RETURN(DecoderInputs decodeInputs, findInputs(decode));
  if (options.resetState && prefill.state())
    prefill.state()->reset();
  uint64_t rngState = options.sampling.seed;
  GenerateResult result;
  Clock::time_point start = Clock::now();
  STRATA_ASSIGN_OR_RETURN(int64_t token,
                          step(prefill, prefillInputs, options.prompt, 0,
                               options.sampling, rngState));
  result.prefillMs = msSince(start);
  int64_t past = static_cast<int64_t>(options.prompt.size());
  start = Clock::now();
  while (true) {
    result.tokens.push_back(token);
    if (static_cast<int64_t>(result.tokens.size()) >= options.maxNewTokens ||
        (options.stopToken && token == *options.stopToken))
      break;
    Result<int64_t> next =
        step(decode, decodeInputs, {token}, past, options.sampling, rngState);
    if (!next.ok())
      return Error(next.error().code(),
                   "generating token " + std::to_string(result.tokens.size()) +
                       " after a context of " + std::to_string(past + 1) +
                       ": " + next.error().message());
    ++past;
    ++result.decodeCalls;
    token = *next;
  }
  result.decodeMs = msSince(start);
  return result;
}

} // namespace strata::runtime
