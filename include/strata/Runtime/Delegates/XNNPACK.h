//===- XNNPACK.h - the XNNPACK delegate (CPU: x86, ARM) ----------*- C++
//-*-===//
//
// The runtime half executes partitions the compiler handed to the `xnnpack`
// backend: init defines the blob's subgraph in XNNPACK's subgraph API and
// creates its runtime (XNNPACK packs the weights, read from the program's
// named data, once there), execute copies the inputs in (NCHW -> NHWC for
// 4-d ones), invokes the runtime and copies the outputs out.
//
// The compile-time half (checkGraph) creates the same runtime once from
// the blob the compiler wrote, so that a parameter XNNPACK refuses fails
// the compile, naming the node, rather than the first init.
//
// Neither half uses MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_XNNPACK_H
#define STRATA_RUNTIME_DELEGATES_XNNPACK_H

#include "strata/Runtime/Backend.h"

#include <string>

namespace strata::runtime::xnnpack {

/// The registry name of the delegate ("xnnpack").
extern const char *const kBackendName;

/// The process-wide delegate. Its config: `threads` (default 1: the
/// caller's thread; more: a pthreadpool of that many threads per handle).
Backend &getBackend();

/// Registers the delegate in `registry` (an explicit call, no static
/// initialisers).
Error registerBackend(BackendRegistry &registry);

/// Creates (and drops) the XNNPACK runtime of `blob` with its constants
/// from `constants`: fails naming the node XNNPACK refuses, or the
/// malformed part of the blob.
Error checkGraph(ByteSpan blob, const NamedDataMap &constants);

/// A readable listing of a blob: one line per node with its ONNX nodes.
std::string describeGraph(ByteSpan blob);

} // namespace strata::runtime::xnnpack

#endif // STRATA_RUNTIME_DELEGATES_XNNPACK_H
