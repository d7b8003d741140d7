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

/// The implementation measured tuning chose for one convolution.
struct TunedConvolution {
  /// The delegate's own Winograd kernel instead of a oneDNN primitive.
  bool ownWinograd = false;
  /// oneDNN's Winograd algorithm (else direct).
  bool winograd = false;
  /// The input read in the layout its producer left (else oneDNN's pick).
  bool srcAsPlaced = false;
  /// Which of oneDNN's implementations (next_impl() steps from the first).
  int index = 0;
  /// oneDNN's name for it ("brg:avx512_core", ...), checked on reuse.
  std::string impl;
};

/// Tuning records: convolution signature (shapes, types, window, post-ops,
/// input layout, threads, ISA and library version) -> choice.
using TuningRecords = std::map<std::string, TunedConvolution>;

/// What prepareGraph needs beyond the plain graph.
struct PrepareOptions {
  /// The layout of f32 activations between convolutions (the blob's
  /// activation_layout): by the rule of ChannelBlockedRule.cpp, or forced.
  enum class Layout { Rule, Open, ChannelBlocked };
  Layout activationLayout = Layout::Rule;
  /// Let convolutions use Winograd: the delegate's own kernel where it
  /// applies (3x3, stride 1, dilation 1, no groups, channels in multiples
  /// of 16; AVX-512 or AVX2), in F(4x4,3x3) tiles where both output
  /// extents are at least 13 and F(2x2,3x3) tiles below (winogradTileFor in
  /// Convolution.cpp), and, when measuring, oneDNN's Winograd
  /// implementations too; each only where the layer's accuracy check
  /// (winogradBudget) and the size budget (winogradSizeShare) allow
  /// (planWinograd in Convolution.cpp).
  bool winograd = false;
  /// The most a layer's Winograd error may be, as a multiple of a direct
  /// float32 convolution's (WinogradCheck.h; kWinogradBudget there).
  double winogradBudget = 2.0;
  /// The most the transformed Winograd weights may add to the partition,
  /// as a share of its constants' bytes (Convolution.cpp, planWinograd).
  double winogradSizeShare = 0.07;
  /// Past the size budget, a layer whose plain weights take at most this
  /// many bytes gets its Winograd transform at init instead (the program
  /// stores them plain; Convolution.cpp, planWinograd).
  double winogradInitLayerBytes = 1024 * 1024;
  /// Also keep the plain weights, so that init on another CPU can repack.
  bool keepPlainWeights = false;
  /// OpenMP threads the program will run on: oneDNN's choice of
  /// implementation depends on it, and measurements use it.
  int tuneThreads = 1;
  /// Time every candidate implementation of each convolution not in
  /// `tuning` and record the fastest there. Off by default: without it the
  /// choice is a fixed rule and the same graph gives the same bytes.
  bool measure = false;
  /// Records of earlier measurements, applied where a signature matches;
  /// with `measure`, receives the new ones. Not owned; may be null.
  TuningRecords *tuning = nullptr;
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
  /// Convolutions whose choice came from a tuning record, and those
  /// measured now.
  size_t tunedFromRecords = 0, tunedByMeasuring = 0;
  /// Per convolution the own Winograd kernel could run: the algorithm
  /// chosen and why ("op 12 [node]: F(4x4,3x3): rel-L2 ... over;
  /// F(2x2,3x3): ... within; winograd F(2x2,3x3)").
  std::vector<std::string> notes;
};

/// Picks layouts, pre-packs weights and plans working memory for the plain
/// graph `plainBlob`, whose constants `plainConstants` serves.
Result<PreparedGraph> prepareGraph(ByteSpan plainBlob,
                                   const NamedDataMap &plainConstants,
                                   const PrepareOptions &options);

/// The ISA oneDNN dispatches to on this CPU ("avx512_core_vnni", ...).
std::string hostISA();

/// Whether oneDNN's int8 convolutions and matmuls sum exactly in 32 bits on
/// this CPU: with VNNI. Without it oneDNN 2.x multiplies u8 by s8 in pairs
/// into saturating 16-bit sums, and halves the weights of layers whose sums
/// could saturate, so its results are not the quantized model's arithmetic
/// (2% rel-L2 on the digits CNN, measured on AVX2).
bool hostRunsInt8Exactly();

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_H
