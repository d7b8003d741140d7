//===- OpQueries.cpp - questions delegate backends ask of edge ops --------===//
#include "OpQueries.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Support/Locations.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace strata::backends {

void appendNodeNames(std::vector<std::string> &names,
                     ArrayRef<Operation *> ops) {
  for (Operation *o : ops) {
    llvm::SetVector<StringRef> all;
    collectNodeNames(o->getLoc(), all);
    for (StringRef name : all)
      if (!llvm::is_contained(names, name))
        names.push_back(name.str());
  }
}

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32() &&
         tensor.getRank() >= 1 && tensor.getRank() <= 6 &&
         tensor.getNumElements() > 0;
}

bool isF32Op(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), isF32Tensor) &&
         llvm::all_of(op->getResultTypes(), isF32Tensor) &&
         op->getNumResults() == 1;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

std::optional<std::vector<float>> getFloatConstant(Value value) {
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return std::nullopt;
  return edge::readF32Constant(constant.getValue());
}

std::optional<float> getScalarConstant(Value value) {
  std::optional<std::vector<float>> values = getFloatConstant(value);
  if (!values || values->empty())
    return std::nullopt;
  for (float v : *values)
    if (v != values->front())
      return std::nullopt;
  return values->front();
}

bool binaryOperandsSwap(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  ArrayRef<int64_t> result = shapeOf(op->getResult(0));
  return shapeOf(lhs) != result && shapeOf(rhs) == result &&
         op->hasTrait<OpTrait::IsCommutative>();
}

/// End padding for which oneDNN's output size formula gives `out`: the
/// model's own when it does, more in ceil mode; -1 when none does.
static int64_t poolPadEnd(int64_t in, int64_t out, int64_t kernel,
                          int64_t stride, int64_t dilation, int64_t padBegin,
                          int64_t padEnd) {
  int64_t extent = (kernel - 1) * dilation + 1;
  int64_t needed = (out - 1) * stride + extent - in - padBegin;
  int64_t end = std::max(padEnd, needed);
  if (stride < 1 || (in + padBegin + end - extent) / stride + 1 != out)
    return -1;
  return end;
}

std::optional<PoolGeometry> getPoolGeometry(Operation *op) {
  auto attr = [&](StringRef name) {
    return op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef();
  };
  ArrayRef<int64_t> pads = attr("pads"), kernel = attr("kernel"),
                    strides = attr("strides"), dil = attr("dilations");
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0)),
                    out = shapeOf(op->getResult(0));
  if (in.size() != 4 || out.size() != 4 || pads.size() != 4 ||
      kernel.size() != 2 || strides.size() != 2 || dil.size() != 2)
    return std::nullopt;
  PoolGeometry g{{kernel.begin(), kernel.end()},
                 {strides.begin(), strides.end()},
                 {dil.begin(), dil.end()},
                 {pads[0], pads[1]},
                 {}};
  for (int i = 0; i < 2; ++i) {
    int64_t end = poolPadEnd(in[2 + i], out[2 + i], kernel[i], strides[i],
                             dil[i], pads[i], pads[2 + i]);
    if (end < 0)
      return std::nullopt;
    // Extra (ceil-mode) padding changes an average that counts padding.
    if (auto avg = dyn_cast<edge::AvgPool2DOp>(op))
      if (avg.getCountIncludePad() && end != pads[2 + i])
        return std::nullopt;
    g.padsEnd.push_back(end);
  }
  return g;
}

std::optional<std::vector<int64_t>> getEightBitConstant(Value value) {
  std::optional<std::vector<int64_t>> values = getIntConstant(value);
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(value.getType()));
  if (values && element && element.isUnsigned())
    for (int64_t &v : *values)
      v &= 0xff;
  return values;
}

std::optional<std::vector<int64_t>> getIntConstant(Value value) {
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<ElementsAttr>(constant.getValue());
  if (!elements || !elements.getElementType().isInteger())
    return std::nullopt;
  std::vector<int64_t> values;
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(v.getSExtValue());
    return values;
  }
  // A resource blob (initializers imported from ONNX): little-endian
  // values as stored, sign-extended.
  std::optional<ArrayRef<char>> raw = edge::getRawConstantData(elements);
  unsigned width = elements.getElementType().getIntOrFloatBitWidth();
  if (!raw || (width != 8 && width != 16 && width != 32 && width != 64) ||
      static_cast<int64_t>(raw->size()) !=
          elements.getNumElements() * (width / 8))
    return std::nullopt;
  for (size_t i = 0; i < raw->size(); i += width / 8) {
    uint64_t bits = 0;
    for (unsigned b = 0; b < width / 8; ++b)
      bits |= uint64_t(static_cast<uint8_t>((*raw)[i + b])) << (8 * b);
    values.push_back(llvm::SignExtend64(bits, width));
  }
  return values;
}

/// The 8-bit storage of a tensor as a delegate sees it: s8 for i8, u8 for ui8
/// (plain or `!quant.uniform`); nullopt otherwise.
std::optional<bool> isSigned8(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getRank() < 1 ||
      tensor.getRank() > 6 || tensor.getNumElements() == 0)
    return std::nullopt;
  Type element = tensor.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(element)) {
    if (q.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    return q.isSigned();
  }
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer || integer.getWidth() != 8 || integer.isSigned())
    return std::nullopt;
  return integer.isSignless();
}

bool hasDynamicShape(Operation *op) {
  auto isDynamic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !tensor.hasStaticShape();
  };
  return llvm::any_of(op->getOperandTypes(), isDynamic) ||
         llvm::any_of(op->getResultTypes(), isDynamic);
}

bool isDynamicCandidate(Operation *op, function_ref<bool(Type)> accepts) {
  if (op->getNumResults() != 1 || !isa<ReifyRankedShapedTypeOpInterface>(op) ||
      !accepts(op->getResult(0).getType()))
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type type) {
    return type.isIndex() || accepts(type);
  });
}

} // namespace strata::backends
