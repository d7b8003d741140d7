//===- GraphBuilder.cpp - tensors, placements and steps -------------------===//
//
// The op-independent half of the builder: reading operands, placing
// tensors in buffers and layouts (reordering where a reader wants another
// layout), appending steps, the loop over the blob's ops and the plan of
// the working memory.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "ByteTranspose.h"
#include "ChannelBlockedRule.h"

#include <algorithm>
#include <optional>

namespace strata::runtime::onednn {

using dnnl::memory;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

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
    STRATA_ASSIGN_OR_RETURN(uint32_t t, tensorAt(op.inputs(), i++, "inputs"));
    *in = t;
  }
  STRATA_ASSIGN_OR_RETURN(uint32_t t, tensorAt(op.outputs(), 0, "outputs"));
  dst = t;
  return Error::success();
}

Result<int> GraphBuilder::optionalInput(const fbs::Op &op, size_t i) const {
  if (op.inputs()->size() <= i)
    return -1;
  STRATA_ASSIGN_OR_RETURN(uint32_t t, tensorAt(op.inputs(), i, "inputs"));
  return static_cast<int>(t);
}

Dims GraphBuilder::dimsOf(uint32_t tensor) const {
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  Dims dims;
  if (t->dims())
    dims.assign(t->dims()->begin(), t->dims()->end());
  return dims;
}

//===----------------------------------------------------------------------===//
// Buffers, memory objects and steps
//===----------------------------------------------------------------------===//

int GraphBuilder::addBuffer(BufferKind kind, size_t bytes, void *data,
                            size_t index) {
  Buffer buffer;
  buffer.kind = kind;
  buffer.bytes = bytes;
  buffer.data = data;
  buffer.index = index;
  out.buffers_.push_back(buffer);
  bufferTensors.emplace_back();
  return static_cast<int>(out.buffers_.size()) - 1;
}

int GraphBuilder::addMem(const Desc &desc, int buffer) {
  out.mems_.push_back({memory(desc, out.engine_, DNNL_MEMORY_NONE), buffer});
  return static_cast<int>(out.mems_.size()) - 1;
}

void GraphBuilder::addStep(CompiledGraph::Step step, Args args,
                           const Desc &scratchpad) {
  int index = static_cast<int>(out.steps_.size());
  for (auto [arg, mem] : args) {
    step.args[arg] = mem;
    touch(out.mems_[mem].buffer, index);
  }
  if (size_t pad = scratchpad.get_size()) {
    scratchpadBytes = std::max(scratchpadBytes, pad);
    step.args[DNNL_ARG_SCRATCHPAD] = addMem(scratchpad, kScratchpadBuffer);
  }
  // Steps after the op loop (copies into the caller's outputs) serve the
  // op that produced the output; they keep -1.
  if (opIndex < graph.ops()->size())
    step.op = static_cast<int>(opIndex);
  out.steps_.push_back(std::move(step));
}

void GraphBuilder::addKernelStep(std::string name,
                                 CompiledGraph::Kernel kernel, Args args,
                                 size_t scratch) {
  Desc scratchpad;
  if (scratch)
    scratchpad = Desc({static_cast<int64_t>(scratch)}, memory::data_type::u8,
                      memory::format_tag::a);
  CompiledGraph::Step step;
  step.kernel = std::move(kernel);
  step.name = std::move(name);
  addStep(std::move(step), args, scratchpad);
}

