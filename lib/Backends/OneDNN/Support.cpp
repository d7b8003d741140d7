//===- Support.cpp - which edge ops the oneDNN delegate runs --------------===//
//
// The per-op check behind the onednn partitioner: f32 tensors of static
// shape (rank 1 to 6) and, per op, the forms the delegate's graph builder
// maps onto a oneDNN primitive (see lib/Runtime/Delegates/OneDNN).
//
//===----------------------------------------------------------------------===//
#include "OneDNNBackend.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::onednn {

static bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32() &&
         tensor.getRank() >= 1 && tensor.getRank() <= 6 &&
         tensor.getNumElements() > 0;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

std::optional<float> getScalarConstant(Value value) {
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return std::nullopt;
  std::optional<std::vector<float>> values =
      edge::readF32Constant(constant.getValue());
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

bool supportsOp(Operation *op) {
  if (!llvm::all_of(op->getOperandTypes(), isF32Tensor) ||
      !llvm::all_of(op->getResultTypes(), isF32Tensor) ||
      op->getNumResults() != 1)
    return false;
  if (auto conv = dyn_cast<edge::Conv2DOp>(op))
    return shapeOf(conv.getInput()).size() == 4;
  if (auto matmul = dyn_cast<edge::MatMulOp>(op)) {
    ArrayRef<int64_t> a = shapeOf(matmul.getLhs()),
                      out = shapeOf(matmul.getOutput());
    // The left operand's batch extents must be the result's.
    return a.size() == out.size() && a.drop_back(2) == out.drop_back(2);
  }
  if (isa<edge::MaxPool2DOp, edge::AvgPool2DOp>(op))
    return getPoolGeometry(op).has_value();
  if (isa<edge::ReluOp, edge::ClipOp, edge::SigmoidOp, edge::TanhOp,
          edge::ExpOp, edge::SqrtOp, edge::AbsOp, edge::LogOp, edge::NegOp,
          edge::SoftmaxOp, edge::ReduceMeanOp, edge::TransposeOp,
          edge::ReshapeOp, edge::ConcatOp>(op))
    return true;
  if (auto slice = dyn_cast<edge::SliceOp>(op))
    return llvm::all_of(slice.getSteps(), [](int64_t s) { return s == 1; }) &&
           llvm::all_of(slice.getStarts(), [](int64_t s) { return s >= 0; });
  if (isa<edge::PowOp>(op)) {
    std::optional<float> exponent = getScalarConstant(op->getOperand(1));
    return exponent && (*exponent == 2.f || *exponent == 0.5f) &&
           shapeOf(op->getOperand(0)) == shapeOf(op->getResult(0));
  }
  if (isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp, edge::MaximumOp,
          edge::MinimumOp>(op))
    return shapeOf(op->getOperand(0)) == shapeOf(op->getResult(0)) ||
           binaryOperandsSwap(op);
  return false;
}

} // namespace strata::onednn
