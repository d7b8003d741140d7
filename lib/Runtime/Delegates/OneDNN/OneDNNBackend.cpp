//===- OneDNNBackend.cpp - the onednn runtime delegate and prepare step ---===//
#include "ChannelBlockedRule.h"
#include "GraphBuilder.h"

#include "strata/Runtime/Delegates/ShapeCache.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace strata::runtime::onednn {

namespace fbs = strata::onednn::fb;

const char *const kBackendName = "onednn";

std::string hostISA() {
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::sse41:
    return "sse41";
  case dnnl::cpu_isa::avx:
    return "avx";
  case dnnl::cpu_isa::avx2:
    return "avx2";
  case dnnl::cpu_isa::avx2_vnni:
    return "avx2_vnni";
  case dnnl::cpu_isa::avx512_core:
    return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx:
    return "avx512_core_amx";
  default:
    return "isa-" +
           std::to_string(static_cast<int>(dnnl::get_effective_cpu_isa()));
  }
}

bool hostRunsInt8Exactly() {
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::avx2_vnni:
  case dnnl::cpu_isa::avx512_core_vnni:
  case dnnl::cpu_isa::avx512_core_bf16:
  case dnnl::cpu_isa::avx512_core_amx:
    return true;
  default:
    return false;
  }
}

static std::string libraryVersion() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
}

/// Verifies and returns the graph in `bytes`.
static Result<const fbs::Graph *> verifiedGraph(ByteSpan bytes) {
  if (!bytes.data || bytes.size < 8 ||
      !fbs::GraphBufferHasIdentifier(bytes.data))
    return Error(ErrorCode::InvalidArgument,
                 "the blob is not a oneDNN graph (identifier 'SDNN' missing)");
  flatbuffers::Verifier verifier(bytes.data, bytes.size);
  if (!fbs::VerifyGraphBuffer(verifier))
    return Error(ErrorCode::InvalidArgument,
                 "the oneDNN graph blob does not verify");
  return fbs::GetGraph(bytes.data);
}

