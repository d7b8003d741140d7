//===- Graph.cpp - building and running a partition on oneDNN -------------===//
#include "Graph.h"
#include "Winograd.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace strata::runtime::onednn {

namespace fbs = strata::onednn::fb;
using dnnl::memory;
using Desc = memory::desc;
using Dims = memory::dims;

/// The implementation name prepare records for the own Winograd kernel.
static constexpr const char *kOwnWinogradName = "strata:winograd_f2x2:avx512";

std::vector<uint8_t> descBytes(const Desc &desc) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(&desc.data);
  return std::vector<uint8_t>(bytes, bytes + sizeof(desc.data));
}

static Desc plainDesc(const Dims &dims,
                      memory::data_type type = memory::data_type::f32) {
  Dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return Desc(dims, type, strides);
}

static bool isPlain(const Desc &desc) {
  return desc == plainDesc(desc.dims(), desc.data_type());
}

static memory::data_type dataTypeOf(fbs::DataType type) {
  switch (type) {
  case fbs::DataType::S8:
    return memory::data_type::s8;
  case fbs::DataType::U8:
    return memory::data_type::u8;
  default:
    return memory::data_type::f32;
  }
}

/// `desc`'s layout with another element type.
static Desc withType(const Desc &desc, memory::data_type type) {
  if (desc.data_type() == type)
    return desc;
  if (isPlain(desc))
    return plainDesc(desc.dims(), type);
  dnnl_memory_desc_t data = desc.data;
  data.data_type = static_cast<dnnl_data_type_t>(type);
  data.extra = dnnl_memory_extra_desc_t{};
  return Desc(data);
}

/// `dims` with leading 1s up to `rank` (numpy-style broadcasting).
static Dims padTo(Dims dims, size_t rank) {
  dims.insert(dims.begin(), rank - std::min(rank, dims.size()), 1);
  return dims;
}

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static dnnl::algorithm eltwiseAlgorithm(fbs::EltwiseKind kind) {
  using dnnl::algorithm;
  switch (kind) {
  case fbs::EltwiseKind::Relu:
    return algorithm::eltwise_relu;
  case fbs::EltwiseKind::Clip:
    return algorithm::eltwise_clip;
  case fbs::EltwiseKind::Sigmoid:
    return algorithm::eltwise_logistic;
  case fbs::EltwiseKind::Tanh:
    return algorithm::eltwise_tanh;
  case fbs::EltwiseKind::Exp:
    return algorithm::eltwise_exp;
  case fbs::EltwiseKind::Sqrt:
    return algorithm::eltwise_sqrt;
  case fbs::EltwiseKind::Abs:
    return algorithm::eltwise_abs;
  case fbs::EltwiseKind::Log:
    return algorithm::eltwise_log;
  case fbs::EltwiseKind::Square:
    return algorithm::eltwise_square;
  case fbs::EltwiseKind::Linear:
    return algorithm::eltwise_linear;
  }
  return algorithm::undef;
}

static dnnl::algorithm binaryAlgorithm(fbs::BinaryKind kind) {
  using dnnl::algorithm;
  switch (kind) {
  case fbs::BinaryKind::Add:
    return algorithm::binary_add;
  case fbs::BinaryKind::Sub:
    return algorithm::binary_sub;
  case fbs::BinaryKind::Mul:
    return algorithm::binary_mul;
  case fbs::BinaryKind::Div:
    return algorithm::binary_div;
  case fbs::BinaryKind::Max:
    return algorithm::binary_max;
  case fbs::BinaryKind::Min:
    return algorithm::binary_min;
  }
  return algorithm::undef;
}

/// A tensor's placement: its layout and the buffer holding it.
struct Placement {
  Desc desc;
  int buffer = -1;
};

class GraphBuilder {
public:
  GraphBuilder(const fbs::Graph &graph, const NamedDataMap &named,
               const CompiledGraph::BuildOptions &options, CompiledGraph &out)
      : graph(graph), named(named), options(options), out(out) {}

  Error build();

private:
  using Buffer = CompiledGraph::Buffer;

  Error fail(const std::string &message) const {
    return Error(ErrorCode::InvalidArgument,
                 "op " + std::to_string(opIndex) + ": " + message);
  }
  Result<uint32_t> tensorAt(const flatbuffers::Vector<uint32_t> *list, size_t i,
                            const char *field) const;
  /// The op's leading inputs (into `ins`, in order) and its result.
  Error operands(const fbs::Op &op, std::initializer_list<uint32_t *> ins,
                 uint32_t &dst) const;
  Dims dimsOf(uint32_t tensor) const;
  memory::data_type typeOf(uint32_t tensor) const {
    return dataTypeOf(graph.tensors()->Get(tensor)->dtype());
  }
  /// The tensor's row-major layout.
  Desc plainOf(uint32_t tensor) const {
    return plainDesc(dimsOf(tensor), typeOf(tensor));
  }
  bool isOutput(uint32_t tensor) const {
    return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
  }

  int addBuffer(BufferKind kind, size_t bytes, void *data = nullptr,
                size_t index = 0) {
    Buffer buffer;
    buffer.kind = kind;
    buffer.bytes = bytes;
    buffer.data = data;
    buffer.index = index;
    out.buffers_.push_back(buffer);
    bufferTensors.emplace_back();
    return static_cast<int>(out.buffers_.size()) - 1;
  }
  int addMem(const Desc &desc, int buffer) {
    out.mems_.push_back({memory(desc, out.engine_, DNNL_MEMORY_NONE), buffer});
    return static_cast<int>(out.mems_.size()) - 1;
  }
  void addStep(dnnl::primitive primitive,
               std::initializer_list<std::pair<int, int>> args,
               const dnnl::primitive_desc_base &pd) {
    CompiledGraph::Step step{std::move(primitive), {}, {}};
    int index = static_cast<int>(out.steps_.size());
    for (auto [arg, mem] : args) {
      step.args[arg] = mem;
      touch(out.mems_[mem].buffer, index);
    }
    size_t pad = pd.scratchpad_desc().get_size();
    if (pad) {
      scratchpadBytes = std::max(scratchpadBytes, pad);
      step.args[DNNL_ARG_SCRATCHPAD] =
          addMem(pd.scratchpad_desc(), kScratchpadBuffer);
    }
    out.steps_.push_back(std::move(step));
  }
  /// A step running one of the delegate's own kernels, with `scratch`
  /// bytes of the shared scratchpad.
  void addKernelStep(CompiledGraph::Kernel kernel,
                     std::initializer_list<std::pair<int, int>> args,
                     size_t scratch) {
    CompiledGraph::Step step{{}, {}, std::move(kernel)};
    int index = static_cast<int>(out.steps_.size());
    for (auto [arg, mem] : args) {
      step.args[arg] = mem;
      touch(out.mems_[mem].buffer, index);
    }
    if (scratch) {
      scratchpadBytes = std::max(scratchpadBytes, scratch);
      step.args[DNNL_ARG_SCRATCHPAD] =
          addMem(Desc({static_cast<int64_t>(scratch)}, memory::data_type::u8,
                      memory::format_tag::a),
                 kScratchpadBuffer);
    }
    out.steps_.push_back(std::move(step));
  }
  void addArgs(int arg, int mem) {
    out.steps_.back().args[arg] = mem;
    touch(out.mems_[mem].buffer, static_cast<int>(out.steps_.size()) - 1);
  }
  void touch(int buffer, int step) {
    if (buffer < 0)
      return;
    Buffer &b = out.buffers_[buffer];
    if (b.first < 0)
      b.first = step;
    b.last = std::max(b.last, step);
  }

  /// The tensor's placement in its original layout.
  Result<Placement> placement(uint32_t tensor);
  /// The tensor in layout `want` (reordered into a new buffer if needed).
  Result<Placement> as(uint32_t tensor, const Desc &want);
  /// The tensor, row-major, viewed with `dims` (same element count).
  Result<Placement> plainView(uint32_t tensor, const Dims &dims);
  /// Where op result `tensor` goes when its layout is `desc`: the caller's
  /// output buffer when the tensor is a graph output in plain layout, else
  /// working memory.
  Placement define(uint32_t tensor, const Desc &desc);
  /// Weights of a convolution or matmul in the layout the primitive picked.
  Result<int> weights(uint32_t tensor, const Desc &want, const Dims &plain);
  void defineView(uint32_t tensor, const Placement &placement) {
    placements[tensor] = {placement};
    bufferTensors[placement.buffer].push_back(tensor);
  }

