//===- XNNPACKBackend.cpp - the xnnpack runtime delegate ------------------===//
#include "Subgraph.h"

#include "strata/Runtime/Delegates/ShapeCache.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

#include <cstdio>
#include <cstdlib>

namespace strata::runtime::xnnpack {

const char *const kBackendName = "xnnpack";

Error checkGraph(ByteSpan blob, const NamedDataMap &constants) {
  Result<const fbs::Graph *> graph = verifiedGraph(blob);
  if (!graph.ok())
    return graph.takeError();
  Result<std::unique_ptr<Subgraph>> built =
      Subgraph::build(**graph, constants, ThreadPool());
  return built.ok() ? Error::success() : built.takeError();
}

std::string describeGraph(ByteSpan blob) {
  Result<const fbs::Graph *> verified = verifiedGraph(blob);
  if (!verified.ok())
    return "    (" + verified.error().message() + ")\n";
  const fbs::Graph &graph = **verified;
  auto dims = [&](uint32_t t) {
    std::string s;
    if (!graph.tensors() || t >= graph.tensors()->size())
      return std::string("?");
    const fbs::Tensor *tensor = graph.tensors()->Get(t);
    if (tensor->dims())
      for (size_t i = 0; i < tensor->dims()->size(); ++i)
        s += (i ? "x" : "") + std::to_string(tensor->dims()->Get(i));
    if (tensor->dtype() == fbs::DataType::QS8) {
      char q[64];
      std::snprintf(q, sizeof(q), " qs8 (scale %.6g, zero point %d)",
                    tensor->scale(), tensor->zero_point());
      s += q;
    }
    return s;
  };
  std::string out;
  if (!graph.nodes())
    return out;
  for (size_t i = 0; i < graph.nodes()->size(); ++i) {
    const fbs::Node &node = *graph.nodes()->Get(i);
    out += "    node " + std::to_string(i) + " " +
           fbs::EnumNameNodeKind(node.kind());
    if (node.outputs() && node.outputs()->size() == 1)
      out += " -> " + dims(node.outputs()->Get(0));
    if (node.output_min() > -std::numeric_limits<float>::max() ||
        node.output_max() < std::numeric_limits<float>::max())
      out += " clamp [" + std::to_string(node.output_min()) + ", " +
             std::to_string(node.output_max()) + "]";
    out += " ";
    if (node.node_names()) {
      out += " [";
      for (size_t k = 0; k < node.node_names()->size(); ++k)
        out += (k ? ", " : "") + node.node_names()->Get(k)->str();
      out += "]";
    }
    out += "\n";
  }
  return out;
}

namespace {

/// `blob` (a verified graph with extent slots) at `extents`, each reshape
/// to its result's extents.
Result<std::vector<uint8_t>> graphAt(const std::vector<uint8_t> &blob,
                                     const std::vector<int64_t> &extents) {
  return graphAtExtents<fbs::GraphT>(
      blob, extents, fbs::GraphIdentifier(),
      [](fbs::GraphT &graph, const std::vector<bool> &slotted) {
        for (std::unique_ptr<fbs::NodeT> &node : graph.nodes)
          if (node->kind == fbs::NodeKind::Reshape &&
              node->outputs.size() == 1 &&
              node->outputs[0] < graph.tensors.size() &&
              slotted[node->outputs[0]]) {
            const std::vector<int64_t> &dims =
                graph.tensors[node->outputs[0]]->dims;
            node->new_shape.assign(dims.begin(), dims.end());
          }
      });
}

/// The named-data keys of `graph`'s constants.
std::vector<std::string> namedDataKeys(const fbs::Graph &graph) {
  std::vector<std::string> keys;
  if (graph.tensors())
    for (const fbs::Tensor *t : *graph.tensors())
      if (t->constant_key() && t->constant_key()->size())
        keys.push_back(t->constant_key()->str());
  return keys;
}

struct Handle final : DelegateHandle {
  /// The runtime run last (the only one of a static partition).
  Subgraph *subgraph = nullptr;
  std::unique_ptr<Subgraph> staticSubgraph;
  /// A partition with extent slots: the runtimes built at the shapes run.
  std::unique_ptr<ShapeCache<Subgraph>> shapes;
};

class XNNPACKDelegate final : public NamedBackend {
public:
  XNNPACKDelegate() : NamedBackend(kBackendName) {
    config_.declare("threads", ConfigOption::Type::Int, "1",
                    "threads XNNPACK runs on (1: the caller's; more: one "
                    "pthreadpool per thread count, shared by every "
                    "partition)");
    config_.declare("shape_cache", ConfigOption::Type::Int, "8",
                    "a partition with dynamic extents: how many shapes keep "
                    "their runtimes (the least recently run is dropped)");
  }
  bool isAvailable() const override { return xnnpackReady(); }

