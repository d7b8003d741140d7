//===- ShapeCache.h - a delegate's graph built per shape --------*- C++ -*-===//
//
// What the delegates share for partitions compiled with dynamic extents
// (docs/delegation.md, "Dynamic extents"): the graph is built at each
// call's extent slots on first use and the most recent shapes are kept.
// The named data the graph refers to is kept past init (a NamedDataMap
// reaches init only), as views into the program, which outlives every
// method built from it.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_SHAPECACHE_H
#define STRATA_RUNTIME_DELEGATES_SHAPECACHE_H

#include "strata/Runtime/Backend.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime {

/// `blob` (a delegate graph of FlatBuffers object type `GraphT`, whose
/// tensors carry `dims` and `dim_slots`) with every slotted dimension at its
/// extent in `extents`, repacked with file `identifier`. `adjust` then sees
/// the graph and which tensors had a slot (node parameters that restate a
/// tensor's extents). A slot past `extents` is an error.
template <typename GraphT>
Result<std::vector<uint8_t>>
graphAtExtents(const std::vector<uint8_t> &blob,
               const std::vector<int64_t> &extents, const char *identifier,
               const std::function<void(GraphT &, const std::vector<bool> &)>
                   &adjust = {}) {
  GraphT object;
  flatbuffers::GetRoot<typename GraphT::TableType>(blob.data())
      ->UnPackTo(&object);
  std::vector<bool> slotted(object.tensors.size(), false);
  for (size_t i = 0; i < object.tensors.size(); ++i) {
    auto &tensor = *object.tensors[i];
    for (size_t d = 0; d < tensor.dim_slots.size() && d < tensor.dims.size();
         ++d)
      if (int32_t slot = tensor.dim_slots[d]; slot >= 0) {
        if (static_cast<size_t>(slot) >= extents.size())
          return Error(ErrorCode::InvalidArgument,
                       "a tensor names extent slot " + std::to_string(slot) +
                           " of " + std::to_string(extents.size()));
        tensor.dims[d] = extents[slot];
        slotted[i] = true;
      }
  }
  if (adjust)
    adjust(object, slotted);
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(GraphT::TableType::Pack(fbb, &object), identifier);
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

/// The views of named data `keys` (those `named` has), served after init.
class KeptNamedData final : public NamedDataMap {
public:
  KeptNamedData(const NamedDataMap &named,
                const std::vector<std::string> &keys) {
    for (const std::string &key : keys)
      if (Result<ByteSpan> bytes = named.get(key); bytes.ok())
        spans_[key] = *bytes;
  }
  Result<ByteSpan> get(const std::string &key) const override {
    auto it = spans_.find(key);
    if (it == spans_.end())
      return Error(ErrorCode::NotFound, "named data '" + key + "' is missing");
    return it->second;
  }

private:
  std::map<std::string, ByteSpan> spans_;
};

/// A graph of type `Built` per extent vector, the `capacity` most recently
/// run kept. It keeps the blob and the named data `keys` past init;
/// `specialize` writes the blob at given extents (each checked positive
/// and their count against the slots before), `build` makes the graph
/// from that and the named data (the blob is kept as long as the graph).
template <typename Built> class ShapeCache {
public:
  using Specialize = std::function<Result<std::vector<uint8_t>>(
      const std::vector<uint8_t> &blob, const std::vector<int64_t> &extents)>;
  using Build = std::function<Result<std::unique_ptr<Built>>(
      const std::vector<uint8_t> &blob, const NamedDataMap &named)>;

  ShapeCache(ByteSpan blob, const NamedDataMap &named,
             const std::vector<std::string> &keys, std::vector<int64_t> bounds,
             size_t capacity, Specialize specialize, Build build)
      : blob_(blob.data, blob.data + blob.size), named_(named, keys),
        bounds_(std::move(bounds)), capacity_(std::max<size_t>(1, capacity)),
        specialize_(std::move(specialize)), build_(std::move(build)) {}

  /// Each slot's extent at the bounds (what preprocess prepared).
  const std::vector<int64_t> &bounds() const { return bounds_; }

  /// The graph at `extents`, built on first use.
  Result<Built *> at(const std::vector<int64_t> &extents) {
    ++clock_;
    for (Entry &entry : entries_)
      if (entry.extents == extents) {
        entry.lastUse = clock_;
        return entry.graph.get();
      }
    if (extents.size() != bounds_.size())
      return Error(ErrorCode::InvalidArgument,
                   "the call passes " + std::to_string(extents.size()) +
                       " extents, the graph has " +
                       std::to_string(bounds_.size()) + " slots");
    for (size_t k = 0; k < extents.size(); ++k)
      if (extents[k] <= 0)
        return Error(ErrorCode::NotSupported,
                     "extent slot " + std::to_string(k) + " is " +
                         std::to_string(extents[k]) +
                         "; the delegate runs extents of 1 and more");
    Entry entry;
    entry.extents = extents;
    STRATA_ASSIGN_OR_RETURN(entry.blob, specialize_(blob_, extents));
    STRATA_ASSIGN_OR_RETURN(entry.graph, build_(entry.blob, named_));
    entry.lastUse = clock_;
    if (entries_.size() >= capacity_)
      entries_.erase(std::min_element(entries_.begin(), entries_.end(),
                                      [](const Entry &a, const Entry &b) {
                                        return a.lastUse < b.lastUse;
                                      }));
    entries_.push_back(std::move(entry));
    return entries_.back().graph.get();
  }

  /// Calls `fn` on every graph kept.
  void forEach(const std::function<void(Built &)> &fn) {
    for (Entry &entry : entries_)
      fn(*entry.graph);
  }

private:
  struct Entry {
    std::vector<int64_t> extents;
    std::vector<uint8_t> blob;
    std::unique_ptr<Built> graph;
    uint64_t lastUse = 0;
  };
  std::vector<uint8_t> blob_;
  KeptNamedData named_;
  std::vector<int64_t> bounds_;
  size_t capacity_;
  Specialize specialize_;
  Build build_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_DELEGATES_SHAPECACHE_H
