//===- SmoothQuant.cpp - per-channel scale migration (SmoothQuant) --------===//
//
// SmoothQuant (Xiao et al., 2023) makes an activation easier to quantize
// by dividing each of its channels j by s_j and multiplying the matching
// input rows of the weights that read it by s_j: exact in float, and with
//   s_j = max|X_j|^alpha / max|W_j|^(1 - alpha)
// the activation's outlier channels shrink while the weights, quantized
// per output channel, absorb the difference. The sites are the groups a
// backend's smooth pattern tagged `strata.smooth` (patterns::SmoothSite);
// calibration adds each site's measured max|X_j| (`act_absmax`).
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Quantization.h"

#include "HL/IR/HLOps.h"
#include "strata/Patterns/Matchers.h"
#include "strata/Support/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

namespace strata {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_SMOOTHQUANT
#include "strata/Quantization/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata

using namespace mlir;

namespace strata::quantization {
namespace {

/// The ONNX node of `op` (or its op name), for reports and errors.
std::string nodeOf(Operation *op) {
  std::string node = getNodeName(op->getLoc());
  if (!node.empty())
    return node;
  if (auto group = dyn_cast<hl::FusedOp>(op))
    return group.getKind().str();
  return op->getName().getStringRef().str();
}

/// The constant `use` reads, its values and its per-channel axis.
struct ChannelConstant {
  std::vector<float> values;
  RankedTensorType type;
  int64_t axis;
};

std::optional<ChannelConstant> readChannelOperand(const patterns::ChannelOperand &use) {
  Value value = use.group->getOperand(use.operand);
  std::optional<std::vector<float>> values = constantFloats(value);
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!values || !type)
    return std::nullopt;
  int64_t axis = use.axis < 0 ? use.axis + type.getRank() : use.axis;
  return ChannelConstant{std::move(*values), type, axis};
}

/// Multiplies channel c of the constant `use` reads by factor[c] (or
/// divides), giving the group a new constant of its own.
LogicalResult scaleChannels(const patterns::ChannelOperand &use,
                            ArrayRef<double> factor, bool divide) {
  std::optional<ChannelConstant> c = readChannelOperand(use);
  if (!c)
    return use.group->emitError("SmoothQuant: operand ")
           << use.operand << " is not a readable f32 constant";
  for (size_t i = 0; i < c->values.size(); ++i) {
    double f = factor[channelOf(i, c->type.getShape(), c->axis)];
    c->values[i] = static_cast<float>(divide ? c->values[i] / f
                                             : c->values[i] * f);
  }
  Value old = use.group->getOperand(use.operand);
  OpBuilder b(use.group);
  auto constant = b.create<hl::ConstantOp>(
      old.getLoc(), DenseElementsAttr::get(c->type, ArrayRef<float>(c->values)));
  use.group->setOperand(use.operand, constant.getResult());
  if (old.use_empty())
    old.getDefiningOp()->erase();
  return success();
}

} // namespace

FailureOr<std::vector<SmoothedSite>> applySmoothQuant(Operation *root,
                                                      double alpha) {
  struct Planned {
    patterns::SmoothSite site;
    std::vector<double> factor;
  };
  std::vector<Planned> planned;
  std::vector<SmoothedSite> report;
  // Every factor comes from the unsmoothed weights; then all are applied
  // (a group can be one site's consumer and the next one's producer).
  WalkResult walk = root->walk([&](hl::FusedOp group) {
    Attribute tag = group->getAttr(kSmoothAttr);
    if (!tag)
      return WalkResult::advance();
    auto dict = dyn_cast<DictionaryAttr>(tag);
    auto absmax = dict ? dict.getAs<DenseElementsAttr>("act_absmax") : nullptr;
    if (!absmax || !absmax.getElementType().isF32()) {
      group.emitError("SmoothQuant site '")
          << nodeOf(group) << "' has no act_absmax (calibrate it first)";
      return WalkResult::interrupt();
    }
    std::optional<patterns::SmoothSite> site =
        patterns::matchSmoothSite(group);
    if (!site) {
      group.emitError("'") << nodeOf(group)
                           << "' is no longer a SmoothQuant site";
      return WalkResult::interrupt();
    }
    if (absmax.getNumElements() != site->channels) {
      group.emitError("SmoothQuant site '")
          << nodeOf(group) << "': act_absmax has " << absmax.getNumElements()
          << " values for " << site->channels << " channels";
      return WalkResult::interrupt();
    }
    std::vector<double> wmax(site->channels, 0.0);
    for (const patterns::ChannelOperand &use : site->multiplied) {
      std::optional<ChannelConstant> c = readChannelOperand(use);
      if (!c) {
        group.emitError("SmoothQuant site '")
            << nodeOf(group) << "': a consumer's weight is not readable";
        return WalkResult::interrupt();
      }
      for (size_t i = 0; i < c->values.size(); ++i) {
        size_t j = channelOf(i, c->type.getShape(), c->axis);
        wmax[j] = std::max(wmax[j], double(std::fabs(c->values[i])));
      }
    }
    Planned p{*site, std::vector<double>(site->channels, 1.0)};
    SmoothedSite entry{nodeOf(group), "", site->channels, 0, 0};
    auto a = absmax.getValues<float>();
    for (int64_t j = 0; j < site->channels; ++j) {
      double x = std::fabs(a[j]), w = wmax[j];
      // A dead channel (or weight row) keeps its factor of 1.
      if (x > 0 && w > 0 && std::isfinite(x))
        p.factor[j] = std::clamp(std::pow(x, alpha) / std::pow(w, 1 - alpha),
                                 1e-5, 1e5);
    }
    auto [lo, hi] = std::minmax_element(p.factor.begin(), p.factor.end());
    entry.minFactor = *lo;
    entry.maxFactor = *hi;
    for (Operation *consumer : site->consumers)
      entry.consumers += (entry.consumers.empty() ? "" : ", ") + nodeOf(consumer);
    planned.push_back(std::move(p));
    report.push_back(std::move(entry));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (const Planned &p : planned) {
    for (const patterns::ChannelOperand &use : p.site.divided)
      if (failed(scaleChannels(use, p.factor, /*divide=*/true)))
        return failure();
    for (const patterns::ChannelOperand &use : p.site.multiplied)
      if (failed(scaleChannels(use, p.factor, /*divide=*/false)))
        return failure();
    p.site.producer->removeAttr(kSmoothAttr);
  }
  return report;
}

namespace {

struct SmoothQuantPass : impl::SmoothQuantBase<SmoothQuantPass> {
  using SmoothQuantBase::SmoothQuantBase;

  void runOnOperation() override {
    if (alpha < 0 || alpha > 1) {
      getOperation().emitError("SmoothQuant: alpha must be in [0, 1], got ")
          << alpha.getValue();
      return signalPassFailure();
    }
    if (failed(applySmoothQuant(getOperation(), alpha)))
      signalPassFailure();
  }
};

} // namespace
} // namespace strata::quantization
