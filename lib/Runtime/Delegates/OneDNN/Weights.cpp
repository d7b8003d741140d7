//===- Weights.cpp - constants packed into the layouts primitives pick ----===//
//
// A convolution's or matmul's weights are reordered into the layout the
// primitive picked (and the delegate's Winograd kernel transforms its own)
// once: at prepare, from the program's plain bytes, and returned for
// storage; at init, the stored bytes are bound in place when the layout
// recorded with them is still the one wanted, and reordered from it when
// oneDNN now wants another (another thread count or CPU).
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>

namespace strata::runtime::onednn {

using dnnl::memory;

Result<int> GraphBuilder::weights(uint32_t tensor, const Desc &want,
                                  const Dims &plainDims,
                                  memory::format_tag plainTag) {
  if (!isConstant(tensor)) {
    // Activations as weights (attention's matmuls): plain.
    STRATA_ASSIGN_OR_RETURN(Placement p, plainView(tensor, plainDims));
    if (!(p.desc == want))
      return fail("non-constant weights in a packed layout");
    return addMem(p.desc, p.buffer);
  }
  Desc plain = plainTag == memory::format_tag::undef
                   ? plainDesc(plainDims, typeOf(tensor))
                   : Desc(plainDims, typeOf(tensor), plainTag);
  auto reorder = [&](ByteSpan bytes) {
    memory src(plain, out.engine_, const_cast<uint8_t *>(bytes.data));
    std::vector<uint8_t> packed(want.get_size());
    memory dst(want, out.engine_, packed.data());
    dnnl::reorder(src, dst).execute(out.stream_, src, dst);
    out.stream_.wait();
    return packed;
  };
  std::string packedFor =
      graph.isa() ? graph.isa()->str() : std::string("unknown ISA");
  std::string mismatch =
      "weights were packed for " + packedFor + " (oneDNN " +
      (graph.onednn_version() ? graph.onednn_version()->str()
                              : std::string("?")) +
      ") and this CPU (" + hostISA() +
      ") wants another layout; recompile for this CPU or set "
      "repack_on_isa_mismatch (needs keep_plain_weights at compile time)";
  std::string noPlainCopy =
      "weights were packed for " + packedFor +
      " and cannot be repacked: the program holds no plain copy (compile "
      "with keep_plain_weights=true)";
  STRATA_ASSIGN_OR_RETURN(int buffer,
                          packedConstant(tensor, want, plain.get_size(),
                                         reorder, /*reorderStored=*/true,
                                         mismatch, noPlainCopy));
  return addMem(want, buffer);
}

Result<int> GraphBuilder::ownKernelWeights(
    uint32_t w, size_t packedBytes, size_t plainBytes,
    const std::function<void(const float *, float *)> &pack,
    const std::string &what, bool atInit) {
  if (!isConstant(w))
    return fail("the delegate's own kernels need constant weights");
  Desc packedDesc({static_cast<int64_t>(packedBytes / sizeof(float))},
                  memory::data_type::f32, memory::format_tag::a);
  auto packer = [&](ByteSpan plain) {
    // A copy: the stored bytes need not be aligned for floats.
    std::vector<float> floats(plain.size / sizeof(float));
    std::memcpy(floats.data(), plain.data, plain.size);
    std::vector<uint8_t> packed(packedBytes);
    pack(floats.data(), reinterpret_cast<float *>(packed.data()));
    return packed;
  };
  STRATA_ASSIGN_OR_RETURN(
      int buffer,
      packedConstant(
          w, packedDesc, plainBytes, packer,
          /*reorderStored=*/false, // the kernel's own layout, not oneDNN's
          what + " are missing or in another layout; recompile for this CPU "
                 "or set repack_on_isa_mismatch (needs keep_plain_weights at "
                 "compile time)",
          what + " cannot be made: the program holds no plain copy (compile "
                 "with keep_plain_weights=true)",
          atInit));
  return addMem(packedDesc, buffer);
}

Result<int> GraphBuilder::weightsFromOwnKernel(
    uint32_t w, const Desc &want, const Dims &plainDims, size_t packedBytes,
    const std::function<void(const float *, float *)> &unpack,
    const std::string &what) {
  const fbs::Tensor *t = graph.tensors()->Get(w);
  if (!t->packed_key()) {
    if (!options.repackOnMismatch)
      return fail("this convolution was prepared for one of the delegate's "
                  "own kernels without " + what +
                  "; set repack_on_isa_mismatch (needs keep_plain_weights "
                  "at compile time)");
    return weights(w, want, plainDims);
  }
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, named.get(t->packed_key()->str()));
  if (bytes.size != packedBytes)
    return fail(what + " '" + t->packed_key()->str() + "' have " +
                std::to_string(bytes.size) + " bytes, expected " +
                std::to_string(packedBytes));
  Desc plain = plainDesc(plainDims, memory::data_type::f32);
  // A copy: the stored bytes need not be aligned for floats.
  std::vector<float> packed(packedBytes / sizeof(float)),
      floats(plain.get_size() / sizeof(float));
  std::memcpy(packed.data(), bytes.data, bytes.size);
  unpack(packed.data(), floats.data());
  return addMem(want, ownedReorder(plain, floats.data(), want));
}

