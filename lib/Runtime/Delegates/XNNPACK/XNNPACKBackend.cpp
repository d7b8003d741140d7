//===- XNNPACKBackend.cpp - the xnnpack runtime delegate ------------------===//
#include "Subgraph.h"

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

struct Handle final : DelegateHandle {
  std::unique_ptr<Subgraph> subgraph;
};

class XNNPACKDelegate final : public NamedBackend {
public:
  XNNPACKDelegate() : NamedBackend(kBackendName) {
    config_.declare("threads", ConfigOption::Type::Int, "1",
                    "threads XNNPACK runs on (1: the caller's; more: one "
                    "pthreadpool per thread count, shared by every "
                    "partition)");
  }
  bool isAvailable() const override { return xnnpackReady(); }

  Result<DelegateHandle *> init(ByteSpan processed, const Params &,
                                const NamedDataMap &named) override {
    Result<const fbs::Graph *> graph = verifiedGraph(processed);
    if (!graph.ok())
      return graph.takeError();
    int threads = std::max(1, std::atoi(config_.get("threads")->c_str()));
    STRATA_ASSIGN_OR_RETURN(ThreadPool pool, sharedThreadPool(threads));
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Subgraph> built,
                            Subgraph::build(**graph, named, std::move(pool)));
    auto handle = std::make_unique<Handle>();
    handle->subgraph = std::move(built);
    return static_cast<DelegateHandle *>(handle.release());
  }

  Error execute(DelegateHandle *handle, const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs) override {
    return static_cast<Handle *>(handle)->subgraph->execute(ins, outs);
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
