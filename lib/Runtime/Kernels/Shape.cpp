//===- Shape.cpp - reshape, copy, transpose, concat (any dtype) -----------===//
//
// These move bytes only, so they work for every element type.
//
//===----------------------------------------------------------------------===//
#include "BlockTranspose.h"
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace strata::runtime::kernels {

namespace {
Error checkSameDType(const KernelContext &ctx) {
  DType dtype = ctx.outs[0].dtype;
  for (const TensorView &v : ctx.ins)
    if (v.dtype != dtype)
      return ctx.fail("operand " + v.typeString() + " and result " +
                      ctx.outs[0].typeString() + " differ in element type");
  return Error::success();
}

Error byteCopy(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkSameDType(ctx));
  if (ctx.ins[0].numel() != ctx.outs[0].numel())
    return ctx.fail("input " + ctx.ins[0].typeString() + " and result " +
                    ctx.outs[0].typeString() + " differ in element count");
  if (ctx.validateOnly)
    return Error::success();
  if (ctx.ins[0].data != ctx.outs[0].data && ctx.outs[0].nbytes())
    std::memmove(ctx.outs[0].data, ctx.ins[0].data, ctx.outs[0].nbytes());
  return Error::success();
}

/// Copies one element of `size` bytes.
inline void copyElement(uint8_t *dst, const uint8_t *src, size_t size) {
  switch (size) {
  case 4:
    std::memcpy(dst, src, 4);
    break;
  case 1:
    *dst = *src;
    break;
  case 2:
    std::memcpy(dst, src, 2);
    break;
  case 8:
    std::memcpy(dst, src, 8);
    break;
  default:
    std::memcpy(dst, src, size);
  }
}

/// The result (row-major `extent`) of reading the source at `srcStride`
/// per result dimension, element by element of `size` bytes.
void permuteElements(uint8_t *dst, const uint8_t *src, size_t size,
                     const std::vector<int64_t> &extent,
                     const std::vector<int64_t> &srcStride) {
  size_t rank = extent.size();
  int64_t inner = extent[rank - 1], innerStride = srcStride[rank - 1];
  int64_t total = 1;
  for (int64_t e : extent)
    total *= e;
  std::vector<int64_t> index(rank, 0);
  for (int64_t base = 0; base < total; base += inner) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      off += index[d] * srcStride[d];
    for (int64_t i = 0; i < inner; ++i)
      copyElement(dst + (base + i) * size, src + (off + i * innerStride) * size,
                  size);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < extent[d])
        break;
      index[d] = 0;
    }
  }
}

/// to[i * dstS + l] = from[l * srcL + i] for i < ns, l < nl, in 16 x 16
/// tiles, reading runs of i (or, with WriteRuns, writing runs of l).
template <typename T, bool WriteRuns>
void copyTiles(T *to, const T *from, int64_t ns, int64_t nl, int64_t dstS,
               int64_t srcL) {
  constexpr int64_t kTile = 16;
  for (int64_t s0 = 0; s0 < ns; s0 += kTile) {
    int64_t s1 = std::min(ns, s0 + kTile);
    for (int64_t l0 = 0; l0 < nl; l0 += kTile) {
      int64_t l1 = std::min(nl, l0 + kTile);
      if constexpr (WriteRuns) {
        for (int64_t i = s0; i < s1; ++i)
          for (int64_t l = l0; l < l1; ++l)
            to[i * dstS + l] = from[l * srcL + i];
      } else {
        for (int64_t l = l0; l < l1; ++l)
          for (int64_t i = s0; i < s1; ++i)
            to[i * dstS + l] = from[l * srcL + i];
      }
    }
  }
}

