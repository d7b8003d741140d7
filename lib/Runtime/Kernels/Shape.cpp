//===- Shape.cpp - reshape, copy, transpose, concat (any dtype) -----------===//
//
// These move bytes only, so they work for every element type.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <cstring>

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
                    ctx.outs[0].typeString() +
                    " differ in element count");
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
} // namespace

Error reshapeKernel(KernelContext &ctx) { return byteCopy(ctx); }
Error copyKernel(KernelContext &ctx) { return byteCopy(ctx); }

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
  // Source stride of each result dimension.
  std::vector<int64_t> srcStride(rank);
  for (size_t d = 0; d < rank; ++d)
    srcStride[d] = inStride[perm[d]];
  const uint8_t *src = static_cast<const uint8_t *>(in.data);
  uint8_t *dst = static_cast<uint8_t *>(out.data);
  if (rank == 0) {
    copyElement(dst, src, esize);
    return Error::success();
  }
  int64_t inner = out.shape[rank - 1], innerStride = srcStride[rank - 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t base = 0; base < total; base += inner) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      off += index[d] * srcStride[d];
    for (int64_t i = 0; i < inner; ++i)
      copyElement(dst + (base + i) * esize,
                  src + (off + i * innerStride) * esize, esize);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
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
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + o * outRow + done, src + o * row, row);
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
                    "of " + in.typeString() + " -> " + out.typeString());
  for (size_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return ctx.fail("step of dimension " + std::to_string(d) + " is zero");
    if (out.shape[d] == 0)
      continue;
    int64_t last = starts[d] + (out.shape[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= in.shape[d] || last < 0 ||
        last >= in.shape[d])
      return ctx.fail("dimension " + std::to_string(d) +
                      " reads outside " + in.typeString());
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
