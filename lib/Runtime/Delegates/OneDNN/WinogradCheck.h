//===- WinogradCheck.h - a layer's Winograd error, measured ------*- C++
//-*-===//
//
// Before the delegate gives a convolution to its own Winograd kernel, it
// measures what that costs in accuracy on this layer's own weights: the
// kernel and a float32 direct convolution run on seeded inputs, both
// compared with the direct convolution in float64. Winograd is taken only
// where its error is within a budget of the direct one's (kWinogradBudget),
// so that a model whose convolutions each stay within it stays close to
// what a direct implementation (ONNX Runtime's) gives. Deterministic: the
// inputs come from a fixed-seed generator and every sum runs in a fixed
// order, so the same weights give the same verdict on the same CPU.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRADCHECK_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRADCHECK_H

#include "Winograd.h"

#include <cstdint>
#include <string>

namespace strata::runtime::onednn {

/// The most a layer's Winograd rel-L2 error may be, as a multiple of a
/// float32 direct convolution's on the same inputs (both against float64).
/// Errors of layers add up (in squares, for independent roundings) along a
/// network, so a network whose Winograd layers each stay within this
/// factor stays within about this factor of the direct network's error;
/// figures in docs/delegation.md.
inline constexpr double kWinogradBudget = 2.0;

/// The rel-L2 errors of one layer, the worse of the two input kinds.
struct WinogradErrors {
  double direct = 0;   ///< float32 direct convolution against float64
  double winograd = 0; ///< the Winograd kernel against float64
  /// Whether winograd <= budget * direct.
  bool within(double budget = kWinogradBudget) const {
    return winograd <= budget * direct;
  }
};

/// Measures the errors of a 3x3 convolution with `ic` input and `oc`
/// output channels and OIHW weights `oihw`, in `tile`s computed by the
/// kernel in `layout`, on a 10x10 crop (8x8 outputs, no padding) of two
/// seeded inputs: a ReLU's output (half-normal) and a signed normal one,
/// compared on up to 64 output channels spread evenly over `oc`.
/// Bias and post-ops are left out (they add no Winograd error). Only where
/// WinogradConv::available().
WinogradErrors measureWinogradErrors(int64_t ic, int64_t oc, const float *oihw,
                                     WinogradTile tile, WinogradLayout layout);

/// "F(4x4,3x3): rel-L2 3.1e-7 = 1.6x direct (budget 2x)".
std::string describeWinogradErrors(WinogradTile tile,
                                   const WinogradErrors &errors,
                                   double budget = kWinogradBudget);

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_WINOGRADCHECK_H