Error GraphBuilder::addOwnConvStep(std::string name, uint32_t src,
                                   uint32_t dst, int sumInput,
                                   memory::format_tag layout, int weightsMem,
                                   size_t inFloats, size_t outFloats,
                                   size_t scratchBytes, OwnConvImage image) {
  Dims srcDims = dimsOf(src);
  Desc srcDesc(srcDims, memory::data_type::f32, layout);
  Desc dstDesc(dimsOf(dst), memory::data_type::f32, layout);
  STRATA_ASSIGN_OR_RETURN(Placement in, as(src, srcDesc));
  int srcMem = addMem(srcDesc, in.buffer);
  STRATA_ASSIGN_OR_RETURN(Placement out, resultOf(dst, sumInput, dstDesc));
  int dstMem = addMem(dstDesc, out.buffer);
  int64_t batch = srcDims[0];
  addKernelStep(
      std::move(name),
      [image = std::move(image), batch, inFloats,
       outFloats](const std::unordered_map<int, memory> &args) {
        const float *input = floatsOf(args, DNNL_ARG_SRC),
                    *weights = floatsOf(args, DNNL_ARG_WEIGHTS),
                    *bias = floatsOf(args, DNNL_ARG_BIAS);
        float *result = floatsOf(args, DNNL_ARG_DST);
        void *scratch = floatsOf(args, DNNL_ARG_SCRATCHPAD);
        for (int64_t n = 0; n < batch; ++n)
          image(input + n * inFloats, weights, bias, result + n * outFloats,
                scratch);
      },
      {{DNNL_ARG_SRC, srcMem},
       {DNNL_ARG_WEIGHTS, weightsMem},
       {DNNL_ARG_DST, dstMem}},
      scratchBytes);
  return Error::success();
}

void GraphBuilder::addArgs(int arg, int mem) {
  out.steps_.back().args[arg] = mem;
  touch(out.mems_[mem].buffer, static_cast<int>(out.steps_.size()) - 1);
}

void GraphBuilder::touch(int buffer, int step) {
  if (buffer < 0)
    return;
  Buffer &b = out.buffers_[buffer];
  if (b.first < 0)
    b.first = step;
  b.last = std::max(b.last, step);
}

namespace {
/// The rows and columns of each image's byte matrix when `from` -> `to` is
/// an 8-bit 4-D tensor's nchw <-> nhwc reorder without scales (nchw to
/// nhwc: C x H*W per image).
std::optional<std::pair<int64_t, int64_t>>
byteTransposeOf(const Desc &from, const Desc &to,
                const dnnl::primitive_attr &attr) {
  memory::data_type type = from.data_type();
  if (from.dims().size() != 4 || to.dims() != from.dims() ||
      to.data_type() != type ||
      (type != memory::data_type::u8 && type != memory::data_type::s8))
    return std::nullopt;
  int mask = -1;
  std::vector<float> scales;
  attr.get_output_scales(mask, scales);
  if (mask != 0 || scales.size() != 1 || scales[0] != 1.0f)
    return std::nullopt;
  const Dims &dims = from.dims();
  Desc nchw(dims, type, memory::format_tag::abcd),
      nhwc(dims, type, memory::format_tag::acdb);
  if (from == nchw && to == nhwc)
    return std::make_pair(dims[1], dims[2] * dims[3]);
  if (from == nhwc && to == nchw)
    return std::make_pair(dims[2] * dims[3], dims[1]);
  return std::nullopt;
}
} // namespace

void GraphBuilder::addReorder(const Desc &fromDesc, int from,
                              const Desc &toDesc, int to,
                              const dnnl::primitive_attr &attr) {
  if (std::optional<std::pair<int64_t, int64_t>> matrix =
          byteTransposeOf(fromDesc, toDesc, attr)) {
    int64_t images = fromDesc.dims()[0], rows = matrix->first,
            cols = matrix->second;
    addKernelStep(
        "strata:byte_transpose",
        [images, rows, cols](const std::unordered_map<int, memory> &args) {
          auto *src = static_cast<const uint8_t *>(
              args.at(DNNL_ARG_FROM).get_data_handle());
          auto *dst =
              static_cast<uint8_t *>(args.at(DNNL_ARG_TO).get_data_handle());
          for (int64_t n = 0; n < images; ++n)
            transposeBytes(src + n * rows * cols, dst + n * rows * cols, rows,
                           cols);
        },
        {{DNNL_ARG_FROM, addMem(fromDesc, from)},
         {DNNL_ARG_TO, addMem(toDesc, to)}},
        0);
    return;
  }
  dnnl::reorder::primitive_desc pd(out.engine_, fromDesc, out.engine_, toDesc,
                                   attr);
  addStep(dnnl::reorder(pd),
          {{DNNL_ARG_FROM, addMem(fromDesc, from)},
           {DNNL_ARG_TO, addMem(toDesc, to)}},
          pd);
}

