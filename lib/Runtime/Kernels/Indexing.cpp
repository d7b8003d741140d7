//===- Indexing.cpp - gathers and scatter_elements ------------------------===//
//
// Index-driven data movement over any element type: elements are copied by
// size, never interpreted. Indices are i32 or i64; negative ones count from
// the end of the axis, and any index outside it fails the call.
//
//===----------------------------------------------------------------------===//
#include "Dispatch.h"
#include "KernelUtils.h"

#include <algorithm>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

/// Reads index `i` of an i32 or i64 tensor.
int64_t readIndex(const TensorView &indices, int64_t i) {
  return indices.dtype == DType::I64 ? indices.as<const int64_t>()[i]
                                     : indices.as<const int32_t>()[i];
}

} // namespace

/// Checks that `in` has the result's type and `indices` are i32 or i64 (the
/// gather kernels).
static Error checkDataAndIndices(const KernelContext &ctx, const TensorView &in,
                                 const TensorView &indices,
                                 const TensorView &out) {
  if (in.dtype != out.dtype ||
      (indices.dtype != DType::I64 && indices.dtype != DType::I32))
    return ctx.fail("takes data of the result's type and i32/i64 indices, "
                    "got " +
                    in.typeString() + ", " + indices.typeString() + " -> " +
                    out.typeString());
  return Error::success();
}

Error gatherElementsKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &indices = ctx.ins[1], &out = ctx.outs[0];
  STRATA_RETURN_IF_ERROR(checkDataAndIndices(ctx, in, indices, out));
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", 0));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0 || indices.rank() != in.rank())
    return ctx.fail("axis " + std::to_string(axisParam) + " or indices " +
                    indices.typeString() + " do not fit " + in.typeString());
  STRATA_RETURN_IF_ERROR(
      checkSameShape(ctx, indices, out, "indices and result"));
  if (ctx.validateOnly)
    return Error::success();
  size_t rank = in.rank(), size = dtypeSize(in.dtype);
  std::vector<int64_t> inStrides(rank, 1);
  for (size_t d = rank; d-- > 1;)
    inStrides[d - 1] = inStrides[d] * in.shape[d];
  const char *x = in.as<const char>();
  char *y = out.as<char>();
  int64_t extent = in.shape[axis];
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    int64_t at = readIndex(indices, i);
    if (at < 0)
      at += extent;
    if (at < 0 || at >= extent)
      return ctx.fail("index " + std::to_string(readIndex(indices, i)) +
                      " is outside axis " + std::to_string(axis) + " of " +
                      in.typeString());
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d)
      source +=
          (static_cast<int64_t>(d) == axis ? at : index[d]) * inStrides[d];
    std::memcpy(y + i * size, x + source * size, size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
  return Error::success();
}

/// The scatter kernels' `reduction`: 0 none, 1 add, 2 mul, 3 max, 4 min
/// (the last four on numeric types only).
static Result<int> scatterReduction(const KernelContext &ctx,
                                    const TensorView &data) {
  const Param *param = ctx.params.find("reduction");
  std::string reduction = param ? param->stringValue : "none";
  int kind = reduction == "none"  ? 0
             : reduction == "add" ? 1
             : reduction == "mul" ? 2
             : reduction == "max" ? 3
             : reduction == "min" ? 4
                                  : -1;
  if (kind < 0 || (kind > 0 && !dispatchNumeric(data.dtype, [](auto) {})))
    return ctx.fail("reduction '" + reduction + "' is not supported for " +
                    data.typeString());
  return kind;
}

/// Writes (kind 0) or combines (1 add, 2 mul, 3 max, 4 min) `updates`
/// into `out`: run i of `run` elements goes to element `targets[i]` on, in
/// order.
static void scatterInto(const TensorView &out, const TensorView &updates,
                        const std::vector<int64_t> &targets, int64_t run,
                        int kind) {
  size_t size = dtypeSize(out.dtype);
  if (kind == 0) {
    // Single elements of 4 or 8 bytes (scatter_elements on f32 or i64, a
    // MaxUnpool's): plain typed stores instead of a memcpy call each.
    auto store = [&](auto tag) {
      using T = decltype(tag);
      const T *u = updates.as<const T>();
      T *y = out.as<T>();
      for (size_t i = 0; i < targets.size(); ++i)
        y[targets[i]] = u[i];
    };
    if (run == 1 && size == 4)
      return store(uint32_t{});
    if (run == 1 && size == 8)
      return store(uint64_t{});
    const char *u = updates.as<const char>();
    char *y = out.as<char>();
    for (size_t i = 0; i < targets.size(); ++i)
      std::memcpy(y + targets[i] * size, u + i * run * size, run * size);
    return;
  }
  dispatchNumeric(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *u = updates.as<const T>();
    T *y = out.as<T>();
    for (size_t i = 0; i < targets.size(); ++i)
      for (int64_t j = 0; j < run; ++j) {
        T &slot = y[targets[i] + j];
        T value = u[i * run + j];
        switch (kind) {
        case 1:
          slot = wrapping(slot, value, [](auto a, auto b) { return a + b; });
          break;
        case 2:
          slot = wrapping(slot, value, [](auto a, auto b) { return a * b; });
          break;
        case 3:
          slot = slot < value ? value : slot;
          break;
        default:
          slot = value < slot ? value : slot;
          break;
        }
      }
  });
}

