//===- Graph.cpp - building and running a partition on oneDNN -------------===//
//
// CompiledGraph's entry points: build() runs the GraphBuilder (its op
// families live in the files GraphBuilder.h lists) and binds the
// constants; execute() binds the caller's buffers and runs the steps.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <chrono>

namespace strata::runtime::onednn {

using dnnl::memory;

std::vector<uint8_t> descBytes(const Desc &desc) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(&desc.data);
  return std::vector<uint8_t>(bytes, bytes + sizeof(desc.data));
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
    return t == memory::data_type::s8    ? DType::I8
           : t == memory::data_type::u8  ? DType::U8
           : t == memory::data_type::s32 ? DType::I32
                                         : DType::F32;
  };
  // The graph's tensors have rank 1 at least: a scalar input is its [1].
  auto sameShape = [](const TensorView &in,
                      const std::vector<int64_t> &dims) {
    return in.shape == dims ||
           (in.rank() == 0 && dims == std::vector<int64_t>{1});
  };
  for (size_t i = 0; i < ins.size(); ++i)
    if (ins[i].dtype != runtimeType(inputTypes_[i]) ||
        !sameShape(ins[i], inputDims_[i]))
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
    if (profiling_) {
      executeProfiled();
    } else {
      for (size_t i = 0; i < steps_.size(); ++i)
        runStep(i);
      stream_.wait();
    }
  } catch (const dnnl::error &e) {
    return Error(ErrorCode::ExecutionFailed,
                 std::string("oneDNN failed: ") + e.what());
  }
  return Error::success();
}

void CompiledGraph::runStep(size_t i) {
  if (steps_[i].kernel)
    steps_[i].kernel(args_[i]);
  else
    steps_[i].primitive.execute(stream_, args_[i]);
}

void CompiledGraph::executeProfiled() {
  using Clock = std::chrono::steady_clock;
  stepNs_.assign(steps_.size(), 0);
  for (size_t i = 0; i < steps_.size(); ++i) {
    Clock::time_point start = Clock::now();
    runStep(i);
    stream_.wait();
    stepNs_[i] = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                             start)
            .count());
  }
}

/// The memory argument of `args` that is a step's source (first input) or
/// destination; null when it has none.
static const memory *argOf(const std::unordered_map<int, memory> &args,
                           std::initializer_list<int> which) {
  for (int arg : which) {
    auto it = args.find(arg);
    if (it != args.end())
      return &it->second;
  }
  return nullptr;
}

std::vector<DelegateOpProfile> CompiledGraph::profile() const {
  std::vector<DelegateOpProfile> steps;
  for (size_t i = 0; i < steps_.size() && i < stepNs_.size(); ++i) {
    const Step &step = steps_[i];
    DelegateOpProfile entry;
    entry.nanoseconds = stepNs_[i];
    bool ownsOp = step.op >= 0 && static_cast<size_t>(step.op) < opKinds_.size();
    if (ownsOp)
      entry.nodes = opNodes_[step.op];
    if (step.kernel) {
      // The own byte transpose stands in for a layout reorder.
      bool layoutChange = step.name == "strata:byte_transpose" &&
                          (!ownsOp || opKinds_[step.op] != "Reorder");
      entry.op = layoutChange ? "Reorder(layout)"
                 : ownsOp     ? opKinds_[step.op]
                              : "kernel";
      entry.implementation = step.name;
    } else {
      // A reorder that is not the op itself changes a layout for it.
      auto kind = step.primitive.get_kind();
      bool layoutChange = kind == dnnl::primitive::kind::reorder &&
                          (!ownsOp || opKinds_[step.op] != "Reorder");
      entry.op = layoutChange ? "Reorder(layout)"
                 : ownsOp     ? opKinds_[step.op]
                              : dnnl_prim_kind2str(
                                    static_cast<dnnl_primitive_kind_t>(kind));
      const char *impl = nullptr;
      if (dnnl_primitive_desc_query(step.primitive.get_primitive_desc(),
                                    dnnl_query_impl_info_str, 0,
                                    &impl) == dnnl_success &&
          impl)
        entry.implementation = impl;
    }
    const memory *src = argOf(args_[i], {DNNL_ARG_SRC, DNNL_ARG_FROM,
                                         DNNL_ARG_MULTIPLE_SRC});
    const memory *dst = argOf(args_[i], {DNNL_ARG_DST, DNNL_ARG_TO});
    if (src && dst)
      entry.layout = layoutName(src->get_desc()) + " -> " +
                     layoutName(dst->get_desc());
    steps.push_back(std::move(entry));
  }
  return steps;
}

} // namespace strata::runtime::onednn
