//===- OneDNN.h - the oneDNN delegate (x86 CPU) ------------------*- C++
//-*-===//
//
// The runtime half executes partitions the compiler handed to the `onednn`
// backend: init rebuilds the primitives the blob describes and binds the
// pre-packed weights stored as named data (no repacking on the CPU they were
// packed for), execute runs them on the method's arena buffers.
//
// The compile-time half (prepareGraph) runs the same graph builder on the
// plain graph the compiler wrote: it asks oneDNN which weight layouts its
// primitives want (format_tag::any), reorders the weights into them, plans
// the partition's working memory and records all of it in the final blob.
//
// Neither half uses MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_H

#include "strata/Runtime/Backend.h"

#include <map>
#include <string>
#include <vector>

namespace strata::runtime::onednn {

/// The registry name of the delegate ("onednn").
extern const char *const kBackendName;

/// The process-wide delegate. Its config: `threads` (default 1),
/// `repack_on_isa_mismatch` (default false: init fails naming both ISAs).
Backend &getBackend();

/// Registers the delegate in `registry` (an explicit call, no static
/// initialisers).
Error registerBackend(BackendRegistry &registry);

/// What prepareGraph needs beyond the plain graph.
struct PrepareOptions {
  /// Let convolutions use Winograd where oneDNN has it.
  bool winograd = false;
  /// Also keep the plain weights, so that init on another CPU can repack.
  bool keepPlainWeights = false;
  /// OpenMP threads the implementations are timed with: tune for the
  /// thread count the program will run on.
  int tuneThreads = 1;
};

/// The compile-time product of one partition.
struct PreparedGraph {
  /// The final blob (onednn_graph.fbs).
  std::vector<uint8_t> blob;
  /// Named data the blob refers to: packed weights and plain constants.
  std::map<std::string, std::vector<uint8_t>> namedData;
  /// Working memory the delegate needs at execute.
  uint64_t scratchBytes = 0;
  /// Ops whose post-ops could not be fused as written (and were run as
  /// separate primitives), by index.
  std::vector<size_t> unfused;
};

/// Picks layouts, pre-packs weights and plans working memory for the plain
/// graph `plainBlob`, whose constants `plainConstants` serves.
Result<PreparedGraph> prepareGraph(ByteSpan plainBlob,
                                   const NamedDataMap &plainConstants,
                                   const PrepareOptions &options);

/// The ISA oneDNN dispatches to on this CPU ("avx512_core_vnni", ...).
std::string hostISA();

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_H
