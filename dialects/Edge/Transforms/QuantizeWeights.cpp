//===- QuantizeWeights.cpp - the strata-edge-quantize-weights pass --------===//
//
// Rewrites each matmul by a constant f32 weight into a
// weight_quantized_matmul at the width the options give its ONNX node,
// taking a constant bias row that only it feeds.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Passes.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeQuantizedWeights.h"

#include "strata/Support/Locations.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

namespace strata::edge {
#define GEN_PASS_DEF_EDGEQUANTIZEWEIGHTS
#include "Edge/Transforms/Passes.h.inc"
} // namespace strata::edge

using namespace mlir;

namespace strata::edge {
namespace {

/// The constant f32 [K, N] weight of `matmul` (its other extents 1), or
/// std::nullopt.
std::optional<std::vector<float>> constantWeight(MatMulOp matmul) {
  ElementsAttr attr;
  if (!matchPattern(matmul.getRhs(), m_Constant(&attr)))
    return std::nullopt;
  auto type = cast<RankedTensorType>(matmul.getRhs().getType());
  if (!type.getElementType().isF32() || !type.hasStaticShape() ||
      !llvm::all_of(type.getShape().drop_back(2),
                    [](int64_t extent) { return extent == 1; }))
    return std::nullopt;
  return readF32Constant(attr);
}

/// The constant f32 row `[1.., N]` that `add` adds to `matmul`'s result, or
/// std::nullopt.
std::optional<std::vector<float>> biasRow(AddOp add, Value result, int64_t n) {
  Value other = add.getLhs() == result ? add.getRhs() : add.getLhs();
  ElementsAttr attr;
  auto type = dyn_cast<RankedTensorType>(other.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      add.getType() != result.getType() || type.getNumElements() != n ||
      type.getShape().back() != n || !matchPattern(other, m_Constant(&attr)))
    return std::nullopt;
  return readF32Constant(attr);
}

struct EdgeQuantizeWeightsPass
    : impl::EdgeQuantizeWeightsBase<EdgeQuantizeWeightsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto fail = [&](const Twine &message) {
      return emitError(UnknownLoc::get(context))
             << "strata-edge-quantize-weights: " << message;
    };
    if (bits != 4 && bits != 8)
      return fail("bits must be 4 or 8, got " + Twine(bits));
    // 8 values of 4 bits share a 32-bit word of the packed weight.
    if (activationBits != 0 && activationBits != 8)
      return fail("activation-bits must be 0 or 8, got " +
                  Twine(activationBits));
    if (groupSize < 8 || groupSize % 8 != 0)
      return fail("group-size must be a positive multiple of 8, got " +
                  Twine(groupSize));
    for (const std::string &entry : nodeBits) {
      std::optional<std::pair<StringRef, int64_t>> parsed =
          parseNodeBits(entry);
      if (!parsed)
        return fail("node-bits entry '" + entry +
                    "' is not NAME=BITS with BITS 0, 4 or 8");
      widths[parsed->first] = parsed->second;
    }
    return success();
  }

  void runOnOperation() override {
    // The widths a search chose (chooseWeightPrecision) for this function;
    // the node-bits option still overrides them.
    chosen.clear();
    if (auto attr =
            getOperation()->getAttrOfType<DictionaryAttr>(kWeightBitsAttr)) {
      for (NamedAttribute entry : attr) {
        auto width = dyn_cast<IntegerAttr>(entry.getValue());
        int64_t value = width ? width.getInt() : -1;
        if (value != 0 && value != 4 && value != 8) {
          getOperation().emitError()
              << kWeightBitsAttr << ": node '" << entry.getName().getValue()
              << "' has width " << entry.getValue() << ", expected 0, 4 or 8";
          return signalPassFailure();
        }
        chosen[entry.getName().getValue()] = value;
      }
    }
    SmallVector<MatMulOp> matmuls;
    getOperation().walk([&](MatMulOp op) { matmuls.push_back(op); });
    for (MatMulOp matmul : matmuls)
      rewrite(matmul);
  }

  /// The width of the matmul of ONNX node `name`.
  int64_t widthOf(StringRef name) const {
    if (auto it = widths.find(name); it != widths.end())
      return it->second;
    if (auto it = chosen.find(name); it != chosen.end())
      return it->second;
    return bits;
  }

  void rewrite(MatMulOp matmul) {
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    auto resultType = cast<RankedTensorType>(matmul.getType());
    if (!lhsType.getElementType().isF32() || matmul.getPostOpsAttr() ||
        lhsType.isDynamicDim(lhsType.getRank() - 1))
      return;
    int64_t width = widthOf(getNodeName(matmul.getLoc()));
    if (width == 0)
      return;
    std::optional<std::vector<float>> weight = constantWeight(matmul);
    if (!weight || static_cast<int64_t>(weight->size()) < minElements)
      return;
    int64_t k = lhsType.getShape().back(), n = resultType.getShape().back();
    std::optional<GroupQuantizedWeight> quantized =
        quantizeGroupwise(*weight, k, n, width, groupSize);
    if (!quantized)
      return;
    OpBuilder builder(matmul);
    Operation *replaced = matmul;
    Value bias;
    if (matmul->hasOneUse())
      if (auto add = dyn_cast<AddOp>(*matmul->getUsers().begin()))
        if (std::optional<std::vector<float>> row =
                biasRow(add, matmul.getResult(), n)) {
          bias = builder.create<ConstantOp>(
              add.getLoc(),
              makeF32Constant(RankedTensorType::get({n}, builder.getF32Type()),
                              *row));
          replaced = add;
        }
    // Both nodes' names (the matmul's first) stay on the op, for profiles
    // and reports.
    Location loc =
        replaced == matmul.getOperation()
            ? matmul.getLoc()
            : builder.getFusedLoc({matmul.getLoc(), replaced->getLoc()});
    Value result =
        buildWeightQuantizedMatMul(builder, loc, matmul.getLhs(), *quantized,
                                   bias, resultType, activationBits);
    replaced->getResult(0).replaceAllUsesWith(result);
    // The float weight and bias row go with their last reader.
    SmallVector<Operation *, 3> operands;
    for (Operation *op : {replaced, matmul.getOperation()})
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def != matmul.getOperation() &&
            !llvm::is_contained(operands, def))
          operands.push_back(def);
    if (replaced != matmul.getOperation())
      replaced->erase();
    matmul.erase();
    for (Operation *def : operands)
      if (def->use_empty() && isPure(def))
        def->erase();
  }

  /// The node-bits option's widths, and those the function's
  /// strata.weight_bits attribute gives.
  llvm::StringMap<int64_t> widths, chosen;
};

} // namespace
} // namespace strata::edge