  Result<DelegateHandle *> init(ByteSpan processed, const Params &,
                                const NamedDataMap &named) override {
    Result<const fbs::Graph *> graph = verifiedGraph(processed);
    if (!graph.ok())
      return graph.takeError();
    int threads = std::max(1, std::atoi(config_.get("threads")->c_str()));
    STRATA_ASSIGN_OR_RETURN(ThreadPool pool, sharedThreadPool(threads));
    auto handle = std::make_unique<Handle>();
    if (const auto *bounds = (*graph)->extent_bounds();
        bounds && bounds->size()) {
      // Built at the bounds now, so that a blob XNNPACK refuses fails at
      // init; other shapes on first use (this XNNPACK has no reshape of a
      // runtime: each shape is a runtime of its own).
      Handle *h = handle.get();
      h->shapes = std::make_unique<ShapeCache<Subgraph>>(
          processed, named, namedDataKeys(**graph),
          std::vector<int64_t>(bounds->begin(), bounds->end()),
          static_cast<size_t>(
              std::max(1, std::atoi(config_.get("shape_cache")->c_str()))),
          graphAt,
          [pool](const std::vector<uint8_t> &blob, const NamedDataMap &kept) {
            return Subgraph::build(*fbs::GetGraph(blob.data()), kept, pool);
          });
      STRATA_ASSIGN_OR_RETURN(h->subgraph, h->shapes->at(h->shapes->bounds()));
      return static_cast<DelegateHandle *>(handle.release());
    }
    STRATA_ASSIGN_OR_RETURN(handle->staticSubgraph,
                            Subgraph::build(**graph, named, std::move(pool)));
    handle->subgraph = handle->staticSubgraph.get();
    return static_cast<DelegateHandle *>(handle.release());
  }

  Error execute(DelegateHandle *handle, const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs) override {
    auto *h = static_cast<Handle *>(handle);
    if (h->shapes)
      return Error(ErrorCode::InvalidArgument,
                   "the graph has extent slots; the call passes none");
    return h->subgraph->execute(ins, outs);
  }

  Error executeDynamic(DelegateHandle *handle,
                       const std::vector<TensorView> &ins,
                       const std::vector<TensorView> &outs,
                       const std::vector<int64_t> &extents) override {
    auto *h = static_cast<Handle *>(handle);
    if (!h->shapes)
      return execute(handle, ins, outs);
    STRATA_ASSIGN_OR_RETURN(h->subgraph, h->shapes->at(extents));
    return h->subgraph->execute(ins, outs);
  }

  void destroy(DelegateHandle *handle) override { delete handle; }
  std::string describe(ByteSpan processed) const override {
    return describeGraph(processed);
  }
};

} // namespace

Backend &getBackend() {
  static XNNPACKDelegate delegate;
  return delegate;
}

Error registerBackend(BackendRegistry &registry) {
  return registry.add(&getBackend());
}

} // namespace strata::runtime::xnnpack
