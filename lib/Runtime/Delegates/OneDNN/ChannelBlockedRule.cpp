//===- ChannelBlockedRule.cpp - when activations run nChw16c --------------===//
//
// Measured on AVX-512 (Zen 5, oneDNN 2.6, one thread), each convolution
// alone, nChw16c against channels-last:
// - depthwise: jit_dw 25-35% faster than brdgmm_dw;
// - 1x1 with 16-96 input channels: jit_1x1 about 15% faster than
//   brgconv_1x1, about even above;
// - dense kxk: brgconv about 30% faster (Inception's 1x7 and 7x1: 37 ms
//   against 51 ms), and grouped ones slower blocked too (RegNet's 8-channel
//   groups);
// - concatenations, transposes and slices of blocked activations need
//   reorders (ShuffleNet's channel shuffle: 50 more of them).
// Whole networks follow the mix: blocked gained 4-10% on networks built of
// depthwise and 1x1 convolutions only (EfficientNet-B0, MobileNet-V3,
// MNASNet) and lost up to 30% on those with dense or grouped kxk ones
// (Inception-V3, RegNetY). The rule therefore takes the graphs whose
// convolutions are all depthwise or 1x1, but for a stem reading at most
// four channels, and whose other ops keep the layout.
//
//===----------------------------------------------------------------------===//
#include "ChannelBlockedRule.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace strata::runtime::onednn {

namespace fbs = strata::onednn::fb;

bool hostRunsChannelBlocked16() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
}

namespace {

/// The dims of tensor `i`, empty when out of range.
std::vector<int64_t> dimsOf(const fbs::Graph &graph, uint32_t i) {
  if (!graph.tensors() || i >= graph.tensors()->size() ||
      !graph.tensors()->Get(i)->dims())
    return {};
  const auto *dims = graph.tensors()->Get(i)->dims();
  return {dims->begin(), dims->end()};
}

bool isF32(const fbs::Graph &graph, uint32_t i) {
  return graph.tensors() && i < graph.tensors()->size() &&
         graph.tensors()->Get(i)->dtype() == fbs::DataType::F32;
}

/// Why a convolution keeps the graph open, or empty when it fits.
std::string convolutionMisfit(const fbs::Graph &graph, const fbs::Op &op,
                              bool &depthwise) {
  if (!op.inputs() || op.inputs()->size() < 2 || !op.outputs() ||
      op.outputs()->size() != 1)
    return "a convolution without input and weights";
  uint32_t src = op.inputs()->Get(0), dst = op.outputs()->Get(0);
  if (!isF32(graph, src) || !isF32(graph, dst))
    return "an 8-bit convolution";
  std::vector<int64_t> s = dimsOf(graph, src),
                       w = dimsOf(graph, op.inputs()->Get(1));
  if (s.size() != 4 || w.size() != 4)
    return "a 1-d convolution";
  int64_t groups = op.groups();
  if (groups > 1) {
    if (groups == s[1] && w[1] == 1) {
      depthwise = true;
      return "";
    }
    return "a grouped convolution";
  }
  if (w[2] * w[3] > 1 && s[1] > 4)
    return "a dense " + std::to_string(w[2]) + "x" + std::to_string(w[3]) +
           " convolution past the stem";
  return "";
}

} // namespace

bool channelBlockedPays(const fbs::Graph &graph, std::string *why) {
  auto no = [&](std::string reason) {
    if (why)
      *why = std::move(reason);
    return false;
  };
  if (!hostRunsChannelBlocked16())
    return no("the CPU lacks AVX-512");
  if (!graph.ops())
    return no("no ops");
  bool anyDepthwise = false;
  for (const fbs::Op *op : *graph.ops()) {
    switch (op->kind()) {
    case fbs::OpKind::Convolution:
      if (std::string misfit = convolutionMisfit(graph, *op, anyDepthwise);
          !misfit.empty())
        return no(misfit);
      break;
    case fbs::OpKind::Eltwise:
    case fbs::OpKind::Binary:
    case fbs::OpKind::ReduceMean:
    case fbs::OpKind::MaxPool:
    case fbs::OpKind::AvgPool:
    case fbs::OpKind::ScaleShift:
    case fbs::OpKind::MatMul:
    case fbs::OpKind::Softmax:
      break;
    case fbs::OpKind::Reshape: {
      // A classifier's flatten of pooled [N, C, 1, 1] features.
      std::vector<int64_t> in = op->inputs() && op->inputs()->size()
                                    ? dimsOf(graph, op->inputs()->Get(0))
                                    : std::vector<int64_t>();
      if (in.size() == 4 && in[2] * in[3] != 1)
        return no("a reshape of a feature map");
      break;
    }
    default:
      return no(std::string("a ") + fbs::EnumNameOpKind(op->kind()) +
                " (its layout is not kept)");
    }
  }
  if (!anyDepthwise)
    return no("no depthwise convolution");
  return true;
}

} // namespace strata::runtime::onednn
