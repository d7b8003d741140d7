//===- Smooth.cpp - SmoothQuant's statistics and migration ----------------===//
//
// The smooth stage of --quantize: the float model runs over the calibration
// data once to measure max|X_j| of every channel of each tagged site's
// activation (its last axis), the maxima go into the sites' tags, and
// quantization::applySmoothQuant migrates the scales. It runs before QDQ
// insertion, so the activation ranges calibration then observes are the
// smoothed ones.
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Calibrate.h"

#include "Observation.h"

#include "HL/IR/HLOps.h"
#include "strata/Quantization/Quantization.h"

#include <cmath>

using namespace mlir;

namespace strata {

FailureOr<std::vector<quantization::SmoothedSite>>
smoothQuant(ModuleOp module, const CalibrationOptions &options, double alpha,
            const CompileOptions &base) {
  SmallVector<hl::FusedOp> sites;
  SmallVector<Value> values;
  module.walk([&](hl::FusedOp group) {
    if (group->hasAttr(quantization::kSmoothAttr)) {
      sites.push_back(group);
      values.push_back(group->getResult(0));
    }
  });
  if (sites.empty())
    return std::vector<quantization::SmoothedSite>();
  FailureOr<std::unique_ptr<ObservationRun>> run =
      ObservationRun::create(module, values, options, base);
  if (failed(run))
    return failure();
  std::vector<std::vector<float>> absmax;
  for (hl::FusedOp group : sites) {
    auto type = cast<RankedTensorType>(group->getResult(0).getType());
    absmax.emplace_back(type.getDimSize(type.getRank() - 1), 0.0f);
  }
  if (failed(
          (*run)->pass("smoothing", [&](size_t k, const float *data, size_t n) {
            // Rows of the last axis: channel j of every row.
            std::vector<float> &m = absmax[k];
            for (size_t row = 0; row + m.size() <= n; row += m.size())
              for (size_t j = 0; j < m.size(); ++j)
                m[j] = std::max(m[j], std::fabs(data[row + j]));
          })))
    return failure();
  Builder b(module.getContext());
  for (size_t k = 0; k < sites.size(); ++k) {
    auto type = RankedTensorType::get({static_cast<int64_t>(absmax[k].size())},
                                      b.getF32Type());
    sites[k]->setAttr(
        quantization::kSmoothAttr,
        b.getDictionaryAttr(b.getNamedAttr(
            "act_absmax",
            DenseElementsAttr::get(type, ArrayRef<float>(absmax[k])))));
  }
  return quantization::applySmoothQuant(module, alpha);
}

} // namespace strata
