//===- InsertQDQ.cpp - quantize/dequantize pairs at QDQ points ------------===//
//
// Reads the `qdq_points` that quantized patterns recorded on hl.fused
// groups and puts a quant.qcast / quant.dcast pair on each of those
// operands (for attention, also on the softmax probabilities inside the
// group, with the fixed unit-range scale). Weights are quantized here (per
// channel, symmetric); the activation pairs wait for calibration, marked
// with an observation id.
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Quantization.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

namespace strata {
#define GEN_PASS_DEF_INSERTQDQ
#include "strata/Quantization/Passes.h.inc"
} // namespace strata

using namespace mlir;

namespace strata::quantization {
namespace {

/// Ops whose output keeps its input's scale: quantizing their output is
/// quantizing their input.
bool keepsScale(Operation *op) {
  return isa<hl::MaxPoolOp, hl::GlobalMaxPoolOp, hl::ReshapeOp, hl::FlattenOp,
             hl::TransposeOp, hl::SqueezeOp, hl::UnsqueezeOp, hl::IdentityOp>(
      op);
}

/// Ops whose output lies in [0, 1] whatever their input.
bool hasUnitRange(Operation *op) {
  return isa<hl::SoftmaxOp, hl::SigmoidOp>(op);
}

/// Follows scale-keeping ops (and groups made only of them) back to the
/// value whose range decides the scale.
Value observedValueImpl(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (keepsScale(def) && def->getNumOperands() >= 1) {
      value = def->getOperand(0);
      continue;
    }
    if (auto fused = dyn_cast<hl::FusedOp>(def)) {
      Block &body = fused.getBody().front();
      bool allKeep = fused->getNumResults() == 1;
      for (Operation &op : body.without_terminator())
        allKeep &= keepsScale(&op);
      auto arg = dyn_cast<BlockArgument>(fused.getYield()->getOperand(0));
      if (allKeep && !arg && !body.empty()) {
        // Walk the chain inside the group to the argument it starts from.
        Value inner = fused.getYield()->getOperand(0);
        while (Operation *innerDef = inner.getDefiningOp())
          inner = innerDef->getOperand(0);
        if (auto start = dyn_cast<BlockArgument>(inner)) {
          value = fused.getInputs()[start.getArgNumber()];
          continue;
        }
      }
    }
    break;
  }
  return value;
}

/// The f32 values of a constant (dense or resource-backed).
std::optional<std::vector<float>> floatsOf(ElementsAttr attr) {
  if (!attr.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    auto range = dense.getValues<float>();
    return std::vector<float>(range.begin(), range.end());
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob ||
      static_cast<int64_t>(blob->getData().size()) != attr.getNumElements() * 4)
    return std::nullopt;
  std::vector<float> values(attr.getNumElements());
  std::memcpy(values.data(), blob->getData().data(), values.size() * 4);
  return values;
}

/// `name` of an hl op as an ONNX op type key: "hl.mat_mul" -> "matmul".
std::string opTypeKey(StringRef name) {
  std::string key;
  for (char c : name.drop_until([](char c) { return c == '.'; }).drop_front())
    if (c != '_')
      key += static_cast<char>(std::tolower(c));
  return key;
}

struct InsertQDQPass : strata::impl::InsertQDQBase<InsertQDQPass> {
  using Base::Base;

  void runOnOperation() override {
    if (activations != "symmetric" && activations != "asymmetric") {
      getOperation().emitError("strata-insert-qdq: activations must be "
                               "symmetric or asymmetric, got '")
          << activations << "'";
      return signalPassFailure();
    }
    for (const std::string &op : skipOps)
      skipOpKeys.insert(opTypeKey(("hl." + op)));
    skipNodeSet.insert(skipNodes.begin(), skipNodes.end());

    SmallVector<hl::FusedOp> groups;
    getOperation().walk([&](hl::FusedOp fused) {
      if (fused.getQdqPoints() && !fused.getQdqPoints()->empty())
        groups.push_back(fused);
    });
    for (hl::FusedOp fused : groups) {
      if (keepInFloat(fused))
        continue;
      ArrayAttr points = *fused.getQdqPoints();
      for (Attribute point : points)
        if (failed(insertAt(fused, cast<DictionaryAttr>(point))))
          return signalPassFailure();
      if (llvm::any_of(points, [](Attribute point) {
            auto role = cast<DictionaryAttr>(point).getAs<StringAttr>("role");
            return role && role.getValue() == "matmul_operands";
          }))
        quantizeInnerMatMulOperands(fused);
    }
  }