  Error buildConvolution(const fbs::Op &op);
  /// The delegate's Winograd kernel for this convolution, when it applies
  /// (geometry, types, post-ops) and the CPU runs it.
  std::optional<WinogradConv> ownWinograd(const fbs::Op &op, uint32_t src,
                                          uint32_t w, uint32_t dst,
                                          int bias) const;
  /// Best time of the own kernel on scratch memory, in seconds, its
  /// weights evicted from the caches before each run.
  double timeOf(const WinogradConv &conv);
  /// Builds the step of the own kernel.
  Error buildOwnWinograd(const WinogradConv &conv, uint32_t src, uint32_t w,
                         int bias, uint32_t dst, int sumInput);
  double timeOf(const dnnl::convolution_forward::primitive_desc &pd) {
    return timeOf(pd, /*coldWeights=*/false);
  }
  /// `coldWeights`: the weights are evicted from the caches before each run.
  double timeOf(const dnnl::convolution_forward::primitive_desc &pd,
                bool coldWeights);
  template <typename Run, typename Before>
  double bestTime(Run run, Before before);
  template <typename Run> double bestTime(Run run) {
    return bestTime(run, [] {});
  }
  /// Best of a few reorders from `from` to `to`, in seconds (0 when equal).
  double reorderTime(const Desc &from, const Desc &to);
  Error buildMatMul(const fbs::Op &op);
  Error buildPool(const fbs::Op &op);
  Error buildEltwise(const fbs::Op &op);
  Error buildBinary(const fbs::Op &op);
  Error buildSoftmax(const fbs::Op &op);
  Error buildReduceMean(const fbs::Op &op);
  Error buildTranspose(const fbs::Op &op);
  Error buildSlice(const fbs::Op &op);
  Error buildReshape(const fbs::Op &op);
  Error buildConcat(const fbs::Op &op);
  Error buildReorder(const fbs::Op &op);
  Result<dnnl::post_ops> postOps(const fbs::Op &op, int *sumInput);
  /// The stored packed bytes of weight `t` as a constant buffer when they
  /// were recorded in layout `want`; -1 when not.
  Result<int> storedPacked(const fbs::Tensor &t, const Desc &want);
  Result<int> repackStored(const fbs::Tensor &t, const Desc &want);
  /// Where an op's result `dst` goes in layout `desc`: in place over the
  /// tensor a sum post-op accumulates (`sumInput`, or -1), else define().
  Result<Placement> resultOf(uint32_t dst, int sumInput, const Desc &desc);
  /// A buffer the op may write in place over `tensor` (its last reader).
  Result<Placement> inPlace(uint32_t tensor, const Desc &want);
  void planScratch();

  static constexpr int kScratchpadBuffer = -2;

  const fbs::Graph &graph;
  const NamedDataMap &named;
  CompiledGraph::BuildOptions options;
  CompiledGraph &out;
  size_t opIndex = 0;
  std::vector<uint32_t> inputs, outputs;
  std::vector<std::vector<Placement>> placements; ///< [0] is the original.
  std::vector<std::vector<uint32_t>> bufferTensors;
  std::vector<int> remainingUses;
  /// Graph outputs some op writes directly into the caller's buffer.
  std::vector<bool> outputWritten;
  size_t scratchpadBytes = 0;
};

Result<uint32_t>
GraphBuilder::tensorAt(const flatbuffers::Vector<uint32_t> *list, size_t i,
                       const char *field) const {
  if (!list || i >= list->size())
    return fail(std::string("missing ") + field + "[" + std::to_string(i) +
                "]");
  uint32_t t = list->Get(i);
  if (t >= placements.size())
    return fail(std::string(field) + "[" + std::to_string(i) +
                "] = " + std::to_string(t) + " is out of range");
  return t;
}

Error GraphBuilder::operands(const fbs::Op &op,
                             std::initializer_list<uint32_t *> ins,
                             uint32_t &dst) const {
  size_t i = 0;
  for (uint32_t *in : ins) {
    Result<uint32_t> t = tensorAt(op.inputs(), i++, "inputs");
    if (!t.ok())
      return t.takeError();
    *in = *t;
  }
  Result<uint32_t> t = tensorAt(op.outputs(), 0, "outputs");
  if (!t.ok())
    return t.takeError();
  dst = *t;
  return Error::success();
}

Dims GraphBuilder::dimsOf(uint32_t tensor) const {
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  Dims dims;
  if (t->dims())
    dims.assign(t->dims()->begin(), t->dims()->end());
  return dims;
}

Result<Placement> GraphBuilder::placement(uint32_t tensor) {
  if (!placements[tensor].empty())
    return placements[tensor].front();
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  if (!t->constant_key() || t->constant_key()->size() == 0)
    return fail("tensor " + std::to_string(tensor) +
                " is read before it is written");
  Result<ByteSpan> bytes = named.get(t->constant_key()->str());
  if (!bytes.ok())
    return bytes.takeError();
  Desc desc = plainOf(tensor);
  if (bytes->size != desc.get_size())
    return fail("constant '" + t->constant_key()->str() + "' has " +
                std::to_string(bytes->size) + " bytes, its shape needs " +
                std::to_string(desc.get_size()));
  int buffer = addBuffer(BufferKind::Constant, bytes->size,
                         const_cast<uint8_t *>(bytes->data));
  out.plainConstants_.insert(tensor);
  Placement p{desc, buffer};
  placements[tensor].push_back(p);
  return p;
}

Result<Placement> GraphBuilder::as(uint32_t tensor, const Desc &want) {
  Result<Placement> original = placement(tensor);
  if (!original.ok())
    return original;
  for (const Placement &p : placements[tensor])
    if (p.desc == want)
      return p;
  int buffer = addBuffer(BufferKind::Scratch, want.get_size());
  Placement p{want, buffer};
  dnnl::reorder::primitive_desc pd(out.engine_, original->desc, out.engine_,
                                   want);
  int from = addMem(original->desc, original->buffer);
  int to = addMem(want, buffer);
  addStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, pd);
  placements[tensor].push_back(p);
  bufferTensors[buffer].push_back(tensor);
  return p;
}

Result<Placement> GraphBuilder::plainView(uint32_t tensor, const Dims &dims) {
  Result<Placement> p = as(tensor, plainOf(tensor));
  if (!p.ok())
    return p;
  Desc view = plainDesc(dims, typeOf(tensor));
  if (view.get_size() != p->desc.get_size())
    return fail("cannot view tensor " + std::to_string(tensor) +
                " with another element count");
  return Placement{view, p->buffer};
}

Placement GraphBuilder::define(uint32_t tensor, const Desc &desc) {
  // A row-major result of another shape with the same bytes (kept reduce
  // dims, a flattened matmul) is the tensor itself, seen row-major.
  Desc own = plainOf(tensor);
  bool rowMajor = isPlain(desc) && desc.get_size() == own.get_size();
  auto it = std::find(outputs.begin(), outputs.end(), tensor);
  size_t index = it - outputs.begin();
  int buffer = -1;
  if (it != outputs.end() && !outputWritten[index] && rowMajor) {
    buffer = addBuffer(BufferKind::Output, desc.get_size(), nullptr, index);
    outputWritten[index] = true;
  } else {
    buffer = addBuffer(BufferKind::Scratch, desc.get_size());
  }
  placements[tensor] = {{rowMajor ? own : desc, buffer}};
  bufferTensors[buffer].push_back(tensor);
  return {desc, buffer};
}

Result<int> GraphBuilder::weights(uint32_t tensor, const Desc &want,
                                  const Dims &plainDims) {
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  if (!t->constant_key() || t->constant_key()->size() == 0) {
    // Activations as weights (attention's matmuls): plain.
    Result<Placement> p = plainView(tensor, plainDims);
    if (!p.ok())
      return p.takeError();
    if (!(p->desc == want))
      return fail("non-constant weights in a packed layout");
    return addMem(p->desc, p->buffer);
  }
  Desc plain = plainDesc(plainDims, typeOf(tensor));
  auto packedFrom = [&](ByteSpan bytes) -> Result<int> {
    if (bytes.size != plain.get_size())
      return fail("constant '" + t->constant_key()->str() + "' has " +
                  std::to_string(bytes.size) + " bytes, expected " +
                  std::to_string(plain.get_size()));
    memory src(plain, out.engine_, const_cast<uint8_t *>(bytes.data));
    std::vector<uint8_t> packed(want.get_size());
    memory dst(want, out.engine_, packed.data());
    dnnl::reorder(src, dst).execute(out.stream_, src, dst);
    out.stream_.wait();
    if (options.mode == CompiledGraph::Mode::Prepare)
      out.packed_[tensor] = {packed, descBytes(want)};
    out.owned_.push_back(std::move(packed));
    int buffer =
        addBuffer(BufferKind::Owned, want.get_size(), out.owned_.back().data());
    return addMem(want, buffer);
  };
  if (options.mode == CompiledGraph::Mode::Prepare) {
    Result<ByteSpan> bytes = named.get(t->constant_key()->str());
    if (!bytes.ok())
      return bytes.takeError();
    return packedFrom(*bytes);
  }
  // Init: bind the stored packed bytes when oneDNN still wants that layout.
  Result<int> stored = storedPacked(*t, want);
  if (!stored.ok())
    return stored.takeError();
  if (*stored >= 0)
    return addMem(want, *stored);
  // Another thread count or CPU can make oneDNN pick an implementation that
  // wants another layout; a plain blocked layout reorders into any other.
  Result<int> repacked = repackStored(*t, want);
  if (!repacked.ok())
    return repacked.takeError();
  if (*repacked >= 0)
    return addMem(want, *repacked);
  std::string packedFor =
      graph.isa() ? graph.isa()->str() : std::string("unknown ISA");
  if (!options.repackOnMismatch)
    return fail("weights were packed for " + packedFor + " (oneDNN " +
                (graph.onednn_version() ? graph.onednn_version()->str()
                                        : std::string("?")) +
                ") and this CPU (" + hostISA() +
                ") wants another layout; recompile for this CPU or set "
                "repack_on_isa_mismatch (needs keep_plain_weights at "
                "compile time)");
  Result<ByteSpan> bytes = named.get(t->constant_key()->str());
  if (!bytes.ok())
    return fail("weights were packed for " + packedFor +
                " and cannot be repacked: the program holds no plain copy "
                "(compile with keep_plain_weights=true)");
  return packedFrom(*bytes);
}