Result<int> GraphBuilder::packedConstant(uint32_t tensor,
                                         const Desc &packedDesc,
                                         size_t plainBytes, const Packer &pack,
                                         bool reorderStored,
                                         const std::string &mismatch,
                                         const std::string &noPlainCopy,
                                         bool atInit) {
  const fbs::Tensor *t = graph.tensors()->Get(tensor);
  auto packedFrom = [&](ByteSpan bytes) -> Result<int> {
    if (bytes.size != plainBytes)
      return fail("constant '" + t->constant_key()->str() + "' has " +
                  std::to_string(bytes.size) + " bytes, expected " +
                  std::to_string(plainBytes));
    std::vector<uint8_t> packed = pack(bytes);
    if (options.mode == CompiledGraph::Mode::Prepare && !atInit)
      out.packed_[tensor] = {packed, descBytes(packedDesc)};
    size_t size = packed.size();
    out.owned_.push_back(std::move(packed));
    return addBuffer(BufferKind::Owned, size, out.owned_.back().data());
  };
  if (options.mode == CompiledGraph::Mode::Prepare) {
    STRATA_ASSIGN_OR_RETURN(ByteSpan bytes,
                            named.get(t->constant_key()->str()));
    if (atInit)
      out.plainConstants_.insert(tensor); // init packs from these bytes
    return packedFrom(bytes);
  }
  if (atInit) {
    Result<ByteSpan> bytes = named.get(t->constant_key()->str());
    if (!bytes.ok())
      return fail(noPlainCopy);
    return packedFrom(*bytes);
  }
  // Init: bind the stored packed bytes when that layout is still wanted.
  Result<int> stored = storedPacked(*t, packedDesc);
  if (!stored.ok() || *stored >= 0)
    return stored;
  if (reorderStored) {
    Result<int> reordered = reorderedStored(*t, packedDesc);
    if (!reordered.ok() || *reordered >= 0)
      return reordered;
  }
  if (!options.repackOnMismatch)
    return fail(mismatch);
  Result<ByteSpan> bytes = named.get(t->constant_key()->str());
  if (!bytes.ok())
    return fail(noPlainCopy);
  return packedFrom(*bytes);
}

/// The oneDNN layout recorded with weight `t`'s packed bytes, if any.
static std::optional<dnnl_memory_desc_t> recordedLayout(const fbs::Tensor &t) {
  if (!t.packed_key() || !t.packed_desc() ||
      t.packed_desc()->size() != sizeof(dnnl_memory_desc_t))
    return std::nullopt;
  dnnl_memory_desc_t stored;
  std::memcpy(&stored, t.packed_desc()->data(), sizeof(stored));
  return stored;
}

Result<ByteSpan> GraphBuilder::storedBytes(const fbs::Tensor &t,
                                           const Desc &layout) {
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, named.get(t.packed_key()->str()));
  if (bytes.size != layout.get_size())
    return fail("packed weights '" + t.packed_key()->str() + "' have " +
                std::to_string(bytes.size) + " bytes, their layout needs " +
                std::to_string(layout.get_size()));
  return bytes;
}

Result<int> GraphBuilder::storedPacked(const fbs::Tensor &t, const Desc &want) {
  std::optional<dnnl_memory_desc_t> stored = recordedLayout(t);
  if (!stored || !(Desc(*stored) == want))
    return -1;
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, storedBytes(t, want));
  return addBuffer(BufferKind::Constant, bytes.size,
                   const_cast<uint8_t *>(bytes.data));
}

Result<int> GraphBuilder::reorderedStored(const fbs::Tensor &t,
                                          const Desc &want) {
  std::optional<dnnl_memory_desc_t> stored = recordedLayout(t);
  if (!stored)
    return -1;
  // The descriptor comes from the program file: its enum fields are read
  // as integers, so that damaged bytes are a mismatch, not undefined
  // behaviour. Opaque formats (Winograd, RNN-packed) and layouts carrying
  // int8 compensation are not reorder sources.
  auto field = [&](size_t offset) {
    int value;
    std::memcpy(&value, reinterpret_cast<const char *>(&*stored) + offset,
                sizeof(value));
    return value;
  };
  if (field(offsetof(dnnl_memory_desc_t, format_kind)) != dnnl_blocked ||
      field(offsetof(dnnl_memory_desc_t, data_type)) !=
          static_cast<int>(want.data_type()) ||
      stored->extra.flags != dnnl_memory_extra_flag_none ||
      stored->ndims != want.data.ndims ||
      !std::equal(stored->dims, stored->dims + stored->ndims, want.data.dims))
    return -1;
  Desc from(*stored);
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, storedBytes(t, from));
  try {
    return ownedReorder(from, bytes.data, want);
  } catch (const dnnl::error &) {
    return -1;
  }
}

int GraphBuilder::ownedReorder(const Desc &from, const void *data,
                               const Desc &to) {
  std::vector<uint8_t> result(to.get_size());
  memory src(from, out.engine_, const_cast<void *>(data));
  memory dst(to, out.engine_, result.data());
  dnnl::reorder(src, dst).execute(out.stream_, src, dst);
  out.stream_.wait();
  size_t size = result.size();
  out.owned_.push_back(std::move(result));
  return addBuffer(BufferKind::Owned, size, out.owned_.back().data());
}

} // namespace strata::runtime::onednn