/// permuteElements for elements of type T, moving contiguous runs: where
/// the last result dimension reads contiguously, one memcpy per row; else
/// the result dimension S that does (the input's last) and the last one L
/// are copied as 2-d blocks, reading runs of S and writing runs of L.
template <typename T>
void permuteBlocks(uint8_t *dstBytes, const uint8_t *srcBytes,
                   const std::vector<int64_t> &extent,
                   const std::vector<int64_t> &srcStride) {
  T *dst = reinterpret_cast<T *>(dstBytes);
  const T *src = reinterpret_cast<const T *>(srcBytes);
  size_t rank = extent.size(), last = rank - 1;
  std::vector<int64_t> dstStride(rank, 1);
  for (size_t d = last; d-- > 0;)
    dstStride[d] = dstStride[d + 1] * extent[d + 1];
  size_t s = last;
  for (size_t d = 0; d < rank; ++d)
    if (srcStride[d] == 1)
      s = d;
  // The dimensions walked around each block.
  std::vector<size_t> outerDims;
  for (size_t d = 0; d < rank; ++d)
    if (d != s && d != last)
      outerDims.push_back(d);
  std::vector<int64_t> index(outerDims.size(), 0);
  int64_t nl = extent[last], ns = s == last ? 1 : extent[s];
  int64_t srcL = srcStride[last], dstS = s == last ? 0 : dstStride[s];
  int64_t srcOff = 0, dstOff = 0;
  // A tile reads runs of S and writes one element per row of the result;
  // where those rows are a multiple of 4 KiB apart (a key cache [.., 1024,
  // 64] transposed) they all map to one cache set, and the tile is copied
  // the other way round: runs of L written, one element read per row.
  auto critical = [](int64_t stride) {
    return stride != 0 && (stride * int64_t(sizeof(T))) % 4096 == 0;
  };
  bool writeRuns = critical(dstS) && !critical(srcL);
  while (true) {
    const T *from = src + srcOff;
    T *to = dst + dstOff;
    if (s == last) {
      std::memcpy(to, from, sizeof(T) * nl);
    } else if (sizeof(T) == 4) {
      transposeBlocks32(reinterpret_cast<uint32_t *>(to),
                        reinterpret_cast<const uint32_t *>(from), ns, nl, dstS,
                        srcL);
    } else if (writeRuns) {
      copyTiles<T, true>(to, from, ns, nl, dstS, srcL);
    } else {
      copyTiles<T, false>(to, from, ns, nl, dstS, srcL);
    }
    // The next block: an odometer over the outer dimensions.
    bool wrapped = true;
    for (size_t k = outerDims.size(); wrapped && k-- > 0;) {
      size_t d = outerDims[k];
      srcOff += srcStride[d];
      dstOff += dstStride[d];
      wrapped = ++index[k] == extent[d];
      if (wrapped) {
        srcOff -= srcStride[d] * extent[d];
        dstOff -= dstStride[d] * extent[d];
        index[k] = 0;
      }
    }
    if (wrapped)
      return;
  }
}
} // namespace

Error reshapeKernel(KernelContext &ctx) { return byteCopy(ctx); }

Error shapeOfKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  if (out.dtype != DType::I64 || out.rank() != 1 ||
      out.shape[0] != static_cast<int64_t>(in.rank()))
    return ctx.fail("writes i64[" + std::to_string(in.rank()) +
                    "] for an input of rank " + std::to_string(in.rank()) +
                    ", got " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  // The input's extents at this call (its data is not read).
  int64_t *extents = out.as<int64_t>();
  for (size_t d = 0; d < in.rank(); ++d)
    extents[d] = in.shape[d];
  return Error::success();
}
Error copyKernel(KernelContext &ctx) { return byteCopy(ctx); }

/// Every element `value` (ConstantOfShape of extents read at run time): an
/// integer parameter for integer and boolean results, a float one for
/// floats.
Error fillKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 0, 0, 1));
  TensorView &out = ctx.outs[0];
  const Param *value = ctx.params.find("value");
  if (!value ||
      (value->kind != Param::Kind::Int && value->kind != Param::Kind::Float))
    return ctx.fail("needs a numeric 'value'");
  bool isFloat = value->kind == Param::Kind::Float;
  if (out.dtype != DType::Bool && !dispatchNumeric(out.dtype, [](auto) {}))
    return ctx.fail("cannot fill " + out.typeString());
  if (ctx.validateOnly)
    return Error::success();
  int64_t n = out.numel();
  if (out.dtype == DType::Bool) {
    std::fill_n(
        out.as<uint8_t>(), n,
        uint8_t(isFloat ? value->floatValue != 0 : value->intValue != 0));
    return Error::success();
  }
  dispatchNumeric(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T v = isFloat ? static_cast<T>(value->floatValue)
                  : static_cast<T>(value->intValue);
    std::fill_n(out.as<T>(), n, v);
  });
  return Error::success();
}

Error transposeKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkSameDType(ctx));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  size_t rank = in.rank();
  std::vector<int64_t> identity;
  for (size_t d = rank; d-- > 0;)
    identity.push_back(static_cast<int64_t>(d)); // ONNX default: reverse.
  STRATA_KERNEL_ASSIGN(perm, ctx.params.getInts("permutation", identity));
  if (perm.size() != rank || out.rank() != rank)
    return ctx.fail("permutation of " + std::to_string(perm.size()) +
                    " entries does not fit " + in.typeString() + " -> " +
                    out.typeString());
  std::vector<bool> seen(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(rank) || seen[perm[d]])
      return ctx.fail("'permutation' is not a permutation of 0.." +
                      std::to_string(rank - 1));
    seen[perm[d]] = true;
    if (out.shape[d] != in.shape[perm[d]])
      return ctx.fail("result " + out.typeString() +
                      " is not the permuted input " + in.typeString());
  }
  if (ctx.validateOnly)
    return Error::success();
  int64_t total = out.numel();
  if (total == 0)
    return Error::success();
  size_t esize = dtypeSize(in.dtype);
  std::vector<int64_t> inStride(rank, 1);
  for (size_t d = rank; d-- > 1;)
    inStride[d - 1] = inStride[d] * in.shape[d];
  // The result's dimensions with their source strides, extents of 1
  // dropped and neighbours that are neighbours in the input too merged.
  std::vector<int64_t> extent, srcStride;
  for (size_t d = 0; d < rank; ++d) {
    int64_t e = out.shape[d], st = inStride[perm[d]];
    if (e == 1)
      continue;
    if (!extent.empty() && srcStride.back() == st * e) {
      extent.back() *= e;
      srcStride.back() = st;
    } else {
      extent.push_back(e);
      srcStride.push_back(st);
    }
  }
  const uint8_t *src = static_cast<const uint8_t *>(in.data);
  uint8_t *dst = static_cast<uint8_t *>(out.data);
  if (extent.size() <= 1) {
    std::memcpy(dst, src, total * esize); // The same order.
    return Error::success();
  }
  switch (esize) {
  case 1:
    permuteBlocks<uint8_t>(dst, src, extent, srcStride);
    break;
  case 2:
    permuteBlocks<uint16_t>(dst, src, extent, srcStride);
    break;
  case 4:
    permuteBlocks<uint32_t>(dst, src, extent, srcStride);
    break;
  case 8:
    permuteBlocks<uint64_t>(dst, src, extent, srcStride);
    break;
  default:
    permuteElements(dst, src, esize, extent, srcStride);
  }
  return Error::success();
}