Result<int> GraphBuilder::storedPacked(const fbs::Tensor &t, const Desc &want) {
  if (!t.packed_key() || !t.packed_desc() ||
      t.packed_desc()->size() != sizeof(dnnl_memory_desc_t))
    return -1;
  dnnl_memory_desc_t stored;
  std::memcpy(&stored, t.packed_desc()->data(), sizeof(stored));
  if (!(Desc(stored) == want))
    return -1;
  Result<ByteSpan> bytes = named.get(t.packed_key()->str());
  if (!bytes.ok())
    return bytes.takeError();
  if (bytes->size != want.get_size())
    return fail("packed weights '" + t.packed_key()->str() + "' have " +
                std::to_string(bytes->size) + " bytes, the layout needs " +
                std::to_string(want.get_size()));
  return addBuffer(BufferKind::Constant, bytes->size,
                   const_cast<uint8_t *>(bytes->data));
}

Result<int> GraphBuilder::repackStored(const fbs::Tensor &t,
                                       const Desc &want) {
  if (!t.packed_key() || !t.packed_desc() ||
      t.packed_desc()->size() != sizeof(dnnl_memory_desc_t))
    return -1;
  dnnl_memory_desc_t stored;
  std::memcpy(&stored, t.packed_desc()->data(), sizeof(stored));
  // Opaque formats (Winograd, RNN-packed) and layouts carrying int8
  // compensation are not reorder sources.
  if (stored.format_kind != dnnl_blocked ||
      stored.extra.flags != dnnl_memory_extra_flag_none)
    return -1;
  Desc from(stored);
  if (from.dims() != want.dims() || from.data_type() != want.data_type())
    return -1;
  Result<ByteSpan> bytes = named.get(t.packed_key()->str());
  if (!bytes.ok())
    return bytes.takeError();
  if (bytes->size != from.get_size())
    return fail("packed weights '" + t.packed_key()->str() + "' have " +
                std::to_string(bytes->size) + " bytes, their layout needs " +
                std::to_string(from.get_size()));
  std::vector<uint8_t> packed(want.get_size());
  try {
    memory src(from, out.engine_, const_cast<uint8_t *>(bytes->data));
    memory dst(want, out.engine_, packed.data());
    dnnl::reorder(src, dst).execute(out.stream_, src, dst);
    out.stream_.wait();
  } catch (const dnnl::error &) {
    return -1;
  }
  out.owned_.push_back(std::move(packed));
  return addBuffer(BufferKind::Owned, want.get_size(),
                   out.owned_.back().data());
}

Result<Placement> GraphBuilder::resultOf(uint32_t dst, int sumInput,
                                         const Desc &desc) {
  if (sumInput < 0)
    return define(dst, desc);
  Result<Placement> acc = inPlace(sumInput, desc);
  if (!acc.ok())
    return acc;
  placements[dst] = {*acc};
  bufferTensors[acc->buffer].push_back(dst);
  return acc;
}

Result<Placement> GraphBuilder::inPlace(uint32_t tensor, const Desc &want) {
  Result<Placement> original = placement(tensor);
  if (!original.ok())
    return original;
  Result<Placement> p = as(tensor, want);
  if (!p.ok())
    return p;
  bool isCopy = p->buffer != original->buffer;
  bool free = out.buffers_[p->buffer].kind == BufferKind::Scratch &&
              remainingUses[tensor] == 1;
  for (uint32_t other : bufferTensors[p->buffer])
    if (other != tensor && remainingUses[other] > 0)
      free = false;
  if (isCopy || free)
    return p;
  // Someone still reads it: accumulate into a copy.
  int buffer = addBuffer(BufferKind::Scratch, want.get_size());
  dnnl::reorder::primitive_desc pd(out.engine_, p->desc, out.engine_, want);
  int from = addMem(p->desc, p->buffer);
  int to = addMem(want, buffer);
  addStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, pd);
  return Placement{want, buffer};
}

Result<dnnl::post_ops> GraphBuilder::postOps(const fbs::Op &op, int *sumInput) {
  dnnl::post_ops ops;
  *sumInput = -1;
  if (!op.post_ops())
    return ops;
  for (const fbs::PostOp *p : *op.post_ops()) {
    if (p->is_sum()) {
      if (*sumInput >= 0 || p->sum_input() < 0 ||
          static_cast<size_t>(p->sum_input()) >= placements.size())
        return fail("bad sum post-op");
      *sumInput = p->sum_input();
      ops.append_sum(p->scale());
    } else {
      ops.append_eltwise(1.f, eltwiseAlgorithm(p->eltwise()), p->alpha(),
                         p->beta());
    }
  }
  return ops;
}

static Dims longs(const flatbuffers::Vector<int64_t> *v, size_t n,
                  int64_t fallback) {
  Dims out(n, fallback);
  if (v)
    for (size_t i = 0; i < n && i < v->size(); ++i)
      out[i] = v->Get(i);
  return out;
}

/// Writes the lines of [data, data + bytes) back and drops them from every
/// cache level (x86; elsewhere a no-op).
static void evict(const void *data, size_t bytes) {
#if defined(__x86_64__)
  const char *p = static_cast<const char *>(data);
  for (size_t i = 0; i < bytes; i += 64)
    _mm_clflush(p + i);
  _mm_mfence();
#else
  (void)data, (void)bytes;
#endif
}

/// Best of three timed runs of `run` after one warm-up, in seconds;
/// `before` runs untimed before each.
template <typename Run, typename Before>
double GraphBuilder::bestTime(Run run, Before before) {
  double best = 1e30;
  for (int i = 0; i < 4; ++i) {
    before();
    auto start = std::chrono::steady_clock::now();
    run();
    out.stream_.wait();
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (i)
      best = std::min(best, took.count());
  }
  return best;
}

/// Best of a few runs of a convolution on scratch memory, in seconds (the
/// prepare step's choice between Winograd and direct convolution).
double GraphBuilder::timeOf(const dnnl::convolution_forward::primitive_desc &pd,
                            bool coldWeights) {
  std::vector<memory> mems;
  std::unordered_map<int, memory> args;
  for (auto [arg, desc] : {std::pair{DNNL_ARG_SRC, pd.src_desc()},
                           {DNNL_ARG_WEIGHTS, pd.weights_desc()},
                           {DNNL_ARG_BIAS, pd.bias_desc()},
                           {DNNL_ARG_DST, pd.dst_desc()},
                           {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}}) {
    memory m(desc, out.engine_);
    if (desc.get_size())
      std::memset(m.get_data_handle(), 0, desc.get_size());
    args[arg] = m;
  }
  dnnl::convolution_forward conv(pd);
  memory weights = args[DNNL_ARG_WEIGHTS];
  return bestTime([&] { conv.execute(out.stream_, args); },
                  [&] {
                    if (coldWeights)
                      evict(weights.get_data_handle(),
                            pd.weights_desc().get_size());
                  });
}

double GraphBuilder::reorderTime(const Desc &from, const Desc &to) {
  if (from == to)
    return 0;
  memory a(from, out.engine_), b(to, out.engine_);
  std::memset(a.get_data_handle(), 0, from.get_size());
  dnnl::reorder reorder(a, b);
  return bestTime([&] { reorder.execute(out.stream_, a, b); });
}