Result<PreparedGraph> prepareGraph(ByteSpan plainBlob,
                                   const NamedDataMap &plainConstants,
                                   const PrepareOptions &options) {
  Result<const fbs::Graph *> graph = verifiedGraph(plainBlob);
  if (!graph.ok())
    return graph.takeError();
  fbs::GraphT object;
  (*graph)->UnPackTo(&object);
  object.winograd = options.winograd;
  switch (options.activationLayout) {
  case PrepareOptions::Layout::Rule:
    object.activation_layout = channelBlockedPays(**graph)
                                   ? fbs::ActivationLayout::ChannelBlocked16
                                   : fbs::ActivationLayout::Open;
    break;
  case PrepareOptions::Layout::Open:
    object.activation_layout = fbs::ActivationLayout::Open;
    break;
  case PrepareOptions::Layout::ChannelBlocked:
    if (!hostRunsChannelBlocked16())
      return Error(ErrorCode::InvalidArgument,
                   "channel-blocked activations (nChw16c) need AVX-512, "
                   "which this CPU lacks");
    object.activation_layout = fbs::ActivationLayout::ChannelBlocked16;
    break;
  }
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &object), fbs::GraphIdentifier());
  const fbs::Graph *withOptions = fbs::GetGraph(fbb.GetBufferPointer());

  CompiledGraph::BuildOptions build;
  build.mode = CompiledGraph::Mode::Prepare;
  build.measure = options.measure;
  build.winogradBudget = options.winogradBudget;
  build.winogradSizeShare = options.winogradSizeShare;
  build.winogradInitLayerBytes = options.winogradInitLayerBytes;
  build.tuning = options.tuning;
  build.threads = std::max(1, options.tuneThreads);
  // Choose (and time, when measuring) the implementations on the thread
  // count the program will use.
  int previousThreads = omp_get_max_threads();
  omp_set_num_threads(std::max(1, options.tuneThreads));
  Result<std::unique_ptr<CompiledGraph>> compiled =
      CompiledGraph::build(*withOptions, plainConstants, build);
  omp_set_num_threads(previousThreads);
  if (!compiled.ok())
    return compiled.takeError();

  PreparedGraph prepared;
  object.onednn_version = libraryVersion();
  object.isa = hostISA();
  object.scratch_bytes = (*compiled)->scratchBytes();
  prepared.tunedFromRecords = (*compiled)->tunedFromRecords();
  prepared.tunedByMeasuring = (*compiled)->tunedByMeasuring();
  for (const auto &[index, note] : (*compiled)->convNotes()) {
    std::string line = "op " + std::to_string(index);
    const std::vector<std::string> &names = object.ops[index]->node_names;
    for (size_t j = 0; j < names.size(); ++j)
      line += (j ? ", " : " [") + names[j] + (j + 1 == names.size() ? "]" : "");
    prepared.notes.push_back(line + ": " + note);
  }
  for (const auto &[index, choice] : (*compiled)->convChoices()) {
    object.ops[index]->conv_kernel = choice.kernel;
    object.ops[index]->winograd = choice.winograd;
    object.ops[index]->impl_index = choice.index;
    object.ops[index]->src_as_placed = choice.srcAsPlaced;
    object.ops[index]->impl = choice.name;
    object.ops[index]->winograd_weights_at_init = choice.weightsAtInit;
  }
  for (size_t i = 0; i < object.tensors.size(); ++i) {
    fbs::TensorT &tensor = *object.tensors[i];
    if (tensor.constant_key.empty())
      continue;
    auto packed = (*compiled)->packedWeights().find(i);
    bool plainNeeded = (*compiled)->plainConstants().count(i) ||
                       packed == (*compiled)->packedWeights().end() ||
                       options.keepPlainWeights;
    if (plainNeeded) {
      STRATA_ASSIGN_OR_RETURN(ByteSpan bytes,
                              plainConstants.get(tensor.constant_key));
      prepared.namedData[tensor.constant_key].assign(bytes.data,
                                                     bytes.data + bytes.size);
    }
    if (packed != (*compiled)->packedWeights().end()) {
      tensor.packed_key = tensor.constant_key + ".packed";
      tensor.packed_desc = packed->second.desc;
      prepared.namedData[tensor.packed_key] = packed->second.bytes;
    }
  }
  fbb.Clear();
  fbb.Finish(fbs::Graph::Pack(fbb, &object), fbs::GraphIdentifier());
  prepared.blob.assign(fbb.GetBufferPointer(),
                       fbb.GetBufferPointer() + fbb.GetSize());
  prepared.scratchBytes = object.scratch_bytes;
  return prepared;
}

/// The layout recorded with a packed weight, in oneDNN's notation.
static std::string packedLayout(const fbs::Tensor &t) {
  if (!t.packed_desc() || t.packed_desc()->size() != sizeof(dnnl_memory_desc_t))
    return "plain";
  dnnl_memory_desc_t stored;
  std::memcpy(&stored, t.packed_desc()->data(), sizeof(stored));
  return layoutName(dnnl::memory::desc(stored));
}

