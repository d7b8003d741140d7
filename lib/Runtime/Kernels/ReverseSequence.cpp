//===- ReverseSequence.cpp - reverse batch sequences up to their lengths --===//
//
// ONNX ReverseSequence on [T, B, ...] (time_axis 0) or [B, T, ...]
// (time_axis 1) tensors of any element type: step t < len[b] of batch entry
// b reads step len[b] - 1 - t, the others are copied. Each step of an entry
// is one contiguous run of the trailing extents, moved with one memcpy.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

namespace strata::runtime::kernels {

Error reverseSequenceKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 2, 2, 1));
  const TensorView &in = ctx.ins[0], &lens = ctx.ins[1], &out = ctx.outs[0];
  STRATA_KERNEL_ASSIGN(batchAxis, ctx.params.getInt("batch_axis", -1));
  STRATA_KERNEL_ASSIGN(timeAxis, ctx.params.getInt("time_axis", -1));
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return ctx.fail("'batch_axis' and 'time_axis' must be 0 and 1, got " +
                    std::to_string(batchAxis) + " and " +
                    std::to_string(timeAxis));
  if (in.rank() < 2 || out.dtype != in.dtype || out.shape != in.shape ||
      lens.dtype != DType::I64 || lens.rank() != 1 ||
      lens.shape[0] != in.shape[batchAxis])
    return ctx.fail("takes a tensor of rank >= 2 and one i64 length per "
                    "batch entry to a tensor of the input's type, got " +
                    in.typeString() + ", " + lens.typeString() + " -> " +
                    out.typeString());
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();

  int64_t steps = in.shape[timeAxis], batch = in.shape[batchAxis];
  size_t run = dtypeSize(in.dtype);
  for (size_t d = 2; d < in.shape.size(); ++d)
    run *= static_cast<size_t>(in.shape[d]);
  const int64_t *length = lens.as<int64_t>();
  for (int64_t b = 0; b < batch; ++b)
    if (length[b] < 0 || length[b] > steps)
      return ctx.fail("sequence length " + std::to_string(length[b]) +
                      " of batch entry " + std::to_string(b) +
                      " is outside [0, " + std::to_string(steps) + "]");
  // The element offset (in runs) of step t of batch entry b.
  auto offset = [&](int64_t t, int64_t b) {
    return static_cast<size_t>(timeAxis == 0 ? t * batch + b : b * steps + t);
  };
  const char *src = static_cast<const char *>(in.data);
  char *dst = static_cast<char *>(out.data);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < steps; ++t) {
      int64_t from = t < length[b] ? length[b] - 1 - t : t;
      std::memcpy(dst + offset(t, b) * run, src + offset(from, b) * run, run);
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