Error GraphBuilder::buildConvolution(const fbs::Op &op) {
  Result<uint32_t> src = tensorAt(op.inputs(), 0, "inputs");
  Result<uint32_t> w = src.ok() ? tensorAt(op.inputs(), 1, "inputs") : src;
  Result<uint32_t> dst = w.ok() ? tensorAt(op.outputs(), 0, "outputs") : w;
  if (!dst.ok())
    return dst.takeError();
  int bias = -1;
  if (op.inputs()->size() > 2) {
    Result<uint32_t> b = tensorAt(op.inputs(), 2, "inputs");
    if (!b.ok())
      return b.takeError();
    bias = static_cast<int>(*b);
  }
  Dims srcDims = dimsOf(*src), wDims = dimsOf(*w), dstDims = dimsOf(*dst);
  if (srcDims.size() != 4 || wDims.size() != 4 || dstDims.size() != 4)
    return fail("convolution needs 4-D tensors");
  int64_t groups = op.groups();
  if (groups < 1 || wDims[0] % groups)
    return fail("bad group count");
  Dims wPlain = wDims;
  if (groups > 1)
    wPlain = {groups, wDims[0] / groups, wDims[1], wDims[2], wDims[3]};
  Dims strides = longs(op.strides(), 2, 1), dil = longs(op.dilations(), 2, 1),
       pb = longs(op.pads_begin(), 2, 0), pe = longs(op.pads_end(), 2, 0);
  for (int64_t &d : dil)
    d -= 1;
  int sumInput = -1;
  Result<dnnl::post_ops> po = postOps(op, &sumInput);
  if (!po.ok())
    return po.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_post_ops(*po);
  using tag = memory::format_tag;
  // int8: s8/u8 input and weights, s8/u8/f32 result, output scales.
  Desc srcAny(srcDims, typeOf(*src), tag::any);
  Desc wAny(wPlain, typeOf(*w), tag::any);
  Desc dstAny(dstDims, typeOf(*dst),
              isOutput(*dst) && sumInput < 0 ? tag::abcd : tag::any);
  if (op.output_scales() && op.output_scales()->size() > 0) {
    std::vector<float> scales(op.output_scales()->begin(),
                              op.output_scales()->end());
    if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != wDims[0])
      return fail("output scales must be one or one per output channel");
    attr.set_output_scales(scales.size() == 1 ? 0 : 1 << 1, scales);
  }
  Desc biasDesc = bias >= 0 ? plainDesc({wDims[0]}) : Desc();
  // The layout the input already has (its producer's, or row-major for a
  // graph input), which oneDNN might not pick itself: reading it as it is
  // saves a reorder (a stem with three channels, a direct convolution
  // after Winograd ones in nChw16c).
  Desc placed;
  if (!placements[*src].empty())
    placed = placements[*src].front().desc;
  auto make = [&](bool winograd, bool srcAsPlaced) {
    dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference,
        winograd ? dnnl::algorithm::convolution_winograd
                 : dnnl::algorithm::convolution_direct,
        srcAsPlaced && placed ? placed : srcAny, wAny, biasDesc, dstAny,
        strides, dil, pb, pe);
    return dnnl::convolution_forward::primitive_desc(d, attr, out.engine_);
  };
  // Prepare times every implementation oneDNN offers for this convolution
  // (direct, and Winograd when allowed), each both with the input in the
  // layout oneDNN picks and in the layout it already has, and keeps the
  // fastest counting the reorders of the input and of the residual it
  // needs; init recreates that one.
  dnnl::convolution_forward::primitive_desc pd;
  if (options.mode == CompiledGraph::Mode::Prepare) {
    CompiledGraph::ConvChoice best;
    double bestTime = 1e30, bestConvTime = 0; // with and without reorders
    std::vector<bool> algorithms{false};
    if (graph.winograd() && groups == 1)
      algorithms.push_back(true);
    std::vector<bool> srcChoices{false};
    if (placed)
      srcChoices.push_back(true);
    for (bool winograd : algorithms)
      for (bool srcAsPlaced : srcChoices) {
        dnnl::convolution_forward::primitive_desc candidate;
        try {
          candidate = make(winograd, srcAsPlaced);
        } catch (const dnnl::error &) {
          continue;
        }
        int index = 0;
        do {
          std::string name = candidate.impl_info_str();
          if (name.rfind("ref", 0) != 0 &&
              name.find(":ref") == std::string::npos) {
            double conv = timeOf(candidate), t = conv;
            if (!placements[*src].empty())
              t += reorderTime(placements[*src].front().desc,
                               candidate.src_desc());
            if (sumInput >= 0 && !placements[sumInput].empty())
              t += reorderTime(placements[sumInput].front().desc,
                               candidate.dst_desc());
            if (t < bestTime) {
              bestTime = t, bestConvTime = conv;
              best = {fbs::ConvKernel::OneDNN, winograd, srcAsPlaced, index,
                      name};
            }
          }
          ++index;
        } while (index < 8 && candidate.next_impl());
      }
    // The delegate's own Winograd kernel competes on the same terms.
    std::optional<WinogradConv> own;
    if (graph.winograd())
      own = ownWinograd(op, *src, *w, *dst, bias);
    dnnl::convolution_forward::primitive_desc oneDNN;
    if (own) {
      oneDNN = make(best.winograd, best.srcAsPlaced);
      for (int i = 0; i < best.index && oneDNN.next_impl(); ++i) {
      }
      // Only where the result keeps the layout oneDNN's choice gives it:
      // the timings see this convolution alone, not what another layout
      // costs its readers (a concat in nChw16c is several times slower
      // than in nhwc).
      if (!(oneDNN.dst_desc() ==
            Desc(dstDims, memory::data_type::f32, tag::aBcd16b)))
        own.reset();
    }
    if (own) {
      // Head to head with the weights out of the cache, as in a whole
      // network whose weights exceed the last-level cache: the warm timings
      // above hide the cost of streaming them.
      bestTime += timeOf(oneDNN, /*coldWeights=*/true) - bestConvTime;
      double t = timeOf(*own);
      if (!placements[*src].empty())
        t += reorderTime(placements[*src].front().desc,
                         Desc(srcDims, memory::data_type::f32, tag::aBcd16b));
      if (sumInput >= 0 && !placements[sumInput].empty())
        t += reorderTime(placements[sumInput].front().desc,
                         Desc(dstDims, memory::data_type::f32, tag::aBcd16b));
      if (t < bestTime)
        bestTime = t, best = {fbs::ConvKernel::WinogradF2x2, true, false, 0,
                              kOwnWinogradName};
    }
    out.convChoices_[opIndex] = best;
    if (best.kernel == fbs::ConvKernel::WinogradF2x2)
      return buildOwnWinograd(*own, *src, *w, bias, *dst, sumInput);
    pd = make(best.winograd, best.srcAsPlaced);
    for (int i = 0; i < best.index && pd.next_impl(); ++i) {
    }
  } else if (op.conv_kernel() == fbs::ConvKernel::WinogradF2x2) {
    if (std::optional<WinogradConv> own = ownWinograd(op, *src, *w, *dst, bias))
      return buildOwnWinograd(*own, *src, *w, bias, *dst, sumInput);
    if (WinogradConv::available())
      return fail("the delegate's Winograd kernel does not apply to this "
                  "convolution");
    if (!options.repackOnMismatch)
      return fail("this convolution was prepared for the delegate's AVX-512 "
                  "Winograd kernel and this CPU (" +
                  hostISA() +
                  ") lacks AVX-512F; recompile for this CPU or set "
                  "repack_on_isa_mismatch (needs keep_plain_weights at "
                  "compile time)");
    // oneDNN's own choice instead; its weights come from the plain copy.
    pd = make(false, false);
  } else {
    pd = make(op.winograd(), op.src_as_placed());
    for (int i = 0; i < op.impl_index() && pd.next_impl(); ++i) {
    }
    // Another CPU or library may list other implementations: fall back to
    // oneDNN's first choice (the weights' layout check follows).
    if (op.impl() && pd.impl_info_str() != op.impl()->str())
      pd = make(op.winograd(), op.src_as_placed());
  }
  Result<Placement> in = as(*src, pd.src_desc());
  if (!in.ok())
    return in.takeError();
  int srcMem = addMem(pd.src_desc(), in->buffer);
  Result<int> wMem = weights(*w, pd.weights_desc(), wPlain);
  if (!wMem.ok())
    return wMem.takeError();
  Result<Placement> outP = resultOf(*dst, sumInput, pd.dst_desc());
  if (!outP.ok())
    return outP.takeError();
  int dstMem = addMem(pd.dst_desc(), outP->buffer);
  addStep(dnnl::convolution_forward(pd),
          {{DNNL_ARG_SRC, srcMem},
           {DNNL_ARG_WEIGHTS, *wMem},
           {DNNL_ARG_DST, dstMem}},
          pd);
  if (bias >= 0) {
    Result<Placement> b = plainView(bias, {wDims[0]});
    if (!b.ok())
      return b.takeError();
    addArgs(DNNL_ARG_BIAS, addMem(b->desc, b->buffer));
  }
  return Error::success();
}

std::optional<WinogradConv> GraphBuilder::ownWinograd(const fbs::Op &op,
                                                      uint32_t src, uint32_t w,
                                                      uint32_t dst,
                                                      int bias) const {
  if (!WinogradConv::available() || op.groups() != 1 ||
      (op.output_scales() && op.output_scales()->size() > 0))
    return std::nullopt;
  for (uint32_t t : {src, w, dst})
    if (typeOf(t) != memory::data_type::f32)
      return std::nullopt;
  if (bias >= 0 &&
      typeOf(static_cast<uint32_t>(bias)) != memory::data_type::f32)
    return std::nullopt;
  Dims s = dimsOf(src), k = dimsOf(w), d = dimsOf(dst);
  Dims one{1, 1};
  if (k[2] != 3 || k[3] != 3 || longs(op.strides(), 2, 1) != one ||
      longs(op.dilations(), 2, 1) != one ||
      longs(op.pads_begin(), 2, 0) != one ||
      longs(op.pads_end(), 2, 0) != one || s[1] != k[1] || d[1] != k[0] ||
      d[0] != s[0] || d[2] != s[2] || d[3] != s[3] ||
      !WinogradConv::supports(k[1], k[0], s[2], s[3]))
    return std::nullopt;
  std::vector<WinogradPostOp> postOps;
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops()) {
      WinogradPostOp post;
      if (p->is_sum()) {
        post.sum = true;
        post.scale = p->scale();
      } else if (p->eltwise() == fbs::EltwiseKind::Relu && p->alpha() >= 0 &&
                 p->alpha() <= 1) {
        post.slope = p->alpha();
      } else if (p->eltwise() == fbs::EltwiseKind::Clip) {
        post.slope = 1;
        post.low = p->alpha();
        post.high = p->beta();
      } else {
        return std::nullopt;
      }
      postOps.push_back(post);
    }
  return WinogradConv(k[1], k[0], s[2], s[3], std::move(postOps));
}