std::string describeGraph(ByteSpan processed) {
  Result<const fbs::Graph *> verified = verifiedGraph(processed);
  if (!verified.ok())
    return "    (" + verified.error().message() + ")\n";
  const fbs::Graph &graph = **verified;
  std::string s =
      "    oneDNN " +
      (graph.onednn_version() ? graph.onednn_version()->str()
                              : std::string("?")) +
      ", weights packed for " +
      (graph.isa() ? graph.isa()->str() : std::string("?")) +
      ", working memory " + std::to_string(graph.scratch_bytes()) +
      " bytes, activations " +
      (graph.activation_layout() == fbs::ActivationLayout::ChannelBlocked16
           ? "nChw16c"
           : "open") +
      "\n";
  if (graph.extent_bounds() && graph.extent_bounds()->size()) {
    s += "    dynamic: " + std::to_string(graph.extent_bounds()->size()) +
         " extent slots, prepared at [";
    for (size_t k = 0; k < graph.extent_bounds()->size(); ++k)
      s += (k ? ", " : "") + std::to_string(graph.extent_bounds()->Get(k));
    s += "]; primitives built per shape on first use\n";
  }
  if (!graph.ops())
    return s;
  size_t tensorCount = graph.tensors() ? graph.tensors()->size() : 0;
  for (size_t i = 0; i < graph.ops()->size(); ++i) {
    const fbs::Op &op = *graph.ops()->Get(i);
    s += "    op " + std::to_string(i) + " " + fbs::EnumNameOpKind(op.kind());
    if (op.post_ops() && op.post_ops()->size())
      s += " +" + std::to_string(op.post_ops()->size()) + " post-ops";
    if (op.kind() == fbs::OpKind::Convolution) {
      if (const OwnWinogradKind *winograd = ownWinogradKindOf(op.conv_kernel()))
        s += std::string(": ") + winograd->description;
      else if (const OwnGroupedKind *kind = groupedKindOf(op.conv_kernel()))
        s += std::string(": ") + kind->name + " (" + kind->layoutName + ")";
      else
        s += ": " +
             (op.impl() && op.impl()->size() ? op.impl()->str()
                                             : std::string("first")) +
             " (implementation " + std::to_string(op.impl_index()) + ")";
      if (op.winograd())
        s += ", winograd";
      if (op.src_as_placed())
        s += ", input as placed";
      if (op.inputs() && op.inputs()->size() > 1 &&
          op.inputs()->Get(1) < tensorCount)
        s += ", weights " +
             packedLayout(*graph.tensors()->Get(op.inputs()->Get(1)));
    }
    // An 8-bit result (a quantized op, or a quantization fused as a
    // post-op).
    if (op.outputs() && op.outputs()->size() &&
        op.outputs()->Get(0) < tensorCount) {
      fbs::DataType type = graph.tensors()->Get(op.outputs()->Get(0))->dtype();
      if (type != fbs::DataType::F32)
        s += std::string(" -> ") + (type == fbs::DataType::S8    ? "s8"
                                    : type == fbs::DataType::S32 ? "s32"
                                                                 : "u8");
    }
    if (op.node_names() && op.node_names()->size()) {
      s += "  [";
      for (size_t j = 0; j < op.node_names()->size(); ++j)
        s += (j ? ", " : "") + op.node_names()->Get(j)->str();
      s += "]";
    }
    s += "\n";
  }
  return s;
}

namespace {

/// The named-data keys of `graph`'s tensors (plain and packed bytes).
std::vector<std::string> namedDataKeys(const fbs::Graph &graph) {
  std::vector<std::string> keys;
  if (graph.tensors())
    for (const fbs::Tensor *t : *graph.tensors())
      for (const flatbuffers::String *key :
           {t->constant_key(), t->packed_key()})
        if (key && key->size())
          keys.push_back(key->str());
  return keys;
}

struct Handle final : DelegateHandle {
  /// The graph run last (the only one of a static partition).
  CompiledGraph *graph = nullptr;
  std::unique_ptr<CompiledGraph> staticGraph;
  /// A partition with extent slots: the graphs built at the shapes run.
  std::unique_ptr<ShapeCache<CompiledGraph>> shapes;
  bool profiling = false;
  int threads = 1;
};

class OneDNNDelegate final : public NamedBackend {
public:
  OneDNNDelegate() : NamedBackend(kBackendName) {
    config_.declare("threads", ConfigOption::Type::Int, "1",
                    "OpenMP threads oneDNN runs on");
    config_.declare("repack_on_isa_mismatch", ConfigOption::Type::Bool, "false",
                    "on a CPU other than the one the weights were packed "
                    "for, repack them from the plain copy (compile with "
                    "keep_plain_weights) instead of failing");
    config_.declare("shape_cache", ConfigOption::Type::Int, "8",
                    "a partition with dynamic extents: how many shapes keep "
                    "their primitives (the least recently run is dropped)");
  }
  bool isAvailable() const override {
    return dnnl::engine::get_count(dnnl::engine::kind::cpu) > 0;
  }