Error scatterElementsKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &in = ctx.ins[0], &indices = ctx.ins[1];
  const TensorView &updates = ctx.ins[2], &out = ctx.outs[0];
  if (in.dtype != out.dtype || updates.dtype != out.dtype ||
      (indices.dtype != DType::I64 && indices.dtype != DType::I32))
    return ctx.fail("takes data and updates of the result's type and "
                    "i32/i64 indices");
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", 0));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0 || indices.rank() != in.rank())
    return ctx.fail("axis " + std::to_string(axisParam) + " or indices " +
                    indices.typeString() + " do not fit " + in.typeString());
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  STRATA_RETURN_IF_ERROR(
      checkSameShape(ctx, indices, updates, "indices and updates"));
  STRATA_ASSIGN_OR_RETURN(int kind, scatterReduction(ctx, in));
  if (ctx.validateOnly)
    return Error::success();
  if (out.numel() == 0)
    return Error::success();
  size_t rank = in.rank();
  if (out.data != in.data)
    std::memcpy(out.data, in.data, in.nbytes());
  std::vector<int64_t> outStrides(rank, 1);
  for (size_t d = rank; d-- > 1;)
    outStrides[d - 1] = outStrides[d] * out.shape[d];
  int64_t extent = in.shape[axis], axisStride = outStrides[axis];
  // Element offsets of every update first, so bad indices fail cleanly:
  // `base` is the offset of the update's position with 0 on the axis,
  // stepped along with the position, rows of the last dimension at once.
  std::vector<int64_t> targets(updates.numel());
  std::vector<int64_t> index(rank, 0);
  int64_t row = indices.shape[rank - 1];
  int64_t rowStep = static_cast<size_t>(axis) == rank - 1 ? 0 : 1;
  int64_t base = 0;
  for (int64_t i = 0, n = updates.numel(); i < n; i += row) {
    for (int64_t j = 0; j < row; ++j) {
      int64_t at = readIndex(indices, i + j);
      if (at < -extent || at >= extent)
        return ctx.fail("index " + std::to_string(at) + " is outside axis " +
                        std::to_string(axis) + " of " + in.typeString());
      if (at < 0)
        at += extent;
      targets[i + j] = base + j * rowStep + at * axisStride;
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (static_cast<int64_t>(d) != axis)
        base += outStrides[d];
      if (++index[d] < indices.shape[d])
        break;
      if (static_cast<int64_t>(d) != axis)
        base -= outStrides[d] * indices.shape[d];
      index[d] = 0;
    }
  }
  scatterInto(out, updates, targets, 1, kind);
  return Error::success();
}

Error scatterNdKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 3, 1));
  const TensorView &in = ctx.ins[0], &indices = ctx.ins[1];
  const TensorView &updates = ctx.ins[2], &out = ctx.outs[0];
  if (in.dtype != out.dtype || updates.dtype != out.dtype ||
      indices.dtype != DType::I64)
    return ctx.fail("takes data and updates of the result's type and i64 "
                    "indices");
  STRATA_RETURN_IF_ERROR(checkSameShape(ctx, in, out, "input and result"));
  size_t rank = in.rank();
  int64_t k = indices.rank() ? indices.shape.back() : 0;
  if (indices.rank() == 0 || k < 1 || k > static_cast<int64_t>(rank))
    return ctx.fail("indices " + indices.typeString() +
                    " need a last extent in [1, " + std::to_string(rank) + "]");
  std::vector<int64_t> slice(indices.shape.begin(), indices.shape.end() - 1);
  slice.insert(slice.end(), in.shape.begin() + k, in.shape.end());
  if (updates.shape != slice)
    return ctx.fail("updates " + updates.typeString() +
                    " do not match indices " + indices.typeString() + " into " +
                    in.typeString());
  STRATA_ASSIGN_OR_RETURN(int kind, scatterReduction(ctx, in));
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();
  // In place when the result is the data (a run-time loop's scan buffer).
  if (out.data != in.data)
    std::memcpy(out.data, in.data, in.nbytes());
  // Elements per addressed slice, and where each tuple's slice starts;
  // every tuple is checked before anything is written.
  int64_t sliceSize = 1;
  for (size_t d = k; d < rank; ++d)
    sliceSize *= in.shape[d];
  int64_t tuples = updates.numel() / std::max<int64_t>(sliceSize, 1);
  std::vector<int64_t> targets(tuples);
  const int64_t *idx = indices.as<const int64_t>();
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t extent = in.shape[d], at = idx[t * k + d];
      if (at < -extent || at >= extent)
        return ctx.fail("index " + std::to_string(at) + " is outside axis " +
                        std::to_string(d) + " of " + in.typeString());
      offset = offset * extent + (at < 0 ? at + extent : at);
    }
    targets[t] = offset * sliceSize;
  }
  scatterInto(out, updates, targets, sliceSize, kind);
  return Error::success();
}