Error concatKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, SIZE_MAX, 1));
  STRATA_RETURN_IF_ERROR(checkSameDType(ctx));
  const TensorView &out = ctx.outs[0];
  size_t rank = out.rank();
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", 0));
  int64_t axis = normalizeAxis(axisParam, rank);
  if (axis < 0)
    return ctx.fail("axis " + std::to_string(axisParam) +
                    " is out of range for " + out.typeString());
  int64_t sum = 0;
  for (const TensorView &in : ctx.ins) {
    if (in.rank() != rank)
      return ctx.fail("operand " + in.typeString() +
                      " does not have the result's rank");
    for (size_t d = 0; d < rank; ++d)
      if (static_cast<int64_t>(d) != axis && in.shape[d] != out.shape[d])
        return ctx.fail("operand " + in.typeString() +
                        " does not match the result " + out.typeString() +
                        " outside axis " + std::to_string(axis));
    sum += in.shape[axis];
  }
  if (sum != out.shape[axis])
    return ctx.fail("operands add up to " + std::to_string(sum) +
                    " along axis " + std::to_string(axis) + ", result has " +
                    std::to_string(out.shape[axis]));
  if (ctx.validateOnly)
    return Error::success();
  size_t esize = dtypeSize(out.dtype);
  AxisSplit split = splitAtAxis(out.shape, axis);
  int64_t outer = split.outer, inner = split.inner;
  uint8_t *dst = static_cast<uint8_t *>(out.data);
  size_t outRow = static_cast<size_t>(out.shape[axis] * inner) * esize;
  size_t done = 0;
  for (const TensorView &in : ctx.ins) {
    size_t row = static_cast<size_t>(in.shape[axis] * inner) * esize;
    const uint8_t *src = static_cast<const uint8_t *>(in.data);
    // memmove: a damaged program may place an input across the result. An
    // operand already in place (a state appended to in place: its filled
    // rows are the result's first ones) is not copied.
    for (int64_t o = 0; o < outer; ++o)
      if (src + o * row != dst + o * outRow + done)
        std::memmove(dst + o * outRow + done, src + o * row, row);
    done += row;
  }
  return Error::success();
}

/// out[i...] = in[starts + i * steps] per dimension (steps may be negative).
Error sliceKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 1, 1, 1));
  STRATA_RETURN_IF_ERROR(checkSameDType(ctx));
  const TensorView &in = ctx.ins[0], &out = ctx.outs[0];
  size_t rank = in.rank();
  STRATA_KERNEL_ASSIGN(starts, ctx.params.getInts("starts", {}));
  STRATA_KERNEL_ASSIGN(steps, ctx.params.getInts("steps", {}));
  if (starts.size() != rank || steps.size() != rank || out.rank() != rank)
    return ctx.fail("'starts' and 'steps' must have one entry per dimension "
                    "of " +
                    in.typeString() + " -> " + out.typeString());
  for (size_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return ctx.fail("step of dimension " + std::to_string(d) + " is zero");
    if (out.shape[d] == 0)
      continue;
    int64_t last = starts[d] + (out.shape[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= in.shape[d] || last < 0 ||
        last >= in.shape[d])
      return ctx.fail("dimension " + std::to_string(d) + " reads outside " +
                      in.typeString());
  }
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();
  size_t esize = dtypeSize(in.dtype);
  std::vector<int64_t> inStride(rank, 1);
  for (size_t d = rank; d-- > 1;)
    inStride[d - 1] = inStride[d] * in.shape[d];
  const uint8_t *src = static_cast<const uint8_t *>(in.data);
  uint8_t *dst = static_cast<uint8_t *>(out.data);
  if (rank == 0) {
    copyElement(dst, src, esize);
    return Error::success();
  }
  std::vector<int64_t> index(rank, 0);
  int64_t inner = out.shape[rank - 1];
  for (int64_t base = 0, total = out.numel(); base < total; base += inner) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      off += (starts[d] + index[d] * steps[d]) * inStride[d];
    for (int64_t i = 0; i < inner; ++i)
      copyElement(dst + (base + i) * esize,
                  src + (off + starts[rank - 1] + i * steps[rank - 1]) * esize,
                  esize);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
  return Error::success();
}

} // namespace strata::runtime::kernels
