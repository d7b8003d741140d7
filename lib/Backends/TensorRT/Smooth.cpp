//===- Smooth.cpp - tensorrt's SmoothQuant sites --------------------------===//
//
// The smooth phase: a group whose output feeds only linear groups (the
// first feed-forward layer into the second, through its ReLU; a
// normalization into projections) is a place where SmoothQuant can move
// the activation's per-channel range into the readers' weights, which
// TensorRT quantizes per output channel. The pattern only tags the
// producer (`strata.smooth`); calibration measures each channel's range
// and the strata-smooth-quant pass rescales (docs/quantization.md).
//
//===----------------------------------------------------------------------===//
#include "TensorRTPatterns.h"

#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"
#include "strata/Quantization/Quantization.h"

using namespace mlir;

namespace strata::tensorrt {
namespace {

struct SmoothLinearInput : StrataPattern {
  SmoothLinearInput(MLIRContext *context, const PatternInfo &info)
      : StrataPattern(context, info, hl::FusedOp::getOperationName()) {}

  /// Claims the producer only: a group can be one site's reader and the
  /// next one's producer (a three-layer MLP has two sites).
  FailureOr<SmallVector<Operation *>> matchOps(Operation *root) const override {
    if (root->hasAttr(quantization::kSmoothAttr) || !patterns::matchSmoothSite(root))
      return failure();
    return SmallVector<Operation *>{root};
  }

  LogicalResult rewriteMatch(Operation *root, ArrayRef<Operation *>,
                             PatternRewriter &rewriter) const override {
    rewriter.modifyOpInPlace(root, [&] {
      root->setAttr(quantization::kSmoothAttr, rewriter.getUnitAttr());
    });
    return success();
  }
};

} // namespace

std::vector<PatternDescriptor> getSmoothPatterns() {
  return {describePattern<SmoothLinearInput>(
      {"SmoothLinearInput", PatternPhase::Smooth, 1, {},
       "a group whose output only linear groups read (through reshapes "
       "and transposes): a SmoothQuant site (--smooth)"})};
}

} // namespace strata::tensorrt
