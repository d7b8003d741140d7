//===- Portable.cpp - registration of the portable kernels ----------------===//
#include "KernelUtils.h"

namespace strata::runtime {

namespace kernels {

Error checkArity(const KernelIO &ctx, size_t minIns, size_t maxIns,
                 size_t outs) {
  if (ctx.ins.size() < minIns || ctx.ins.size() > maxIns)
    return ctx.fail("takes " + std::to_string(minIns) +
                    (minIns == maxIns ? "" : "-" + std::to_string(maxIns)) +
                    " inputs, got " + std::to_string(ctx.ins.size()));
  if (ctx.outs.size() != outs)
    return ctx.fail("writes " + std::to_string(outs) + " outputs, got " +
                    std::to_string(ctx.outs.size()));
  return Error::success();
}

Error checkAllF32(const KernelIO &ctx) {
  for (const TensorView &v : ctx.ins)
    if (v.dtype != DType::F32)
      return ctx.fail("takes f32 operands, got " + v.typeString());
  for (const TensorView &v : ctx.outs)
    if (v.dtype != DType::F32)
      return ctx.fail("writes f32 results, got " + v.typeString());
  return Error::success();
}

Error checkSameShape(const KernelIO &ctx, const TensorView &a,
                     const TensorView &b, const char *what) {
  if (a.shape != b.shape)
    return ctx.fail(std::string(what) + ": shapes " + shapeToString(a.shape) +
                    " and " + shapeToString(b.shape) + " differ");
  return Error::success();
}

int64_t normalizeAxis(int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    return -1;
  return axis < 0 ? axis + r : axis;
}

Error checkReducedShape(const KernelIO &io, const TensorView &in,
                        const TensorView &out, bool keepDims,
                        const std::vector<bool> &reduced) {
  std::vector<int64_t> expected;
  for (size_t d = 0; d < in.rank(); ++d) {
    if (!reduced[d])
      expected.push_back(in.shape[d]);
    else if (keepDims)
      expected.push_back(1);
  }
  if (out.shape != expected)
    return io.fail("result " + out.typeString() + " does not match reducing " +
                   in.typeString());
  return Error::success();
}

Error readReductionAxes(const KernelContext &ctx, std::vector<bool> &reduced) {
  const TensorView &in = ctx.ins[0];
  size_t rank = in.rank();
  STRATA_KERNEL_ASSIGN(axes, ctx.params.getInts("axes", {}));
  STRATA_KERNEL_ASSIGN(keepDims, ctx.params.getBool("keep_dims", true));
  reduced.assign(rank, axes.empty());
  for (int64_t axis : axes) {
    int64_t a = normalizeAxis(axis, rank);
    if (a < 0)
      return ctx.fail("axis " + std::to_string(axis) + " is out of range for " +
                      in.typeString());
    reduced[a] = true;
  }
  return checkReducedShape(ctx, in, ctx.outs[0], keepDims, reduced);
}

} // namespace kernels

Error registerPortableKernels(KernelRegistry &registry) {
  using namespace kernels;
  const std::pair<const char *, KernelFn> table[] = {
      {"add", addKernel},
      {"sub", subKernel},
      {"mul", mulKernel},
      {"div", divKernel},
      {"pow", powKernel},
      {"relu", reluKernel},
      {"sigmoid", sigmoidKernel},
      {"tanh", tanhKernel},
      {"exp", expKernel},
      {"sqrt", sqrtKernel},
      {"neg", negKernel},
      {"abs", absKernel},
      {"clip", clipKernel},
      {"reduce_mean", reduceMeanKernel},
      {"softmax", softmaxKernel},
      {"log_softmax", logSoftmaxKernel},
      {"reshape", reshapeKernel},
      {"shape_of", shapeOfKernel},
      {"copy", copyKernel},
      {"transpose", transposeKernel},
      {"concat", concatKernel},
      {"slice", sliceKernel},
      {"pad", padKernel},
      {"dynamic_slice", dynamicSliceKernel},
      {"cum_sum", cumSumKernel},
      {"log", logKernel},
      {"sin", sinKernel},
      {"cos", cosKernel},
      {"tan", tanKernel},
      {"asin", asinKernel},
      {"acos", acosKernel},
      {"atan", atanKernel},
      {"sinh", sinhKernel},
      {"cosh", coshKernel},
      {"asinh", asinhKernel},
      {"acosh", acoshKernel},
      {"atanh", atanhKernel},
      {"floor", floorKernel},
      {"ceil", ceilKernel},
      {"round", roundKernel},
      {"erf", erfKernel},
      {"sign", signKernel},
      {"maximum", maximumKernel},
      {"minimum", minimumKernel},
      {"cast", castKernel},
      {"reduce_sum", reduceSumKernel},
      {"reduce_max", reduceMaxKernel},
      {"reduce_min", reduceMinKernel},
      {"reduce_prod", reduceProdKernel},
      {"arg_max", argMaxKernel},
      {"arg_min", argMinKernel},
      {"equal", equalKernel},
      {"less", lessKernel},
      {"less_equal", lessEqualKernel},
      {"logical_and", logicalAndKernel},
      {"logical_or", logicalOrKernel},
      {"logical_xor", logicalXorKernel},
      {"logical_not", logicalNotKernel},
      {"select", selectKernel},
      {"mod", modKernel},
      {"bit_shift", bitShiftKernel},
      {"bitwise_and", bitwiseAndKernel},
      {"bitwise_or", bitwiseOrKernel},
      {"bitwise_xor", bitwiseXorKernel},
      {"bitwise_not", bitwiseNotKernel},
      {"gather_elements", gatherElementsKernel},
      {"gather", gatherKernel},
      {"gather_nd", gatherNdKernel},
      {"range", rangeKernel},
      {"resize", resizeKernel},
      {"grid_sample", gridSampleKernel},
      {"roi_align", roiAlignKernel},
      {"reverse_sequence", reverseSequenceKernel},
      {"det", detKernel},
      {"stft", stftKernel},
      {"scatter_nd", scatterNdKernel},
      {"scatter_elements", scatterElementsKernel},
      {"arg_top_k", argTopKKernel},
      {"non_zero", nonZeroKernel},
      {"branch_result", branchResultKernel},
      {"fill", fillKernel},
      {"compress", compressKernel},
      {"unique", uniqueKernel},
      {"non_max_suppression", nonMaxSuppressionKernel},
      {"quantize_linear", quantizeLinearKernel},
      {"dynamic_quantize_linear", dynamicQuantizeLinearKernel},
      {"dequantize_linear", dequantizeLinearKernel},
  };
  for (const auto &[name, fn] : table)
    STRATA_RETURN_IF_ERROR(registry.add(name, fn));
  const std::pair<const char *, KernelEntry> typed[] = {
      {"matmul", matmulKernel()},
      {"conv2d", conv2dKernel()},
      {"deform_conv2d", deformConv2dKernel()},
      {"conv_transpose2d", convTranspose2dKernel()},
      {"quantized_conv2d", quantizedConv2dKernel()},
      {"quantized_matmul", quantizedMatmulKernel()},
      {"weight_quantized_matmul", weightQuantizedMatmulKernel()},
      {"max_pool2d", maxPool2dKernel()},
      {"avg_pool2d", avgPool2dKernel()},
      {"rnn", rnnKernel()},
      {"gru", gruKernel()},
      {"lstm", lstmKernel()},
  };
  for (const auto &[name, entry] : typed)
    STRATA_RETURN_IF_ERROR(registry.add(name, entry));
  return Error::success();
}

} // namespace strata::runtime
