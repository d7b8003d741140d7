//===- ChannelBlockedRule.cpp - when activations run nChw16c --------------===//
//
// Measured on AVX-512 (Zen 5, oneDNN 2.6, one thread), each convolution
// alone, nChw16c against channels-last:
// - depthwise: jit_dw 25-35% faster than brdgmm_dw;
// - 1x1 with 16-96 input channels: jit_1x1 about 15% faster than
//   brgconv_1x1, about even above;
// - dense kxk over 128 and more channels: brgconv about 30% faster
//   (Inception's 1x7 and 7x1: 37 ms against 51 ms); over at most 64 (a
//   stem, SqueezeNet's expand, EfficientNet-V2's fused blocks) about even;
// - grouped convolutions other than depthwise ones: slower blocked
//   (RegNet's 8-channel groups);
// - channel concatenations of whole blocks: in place blocked, copies
//   channels-last (SqueezeNet's eight: 0.36 ms of 2.9 at 2 threads);
// - transposes and slices of blocked activations need reorders
//   (ShuffleNet's channel shuffle: 50 more of them).
// Whole networks follow the mix: blocked gained 4-15% on networks built of
// depthwise and 1x1 convolutions (EfficientNet-B0, MobileNet-V3, MNASNet)
// and on SqueezeNet, and lost up to 30% on those with dense kxk ones over
// many channels or grouped ones (Inception-V3, RegNetY). The rule takes
// the graphs whose convolutions are depthwise, 1x1 or dense over at most
// 64 channels, with at least one depthwise or one concatenation, and whose
// other ops keep the layout.
//
//===----------------------------------------------------------------------===//
#include "ChannelBlockedRule.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <vector>

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

/// Whether a convolution fits the rule: f32, and depthwise (then
/// `depthwise` is set), 1x1, or dense over at most 64 input channels.
bool fitsTheRule(const fbs::Graph &graph, const fbs::Op &op, bool &depthwise) {
  if (!op.inputs() || op.inputs()->size() < 2 || !op.outputs() ||
      op.outputs()->size() != 1)
    return false;
  uint32_t src = op.inputs()->Get(0), dst = op.outputs()->Get(0);
  if (!isF32(graph, src) || !isF32(graph, dst))
    return false;
  std::vector<int64_t> s = dimsOf(graph, src),
                       w = dimsOf(graph, op.inputs()->Get(1));
  if (s.size() != 4 || w.size() != 4)
    return false;
  if (op.groups() > 1) {
    // Grouped convolutions other than depthwise ones run slower blocked.
    bool isDepthwise = op.groups() == s[1] && w[1] == 1;
    depthwise |= isDepthwise;
    return isDepthwise;
  }
  // Dense kxk convolutions over more than 64 channels: brgconv on
  // channels-last wins.
  return w[2] * w[3] == 1 || s[1] <= 64;
}

/// Whether `op` concatenates 4-D f32 tensors along channels in multiples
/// of 16.
bool concatOfWholeBlocks(const fbs::Graph &graph, const fbs::Op &op) {
  if (op.axis() != 1 || !op.inputs())
    return false;
  for (uint32_t t : *op.inputs()) {
    std::vector<int64_t> dims = dimsOf(graph, t);
    if (dims.size() != 4 || dims[1] % 16 != 0 || !isF32(graph, t))
      return false;
  }
  return true;
}

} // namespace

bool channelBlockedPays(const fbs::Graph &graph) {
  if (!hostRunsChannelBlocked16() || !graph.ops())
    return false;
  bool anyDepthwise = false, anyConcat = false;
  for (const fbs::Op *op : *graph.ops()) {
    switch (op->kind()) {
    case fbs::OpKind::Convolution:
      if (!fitsTheRule(graph, *op, anyDepthwise))
        return false;
      break;
    case fbs::OpKind::Eltwise:
    case fbs::OpKind::Binary:
    case fbs::OpKind::ReduceMean:
    case fbs::OpKind::MaxPool:
    case fbs::OpKind::AvgPool:
    case fbs::OpKind::ScaleShift:
    case fbs::OpKind::MatMul:
    case fbs::OpKind::Softmax:
    case fbs::OpKind::LogSoftmax:
    case fbs::OpKind::Resize: // reads and writes any layout
      break;
    case fbs::OpKind::Concat:
      // In place only where every part is whole channel blocks.
      if (!concatOfWholeBlocks(graph, *op))
        return false;
      anyConcat = true;
      break;
    case fbs::OpKind::Reshape: {
      // A classifier's flatten of pooled [N, C, 1, 1] features.
      std::vector<int64_t> in = op->inputs() && op->inputs()->size()
                                    ? dimsOf(graph, op->inputs()->Get(0))
                                    : std::vector<int64_t>();
      if (in.size() == 4 && in[2] * in[3] != 1)
        return false;
      break;
    }
    default: // Transpose, Slice, LayerNorm, int8 Reorder.
      return false;
    }
  }
  return anyDepthwise || anyConcat;
}

} // namespace strata::runtime::onednn
