//===- Generate.h - token generation over a stateful decoder ----*- C++ -*-===//
//
// Greedy, top-k and top-p sampling over a decoder program's token ids (no
// tokenizer): a prefill method runs the prompt, a decode method one token
// at a time, the KV cache in the program's state (docs/decoders.md).
// strata-run --generate and the Python package call this one loop.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_GENERATE_H
#define STRATA_RUNTIME_GENERATE_H

#include "strata/Runtime/Program.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::runtime {

/// How each next token is chosen from the last position's logits.
struct SamplingOptions {
  /// 0: greedy (the largest logit; ties to the lowest id). Otherwise the
  /// logits are divided by it before the softmax.
  double temperature = 0;
  /// Sample among the k most likely tokens only (0: all).
  int64_t topK = 0;
  /// Sample among the fewest most likely tokens whose probabilities sum to
  /// at least p (1: all).
  double topP = 1;
  /// The sampler's seed: the same seed, program and prompt give the same
  /// tokens.
  uint64_t seed = 0;
};

struct GenerateOptions {
  std::vector<int64_t> prompt;
  int64_t maxNewTokens = 16;
  SamplingOptions sampling;
  /// Stop after generating this token (it is included).
  std::optional<int64_t> stopToken;
  /// Reset the state before the prompt (a new sequence).
  bool resetState = true;
};

struct GenerateResult {
  /// The generated tokens (the prompt excluded).
  std::vector<int64_t> tokens;
  /// Wall time of the prompt's call and of the decode calls, in ms.
  double prefillMs = 0, decodeMs = 0;
  /// Decode calls made (the last generated token is not fed back).
  int64_t decodeCalls = 0;
};

/// The methods generation runs: `prefill` and `decode` where given, else
/// the program's methods of those names, else its default method
/// (Program::defaultMethodName) for the prompt and the prompt's method for
/// the tokens.
struct GenerationMethods {
  std::string prefill, decode;
};
GenerationMethods generationMethods(const Program &program,
                                    const std::string &prefill = "",
                                    const std::string &decode = "");

/// Generates from `options.prompt` with `prefill` (the whole prompt in one
/// call) and `decode` (one token a call), which share a state. Their inputs
/// are found by name: `input_ids` (i64 or i32, [1, S]; required), and, when
/// the method has them, `attention_mask` (ones over the cached and new
/// tokens) and `position_ids` (the new tokens' positions); any other input
/// the state does not feed is an error naming it. The logits are the output
/// named `logits` (else the first), f32 [1, S, V] or [1, V]: the last
/// position's row is sampled.
Result<GenerateResult> generate(Method &prefill, Method &decode,
                                const GenerateOptions &options);

/// The next token from one row of `count` logits.
int64_t sampleToken(const float *logits, int64_t count,
                    const SamplingOptions &options, uint64_t &rngState);

} // namespace strata::runtime

#endif // STRATA_RUNTIME_GENERATE_H
