//===- ShapeInferenceProcess.h - contained shape inference ------*- C++ -*-===//
//
// ONNX shape inference run in a forked child process, so that a fault in
// libonnx on a malformed model is an error and not a crash of the caller.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_IMPORT_SHAPEINFERENCEPROCESS_H
#define STRATA_IMPORT_SHAPEINFERENCEPROCESS_H

#include "onnx/onnx_pb.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace strata::importer {

/// Runs runONNXShapeInference on `model` in a forked child and merges the
/// shapes it inferred into `model`. Returns the error message on failure:
/// libonnx's own error, or, when the child faults, the signal and the node
/// whose inference faulted (found by re-running on prefixes of the graph),
/// or a timeout after `timeout`.
std::optional<std::string> runONNXShapeInferenceContained(
    onnx::ModelProto &model,
    std::chrono::seconds timeout = std::chrono::seconds(300));

/// How contained inference has ended in this process so far, for the
/// importer fuzzer (which must not read diagnostics' text: libFuzzer
/// learns compared strings and puts them into model names).
struct ShapeInferenceProcessCounts {
  /// The child faulted (a signal): a libonnx defect, contained.
  uint64_t faults = 0;
  /// The child ended otherwise without an answer (a failed write, a
  /// sanitizer report in the child, an unreadable answer).
  uint64_t failures = 0;
};
ShapeInferenceProcessCounts getShapeInferenceProcessCounts();

} // namespace strata::importer

#endif // STRATA_IMPORT_SHAPEINFERENCEPROCESS_H
