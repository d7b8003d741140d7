//===- TensorRTPatterns.h - the tensorrt backend's pattern lists -*- C++ -*-===//
#ifndef STRATA_LIB_BACKENDS_TENSORRT_TENSORRTPATTERNS_H
#define STRATA_LIB_BACKENDS_TENSORRT_TENSORRTPATTERNS_H

#include "strata/Patterns/Pattern.h"

#include <vector>

namespace strata::tensorrt {

/// Flatten + Gemm into a convolution + flatten, identity pooling removal,
/// the packed attention in-projection split into Q/K/V projections.
std::vector<PatternDescriptor> getConversionPatterns();
/// StemConvBNReLUMaxPool ... ScaledDotProductAttention, in priority order.
std::vector<PatternDescriptor> getFusionPatterns();
/// SmoothQuant sites: groups whose output only linear groups read.
std::vector<PatternDescriptor> getSmoothPatterns();
/// QDQ points of each fused kind, per NVIDIA's placement rules.
std::vector<PatternDescriptor> getQuantizedPatterns();

/// Split across files by family.
void appendLayerFusions(std::vector<PatternDescriptor> &patterns);
void appendAttentionFusions(std::vector<PatternDescriptor> &patterns);
void appendAttentionConversions(std::vector<PatternDescriptor> &patterns);

} // namespace strata::tensorrt

#endif // STRATA_LIB_BACKENDS_TENSORRT_TENSORRTPATTERNS_H
