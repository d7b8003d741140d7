//===- Deconvolution.cpp - transposed convolutions ------------------------===//
//
// ONNX ConvTranspose as oneDNN's deconvolution (its JIT kernels run it as
// the backward-data pass of a convolution): the layouts of input and result
// as oneDNN picks them, the weights packed from ONNX's [C, M, KH, KW]
// (oneDNN's iohw over {M, C, KH, KW}) at prepare, element-wise post-ops
// fused. Text detectors (DB heads) and U-Nets upsample so.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

namespace strata::runtime::onednn {

using dnnl::memory;
using tag = memory::format_tag;

Error GraphBuilder::buildDeconvolution(const fbs::Op &op) {
  uint32_t src = 0, w = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src, &w}, dst));
  STRATA_ASSIGN_OR_RETURN(int bias, optionalInput(op, 2));
  Dims srcDims = dimsOf(src), wDims = dimsOf(w), dstDims = dimsOf(dst);
  if (srcDims.size() != 4 || wDims.size() != 4 || dstDims.size() != 4)
    return fail("deconvolution needs 4-D tensors");
  if (op.groups() != 1)
    return fail("grouped deconvolutions are not supported");
  if (wDims[0] != srcDims[1] || wDims[1] != dstDims[1])
    return fail("deconvolution weights do not match the channels");
  // oneDNN's logical weight dims are {OC, IC, KH, KW}.
  Dims oihw = {wDims[1], wDims[0], wDims[2], wDims[3]};
  Window window = windowOf(op);
  int sumInput = -1;
  STRATA_ASSIGN_OR_RETURN(dnnl::primitive_attr attr, attrOf(op, &sumInput));
  if (sumInput >= 0)
    return fail("a deconvolution takes no sum post-op");
  Desc srcAny(srcDims, typeOf(src), tag::any);
  Desc dstAny(dstDims, typeOf(dst), tag::any);
  Desc wAny(oihw, typeOf(w), tag::any);
  Desc biasDesc = bias >= 0 ? plainDesc({dstDims[1]}) : Desc();
  dnnl::deconvolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
      srcAny, wAny, biasDesc, dstAny, window.strides, window.dilations,
      window.padsBegin, window.padsEnd);
  dnnl::deconvolution_forward::primitive_desc pd(d, attr, out.engine_);
  STRATA_ASSIGN_OR_RETURN(Placement in, as(src, pd.src_desc()));
  int srcMem = addMem(pd.src_desc(), in.buffer);
  STRATA_ASSIGN_OR_RETURN(int wMem,
                          weights(w, pd.weights_desc(), oihw, tag::iohw));
  STRATA_ASSIGN_OR_RETURN(Placement outP, resultOf(dst, -1, pd.dst_desc()));
  addStep(dnnl::deconvolution_forward(pd),
          {{DNNL_ARG_SRC, srcMem},
           {DNNL_ARG_WEIGHTS, wMem},
           {DNNL_ARG_DST, addMem(pd.dst_desc(), outP.buffer)}},
          pd);
  return addBias(bias, {dstDims[1]});
}

} // namespace strata::runtime::onednn