Error gatherNdKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &indices = ctx.ins[1], &out = ctx.outs[0];
  if (in.dtype != out.dtype || indices.dtype != DType::I64)
    return ctx.fail("takes data of the result's type and i64 indices");
  STRATA_KERNEL_ASSIGN(batch, ctx.params.getInt("batch_dims", 0));
  int64_t rank = in.rank(), indexRank = indices.rank();
  if (indexRank < 1 || batch < 0 || batch >= indexRank || batch >= rank)
    return ctx.fail("batch_dims " + std::to_string(batch) + " does not fit " +
                    in.typeString() + " and " + indices.typeString());
  int64_t tuple = indices.shape.back();
  if (tuple < 1 || batch + tuple > rank ||
      !std::equal(in.shape.begin(), in.shape.begin() + batch,
                  indices.shape.begin()))
    return ctx.fail("indices " + indices.typeString() + " do not fit " +
                    in.typeString());
  std::vector<int64_t> expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), in.shape.begin() + batch + tuple,
                  in.shape.end());
  if (out.shape != expected)
    return ctx.fail("result " + out.typeString() + " does not match " +
                    in.typeString() + " and " + indices.typeString());
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();
  int64_t batches = 1, slice = 1, perBatchIn = 1;
  for (int64_t d = 0; d < batch; ++d)
    batches *= in.shape[d];
  for (int64_t d = batch + tuple; d < rank; ++d)
    slice *= in.shape[d];
  for (int64_t d = batch; d < rank; ++d)
    perBatchIn *= in.shape[d];
  // Element strides of the tuple's dimensions inside one batch.
  std::vector<int64_t> strides(tuple, slice);
  for (int64_t j = tuple - 1; j-- > 0;)
    strides[j] = strides[j + 1] * in.shape[batch + j + 1];
  int64_t tuplesPerBatch = indices.numel() / tuple / batches;
  size_t size = dtypeSize(in.dtype), block = slice * size;
  const int64_t *idx = indices.as<const int64_t>();
  const char *x = in.as<const char>();
  char *y = out.as<char>();
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t t = 0; t < tuplesPerBatch; ++t) {
      const int64_t *at = idx + (b * tuplesPerBatch + t) * tuple;
      int64_t offset = b * perBatchIn;
      for (int64_t j = 0; j < tuple; ++j) {
        int64_t extent = in.shape[batch + j], v = at[j];
        if (v < -extent || v >= extent)
          return ctx.fail("index " + std::to_string(v) + " is outside " +
                          in.typeString());
        offset += (v < 0 ? v + extent : v) * strides[j];
      }
      std::memcpy(y + (b * tuplesPerBatch + t) * block, x + offset * size,
                  block);
    }
  return Error::success();
}

Error gatherKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &indices = ctx.ins[1], &out = ctx.outs[0];
  STRATA_RETURN_IF_ERROR(checkDataAndIndices(ctx, in, indices, out));
  STRATA_KERNEL_ASSIGN(axisParam, ctx.params.getInt("axis", 0));
  int64_t axis = normalizeAxis(axisParam, in.rank());
  if (axis < 0)
    return ctx.fail("axis " + std::to_string(axisParam) +
                    " is out of range for " + in.typeString());
  std::vector<int64_t> expected(in.shape.begin(), in.shape.begin() + axis);
  expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
  expected.insert(expected.end(), in.shape.begin() + axis + 1, in.shape.end());
  if (out.shape != expected)
    return ctx.fail("result " + out.typeString() +
                    " does not match gathering " + indices.typeString() +
                    " from " + in.typeString());
  if (ctx.validateOnly)
    return Error::success();
  AxisSplit split = splitAtAxis(in.shape, axis);
  int64_t outer = split.outer, inner = split.inner, extent = split.extent;
  if (out.numel() == 0)
    return Error::success();
  size_t block = static_cast<size_t>(inner) * dtypeSize(in.dtype);
  int64_t count = indices.numel();
  const char *x = in.as<const char>();
  char *y = out.as<char>();
  for (int64_t k = 0; k < count; ++k) {
    int64_t at = readIndex(indices, k);
    if (at < -extent || at >= extent)
      return ctx.fail("index " + std::to_string(at) + " is outside axis " +
                      std::to_string(axis) + " of " + in.typeString());
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t at = readIndex(indices, k);
      if (at < 0)
        at += extent;
      std::memcpy(y + (o * count + k) * block, x + (o * extent + at) * block,
                  block);
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