  /// Matmul operands computed inside the group by an op whose output lies
  /// in [0, 1] (attention's softmax probabilities) get a pair of the fixed
  /// unit-range scale, so that the product runs in int8 like the others.
  void quantizeInnerMatMulOperands(hl::FusedOp fused) {
    fused.getBody().walk([&](hl::MatMulOp matmul) {
      for (OpOperand &operand : matmul->getOpOperands()) {
        Operation *def = operand.get().getDefiningOp();
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!def || !hasUnitRange(def) || !type ||
            !type.getElementType().isF32())
          continue;
        auto it = pairs.find(operand.get());
        if (it == pairs.end()) {
          FailureOr<Value> pair = quantizeActivation(operand.get(), type);
          if (failed(pair))
            continue;
          it = pairs.try_emplace(operand.get(), *pair).first;
        }
        operand.set(it->second);
      }
    });
  }

  /// Float fallback by node name, op type or weight size.
  bool keepInFloat(hl::FusedOp fused) {
    // A group inside a run-time branch or loop body runs only on some
    // inputs: calibration observes values of the function body, so it
    // stays in float.
    if (!isa<func::FuncOp>(fused->getParentOp()))
      return true;
    bool keep = false;
    fused.getBody().walk([&](Operation *op) {
      if (isa<hl::YieldOp>(op))
        return;
      llvm::SetVector<StringRef> names;
      collectNodeNames(op->getLoc(), names);
      for (StringRef name : names)
        keep |= skipNodeSet.contains(name);
      keep |= skipOpKeys.contains(opTypeKey(op->getName().getStringRef()));
    });
    ArrayAttr points = *fused.getQdqPoints();
    if (minWeightElements > 0)
      for (Attribute point : points) {
        auto dict = cast<DictionaryAttr>(point);
        auto role = dict.getAs<StringAttr>("role");
        auto input = dict.getAs<IntegerAttr>("input");
        if (!role || role.getValue() != "weight" || !input)
          continue;
        auto type =
            dyn_cast<ShapedType>(fused.getInputs()[input.getInt()].getType());
        if (type && type.hasStaticShape() &&
            type.getNumElements() < minWeightElements)
          keep = true;
      }
    return keep;
  }

  LogicalResult insertAt(hl::FusedOp fused, DictionaryAttr point) {
    auto input = point.getAs<IntegerAttr>("input");
    auto role = point.getAs<StringAttr>("role");
    if (!input || !role || input.getInt() < 0 ||
        input.getInt() >= static_cast<int64_t>(fused.getInputs().size()))
      return fused.emitError("malformed qdq point ") << point;
    unsigned index = input.getInt();
    Value value = fused.getInputs()[index];
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.getElementType().isF32())
      return success(); // Only f32 values are quantized.
    // Already quantized (by this pass, for another point or group).
    if (value.getDefiningOp<mlir::quant::DequantizeCastOp>())
      return success();
    auto it = pairs.find(value);
    if (it == pairs.end()) {
      FailureOr<Value> pair =
          role.getValue() == "weight"
              ? quantizeWeight(value, type, point.getAs<IntegerAttr>("axis"))
              : quantizeActivation(value, type);
      if (failed(pair))
        return failure();
      it = pairs.try_emplace(value, *pair).first;
    }
    fused->setOperand(index, it->second);
    return success();
  }

  /// qcast + dcast of `value` to `quantized`, right after its definition.
  Value makePair(Value value, RankedTensorType type, Type quantized,
                 ArrayRef<NamedAttribute> attrs) {
    OpBuilder builder(&getContext());
    if (Operation *def = value.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    Location loc = value.getLoc();
    auto qcast = builder.create<mlir::quant::QuantizeCastOp>(
        loc, type.clone(quantized), value);
    for (NamedAttribute attr : attrs)
      qcast->setAttr(attr.getName(), attr.getValue());
    return builder.create<mlir::quant::DequantizeCastOp>(loc, type, qcast);
  }

  /// Symmetric narrow-range int8 for |w| <= amax.
  double weightScale(double amax) const {
    double scale = amax > 0 ? amax / 127.0 : 1.0;
    return powerOfTwoScales ? powerOfTwoAtLeast(scale) : scale;
  }

  FailureOr<Value> quantizeWeight(Value value, RankedTensorType type,
                                  IntegerAttr axisAttr) {
    auto constant = value.getDefiningOp<hl::ConstantOp>();
    std::optional<std::vector<float>> values =
        constant ? floatsOf(constant.getValue()) : std::nullopt;
    if (!values) // A computed weight: treat it as an activation.
      return quantizeActivation(value, type);
    int64_t axis = axisAttr ? axisAttr.getInt() : -1;
    if (axis < -1 || axis >= type.getRank())
      return value.getDefiningOp()->emitError("weight axis ")
             << axis << " out of range";
    Type f32 = Float32Type::get(&getContext());
    Type i8 = IntegerType::get(&getContext(), 8);
    if (axis < 0) {
      float amax = 0;
      for (float v : *values)
        amax = std::max(amax, std::fabs(v));
      double scale = weightScale(amax);
      return makePair(value, type,
                      mlir::quant::UniformQuantizedType::get(
                          mlir::quant::QuantizationFlags::Signed, i8, f32,
                          scale, 0, -127, 127),
                      {});
    }
    int64_t channels = type.getDimSize(axis);
    std::vector<float> amax(channels, 0.0f);
    for (size_t i = 0; i < values->size(); ++i) {
      size_t c = channelOf(i, type.getShape(), axis);
      amax[c] = std::max(amax[c], std::fabs((*values)[i]));
    }
    SmallVector<double> scales;
    for (float a : amax)
      scales.push_back(weightScale(a));
    SmallVector<int64_t> zeroPoints(channels, 0);
    return makePair(value, type,
                    mlir::quant::UniformQuantizedPerAxisType::get(
                        mlir::quant::QuantizationFlags::Signed, i8, f32, scales,
                        zeroPoints, axis, -127, 127),
                    {});
  }

  FailureOr<Value> quantizeActivation(Value value, RankedTensorType type) {
    Builder b(&getContext());
    Type f32 = b.getF32Type();
    Type i8 = b.getIntegerType(8);
    bool symmetric = activations == "symmetric";
    Value observed = observedValueImpl(value);
    if (Operation *def = observed.getDefiningOp(); def && hasUnitRange(def)) {
      double scale = symmetric ? 1.0 / 127 : 1.0 / 255;
      if (powerOfTwoScales)
        scale = powerOfTwoAtLeast(scale);
      return makePair(value, type,
                      mlir::quant::UniformQuantizedType::get(
                          mlir::quant::QuantizationFlags::Signed, i8, f32,
                          scale, symmetric ? 0 : -128, -128, 127),
                      {b.getNamedAttr("strata.fixed_range", b.getUnitAttr())});
    }
    auto [it, inserted] = observationIds.try_emplace(
        observed, static_cast<int64_t>(observationIds.size()));
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("strata.observe", b.getI64IntegerAttr(it->second))};
    if (!symmetric)
      attrs.push_back(b.getNamedAttr("strata.asymmetric", b.getUnitAttr()));
    return makePair(
        value, type,
        mlir::quant::UniformQuantizedType::get(
            mlir::quant::QuantizationFlags::Signed, i8, f32, 1.0, 0, -128, 127),
        attrs);
  }

  llvm::StringSet<> skipNodeSet, skipOpKeys;
  llvm::DenseMap<Value, Value> pairs;
  llvm::MapVector<Value, int64_t> observationIds;
};

} // namespace

