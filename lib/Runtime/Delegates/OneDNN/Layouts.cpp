//===- Layouts.cpp - memory layouts and blob enums for oneDNN -------------===//
//
// The free helpers every op family shares: row-major layouts, element
// types, window geometry and the blob's enums as oneDNN algorithms.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace strata::runtime::onednn {

using dnnl::memory;

Desc plainDesc(const Dims &dims, memory::data_type type) {
  Dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return Desc(dims, type, strides);
}

std::string layoutName(const Desc &desc) {
  const dnnl_memory_desc_t &md = desc.data;
  // Read as an integer: a recorded layout comes from the program file.
  int formatKind = 0;
  std::memcpy(&formatKind, &md.format_kind, sizeof(formatKind));
  switch (formatKind) {
  case dnnl_blocked:
    break;
  case dnnl_format_kind_any:
    return "any";
  case dnnl_format_kind_wino:
    return "wino";
  default:
    return "opaque";
  }
  int rank = md.ndims;
  if (rank <= 0 || rank > DNNL_MAX_NDIMS)
    return "scalar";
  const dnnl_blocking_desc_t &blocking = md.format_desc.blocking;
  std::vector<int> order(rank);
  for (int i = 0; i < rank; ++i)
    order[i] = i;
  // Outermost first: larger strides first, ties in dimension order.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return blocking.strides[a] > blocking.strides[b];
  });
  std::vector<bool> blocked(rank, false);
  for (int i = 0; i < blocking.inner_nblks && i < DNNL_MAX_NDIMS; ++i)
    if (blocking.inner_idxs[i] >= 0 && blocking.inner_idxs[i] < rank)
      blocked[blocking.inner_idxs[i]] = true;
  std::string name;
  for (int d : order)
    name += static_cast<char>((blocked[d] ? 'A' : 'a') + d);
  for (int i = 0; i < blocking.inner_nblks && i < DNNL_MAX_NDIMS; ++i)
    if (blocking.inner_idxs[i] >= 0 && blocking.inner_idxs[i] < rank)
      name += std::to_string(blocking.inner_blks[i]) +
              static_cast<char>('a' + blocking.inner_idxs[i]);
  return name;
}

bool isPlain(const Desc &desc) {
  return desc == plainDesc(desc.dims(), desc.data_type());
}

namespace {
/// The element offset of `index` in a blocked layout: outer blocks by the
/// strides, then the inner blocks, the last one innermost. (Fixed arrays:
/// sameBytes calls it along every axis of a tensor, at init.)
int64_t elementOffset(const dnnl_memory_desc_t &md, const int64_t *index) {
  const dnnl_blocking_desc_t &blocking = md.format_desc.blocking;
  int64_t inner[DNNL_MAX_NDIMS], rest[DNNL_MAX_NDIMS] = {};
  std::fill(std::begin(inner), std::end(inner), int64_t(1));
  for (int i = 0; i < blocking.inner_nblks; ++i)
    inner[blocking.inner_idxs[i]] *= blocking.inner_blks[i];
  int64_t offset = md.offset0;
  for (int d = 0; d < md.ndims; ++d) {
    offset += index[d] / inner[d] * blocking.strides[d];
    rest[d] = index[d] % inner[d];
  }
  int64_t stride = 1;
  for (int i = blocking.inner_nblks - 1; i >= 0; --i) {
    int d = blocking.inner_idxs[i];
    offset += rest[d] % blocking.inner_blks[i] * stride;
    rest[d] /= blocking.inner_blks[i];
    stride *= blocking.inner_blks[i];
  }
  return offset;
}

bool isSimpleBlocked(const dnnl_memory_desc_t &md) {
  const dnnl_blocking_desc_t &blocking = md.format_desc.blocking;
  if (md.format_kind != dnnl_blocked || md.extra.flags != 0 || md.ndims <= 0 ||
      md.ndims > DNNL_MAX_NDIMS || blocking.inner_nblks < 0 ||
      blocking.inner_nblks > DNNL_MAX_NDIMS)
    return false;
  for (int i = 0; i < blocking.inner_nblks; ++i)
    if (blocking.inner_idxs[i] < 0 || blocking.inner_idxs[i] >= md.ndims ||
        blocking.inner_blks[i] <= 0)
      return false;
  return true;
}
} // namespace