  Result<DelegateHandle *> init(ByteSpan processed, const Params &,
                                const NamedDataMap &named) override {
    Result<const fbs::Graph *> graph = verifiedGraph(processed);
    if (!graph.ok())
      return graph.takeError();
    auto handle = std::make_unique<Handle>();
    handle->threads = std::max(1, std::atoi(config_.get("threads")->c_str()));
    omp_set_num_threads(handle->threads);
    CompiledGraph::BuildOptions options;
    options.mode = CompiledGraph::Mode::Init;
    options.threads = handle->threads; // the own kernels' working memory
    options.repackOnMismatch = *config_.get("repack_on_isa_mismatch") == "true";
    if (const auto *bounds = (*graph)->extent_bounds();
        bounds && bounds->size()) {
      // Built at the bounds now, so that a blob this CPU cannot run fails
      // at init; other shapes on first use.
      Handle *h = handle.get();
      h->shapes = std::make_unique<ShapeCache<CompiledGraph>>(
          processed, named, namedDataKeys(**graph),
          std::vector<int64_t>(bounds->begin(), bounds->end()),
          static_cast<size_t>(
              std::max(1, std::atoi(config_.get("shape_cache")->c_str()))),
          [](const std::vector<uint8_t> &blob,
             const std::vector<int64_t> &extents) {
            return graphAtExtents<fbs::GraphT>(blob, extents,
                                               fbs::GraphIdentifier());
          },
          [h, options](const std::vector<uint8_t> &blob,
                       const NamedDataMap &kept)
              -> Result<std::unique_ptr<CompiledGraph>> {
            STRATA_ASSIGN_OR_RETURN(
                std::unique_ptr<CompiledGraph> built,
                CompiledGraph::build(*fbs::GetGraph(blob.data()), kept,
                                     options));
            built->setProfiling(h->profiling);
            return built;
          });
      STRATA_ASSIGN_OR_RETURN(h->graph, h->shapes->at(h->shapes->bounds()));
      return static_cast<DelegateHandle *>(handle.release());
    }
    STRATA_ASSIGN_OR_RETURN(handle->staticGraph,
                            CompiledGraph::build(**graph, named, options));
    handle->graph = handle->staticGraph.get();
    return static_cast<DelegateHandle *>(handle.release());
  }

  Error execute(DelegateHandle *handle, const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs) override {
    auto *h = static_cast<Handle *>(handle);
    if (h->shapes)
      return Error(ErrorCode::InvalidArgument,
                   "the graph has extent slots; the call passes none");
    if (omp_get_max_threads() != h->threads)
      omp_set_num_threads(h->threads);
    return h->graph->execute(ins, outs);
  }

  Error executeDynamic(DelegateHandle *handle,
                       const std::vector<TensorView> &ins,
                       const std::vector<TensorView> &outs,
                       const std::vector<int64_t> &extents) override {
    auto *h = static_cast<Handle *>(handle);
    if (!h->shapes)
      return execute(handle, ins, outs);
    if (omp_get_max_threads() != h->threads)
      omp_set_num_threads(h->threads);
    STRATA_ASSIGN_OR_RETURN(h->graph, h->shapes->at(extents));
    return h->graph->execute(ins, outs);
  }

  void destroy(DelegateHandle *handle) override { delete handle; }
  void setProfiling(DelegateHandle *handle, bool enabled) override {
    auto *h = static_cast<Handle *>(handle);
    h->profiling = enabled;
    if (h->shapes)
      h->shapes->forEach(
          [enabled](CompiledGraph &graph) { graph.setProfiling(enabled); });
    else
      h->graph->setProfiling(enabled);
  }
  std::vector<DelegateOpProfile>
  profile(const DelegateHandle *handle) const override {
    return static_cast<const Handle *>(handle)->graph->profile();
  }
  std::string describe(ByteSpan processed) const override {
    return describeGraph(processed);
  }
};

} // namespace

Backend &getBackend() {
  static OneDNNDelegate delegate;
  return delegate;
}

Error registerBackend(BackendRegistry &registry) {
  return registry.add(&getBackend());
}

} // namespace strata::runtime::onednn