double GraphBuilder::timeOf(const WinogradConv &conv) {
  std::vector<float> src(conv.inputFloats()), dst(conv.outputFloats()),
      packed(conv.packedBytes() / sizeof(float)), bias(conv.outputChannels());
  std::vector<uint8_t> scratch(conv.scratchBytes());
  return bestTime(
      [&] {
        conv.run(src.data(), packed.data(), bias.data(), dst.data(),
                 scratch.data());
      },
      [&] { evict(packed.data(), conv.packedBytes()); });
}

Error GraphBuilder::buildOwnWinograd(const WinogradConv &conv, uint32_t src,
                                     uint32_t w, int bias, uint32_t dst,
                                     int sumInput) {
  using tag = memory::format_tag;
  Dims srcDims = dimsOf(src), dstDims = dimsOf(dst);
  Desc srcBlocked(srcDims, memory::data_type::f32, tag::aBcd16b);
  Desc dstBlocked(dstDims, memory::data_type::f32, tag::aBcd16b);
  Result<Placement> in = as(src, srcBlocked);
  if (!in.ok())
    return in.takeError();
  int srcMem = addMem(srcBlocked, in->buffer);

  // Weights: transformed at prepare and stored; at init bound in place, or
  // transformed again from the plain copy when allowed.
  const fbs::Tensor *t = graph.tensors()->Get(w);
  if (!t->constant_key() || t->constant_key()->size() == 0)
    return fail("the Winograd kernel needs constant weights");
  Desc packedDesc({static_cast<int64_t>(conv.packedBytes() / sizeof(float))},
                  memory::data_type::f32, tag::a);
  auto transformed = [&](ByteSpan plain) -> Result<int> {
    if (plain.size != conv.plainWeightBytes())
      return fail("constant '" + t->constant_key()->str() + "' has " +
                  std::to_string(plain.size) + " bytes, expected " +
                  std::to_string(conv.plainWeightBytes()));
    std::vector<float> oihw(plain.size / sizeof(float));
    std::memcpy(oihw.data(), plain.data, plain.size);
    std::vector<uint8_t> packed(conv.packedBytes());
    conv.packWeights(oihw.data(), reinterpret_cast<float *>(packed.data()));
    if (options.mode == CompiledGraph::Mode::Prepare)
      out.packed_[w] = {packed, descBytes(packedDesc)};
    out.owned_.push_back(std::move(packed));
    return addBuffer(BufferKind::Owned, conv.packedBytes(),
                     out.owned_.back().data());
  };
  Result<int> wBuffer = -1;
  if (options.mode == CompiledGraph::Mode::Init)
    wBuffer = storedPacked(*t, packedDesc);
  if (!wBuffer.ok())
    return wBuffer.takeError();
  if (options.mode == CompiledGraph::Mode::Prepare) {
    Result<ByteSpan> bytes = named.get(t->constant_key()->str());
    if (!bytes.ok())
      return bytes.takeError();
    wBuffer = transformed(*bytes);
  } else if (*wBuffer < 0) {
    if (!options.repackOnMismatch)
      return fail("the Winograd kernel's transformed weights are missing or "
                  "in another layout; recompile for this CPU or set "
                  "repack_on_isa_mismatch (needs keep_plain_weights at "
                  "compile time)");
    Result<ByteSpan> bytes = named.get(t->constant_key()->str());
    if (!bytes.ok())
      return fail("the Winograd kernel's weights cannot be transformed: the "
                  "program holds no plain copy (compile with "
                  "keep_plain_weights=true)");
    wBuffer = transformed(*bytes);
  }
  if (!wBuffer.ok())
    return wBuffer.takeError();
  int wMem = addMem(packedDesc, *wBuffer);

  Result<Placement> outP = resultOf(dst, sumInput, dstBlocked);
  if (!outP.ok())
    return outP.takeError();
  int dstMem = addMem(dstBlocked, outP->buffer);

  auto kernel = std::make_shared<WinogradConv>(conv);
  int64_t batch = srcDims[0];
  size_t srcStride = conv.inputFloats(), dstStride = conv.outputFloats();
  addKernelStep(
      [kernel, batch, srcStride,
       dstStride](const std::unordered_map<int, memory> &args) {
        auto data = [&](int arg) -> float * {
          auto it = args.find(arg);
          return it == args.end()
                     ? nullptr
                     : static_cast<float *>(it->second.get_data_handle());
        };
        const float *in = data(DNNL_ARG_SRC), *weights = data(DNNL_ARG_WEIGHTS),
                    *biasData = data(DNNL_ARG_BIAS);
        float *result = data(DNNL_ARG_DST);
        void *scratch = data(DNNL_ARG_SCRATCHPAD);
        for (int64_t n = 0; n < batch; ++n)
          kernel->run(in + n * srcStride, weights, biasData,
                      result + n * dstStride, scratch);
      },
      {{DNNL_ARG_SRC, srcMem},
       {DNNL_ARG_WEIGHTS, wMem},
       {DNNL_ARG_DST, dstMem}},
      conv.scratchBytes());
  if (bias >= 0) {
    Result<Placement> b =
        plainView(static_cast<uint32_t>(bias), {conv.outputChannels()});
    if (!b.ok())
      return b.takeError();
    addArgs(DNNL_ARG_BIAS, addMem(b->desc, b->buffer));
  }
  return Error::success();
}

Error GraphBuilder::buildMatMul(const fbs::Op &op) {
  uint32_t a = 0, b = 0, dst = 0;
  if (Error e = operands(op, {&a, &b}, dst); !e.ok())
    return e;
  Dims dstDims = dimsOf(dst);
  size_t rank = dstDims.size();
  auto padded = [&](uint32_t t) { return padTo(dimsOf(t), rank); };
  Dims aDims = padded(a), bDims = padded(b);
  if (rank < 2 || aDims.size() != rank || bDims.size() != rank)
    return fail("matmul ranks do not line up");
  const fbs::Tensor *bt = graph.tensors()->Get(b);
  bool constantB = bt->constant_key() && bt->constant_key()->size();
  // Constant weights shared by every batch: one 2-D product over all rows
  // (packed weights, one large GEMM instead of many thin ones).
  if (constantB && rank > 2 &&
      std::all_of(bDims.begin(), bDims.end() - 2,
                  [](int64_t d) { return d == 1; })) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < rank; ++i)
      rows *= aDims[i];
    aDims = {rows, aDims[rank - 1]};
    bDims = {bDims[rank - 2], bDims[rank - 1]};
    dstDims = {rows, dstDims[rank - 1]};
    rank = 2;
  }
  int sumInput = -1;
  Result<dnnl::post_ops> po = postOps(op, &sumInput);
  if (!po.ok())
    return po.takeError();
  if (sumInput >= 0)
    return fail("matmul has no sum post-op");
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_post_ops(*po);
  // int8: s8/u8 rows, s8 weights, output scales per column (or one).
  if (op.output_scales() && op.output_scales()->size() > 0) {
    std::vector<float> scales(op.output_scales()->begin(),
                              op.output_scales()->end());
    if (scales.size() != 1 &&
        static_cast<int64_t>(scales.size()) != dstDims.back())
      return fail("output scales must be one or one per output column");
    attr.set_output_scales(scales.size() == 1 ? 0 : 1 << (rank - 1), scales);
  }
  Desc aDesc = plainDesc(aDims, typeOf(a)),
       dstDesc = plainDesc(dstDims, typeOf(dst));
  Desc bDesc = constantB
                   ? Desc(bDims, typeOf(b), memory::format_tag::any)
                   : plainDesc(bDims, typeOf(b));
  int bias = -1;
  Desc biasDesc;
  if (op.inputs()->size() > 2) {
    Result<uint32_t> bi = tensorAt(op.inputs(), 2, "inputs");
    if (!bi.ok())
      return bi.takeError();
    bias = static_cast<int>(*bi);
    Dims biasDims(rank, 1);
    Dims given = dimsOf(bias);
    biasDims.back() = given.back();
    biasDesc = plainDesc(biasDims);
  }
  dnnl::matmul::desc d =
      bias >= 0 ? dnnl::matmul::desc(aDesc, bDesc, biasDesc, dstDesc)
                : dnnl::matmul::desc(aDesc, bDesc, dstDesc);
  dnnl::matmul::primitive_desc pd(d, attr, out.engine_);
  Result<Placement> ap = plainView(a, aDims);
  if (!ap.ok())
    return ap.takeError();
  Result<int> bMem = weights(b, pd.weights_desc(), bDims);
  if (!bMem.ok())
    return bMem.takeError();
  int aMem = addMem(ap->desc, ap->buffer);
  Placement o = define(dst, pd.dst_desc());
  int dMem = addMem(o.desc, o.buffer);
  addStep(
      dnnl::matmul(pd),
      {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, *bMem}, {DNNL_ARG_DST, dMem}},
      pd);
  if (bias >= 0) {
    Result<Placement> bp = plainView(bias, biasDesc.dims());
    if (!bp.ok())
      return bp.takeError();
    addArgs(DNNL_ARG_BIAS, addMem(bp->desc, bp->buffer));
  }
  return Error::success();
}

