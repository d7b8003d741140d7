//===- Subgraph.h - a blob as an XNNPACK runtime ----------------*- C++ -*-===//
//
// Internal to the XNNPACK delegate: the verified blob, the XNNPACK runtime
// built from it, and the staging buffers it reads and writes.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_RUNTIME_DELEGATES_XNNPACK_SUBGRAPH_H
#define STRATA_LIB_RUNTIME_DELEGATES_XNNPACK_SUBGRAPH_H

#include "strata/Runtime/Backend.h"
#include "strata/Runtime/Delegates/Schema/xnnpack_graph_generated.h"

#include <xnnpack.h>

#include <memory>
#include <mutex>
#include <vector>

namespace strata::runtime::xnnpack {

namespace fbs = strata::xnnpack::fb;

/// Verifies and returns the graph in `bytes`.
Result<const fbs::Graph *> verifiedGraph(ByteSpan bytes);

/// Whether XNNPACK initialised on this CPU (once per process).
bool xnnpackReady();

/// "node 3 (Convolution: /conv1/Conv)": its index, kind and ONNX nodes.
std::string nodeName(const fbs::Node &node, size_t index);

/// Checks that node `index`'s tensor dims agree with what its kind
/// computes from them (XNNPACK sizes buffers from the dims and does not
/// check them against each other).
Error checkShapes(const fbs::Graph &graph, const fbs::Node &node,
                  size_t index);

/// One partition input or output: the caller's shape, and the buffer
/// XNNPACK reads or writes (XNN_EXTRA_BYTES readable past its end).
struct Staging {
  /// The shape the caller passes (NCHW for a 4-d value).
  std::vector<int64_t> shape;
  /// NHWC in `data`, NCHW in the caller's buffer.
  bool nchw = false;
  /// F32 or I8 (qs8).
  DType dtype = DType::F32;
  size_t elementBytes = 4;
  std::vector<uint8_t> data;
  size_t elements = 0;
};

/// A pthreadpool shared by every runtime of one thread count.
using ThreadPool = std::shared_ptr<struct pthreadpool>;

/// The process-wide pool of `threads` threads (null for 1: the caller's
/// thread). One per thread count, not one per partition: a program of
/// many partitions on pools of their own leaves their workers spinning
/// against each other and against the portable kernels between them
/// (ShuffleNet at 2 threads: 100x slower).
Result<ThreadPool> sharedThreadPool(int threads);

/// An XNNPACK runtime with its thread pool and staging buffers.
class Subgraph {
public:
  ~Subgraph();
  /// Defines `graph` with its constants from `named` (which must outlive
  /// the result) and creates the runtime on `pool` (null: the caller's
  /// thread); workers yield after each run.
  static Result<std::unique_ptr<Subgraph>>
  build(const fbs::Graph &graph, const NamedDataMap &named, ThreadPool pool);
  /// Copies `ins` in, runs, copies `outs` out; checks shapes and types.
  Error execute(const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs);

private:
  Subgraph() = default;
  /// Defines tensor `i` of `graph` in `subgraph` and sets `id`; a partition
  /// input or output (`externalIndex` >= 0) gets its staging buffer.
  Error defineTensor(xnn_subgraph_t subgraph, const fbs::Graph &graph, size_t i,
                     const NamedDataMap &named, int64_t externalIndex,
                     uint32_t &id);
  /// Creates the runtime of `subgraph` on `pool` and binds the staging
  /// buffers to its external values.
  Error createRuntime(xnn_subgraph_t subgraph, ThreadPool pool);
  xnn_runtime_t runtime_ = nullptr;
  ThreadPool pool_;
  std::vector<Staging> inputs_, outputs_;
};

} // namespace strata::runtime::xnnpack

#endif // STRATA_LIB_RUNTIME_DELEGATES_XNNPACK_SUBGRAPH_H
