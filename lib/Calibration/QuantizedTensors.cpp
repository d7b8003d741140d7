//===- QuantizedTensors.cpp - the quantized tensors of a module -----------===//
#include "QuantizedTensors.h"

#include "HL/IR/HLOps.h"
#include "strata/Quantization/Quantization.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace strata {

StringRef QuantizedTensor::roleName() const {
  switch (role) {
  case Role::Activation:
    return "activation";
  case Role::Fixed:
    return "fixed";
  case Role::Weight:
    return "weight";
  }
  llvm_unreachable("unknown role");
}

std::string QuantizedTensor::name() const {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto name =
              func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "hl.name"))
        return "input '" + name.getValue().str() + "'";
    return "argument " + std::to_string(arg.getArgNumber());
  }
  std::string node = getNodeName(value.getDefiningOp()->getLoc());
  return node.empty() ? value.getDefiningOp()->getName().getStringRef().str()
                      : node;
}

std::string QuantizedTensor::consumers() const {
  std::string out;
  for (mlir::quant::QuantizeCastOp qcast : qcasts)
    for (Operation *dcast : qcast->getUsers())
      for (Operation *user : dcast->getUsers()) {
        std::string what = user->getName().getStringRef().str();
        if (auto fused = dyn_cast<hl::FusedOp>(user))
          what = fused.getKind().str();
        std::string node = getNodeName(user->getLoc());
        if (!node.empty())
          what += " '" + node + "'";
        if (out.find(what) == std::string::npos)
          out += (out.empty() ? "" : ", ") + what;
      }
  return out;
}

bool QuantizedTensor::awaitsCalibration() const {
  return llvm::any_of(qcasts, [](mlir::quant::QuantizeCastOp qcast) {
    return qcast->hasAttr("strata.observe");
  });
}

SmallVector<Value> QuantizedTensor::pairs() const {
  SmallVector<Value> results;
  for (mlir::quant::QuantizeCastOp qcast : qcasts)
    results.push_back(qcast.getResult());
  return results;
}

std::vector<QuantizedTensor> collectQuantizedTensors(ModuleOp module) {
  llvm::MapVector<Value, SmallVector<mlir::quant::QuantizeCastOp>> observed,
      fixed;
  std::vector<QuantizedTensor> weights;
  module.walk([&](mlir::quant::QuantizeCastOp qcast) {
    if (qcast->hasAttr("strata.fixed_range"))
      fixed[qcast.getArg()].push_back(qcast);
    else if (qcast.getArg().getDefiningOp<hl::ConstantOp>())
      weights.push_back(
          {QuantizedTensor::Role::Weight, qcast.getArg(), {qcast}});
    else
      observed[quantization::observedValue(qcast.getArg())].push_back(qcast);
  });
  std::vector<QuantizedTensor> tensors;
  for (auto &[value, qcasts] : observed)
    tensors.push_back({QuantizedTensor::Role::Activation, value, qcasts});
  for (auto &[value, qcasts] : fixed)
    tensors.push_back({QuantizedTensor::Role::Fixed, value, qcasts});
  tensors.insert(tensors.end(), weights.begin(), weights.end());
  return tensors;
}

} // namespace strata
