//===- Graph.h - a partition as oneDNN primitives ---------------*- C++ -*-===//
//
// CompiledGraph turns a blob (onednn_graph.fbs) into oneDNN primitives over
// planned memory. The same builder runs at compile time (Mode::Prepare:
// weights are reordered into the layouts the primitives pick and returned
// for storage) and at init (Mode::Init: the stored packed weights are bound
// in place after checking that oneDNN still picks the recorded layout).
//
// Memory: graph inputs and outputs are the caller's buffers; constants are
// the program's named data; every intermediate lives in one working-memory
// buffer, at offsets planned from the intermediates' lifetimes (a
// convolution with a sum post-op writes in place into its residual's
// storage when nothing else still reads it; the parts of a concatenation
// along whole channel blocks of one image are written in place into the
// result, which then holds them for all their readers).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPH_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPH_H

#include "strata/Runtime/Backend.h"
#include "strata/Runtime/Delegates/OneDNN.h"

#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <memory>
#include <set>
#include <unordered_map>

namespace strata::runtime::onednn {

/// Where a memory object's bytes live.
enum class BufferKind { Input, Output, Scratch, Constant, Owned };

class CompiledGraph {
public:
  enum class Mode { Prepare, Init };
  struct BuildOptions {
    Mode mode = Mode::Init;
    bool repackOnMismatch = false;
    /// Prepare mode: measure convolutions missing from `tuning` (see
    /// PrepareOptions).
    bool measure = false;
    TuningRecords *tuning = nullptr;
    /// Part of every tuning signature; at init, the threads the own
    /// kernels split their working memory for.
    int threads = 1;
    /// Prepare mode: PrepareOptions::winogradBudget.
    double winogradBudget = 2.0;
    /// Prepare mode: PrepareOptions::winogradSizeShare.
    double winogradSizeShare = 0.07;
    /// Prepare mode: PrepareOptions::winogradInitLayerBytes.
    double winogradInitLayerBytes = 1024 * 1024;
  };

  /// Builds the primitives of `graph`. In Prepare mode, `packed` receives
  /// the packed bytes and layouts of every weight (by tensor index).
  static Result<std::unique_ptr<CompiledGraph>>
  build(const strata::onednn::fb::Graph &graph, const NamedDataMap &named,
        const BuildOptions &options);

  /// Runs the graph: `ins` are the graph inputs, `outs` its outputs plus,
  /// when scratchBytes() > 0, the working memory.
  Error execute(const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs);

  uint64_t scratchBytes() const { return scratchBytes_; }

  /// Times every step of the following executes (off by default).
  void setProfiling(bool enabled) { profiling_ = enabled; }
  /// The steps of the last profiled execute: what ran, for which ONNX
  /// nodes, in which layouts, by which implementation, and how long.
  std::vector<DelegateOpProfile> profile() const;

  struct PackedWeight {
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> desc;
  };
  /// Prepare mode: tensor index -> packed weight.
  const std::map<uint32_t, PackedWeight> &packedWeights() const {
    return packed_;
  }

  /// Prepare mode: the implementation chosen for each convolution.
  struct ConvChoice {
    strata::onednn::fb::ConvKernel kernel =
        strata::onednn::fb::ConvKernel::OneDNN;
    bool winograd = false;
    bool srcAsPlaced = false;
    int index = 0;
    std::string name;
    /// The own Winograd kernel's weights are transformed at init.
    bool weightsAtInit = false;
  };
  const std::map<size_t, ConvChoice> &convChoices() const {
    return convChoices_;
  }
  /// Prepare mode: per convolution, why its algorithm was chosen (the
  /// Winograd accuracy check's figures, or the rule that kept it direct).
  const std::map<size_t, std::string> &convNotes() const { return convNotes_; }
  /// Constants read in their plain layout (their bytes must be stored).
  const std::set<uint32_t> &plainConstants() const { return plainConstants_; }
  /// Prepare mode: convolutions chosen from tuning records, and measured.
  size_t tunedFromRecords() const { return tunedFromRecords_; }
  size_t tunedByMeasuring() const { return tunedByMeasuring_; }

private:
  friend class GraphBuilder;
  /// Runs step `i` (its primitive, or its own kernel).
  void runStep(size_t i);
  /// Runs the steps one by one, each timed to its end.
  void executeProfiled();
  struct Buffer {
    BufferKind kind = BufferKind::Scratch;
    size_t index = 0; ///< Input or output index.
    size_t bytes = 0;
    void *data = nullptr; ///< Constant and Owned buffers.
    int first = -1, last = -1;
    uint64_t offset = 0; ///< Scratch buffers, into the working memory.
    /// Set: these bytes are part of buffer `within`, `withinOffset` bytes
    /// in (a concatenation's part, written in place into its result).
    int within = -1;
    uint64_t withinOffset = 0;
  };
  struct Mem {
    dnnl::memory memory;
    int buffer = -1;
  };
  /// A kernel of the delegate's own, run on its steps' memory arguments.
  using Kernel =
      std::function<void(const std::unordered_map<int, dnnl::memory> &)>;
  struct Step {
    dnnl::primitive primitive;
    std::unordered_map<int, int> args; ///< DNNL_ARG_* -> mems index.
    Kernel kernel;                     ///< Set: runs instead of primitive.
    int op = -1;       ///< The blob op it runs (or reorders an input for).
    std::string name;  ///< A delegate kernel's name (its profile entry).
  };

  dnnl::engine engine_;
  dnnl::stream stream_;
  std::vector<Buffer> buffers_;
  std::vector<Mem> mems_;
  std::vector<Step> steps_;
  /// Per blob op: its kind's name and its ONNX nodes (profile entries).
  std::vector<std::string> opKinds_;
  std::vector<std::vector<std::string>> opNodes_;
  bool profiling_ = false;
  std::vector<uint64_t> stepNs_;
  std::vector<std::vector<uint8_t>> owned_;
  std::vector<std::unordered_map<int, dnnl::memory>> args_;
  std::vector<std::vector<int64_t>> inputDims_, outputDims_;
  std::vector<dnnl::memory::data_type> inputTypes_, outputTypes_;
  uint64_t scratchBytes_ = 0;
  /// Working memory allocated at init when the program's is too small
  /// (weights repacked for another CPU may pick other layouts).
  std::vector<uint8_t> ownScratch_;
  std::map<uint32_t, PackedWeight> packed_;
  std::set<uint32_t> plainConstants_;
  std::map<size_t, ConvChoice> convChoices_;
  std::map<size_t, std::string> convNotes_;
  size_t tunedFromRecords_ = 0, tunedByMeasuring_ = 0;
};

/// A listing of a blob's ops with the implementation chosen for each
/// (strata-dump through Backend::describe).
std::string describeGraph(ByteSpan processed);

/// Bytes of a memory descriptor, as stored in Tensor.packed_desc.
std::vector<uint8_t> descBytes(const dnnl::memory::desc &desc);

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPH_H
