//===- WinogradStep.cpp - the delegate's Winograd kernel as a step --------===//
//
// Where a convolution fits the delegate's own Winograd kernel (Winograd.h,
// F(2x2,3x3) or F(4x4,3x3)) and prepare chose it, the step runs that kernel on
// nChw16c, nChw8c or channels-last input and output, with weights transformed
// at prepare (or, past the program's size budget, at init).
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

namespace strata::runtime::onednn {

using dnnl::memory;
using tag = memory::format_tag;

std::optional<WinogradConv> GraphBuilder::ownWinograd(const fbs::Op &op,
                                                      uint32_t src, uint32_t w,
                                                      uint32_t dst, int bias,
                                                      WinogradLayout layout,
                                                      WinogradTile tile) const {
  if (!WinogradConv::available() || op.groups() != 1 || op.exact() ||
      (op.output_scales() && op.output_scales()->size() > 0))
    return std::nullopt;
  for (uint32_t t : {src, w, dst})
    if (typeOf(t) != memory::data_type::f32)
      return std::nullopt;
  if (bias >= 0 &&
      typeOf(static_cast<uint32_t>(bias)) != memory::data_type::f32)
    return std::nullopt;
  Dims s = dimsOf(src), k = dimsOf(w), d = dimsOf(dst);
  Dims one{1, 1};
  // The same padding, 0 or 1, on every side ("same" and "valid" 3x3).
  Dims pads = longs(op.pads_begin(), 2, 0);
  int64_t pad = pads[0];
  if (k[2] != 3 || k[3] != 3 || longs(op.strides(), 2, 1) != one ||
      longs(op.dilations(), 2, 1) != one || pads[1] != pad ||
      longs(op.pads_end(), 2, 0) != pads || s[1] != k[1] || d[1] != k[0] ||
      d[0] != s[0] || d[2] != s[2] + 2 * pad - 2 ||
      d[3] != s[3] + 2 * pad - 2 ||
      !WinogradConv::supports(k[1], k[0], s[2], s[3], pad))
    return std::nullopt;
  std::vector<WinogradPostOp> postOps;
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops()) {
      WinogradPostOp post;
      if (p->is_sum()) {
        post.kind = WinogradPostOp::Kind::Sum;
        post.scale = p->scale();
      } else if (p->eltwise() == fbs::EltwiseKind::Swish) {
        post.kind = WinogradPostOp::Kind::Swish;
        post.alpha = p->alpha();
      } else if (p->eltwise() == fbs::EltwiseKind::HardSwish) {
        post.kind = WinogradPostOp::Kind::HardSwish;
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
  return WinogradConv(k[1], k[0], s[2], s[3], layout, std::move(postOps),
                      options.threads, pad, tile);
}

Result<int> GraphBuilder::weightsFromWinograd(uint32_t w, const Desc &want,
                                              const WinogradConv &conv) {
  return weightsFromOwnKernel(
      w, want, dimsOf(w), conv.packedBytes(),
      [&](const float *packed, float *oihw) {
        conv.unpackWeights(packed, oihw);
      },
      "the Winograd kernel's transformed weights");
}

Error GraphBuilder::buildOwnWinograd(const WinogradConv &conv, uint32_t src,
                                     uint32_t w, int bias, uint32_t dst,
                                     int sumInput, bool weightsAtInit) {
  Result<int> wMem = ownKernelWeights(
      w, conv.packedBytes(), conv.plainWeightBytes(),
      [&](const float *plain, float *packed) {
        conv.packWeights(plain, packed);
      },
      "the Winograd kernel's transformed weights", weightsAtInit);
  if (!wMem.ok())
    return wMem.takeError();
  auto kernel = std::make_shared<WinogradConv>(conv);
  STRATA_RETURN_IF_ERROR(addOwnConvStep(
      conv.name(), src, dst, sumInput, tagOf(conv.layout()), *wMem,
      conv.inputFloats(), conv.outputFloats(), conv.scratchBytes(),
      [kernel](const float *in, const float *weights, const float *biasData,
               float *result, void *scratch) {
        kernel->run(in, weights, biasData, result, scratch);
      }));
  return addBias(bias, {conv.outputChannels()});
}

} // namespace strata::runtime::onednn
