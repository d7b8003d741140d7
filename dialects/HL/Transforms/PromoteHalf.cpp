//===- PromoteHalf.cpp - compute f16/bf16 models in f32 -------------------===//
//
// Every f16/bf16 tensor inside a function becomes f32; the function keeps its
// signature through casts at its arguments and returns. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "HL/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace strata::hl {
#define GEN_PASS_DEF_PROMOTEHALF
#include "HL/Transforms/Passes.h.inc"
} // namespace strata::hl

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

bool isHalf(Type type) { return type.isF16() || type.isBF16(); }

/// `type` with f32 elements where it is an f16/bf16 tensor, else null.
Type promotedType(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor || !isHalf(tensor.getElementType()))
    return {};
  return tensor.clone(Float32Type::get(type.getContext()));
}

/// A half-precision elements attribute with f32 elements, or null when
/// `attr` is none (or cannot be read).
Attribute promotedElements(Attribute attr) {
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements || !isHalf(elements.getElementType()))
    return {};
  auto type = cast<ShapedType>(promotedType(elements.getType()));
  const llvm::fltSemantics &single = APFloat::IEEEsingle();
  auto widen = [&](APFloat value) {
    bool lost;
    value.convert(single, APFloat::roundingMode::NearestTiesToEven, &lost);
    return value.convertToFloat();
  };
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    SmallVector<float> values;
    for (APFloat v : dense.getValues<APFloat>())
      values.push_back(widen(v));
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return {};
  ArrayRef<char> data = blob->getData();
  int64_t count = resource.getNumElements();
  if (static_cast<int64_t>(data.size()) != 2 * count)
    return {};
  const llvm::fltSemantics &half = resource.getElementType().isF16()
                                       ? APFloat::IEEEhalf()
                                       : APFloat::BFloat();
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, data.data() + 2 * i, 2);
    values[i] = widen(APFloat(half, APInt(16, bits)));
  }
  AsmResourceBlob widened =
      HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(values));
  return DenseResourceElementsAttr::get(
      type, resource.getRawHandle().getKey().str() + "_f32",
      std::move(widened));
}

struct PromoteHalfPass : public hl::impl::PromoteHalfBase<PromoteHalfPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    int64_t promoted = 0, casts = 0;
    OpBuilder builder(func.getContext());
    Block &entry = func.getBody().front();

    // Inside: results, region arguments and attributes.
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (op == func.getOperation())
        return WalkResult::advance();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (Type t = promotedType(arg.getType())) {
              arg.setType(t);
              ++promoted;
            }
      for (Value result : op->getResults())
        if (Type t = promotedType(result.getType())) {
          result.setType(t);
          ++promoted;
        }
      for (NamedAttribute attr : op->getAttrs()) {
        if (!isa<ElementsAttr>(attr.getValue()) ||
            !isHalf(cast<ElementsAttr>(attr.getValue()).getElementType()))
          continue;
        Attribute widened = promotedElements(attr.getValue());
        if (!widened) {
          op->emitOpError("cannot read the half-precision attribute '")
              << attr.getName() << "'";
          return WalkResult::interrupt();
        }
        op->setAttr(attr.getName(), widened);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // The boundary: arguments in, returned values out.
    builder.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      Type t = promotedType(arg.getType());
      if (!t || arg.use_empty())
        continue;
      auto cast = builder.create<hl::CastOp>(arg.getLoc(), t, arg);
      arg.replaceAllUsesExcept(cast.getResult(), cast);
      ++casts;
    }
    ArrayRef<Type> resultTypes = func.getFunctionType().getResults();
    func.walk([&](func::ReturnOp ret) {
      if (ret->getParentOp() != func.getOperation())
        return;
      builder.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Type declared = resultTypes[operand.getOperandNumber()];
        if (operand.get().getType() == declared || !promotedType(declared))
          continue;
        auto cast =
            builder.create<hl::CastOp>(ret.getLoc(), declared, operand.get());
        operand.set(cast.getResult());
        ++casts;
      }
    });
    if (promoted || casts)
      func->setAttr("hl.promoted_half",
                    builder.getI64ArrayAttr({promoted, casts}));
  }
};

} // namespace