Value observedValue(Value value) { return observedValueImpl(value); }

std::optional<TypeQuantization> getTypeQuantization(Type element) {
  TypeQuantization out;
  auto fill = [](mlir::quant::QuantizedType type, double scale,
                 int64_t zeroPoint) {
    QuantParams p;
    p.scale = scale;
    p.zeroPoint = zeroPoint;
    p.qmin = type.getStorageTypeMin();
    p.qmax = type.getStorageTypeMax();
    return p;
  };
  if (auto uniform = dyn_cast<mlir::quant::UniformQuantizedType>(element)) {
    out.params.push_back(
        fill(uniform, uniform.getScale(), uniform.getZeroPoint()));
    out.storage = uniform.getStorageType();
    return out;
  }
  auto perAxis = dyn_cast<mlir::quant::UniformQuantizedPerAxisType>(element);
  if (!perAxis)
    return std::nullopt;
  for (size_t c = 0; c < perAxis.getScales().size(); ++c)
    out.params.push_back(
        fill(perAxis, perAxis.getScales()[c], perAxis.getZeroPoints()[c]));
  out.axis = perAxis.getQuantizedDimension();
  out.storage = perAxis.getStorageType();
  return out;
}

size_t channelOf(size_t index, ArrayRef<int64_t> shape, int64_t axis) {
  if (axis < 0)
    return 0;
  size_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  return (index / inner) % shape[axis];
}

std::optional<std::vector<float>> constantFloats(Value value) {
  auto constant = value.getDefiningOp<hl::ConstantOp>();
  if (!constant)
    return std::nullopt;
  return floatsOf(constant.getValue());
}

void setQuantParams(mlir::quant::QuantizeCastOp qcast,
                    const QuantParams &params) {
  auto type = cast<RankedTensorType>(qcast.getType());
  Builder b(qcast.getContext());
  auto quantized = mlir::quant::UniformQuantizedType::get(
      mlir::quant::QuantizationFlags::Signed, b.getIntegerType(8),
      b.getF32Type(), params.scale, params.zeroPoint, params.qmin, params.qmax);
  qcast.getResult().setType(type.clone(quantized));
  qcast->removeAttr("strata.observe");
  qcast->removeAttr("strata.asymmetric");
}

} // namespace strata::quantization