Error GraphBuilder::buildPool(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Dims dstDims = dimsOf(dst);
  if (dimsOf(src).size() != 4 || dstDims.size() != 4)
    return fail("pooling needs 4-D tensors");
  Dims strides = longs(op.strides(), 2, 1), kernel = longs(op.kernel(), 2, 1),
       dil = longs(op.dilations(), 2, 1), pb = longs(op.pads_begin(), 2, 0),
       pe = longs(op.pads_end(), 2, 0);
  for (int64_t &d : dil)
    d -= 1;
  dnnl::algorithm alg =
      op.kind() == fbs::OpKind::MaxPool ? dnnl::algorithm::pooling_max
      : op.count_include_pad() ? dnnl::algorithm::pooling_avg_include_padding
                               : dnnl::algorithm::pooling_avg_exclude_padding;
  Result<Placement> in = placement(src);
  if (!in.ok())
    return in.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto make = [&](const Desc &srcDesc) {
    Desc dstDesc(dstDims, typeOf(dst),
                 isOutput(dst) ? memory::format_tag::abcd
                               : memory::format_tag::any);
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg,
                                     srcDesc, dstDesc, strides, kernel, dil, pb,
                                     pe);
    return dnnl::pooling_v2_forward::primitive_desc(d, attr, out.engine_);
  };
  dnnl::pooling_v2_forward::primitive_desc pd;
  try {
    pd = make(in->desc);
  } catch (const dnnl::error &) {
    pd = make(plainDesc(in->desc.dims()));
  }
  Result<Placement> from = as(src, pd.src_desc());
  if (!from.ok())
    return from.takeError();
  int srcMem = addMem(from->desc, from->buffer);
  Placement o = define(dst, pd.dst_desc());
  addStep(dnnl::pooling_v2_forward(pd),
          {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildEltwise(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Result<Placement> in = placement(src);
  if (!in.ok())
    return in.takeError();
  Desc desc = in->desc;
  if (isOutput(dst) || desc.dims() != dimsOf(dst))
    desc = plainDesc(dimsOf(dst));
  Result<Placement> from = as(src, desc);
  if (!from.ok())
    return from.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                eltwiseAlgorithm(op.eltwise()), desc,
                                op.alpha(), op.beta());
  dnnl::eltwise_forward::primitive_desc pd(d, attr, out.engine_);
  int srcMem = addMem(desc, from->buffer);
  Placement o = define(dst, pd.dst_desc());
  addStep(dnnl::eltwise_forward(pd),
          {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildBinary(const fbs::Op &op) {
  uint32_t a = 0, b = 0, dst = 0;
  if (Error e = operands(op, {&a, &b}, dst); !e.ok())
    return e;
  Dims dstDims = dimsOf(dst);
  size_t rank = dstDims.size();
  auto padded = [&](uint32_t t) { return padTo(dimsOf(t), rank); };
  Dims aDims = padded(a), bDims = padded(b);
  if (aDims != dstDims)
    return fail("the first operand of a binary op must have the result's "
                "shape");
  int sumInput = -1;
  Result<dnnl::post_ops> po = postOps(op, &sumInput);
  if (!po.ok())
    return po.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_post_ops(*po);
  Result<Placement> ap = placement(a);
  if (!ap.ok())
    return ap.takeError();
  Desc aDesc = ap->desc;
  if (isOutput(dst) || aDesc.dims() != dstDims)
    aDesc = plainDesc(dstDims);
  auto make = [&](const Desc &a0, const Desc &b0) {
    dnnl::binary::desc d(binaryAlgorithm(op.binary()), a0, b0, a0);
    return dnnl::binary::primitive_desc(d, attr, out.engine_);
  };
  Desc bDesc = bDims == dstDims ? aDesc : plainDesc(bDims);
  dnnl::binary::primitive_desc pd;
  try {
    pd = make(aDesc, bDesc);
  } catch (const dnnl::error &) {
    aDesc = plainDesc(dstDims);
    bDesc = plainDesc(bDims);
    pd = make(aDesc, bDesc);
  }
  Result<Placement> aIn = as(a, aDesc);
  if (!aIn.ok())
    return aIn.takeError();
  Result<Placement> bIn = bDims == dstDims ? as(b, bDesc) : plainView(b, bDims);
  if (!bIn.ok())
    return bIn.takeError();
  int aMem = addMem(aDesc, aIn->buffer);
  int bMem = addMem(bDesc, bIn->buffer);
  Placement o = define(dst, pd.dst_desc());
  addStep(dnnl::binary(pd),
          {{DNNL_ARG_SRC_0, aMem},
           {DNNL_ARG_SRC_1, bMem},
           {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildSoftmax(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Dims dims = dimsOf(dst);
  if (op.axis() < 0 || op.axis() >= static_cast<int64_t>(dims.size()))
    return fail("softmax axis out of range");
  Result<Placement> in = plainView(src, dims);
  if (!in.ok())
    return in.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, in->desc,
                                static_cast<int>(op.axis()));
  dnnl::softmax_forward::primitive_desc pd(d, attr, out.engine_);
  int srcMem = addMem(in->desc, in->buffer);
  Placement o = define(dst, pd.dst_desc());
  addStep(dnnl::softmax_forward(pd),
          {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildReduceMean(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Dims srcDims = dimsOf(src), kept = srcDims;
  if (op.axes())
    for (int64_t axis : *op.axes()) {
      if (axis < 0 || axis >= static_cast<int64_t>(kept.size()))
        return fail("reduce axis out of range");
      kept[axis] = 1;
    }
  if (plainDesc(kept).get_size() != plainDesc(dimsOf(dst)).get_size())
    return fail("reduce result shape does not match its axes");
  Result<Placement> in = placement(src);
  if (!in.ok())
    return in.takeError();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (srcDims.size() == 4 && kept[0] == srcDims[0] && kept[1] == srcDims[1] &&
      kept[2] == 1 && kept[3] == 1) {
    // Global average pooling: the pooling kernels read blocked layouts
    // (and are only fast writing the layout they read).
    Desc dstDesc(kept, memory::data_type::f32, memory::format_tag::any);
    dnnl::pooling_v2_forward::desc d(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::pooling_avg_exclude_padding, in->desc, dstDesc, {1, 1},
        {srcDims[2], srcDims[3]}, {0, 0}, {0, 0}, {0, 0});
    dnnl::pooling_v2_forward::primitive_desc pd(d, attr, out.engine_);
    int srcMem = addMem(in->desc, in->buffer);
    Placement o = define(dst, pd.dst_desc());
    addStep(dnnl::pooling_v2_forward(pd),
            {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
            pd);
    return Error::success();
  }
  auto make = [&](const Desc &s) {
    dnnl::reduction::desc d(dnnl::algorithm::reduction_mean, s, plainDesc(kept),
                            0.f, 0.f);
    return dnnl::reduction::primitive_desc(d, attr, out.engine_);
  };
  dnnl::reduction::primitive_desc pd;
  try {
    pd = make(in->desc);
  } catch (const dnnl::error &) {
    pd = make(plainDesc(srcDims));
  }
  Result<Placement> from = as(src, pd.src_desc());
  if (!from.ok())
    return from.takeError();
  int srcMem = addMem(from->desc, from->buffer);
  // Written row-major with kept dims, then seen with the result's dims.
  Placement o = define(dst, plainDesc(kept));
  addStep(dnnl::reduction(pd),
          {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildTranspose(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Dims srcDims = dimsOf(src), dstDims = dimsOf(dst);
  size_t rank = srcDims.size();
  if (!op.axes() || op.axes()->size() != rank || dstDims.size() != rank)
    return fail("transpose permutation does not match the rank");
  Desc srcPlain = plainDesc(srcDims, typeOf(src));
  Dims srcStrides(rank, 1);
  for (int i = static_cast<int>(rank) - 2; i >= 0; --i)
    srcStrides[i] = srcStrides[i + 1] * srcDims[i + 1];
  Dims viewStrides(rank);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    int64_t p = op.axes()->Get(i);
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p] ||
        dstDims[i] != srcDims[p])
      return fail("bad transpose permutation");
    seen[p] = true;
    viewStrides[i] = srcStrides[p];
  }
  Result<Placement> in = as(src, srcPlain);
  if (!in.ok())
    return in.takeError();
  Desc view(dstDims, typeOf(src), viewStrides);
  Placement o = define(dst, plainDesc(dstDims, typeOf(dst)));
  dnnl::reorder::primitive_desc pd(out.engine_, view, out.engine_, o.desc);
  addStep(dnnl::reorder(pd),
          {{DNNL_ARG_FROM, addMem(view, in->buffer)},
           {DNNL_ARG_TO, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildSlice(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Dims srcDims = dimsOf(src), dstDims = dimsOf(dst);
  size_t rank = srcDims.size();
  if (!op.axes() || op.axes()->size() != rank || dstDims.size() != rank)
    return fail("slice starts do not match the rank");
  Dims starts(op.axes()->begin(), op.axes()->end());
  for (size_t i = 0; i < rank; ++i)
    if (starts[i] < 0 || starts[i] + dstDims[i] > srcDims[i])
      return fail("slice lies outside its input");
  Result<Placement> in = as(src, plainDesc(srcDims));
  if (!in.ok())
    return in.takeError();
  Desc view = in->desc.submemory_desc(dstDims, starts);
  Placement o = define(dst, plainDesc(dstDims));
  dnnl::reorder::primitive_desc pd(out.engine_, view, out.engine_, o.desc);
  addStep(dnnl::reorder(pd),
          {{DNNL_ARG_FROM, addMem(view, in->buffer)},
           {DNNL_ARG_TO, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

Error GraphBuilder::buildReshape(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  Result<Placement> view = plainView(src, dimsOf(dst));
  if (!view.ok())
    return view.takeError();
  defineView(dst, *view);
  return Error::success();
}

Error GraphBuilder::buildConcat(const fbs::Op &op) {
  Result<uint32_t> dst = tensorAt(op.outputs(), 0, "outputs");
  if (!dst.ok())
    return dst.takeError();
  Dims dstDims = dimsOf(*dst);
  if (!op.inputs() || op.inputs()->size() == 0 || op.axis() < 0 ||
      op.axis() >= static_cast<int64_t>(dstDims.size()))
    return fail("bad concat");
  // Concatenate in the inputs' own layout when they share one (the fire
  // modules of SqueezeNet: NHWC convolutions), else row-major.
  std::vector<uint32_t> srcs;
  for (size_t i = 0; i < op.inputs()->size(); ++i) {
    Result<uint32_t> t = tensorAt(op.inputs(), i, "inputs");
    if (!t.ok())
      return t.takeError();
    srcs.push_back(*t);
  }
  auto layoutOf = [&](uint32_t t) -> Result<Desc> {
    Result<Placement> p = placement(t);
    if (!p.ok())
      return p.takeError();
    return p->desc;
  };
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto make = [&](bool own) -> Result<dnnl::concat::primitive_desc> {
    std::vector<Desc> descs;
    for (uint32_t t : srcs) {
      Result<Desc> d = layoutOf(t);
      if (!d.ok())
        return d.takeError();
      descs.push_back(own ? *d : plainOf(t));
    }
    Desc dstDesc =
        own && !isOutput(*dst)
            ? Desc(dstDims, typeOf(*dst), memory::format_tag::any)
            : plainOf(*dst);
    return dnnl::concat::primitive_desc(dstDesc, static_cast<int>(op.axis()),
                                        descs, out.engine_, attr);
  };
  std::optional<Result<dnnl::concat::primitive_desc>> made;
  try {
    made.emplace(make(true));
  } catch (const dnnl::error &) {
    made.emplace(make(false));
  }
  if (!made->ok())
    return made->takeError();
  dnnl::concat::primitive_desc pd = **made;
  std::vector<int> srcMems;
  for (size_t i = 0; i < srcs.size(); ++i) {
    Result<Placement> p = as(srcs[i], pd.src_desc(static_cast<int>(i)));
    if (!p.ok())
      return p.takeError();
    srcMems.push_back(addMem(p->desc, p->buffer));
  }
  Placement o = define(*dst, pd.dst_desc());
  // Along channels, with every part row-major or every part in nChw16c of
  // whole channel blocks, each image of the result is the parts' images one
  // after another: a copy of contiguous ranges. oneDNN 2.6's concat of
  // nChw16c runs at a few GB/s (0.55 ms for SqueezeNet's 2 x 64 x 55 x 55).
  memory::data_type type = typeOf(*dst);
  auto blocked = [&](const Desc &d, const Dims &dims) {
    return dims.size() == 4 && dims[1] % 16 == 0 &&
           d == Desc(dims, type, memory::format_tag::aBcd16b);
  };
  bool asBlocks = blocked(pd.dst_desc(), dstDims);
  bool asRows = isPlain(pd.dst_desc());
  bool ranges = op.axis() == 1 && (asBlocks || asRows);
  for (size_t i = 0; i < srcs.size() && ranges; ++i) {
    Desc d = pd.src_desc(static_cast<int>(i));
    ranges = asBlocks ? blocked(d, dimsOf(srcs[i])) : isPlain(d);
  }
  if (ranges) {
    int64_t batch = dstDims[0];
    std::vector<size_t> partBytes;
    for (size_t i = 0; i < srcs.size(); ++i)
      partBytes.push_back(pd.src_desc(static_cast<int>(i)).get_size() / batch);
    size_t imageBytes = pd.dst_desc().get_size() / batch;
    addKernelStep(
        [partBytes, imageBytes,
         batch](const std::unordered_map<int, memory> &args) {
          auto *to =
              static_cast<uint8_t *>(args.at(DNNL_ARG_DST).get_data_handle());
          for (int64_t n = 0; n < batch; ++n) {
            uint8_t *image = to + n * imageBytes;
            for (size_t i = 0; i < partBytes.size(); ++i) {
              const auto *from = static_cast<const uint8_t *>(
                  args.at(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i))
                      .get_data_handle());
              std::memcpy(image, from + n * partBytes[i], partBytes[i]);
              image += partBytes[i];
            }
          }
        },
        {{DNNL_ARG_DST, addMem(o.desc, o.buffer)}}, 0);
  } else {
    addStep(dnnl::concat(pd), {{DNNL_ARG_DST, addMem(o.desc, o.buffer)}}, pd);
  }
  for (size_t i = 0; i < srcMems.size(); ++i)
    addArgs(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcMems[i]);
  return Error::success();
}

/// A conversion to the result's element type with one scale (quantize:
/// 1 / scale into s8/u8, dequantize: scale into f32), in the input's layout
/// so that no reorder of the layout is needed around it.
Error GraphBuilder::buildReorder(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  if (Error e = operands(op, {&src}, dst); !e.ok())
    return e;
  if (dimsOf(src) != dimsOf(dst))
    return fail("a reorder keeps the shape");
  if (!op.output_scales() || op.output_scales()->size() != 1)
    return fail("a reorder takes one scale");
  Result<Placement> in = placement(src);
  if (!in.ok())
    return in.takeError();
  Desc dstDesc = withType(in->desc, typeOf(dst));
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {op.output_scales()->Get(0)});
  dnnl::reorder::primitive_desc pd(out.engine_, in->desc, out.engine_, dstDesc,
                                   attr);
  int from = addMem(in->desc, in->buffer);
  Placement o = define(dst, dstDesc);
  addStep(dnnl::reorder(pd),
          {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, addMem(dstDesc, o.buffer)}},
          pd);
  return Error::success();
}

void GraphBuilder::planScratch() {
  // Greedy by size: each buffer at the lowest offset that does not overlap
  // a placed buffer whose lifetime intersects its own.
  std::vector<int> order;
  for (size_t i = 0; i < out.buffers_.size(); ++i)
    if (out.buffers_[i].kind == BufferKind::Scratch &&
        out.buffers_[i].first >= 0)
      order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return out.buffers_[a].bytes > out.buffers_[b].bytes;
  });
  const uint64_t kAlign = 64;
  uint64_t base = alignUp(scratchpadBytes, kAlign), end = base;
  std::vector<int> placed;
  for (int index : order) {
    Buffer &buffer = out.buffers_[index];
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (int other : placed) {
      const Buffer &o = out.buffers_[other];
      if (o.first <= buffer.last && buffer.first <= o.last)
        busy.push_back({o.offset, o.offset + alignUp(o.bytes, kAlign)});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = base;
    for (auto [from, to] : busy) {
      if (offset + buffer.bytes <= from)
        break;
      offset = std::max(offset, to);
    }
    buffer.offset = offset;
    end = std::max(end, offset + alignUp(buffer.bytes, kAlign));
    placed.push_back(index);
  }
  out.scratchBytes_ = end;
}

Error GraphBuilder::build() {
  if (!graph.tensors() || !graph.ops() || !graph.inputs() || !graph.outputs())
    return Error(ErrorCode::InvalidArgument,
                 "the graph lacks tensors, ops, inputs or outputs");
  size_t tensorCount = graph.tensors()->size();
  placements.resize(tensorCount);
  remainingUses.assign(tensorCount, 0);
  for (uint32_t t : *graph.inputs()) {
    if (t >= tensorCount)
      return Error(ErrorCode::InvalidArgument, "graph input out of range");
    inputs.push_back(t);
  }
  for (uint32_t t : *graph.outputs()) {
    if (t >= tensorCount)
      return Error(ErrorCode::InvalidArgument, "graph output out of range");
    outputs.push_back(t);
  }
  outputWritten.assign(outputs.size(), false);
  for (size_t i = 0; i < tensorCount; ++i) {
    Dims dims = dimsOf(static_cast<uint32_t>(i));
    if (dims.empty() || dims.size() > 6)
      return Error(ErrorCode::InvalidArgument,
                   "tensor " + std::to_string(i) + " has rank " +
                       std::to_string(dims.size()) + " (1 to 6 supported)");
    for (int64_t d : dims)
      if (d < 1 || d > (int64_t(1) << 31))
        return Error(ErrorCode::InvalidArgument,
                     "tensor " + std::to_string(i) + " has a bad dimension");
  }
  for (const fbs::Op *op : *graph.ops()) {
    if (op->inputs())
      for (uint32_t t : *op->inputs())
        if (t < tensorCount)
          ++remainingUses[t];
    if (op->post_ops())
      for (const fbs::PostOp *p : *op->post_ops())
        if (p->is_sum() && p->sum_input() >= 0 &&
            static_cast<size_t>(p->sum_input()) < tensorCount)
          ++remainingUses[p->sum_input()];
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Desc desc = plainOf(inputs[i]);
    int buffer = addBuffer(BufferKind::Input, desc.get_size(), nullptr, i);
    placements[inputs[i]] = {{desc, buffer}};
    bufferTensors[buffer].push_back(inputs[i]);
    out.inputDims_.push_back(desc.dims());
    out.inputTypes_.push_back(typeOf(inputs[i]));
  }
  for (uint32_t t : outputs) {
    out.outputDims_.push_back(dimsOf(t));
    out.outputTypes_.push_back(typeOf(t));
  }

  for (opIndex = 0; opIndex < graph.ops()->size(); ++opIndex) {
    const fbs::Op &op = *graph.ops()->Get(opIndex);
    if (!op.outputs() || op.outputs()->size() != 1)
      return fail("ops have exactly one output");
    uint32_t result = op.outputs()->Get(0);
    if (result >= tensorCount || !placements[result].empty())
      return fail("output tensor is out of range or written twice");
    Error error = Error::success();
    switch (op.kind()) {
    case fbs::OpKind::Convolution:
      error = buildConvolution(op);
      break;
    case fbs::OpKind::MatMul:
      error = buildMatMul(op);
      break;
    case fbs::OpKind::MaxPool:
    case fbs::OpKind::AvgPool:
      error = buildPool(op);
      break;
    case fbs::OpKind::Eltwise:
      error = buildEltwise(op);
      break;
    case fbs::OpKind::Binary:
      error = buildBinary(op);
      break;
    case fbs::OpKind::Softmax:
      error = buildSoftmax(op);
      break;
    case fbs::OpKind::ReduceMean:
      error = buildReduceMean(op);
      break;
    case fbs::OpKind::Transpose:
      error = buildTranspose(op);
      break;
    case fbs::OpKind::Slice:
      error = buildSlice(op);
      break;
    case fbs::OpKind::Reshape:
      error = buildReshape(op);
      break;
    case fbs::OpKind::Concat:
      error = buildConcat(op);
      break;
    case fbs::OpKind::Reorder:
      error = buildReorder(op);
      break;
    default:
      return fail("unknown op kind " +
                  std::to_string(static_cast<int>(op.kind())));
    }
    if (!error.ok())
      return error;
    if (op.inputs())
      for (uint32_t t : *op.inputs())
        --remainingUses[t];
    if (op.post_ops())
      for (const fbs::PostOp *p : *op.post_ops())
        if (p->is_sum())
          --remainingUses[p->sum_input()];
  }
  opIndex = graph.ops()->size();
  // Outputs not written in place get a final copy into the caller's buffer.
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (outputWritten[j])
      continue;
    Result<Placement> p = placement(outputs[j]);
    if (!p.ok())
      return p.takeError();
    Desc plain = plainOf(outputs[j]);
    int buffer = addBuffer(BufferKind::Output, plain.get_size(), nullptr, j);
    dnnl::reorder::primitive_desc pd(out.engine_, p->desc, out.engine_, plain);
    addStep(dnnl::reorder(pd),
            {{DNNL_ARG_FROM, addMem(p->desc, p->buffer)},
             {DNNL_ARG_TO, addMem(plain, buffer)}},
            pd);
  }
  planScratch();
  return Error::success();
}

Result<std::unique_ptr<CompiledGraph>>
CompiledGraph::build(const fbs::Graph &graph, const NamedDataMap &named,
                     const BuildOptions &options) {
  auto compiled = std::unique_ptr<CompiledGraph>(new CompiledGraph);
  try {
    compiled->engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
    compiled->stream_ = dnnl::stream(compiled->engine_);
    GraphBuilder builder(graph, named, options, *compiled);
    Error error = builder.build();
    if (!error.ok())
      return error;
  } catch (const dnnl::error &e) {
    return Error(ErrorCode::NotSupported,
                 std::string("oneDNN rejected the graph: ") + e.what());
  }
  if (options.mode == Mode::Init &&
      graph.scratch_bytes() < compiled->scratchBytes_)
    compiled->ownScratch_.resize(compiled->scratchBytes_ + 64);
  // Weights and constants never move: bind them here, not per execute.
  try {
    for (Mem &m : compiled->mems_)
      if (m.buffer >= 0 &&
          (compiled->buffers_[m.buffer].kind == BufferKind::Constant ||
           compiled->buffers_[m.buffer].kind == BufferKind::Owned))
        m.memory.set_data_handle(compiled->buffers_[m.buffer].data);
  } catch (const dnnl::error &e) {
    return Error(ErrorCode::NotSupported,
                 std::string("oneDNN rejected a constant: ") + e.what());
  }
  compiled->args_.resize(compiled->steps_.size());
  for (size_t i = 0; i < compiled->steps_.size(); ++i)
    for (auto [arg, mem] : compiled->steps_[i].args)
      compiled->args_[i][arg] = compiled->mems_[mem].memory;
  return compiled;
}

Error CompiledGraph::execute(const std::vector<TensorView> &ins,
                             const std::vector<TensorView> &outs) {
  size_t wantOuts = outputDims_.size() + (scratchBytes_ ? 1 : 0);
  if (ins.size() != inputDims_.size() || outs.size() < outputDims_.size() ||
      outs.size() > outputDims_.size() + 1)
    return Error(ErrorCode::InvalidArgument,
                 "expected " + std::to_string(inputDims_.size()) +
                     " inputs and " + std::to_string(wantOuts) +
                     " outputs, got " + std::to_string(ins.size()) + " and " +
                     std::to_string(outs.size()));
  auto runtimeType = [](memory::data_type t) {
    return t == memory::data_type::s8   ? DType::I8
           : t == memory::data_type::u8 ? DType::U8
                                        : DType::F32;
  };
  for (size_t i = 0; i < ins.size(); ++i)
    if (ins[i].dtype != runtimeType(inputTypes_[i]) ||
        ins[i].shape != inputDims_[i])
      return Error(ErrorCode::InvalidArgument,
                   "input " + std::to_string(i) + " is " + ins[i].typeString() +
                       ", expected " + dtypeName(runtimeType(inputTypes_[i])) +
                       shapeToString(inputDims_[i]));
  for (size_t i = 0; i < outputDims_.size(); ++i)
    if (outs[i].dtype != runtimeType(outputTypes_[i]) ||
        static_cast<int64_t>(outs[i].nbytes()) !=
            numElements(outputDims_[i]) *
                static_cast<int64_t>(dtypeSize(outs[i].dtype)))
      return Error(ErrorCode::InvalidArgument,
                   "output " + std::to_string(i) + " is " +
                       outs[i].typeString() + ", expected " +
                       dtypeName(runtimeType(outputTypes_[i])) +
                       shapeToString(outputDims_[i]));
  uint8_t *scratch = nullptr;
  if (scratchBytes_) {
    if (!ownScratch_.empty()) {
      scratch = reinterpret_cast<uint8_t *>(
          alignUp(reinterpret_cast<uintptr_t>(ownScratch_.data()), 64));
    } else {
      if (outs.size() != outputDims_.size() + 1 ||
          outs.back().nbytes() < scratchBytes_)
        return Error(ErrorCode::InvalidArgument,
                     "the working-memory buffer holds fewer than " +
                         std::to_string(scratchBytes_) + " bytes");
      scratch = static_cast<uint8_t *>(outs.back().data);
    }
  }
  try {
    for (Mem &m : mems_) {
      void *ptr = nullptr;
      if (m.buffer == -2) {
        ptr = scratch;
      } else {
        const Buffer &b = buffers_[m.buffer];
        switch (b.kind) {
        case BufferKind::Input:
          ptr = ins[b.index].data;
          break;
        case BufferKind::Output:
          ptr = outs[b.index].data;
          break;
        case BufferKind::Scratch:
          ptr = scratch + b.offset;
          break;
        case BufferKind::Constant:
        case BufferKind::Owned:
          continue; // Bound once by build().
        }
      }
      if (m.memory.get_data_handle() != ptr)
        m.memory.set_data_handle(ptr);
    }
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].kernel)
        steps_[i].kernel(args_[i]);
      else
        steps_[i].primitive.execute(stream_, args_[i]);
    }
    stream_.wait();
  } catch (const dnnl::error &e) {
    return Error(ErrorCode::ExecutionFailed,
                 std::string("oneDNN failed: ") + e.what());
  }
  return Error::success();
}

} // namespace strata::runtime::onednn
