//===- ChannelBlockedRule.h - when activations run nChw16c ------*- C++ -*-===//
//
// The layout prepare records for a graph's f32 activations (the blob's
// activation_layout). oneDNN 2.6 left to itself puts them channels-last on
// AVX-512 and runs brgconv kernels; on depthwise-separable networks its
// nChw16c kernels are faster (ChannelBlockedRule.cpp gives the figures).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELBLOCKEDRULE_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELBLOCKEDRULE_H

#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

namespace strata::runtime::onednn {

/// Whether this CPU runs oneDNN's nChw16c f32 kernels (AVX-512).
bool hostRunsChannelBlocked16();

/// Whether `graph` is a depthwise-separable network, which runs faster
/// with every f32 activation in nChw16c. False on a CPU without AVX-512.
bool channelBlockedPays(const strata::onednn::fb::Graph &graph);

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_CHANNELBLOCKEDRULE_H
