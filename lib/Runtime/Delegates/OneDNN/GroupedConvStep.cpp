//===- GroupedConvStep.cpp - the delegate's grouped kernel as a step ------===//
//
// Where a grouped convolution fits the delegate's own kernel for 4- and
// 8-channel groups (GroupedConv.h) and prepare chose it, the step runs
// that kernel on input and output in nChw8c, nChw16c or nhwc (the kind
// prepare recorded), with weights packed at prepare.
// On a CPU without AVX2, oneDNN runs it from the unpacked weights.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

namespace strata::runtime::onednn {

using dnnl::memory;
using tag = memory::format_tag;

std::optional<GroupedConv>
GraphBuilder::ownGrouped(const fbs::Op &op, uint32_t src, uint32_t w,
                         uint32_t dst, int bias,
                         const OwnGroupedKind &kind) const {
  if (op.groups() <= 1 ||
      (op.output_scales() && op.output_scales()->size() > 0))
    return std::nullopt;
  for (uint32_t t : {src, w, dst})
    if (typeOf(t) != memory::data_type::f32)
      return std::nullopt;
  if (bias >= 0 &&
      typeOf(static_cast<uint32_t>(bias)) != memory::data_type::f32)
    return std::nullopt;
  Dims s = dimsOf(src), k = dimsOf(w), d = dimsOf(dst);
  Window window = windowOf(op);
  if (s.size() != 4 || k.size() != 4 || d.size() != 4 || s[0] != d[0] ||
      s[1] != d[1] || k[0] != d[1] || k[1] * op.groups() != s[1] ||
      window.dilations != Dims{0, 0})
    return std::nullopt;
  GroupedConvShape shape;
  shape.channels = s[1], shape.groups = op.groups();
  shape.ih = s[2], shape.iw = s[3], shape.oh = d[2], shape.ow = d[3];
  shape.kh = k[2], shape.kw = k[3];
  shape.strideH = window.strides[0], shape.strideW = window.strides[1];
  shape.padTop = window.padsBegin[0], shape.padLeft = window.padsBegin[1];
  shape.pixelChannels = kind.layout == tag::aBcd8b    ? 8
                        : kind.layout == tag::aBcd16b ? 16
                                                      : shape.channels;
  if (!GroupedConv::supports(shape))
    return std::nullopt;
  std::vector<GroupedPostOp> postOps;
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops()) {
      GroupedPostOp post;
      if (p->is_sum()) {
        return std::nullopt;
      } else if (p->eltwise() == fbs::EltwiseKind::Relu && p->alpha() >= 0 &&
                 p->alpha() <= 1) {
        post.slope = p->alpha();
      } else if (p->eltwise() == fbs::EltwiseKind::Clip) {
        post.slope = 1;
        post.low = p->alpha();
        post.high = p->beta();
      } else {
        return std::nullopt;
      }
      postOps.push_back(post);
    }
  return GroupedConv(shape, std::move(postOps), options.threads);
}

Result<int> GraphBuilder::weightsFromGrouped(uint32_t w, const Desc &want,
                                             const Dims &plainDims,
                                             const GroupedConv &conv) {
  return weightsFromOwnKernel(
      w, want, plainDims, conv.weightBytes(),
      [&](const float *packed, float *plain) {
        conv.unpackWeights(packed, plain);
      },
      "the grouped kernel's packed weights");
}

Error GraphBuilder::buildOwnGrouped(const GroupedConv &conv,
                                    const OwnGroupedKind &kind, uint32_t src,
                                    uint32_t w, int bias, uint32_t dst) {
  Result<int> wMem = ownKernelWeights(
      w, conv.weightBytes(), conv.weightBytes(),
      [&](const float *plain, float *packed) {
        conv.packWeights(plain, packed);
      },
      "the grouped kernel's packed weights");
  if (!wMem.ok())
    return wMem.takeError();
  auto kernel = std::make_shared<GroupedConv>(conv);
  STRATA_RETURN_IF_ERROR(addOwnConvStep(
      kind.name, src, dst, /*sumInput=*/-1, kind.layout, *wMem,
      conv.inputFloats(), conv.outputFloats(), /*scratchBytes=*/0,
      [kernel](const float *in, const float *weights, const float *biasData,
               float *result,
               void *) { kernel->run(in, weights, biasData, result); }));
  return addBias(bias, {conv.shape().channels});
}

} // namespace strata::runtime::onednn