bool sameBytes(const Desc &have, const Desc &view) {
  const dnnl_memory_desc_t &a = have.data, &b = view.data;
  if (!isSimpleBlocked(a) || !isSimpleBlocked(b) || a.ndims != b.ndims ||
      a.data_type != b.data_type || have.dims() != view.dims() ||
      view.get_size() > have.get_size())
    return false;
  Dims dims = have.dims();
  int64_t count = 1;
  for (int64_t d : dims)
    count *= d;
  if (count <= 0 || count > (int64_t(1) << 16))
    return false;
  // A padded view's readers may read its padding as zeros, where `have`
  // can keep elements.
  for (int d = 0; d < b.ndims; ++d)
    if (b.padded_dims[d] != b.dims[d])
      return false;
  if (have == view)
    return true;
  // A blocked layout's offset is a sum of one term per dimension, each a
  // function of that dimension's index alone (its outer block by the
  // stride, its inner blocks by theirs), plus offset0. Two such sums agree
  // at every index exactly when they agree at the origin and each
  // dimension's term moves alike along its axis (fix the other indices and
  // vary one): a walk along each axis, not over every element.
  Dims index(dims.size(), 0);
  int64_t originA = elementOffset(a, index.data()),
          originB = elementOffset(b, index.data());
  if (originA != originB)
    return false;
  for (size_t d = 0; d < dims.size(); ++d) {
    for (int64_t i = 1; i < dims[d]; ++i) {
      index[d] = i;
      if (elementOffset(a, index.data()) - originA !=
          elementOffset(b, index.data()) - originB)
        return false;
    }
    index[d] = 0;
  }
  return true;
}

memory::data_type dataTypeOf(fbs::DataType type) {
  switch (type) {
  case fbs::DataType::S8:
    return memory::data_type::s8;
  case fbs::DataType::U8:
    return memory::data_type::u8;
  case fbs::DataType::S32:
    return memory::data_type::s32;
  default:
    return memory::data_type::f32;
  }
}

Desc withType(const Desc &desc, memory::data_type type) {
  if (desc.data_type() == type)
    return desc;
  if (isPlain(desc))
    return plainDesc(desc.dims(), type);
  dnnl_memory_desc_t data = desc.data;
  data.data_type = static_cast<dnnl_data_type_t>(type);
  data.extra = dnnl_memory_extra_desc_t{};
  return Desc(data);
}

Dims padTo(Dims dims, size_t rank) {
  dims.insert(dims.begin(), rank - std::min(rank, dims.size()), 1);
  return dims;
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

Dims longs(const flatbuffers::Vector<int64_t> *v, size_t n, int64_t fallback) {
  Dims out(n, fallback);
  if (v)
    for (size_t i = 0; i < n && i < v->size(); ++i)
      out[i] = v->Get(i);
  return out;
}

Window windowOf(const fbs::Op &op) {
  Window window{longs(op.strides(), 2, 1), longs(op.kernel(), 2, 1),
                longs(op.dilations(), 2, 1), longs(op.pads_begin(), 2, 0),
                longs(op.pads_end(), 2, 0)};
  for (int64_t &d : window.dilations)
    d -= 1;
  return window;
}

dnnl::algorithm eltwiseAlgorithm(fbs::EltwiseKind kind) {
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
  case fbs::EltwiseKind::GeluErf:
    return algorithm::eltwise_gelu_erf;
  case fbs::EltwiseKind::Swish:
    return algorithm::eltwise_swish;
  case fbs::EltwiseKind::HardSwish:
    return algorithm::eltwise_hardswish;
  }
  return algorithm::undef;
}

dnnl::algorithm binaryAlgorithm(fbs::BinaryKind kind) {
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

dnnl::primitive_attr userScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::eltwise_forward::primitive_desc
eltwiseInference(fbs::EltwiseKind kind, float alpha, float beta,
                 const Desc &desc, const dnnl::engine &engine) {
  dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                eltwiseAlgorithm(kind), desc, alpha, beta);
  return dnnl::eltwise_forward::primitive_desc(d, userScratchpadAttr(), engine);
}

void seekImpl(dnnl::primitive_desc &pd, int index) {
  for (int i = 0; i < index && pd.next_impl(); ++i) {
  }
}

} // namespace strata::runtime::onednn