void GraphBuilder::addUnaryStep(dnnl::primitive primitive,
                                const dnnl::primitive_desc_base &pd, int srcMem,
                                uint32_t dst, const Desc &dstDesc) {
  Placement o = define(dst, dstDesc);
  addStep(std::move(primitive),
          {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
}

Error GraphBuilder::addBias(int bias, const Dims &dims) {
  if (bias < 0)
    return Error::success();
  STRATA_ASSIGN_OR_RETURN(Placement b,
                          plainView(static_cast<uint32_t>(bias), dims));
  addArgs(DNNL_ARG_BIAS, addMem(b.desc, b.buffer));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

Result<Placement> GraphBuilder::placement(uint32_t tensor) {
  if (!placements[tensor].empty())
    return placements[tensor].front();
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  if (!t->constant_key() || t->constant_key()->size() == 0)
    return fail("tensor " + std::to_string(tensor) +
                " is read before it is written");
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, named.get(t->constant_key()->str()));
  Desc desc = plainOf(tensor);
  if (bytes.size != desc.get_size())
    return fail("constant '" + t->constant_key()->str() + "' has " +
                std::to_string(bytes.size) + " bytes, its shape needs " +
                std::to_string(desc.get_size()));
  int buffer = addBuffer(BufferKind::Constant, bytes.size,
                         const_cast<uint8_t *>(bytes.data));
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
  // The bytes already read as wanted: a view, no step.
  for (const Placement &p : placements[tensor])
    if (sameBytes(p.desc, want)) {
      Placement view{want, p.buffer};
      placements[tensor].push_back(view);
      return view;
    }
  // A result kept in a layout of other dims than the tensor's (a reduction
  // that drops its unit dims, in a blocked layout) is read from a placement
  // with the wanted dims, made row-major first if there is none.
  Placement source = *original;
  if (source.desc.dims() != want.dims()) {
    auto same = std::find_if(
        placements[tensor].begin(), placements[tensor].end(),
        [&](const Placement &p) { return p.desc.dims() == want.dims(); });
    if (same != placements[tensor].end()) {
      source = *same;
    } else {
      Desc rowMajor = plainDesc(source.desc.dims(), source.desc.data_type());
      Desc plain = plainOf(tensor);
      if (plain.get_size() != rowMajor.get_size() ||
          plain.dims() != want.dims())
        return fail("cannot view tensor " + std::to_string(tensor) +
                    " with other dims");
      Placement own{plain,
                    addBuffer(BufferKind::Scratch, rowMajor.get_size())};
      addReorder(source.desc, source.buffer, rowMajor, own.buffer);
      placements[tensor].push_back(own);
      bufferTensors[own.buffer].push_back(tensor);
      if (own.desc == want)
        return own;
      source = own;
    }
  }
  int buffer = addBuffer(BufferKind::Scratch, want.get_size());
  Placement p{want, buffer};
  addReorder(source.desc, source.buffer, want, buffer);
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
  bool rowMajor =
      desc.get_size() == own.get_size() &&
      (isPlain(desc) ||
       sameBytes(desc, plainDesc(desc.dims(), desc.data_type())));
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

Result<Placement> GraphBuilder::resultOf(uint32_t dst, int sumInput,
                                         const Desc &desc) {
  if (sumInput < 0)
    return define(dst, desc);
  Result<Placement> acc = inPlace(sumInput, desc);
  if (!acc.ok())
    return acc;
  defineView(dst, *acc);
  return acc;
}

bool GraphBuilder::mayOverwrite(uint32_t tensor, int buffer) const {
  if (out.buffers_[buffer].kind != BufferKind::Scratch ||
      sharesBytes(buffer) || remainingUses[tensor] != 1)
    return false;
  for (uint32_t other : bufferTensors[buffer])
    if (other != tensor && remainingUses[other] > 0)
      return false;
  return true;
}

Result<Placement> GraphBuilder::inPlace(uint32_t tensor, const Desc &want) {
  Result<Placement> original = placement(tensor);
  if (!original.ok())
    return original;
  Result<Placement> p = as(tensor, want);
  if (!p.ok())
    return p;
  bool isCopy = p->buffer != original->buffer;
  if (isCopy || mayOverwrite(tensor, p->buffer))
    return p;
  // Someone still reads it: accumulate into a copy.
  int buffer = addBuffer(BufferKind::Scratch, want.get_size());
  addReorder(p->desc, p->buffer, want, buffer);
  return Placement{want, buffer};
}

Result<dnnl::primitive_attr> GraphBuilder::attrOf(const fbs::Op &op,
                                                  int *sumInput,
                                                  size_t leaveOut,
                                                  size_t dstRank) {
  dnnl::post_ops ops;
  *sumInput = -1;
  if (op.post_ops() && op.post_ops()->size() > leaveOut)
    for (size_t i = 0; i + leaveOut < op.post_ops()->size(); ++i) {
      const fbs::PostOp *p = op.post_ops()->Get(static_cast<uint32_t>(i));
      if (p->is_sum()) {
        if (*sumInput >= 0 || p->sum_input() < 0 ||
            static_cast<size_t>(p->sum_input()) >= placements.size())
          return fail("bad sum post-op");
        *sumInput = p->sum_input();
        ops.append_sum(p->scale());
      } else if (p->binary_input() >= 0) {
        if (static_cast<size_t>(p->binary_input()) >= placements.size() ||
            !op.outputs() || op.outputs()->size() != 1)
          return fail("bad binary post-op");
        ops.append_binary(binaryAlgorithm(p->binary()),
                          postOpInputDesc(op, p->binary_input(), dstRank));
      } else {
        ops.append_eltwise(1.f, eltwiseAlgorithm(p->eltwise()), p->alpha(),
                           p->beta());
      }
    }
  dnnl::primitive_attr attr = userScratchpadAttr();
  attr.set_post_ops(ops);
  return attr;
}

Desc GraphBuilder::postOpInputDesc(const fbs::Op &op, uint32_t input,
                                   size_t dstRank) const {
  if (!dstRank)
    dstRank = dimsOf(op.outputs()->Get(0)).size();
  return plainDesc(padTo(dimsOf(input), dstRank));
}

Error GraphBuilder::addPostOpInputs(const fbs::Op &op, size_t dstRank) {
  if (!op.post_ops())
    return Error::success();
  for (uint32_t i = 0; i < op.post_ops()->size(); ++i) {
    int input = op.post_ops()->Get(i)->binary_input();
    if (input < 0)
      continue;
    Desc desc = postOpInputDesc(op, static_cast<uint32_t>(input), dstRank);
    STRATA_ASSIGN_OR_RETURN(
        Placement view, plainView(static_cast<uint32_t>(input), desc.dims()));
    addArgs(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) |
                DNNL_ARG_SRC_1,
            addMem(desc, view.buffer));
  }
  return Error::success();
}

bool GraphBuilder::readsRunTimeArgs(const fbs::Op &op) {
  if (op.src_zero_point() >= 0)
    return true;
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops())
      if (p->binary_input() >= 0)
        return true;
  return false;
}

Error GraphBuilder::setOutputScales(const fbs::Op &op, int64_t channels,
                                    int axis, const char *what,
                                    dnnl::primitive_attr &attr) const {
  if (!op.output_scales() || op.output_scales()->size() == 0)
    return Error::success();
  std::vector<float> scales(op.output_scales()->begin(),
                            op.output_scales()->end());
  if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != channels)
    return fail(std::string("output scales must be one or one per ") + what);
  attr.set_output_scales(scales.size() == 1 ? 0 : 1 << axis, scales);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

std::pair<int, uint64_t> GraphBuilder::holderOf(int buffer) const {
  uint64_t offset = 0;
  while (out.buffers_[buffer].within >= 0) {
    offset += out.buffers_[buffer].withinOffset;
    buffer = out.buffers_[buffer].within;
  }
  return {buffer, offset};
}

bool GraphBuilder::sharesBytes(int buffer) const {
  if (out.buffers_[buffer].within >= 0)
    return true;
  for (const Buffer &b : out.buffers_)
    if (b.within == buffer)
      return true;
  return false;
}

std::vector<bool>
GraphBuilder::concatInPlace(const std::vector<int> &partBuffers,
                            const std::vector<size_t> &partBytes, int dst) {
  std::vector<bool> placed(partBuffers.size(), false);
  if (out.buffers_[dst].kind != BufferKind::Scratch ||
      out.buffers_[dst].within >= 0)
    return placed;
  uint64_t at = 0; // where part i starts in the result
  for (size_t i = 0; i < partBuffers.size();) {
    // The run of parts from i that is exactly the bytes of their holder,
    // in order: the part's own buffer, or an earlier result whose parts
    // these are (a DenseNet block concatenates the previous result's parts
    // and one more).
    auto [holder, offset] = holderOf(partBuffers[i]);
    const Buffer &h = out.buffers_[holder];
    size_t end = i;
    if (holder != dst && h.kind == BufferKind::Scratch && offset == 0) {
      uint64_t covered = 0;
      for (size_t j = i; j < partBuffers.size() && covered < h.bytes; ++j) {
        auto [hj, oj] = holderOf(partBuffers[j]);
        if (hj != holder || oj != covered)
          break;
        covered += partBytes[j];
        if (covered == h.bytes)
          end = j + 1;
      }
    }
    if (end == i) {
      at += partBytes[i++];
      continue;
    }
    out.buffers_[holder].within = dst;
    out.buffers_[holder].withinOffset = at;
    for (; i < end; ++i) {
      placed[i] = true;
      at += partBytes[i];
    }
  }
  return placed;
}

void GraphBuilder::planScratch() {
  // Greedy by size: each buffer at the lowest offset that does not overlap
  // a placed buffer whose lifetime intersects its own. A buffer that holds
  // parts lives from its parts' first writer to their last reader; the
  // parts are placed with it.
  size_t count = out.buffers_.size();
  std::vector<int> first(count, -1), last(count, -1);
  for (size_t i = 0; i < count; ++i) {
    const Buffer &b = out.buffers_[i];
    if (b.kind != BufferKind::Scratch || b.first < 0)
      continue;
    int holder = holderOf(static_cast<int>(i)).first;
    first[holder] =
        first[holder] < 0 ? b.first : std::min(first[holder], b.first);
    last[holder] = std::max(last[holder], b.last);
  }
  std::vector<int> order;
  for (size_t i = 0; i < count; ++i)
    if (out.buffers_[i].kind == BufferKind::Scratch &&
        out.buffers_[i].within < 0 && first[i] >= 0)
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
      if (first[other] <= last[index] && first[index] <= last[other])
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
  for (size_t i = 0; i < count; ++i)
    if (out.buffers_[i].within >= 0) {
      auto [holder, offset] = holderOf(static_cast<int>(i));
      out.buffers_[i].offset = out.buffers_[holder].offset + offset;
    }
  out.scratchBytes_ = end;
}

Error GraphBuilder::readGraphInterface() {
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
  channelBlocked =
      graph.activation_layout() == fbs::ActivationLayout::ChannelBlocked16 &&
      hostRunsChannelBlocked16();
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
  return Error::success();
}

void GraphBuilder::countUses() {
  size_t tensorCount = graph.tensors()->size();
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
  // A partition output is read once more, by the copy at the end or the
  // caller: no op may accumulate into it in place.
  for (uint32_t t : outputs)
    if (t < tensorCount)
      ++remainingUses[t];
}

void GraphBuilder::placeInputs() {
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
}

void GraphBuilder::recordOpNames() {
  for (const fbs::Op *op : *graph.ops()) {
    out.opKinds_.push_back(fbs::EnumNameOpKind(op->kind()));
    std::vector<std::string> nodes;
    if (op->node_names())
      for (const flatbuffers::String *n : *op->node_names())
        nodes.push_back(n->str());
    out.opNodes_.push_back(std::move(nodes));
  }
}

Error GraphBuilder::buildOp(const fbs::Op &op) {
  if (!op.outputs() || op.outputs()->size() == 0 ||
      (op.outputs()->size() != 1 && op.kind() != fbs::OpKind::Recurrent))
    return fail("ops have exactly one output (recurrent layers one per "
                "result)");
  for (uint32_t result : *op.outputs())
    if (result >= graph.tensors()->size() || !placements[result].empty())
      return fail("output tensor is out of range or written twice");
  switch (op.kind()) {
  case fbs::OpKind::Convolution:
    return buildConvolution(op);
  case fbs::OpKind::MatMul:
    return buildMatMul(op);
  case fbs::OpKind::MaxPool:
  case fbs::OpKind::AvgPool:
    return buildPool(op);
  case fbs::OpKind::Eltwise:
    return buildEltwise(op);
  case fbs::OpKind::Binary:
    return buildBinary(op);
  case fbs::OpKind::Softmax:
  case fbs::OpKind::LogSoftmax:
    return buildSoftmax(op);
  case fbs::OpKind::ReduceMean:
    return buildReduceMean(op);
  case fbs::OpKind::Transpose:
    return buildTranspose(op);
  case fbs::OpKind::Slice:
    return buildSlice(op);
  case fbs::OpKind::Reshape:
    return buildReshape(op);
  case fbs::OpKind::Concat:
    return buildConcat(op);
  case fbs::OpKind::Reorder:
    return buildReorder(op);
  case fbs::OpKind::LayerNorm:
    return buildLayerNorm(op);
  case fbs::OpKind::ScaleShift:
    return buildScaleShift(op);
  case fbs::OpKind::Deconvolution:
    return buildDeconvolution(op);
  case fbs::OpKind::Recurrent:
    return buildRecurrent(op);
  case fbs::OpKind::Resize:
    return buildResize(op);
  default:
    return fail("unknown op kind " +
                std::to_string(static_cast<int>(op.kind())));
  }
}

Error GraphBuilder::copyUnwrittenOutputs() {
  // Outputs not written in place get a final copy into the caller's buffer.
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (outputWritten[j])
      continue;
    STRATA_ASSIGN_OR_RETURN(Placement p, placement(outputs[j]));
    Desc plain = plainOf(outputs[j]);
    int buffer = addBuffer(BufferKind::Output, plain.get_size(), nullptr, j);
    addReorder(p.desc, p.buffer, plain, buffer);
  }
  return Error::success();
}

Error GraphBuilder::build() {
  STRATA_RETURN_IF_ERROR(readGraphInterface());
  countUses();
  placeInputs();
  recordOpNames();
  if (options.mode == CompiledGraph::Mode::Prepare && graph.winograd())
    planWinograd();
  for (opIndex = 0; opIndex < graph.ops()->size(); ++opIndex) {
    const fbs::Op &op = *graph.ops()->Get(opIndex);
    STRATA_RETURN_IF_ERROR(buildOp(op));
    if (op.inputs())
      for (uint32_t t : *op.inputs())
        --remainingUses[t];
    if (op.post_ops())
      for (const fbs::PostOp *p : *op.post_ops())
        if (p->is_sum())
          --remainingUses[p->sum_input()];
  }
  opIndex = graph.ops()->size();
  STRATA_RETURN_IF_ERROR(copyUnwrittenOutputs());
  planScratch();
  return Error::success();
}

} // namespace strata::runtime::onednn
