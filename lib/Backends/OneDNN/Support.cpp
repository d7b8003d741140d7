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

#include "strata/Runtime/Delegates/OneDNN.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;

namespace strata::onednn {

using backends::isF32Tensor;
using backends::shapeOf;

/// Whether `value` is a constant whose every element is zero.
static bool isZeroConstant(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)))
    return false;
  return llvm::all_of(dense.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// A per-tensor quantization oneDNN takes: constant positive scale, zero
/// point 0.
static bool isSymmetricPerTensor(Value scale, Value zeroPoint) {
  std::optional<std::vector<float>> s = getFloatConstant(scale);
  return s && s->size() == 1 && s->front() > 0.0f &&
         cast<RankedTensorType>(scale.getType()).getRank() == 0 &&
         isZeroConstant(zeroPoint);
}

/// A per-tensor quantization with a constant positive scale and a constant
/// zero point (a scalar each).
static bool isConstantPerTensor(Value scale, Value zeroPoint) {
  std::optional<std::vector<float>> s = getFloatConstant(scale);
  std::optional<std::vector<int64_t>> z = backends::getIntConstant(zeroPoint);
  return s && s->size() == 1 && s->front() > 0.0f &&
         cast<RankedTensorType>(scale.getType()).getRank() == 0 && z &&
         z->size() == 1;
}

/// What an int8 convolution or matmul needs: an 8-bit input with a
/// constant zero point (0 unless the weight is constant: oneDNN's source
/// zero point), an s8 weight (constant unless `anyWeight`: a matmul's rhs
/// may be computed, as attention's K and V) with zero points 0 and
/// non-zero scales, a constant bias, and an f32 result or an 8-bit one
/// with a constant zero point (0 where a clamp, activation function or
/// residual follows; else a linear post-op adds it: QLinearConv and
/// QLinearMatMul).
static bool supportsInt8Linear(Value input, Value inputScale,
                               Value inputZeroPoint, Value weight,
                               Value weightScale, Value weightZeroPoint,
                               Value bias, Value result, Value outputScale,
                               Value outputZeroPoint, bool bareEpilogue,
                               bool anyWeight = false) {
  std::optional<std::vector<float>> scales = getFloatConstant(weightScale);
  bool resultOk =
      getElementTypeOrSelf(result.getType()).isF32()
          ? isF32Tensor(result.getType())
          : isSigned8(result.getType()) &&
                (isSymmetricPerTensor(outputScale, outputZeroPoint) ||
                 (bareEpilogue &&
                  isConstantPerTensor(outputScale, outputZeroPoint)));
  bool constantWeight = weight.getDefiningOp<edge::ConstantOp>() != nullptr;
  return isSigned8(input.getType()) &&
         isSigned8(weight.getType()) == std::optional(true) &&
         (anyWeight || constantWeight) &&
         (isSymmetricPerTensor(inputScale, inputZeroPoint) ||
          (constantWeight &&
           isConstantPerTensor(inputScale, inputZeroPoint))) &&
         isZeroConstant(weightZeroPoint) && scales &&
         llvm::all_of(*scales, [](float s) { return s != 0.0f; }) &&
         getFloatConstant(bias) && resultOk;
}

/// Whether `type` is an f32 tensor, or the i32 sums of an integer op
/// (MatMulInteger, ConvInteger: oneDNN's s32 destination).
static bool isF32OrSums(Type type) {
  return isF32Tensor(type) || getElementTypeOrSelf(type).isSignlessInteger(32);
}

/// Whether an integer op's i32 sums come out of oneDNN exactly: its int8
/// kernels convert the int32 sums to f32 on the way to an s32
/// destination, exact while every |sum| stays below 2^24. Bounds each
/// output channel's sum by max |input - zero point| (from a constant zero
/// point, else 255) times the sum of its |weight - zero point| over the
/// `perChannel` weights it reads (`weights` laid out channel-major, or
/// column-major for a matmul's [K, N]: `columns`).
static bool sumsStayExact(Value input, Value inputZeroPoint, Value weight,
                          Value weightZeroPoint, int64_t channels,
                          bool columns) {
  std::optional<std::vector<int64_t>> w = backends::getEightBitConstant(weight);
  std::optional<std::vector<int64_t>> wZp =
      backends::getEightBitConstant(weightZeroPoint);
  if (!w || !wZp || wZp->empty() || channels <= 0)
    return false;
  int64_t maxInput = 255;
  if (std::optional<std::vector<int64_t>> zp =
          backends::getEightBitConstant(inputZeroPoint);
      zp && zp->size() == 1) {
    bool isSigned = isSigned8(input.getType()).value_or(false);
    int64_t lo = isSigned ? -128 : 0, hi = isSigned ? 127 : 255;
    maxInput = std::max(zp->front() - lo, hi - zp->front());
  }
  int64_t perChannel = static_cast<int64_t>(w->size()) / channels;
  std::vector<int64_t> sums(channels, 0);
  for (int64_t i = 0; i < static_cast<int64_t>(w->size()); ++i) {
    int64_t c = columns ? i % channels : i / perChannel;
    sums[c] += std::abs((*w)[i] - (*wZp)[wZp->size() == 1 ? 0 : c]);
  }
  int64_t most = *std::max_element(sums.begin(), sums.end());
  return most * maxInput < (int64_t(1) << 24);
}

/// A convolution of a dynamically quantized input (ONNX Runtime's
/// ConvInteger chains, ScaledConvInteger.cpp): an 8-bit input whose scale
/// and zero point are one value each, known at run time or not (oneDNN
/// takes the zero point at run time, the scale as a binary post-op); 8-bit
/// constant weights with constant zero points and scales (prepare turns
/// weight - zero point into s8 parts); a constant bias and an f32 result,
/// or the i32 sums (a lone ConvInteger).
static bool supportsZeroPointConv(edge::QuantizedConv2DOp conv) {
  auto isOneValue = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getNumElements() == 1;
  };
  std::optional<std::vector<float>> scales =
      getFloatConstant(conv.getWeightScale());
  bool isSums = getElementTypeOrSelf(conv.getType()).isSignlessInteger(32);
  if (isSums && !sumsStayExact(conv.getInput(), conv.getInputZeroPoint(),
                               conv.getWeight(), conv.getWeightZeroPoint(),
                               shapeOf(conv.getWeight())[0],
                               /*columns=*/false))
    return false;
  return conv.getGroup() == 1 && !conv.getResidual() &&
         isF32OrSums(conv.getType()) && isSigned8(conv.getInput().getType()) &&
         isSigned8(conv.getWeight().getType()) &&
         conv.getWeight().getDefiningOp<edge::ConstantOp>() &&
         backends::getIntConstant(conv.getWeightZeroPoint()) && scales &&
         llvm::all_of(*scales, [](float s) { return s != 0.0f; }) &&
         isOneValue(conv.getInputScale()) &&
         isOneValue(conv.getInputZeroPoint()) &&
         getFloatConstant(conv.getBias());
}

/// The matmul form of supportsZeroPointConv: [..., M, K] rows by constant
/// [K, N] weights whose zero point is one value (oneDNN's weights zero
/// point is per tensor).
static bool supportsZeroPointMatMul(edge::QuantizedMatMulOp matmul) {
  auto isOneValue = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getNumElements() == 1;
  };
  std::optional<std::vector<float>> scales =
      getFloatConstant(matmul.getRhsScale());
  std::optional<std::vector<int64_t>> zeroPoint =
      backends::getIntConstant(matmul.getRhsZeroPoint());
  bool isSums = getElementTypeOrSelf(matmul.getType()).isSignlessInteger(32);
  if (isSums && (shapeOf(matmul.getRhs()).size() != 2 ||
                 !sumsStayExact(matmul.getLhs(), matmul.getLhsZeroPoint(),
                                matmul.getRhs(), matmul.getRhsZeroPoint(),
                                shapeOf(matmul.getRhs())[1],
                                /*columns=*/true)))
    return false;
  return isF32OrSums(matmul.getType()) &&
         shapeOf(matmul.getLhs()).size() >= 2 &&
         shapeOf(matmul.getRhs()).size() == 2 &&
         isSigned8(matmul.getLhs().getType()) &&
         isSigned8(matmul.getRhs().getType()) &&
         matmul.getRhs().getDefiningOp<edge::ConstantOp>() && zeroPoint &&
         llvm::all_equal(*zeroPoint) && scales &&
         llvm::all_of(*scales, [](float s) { return s != 0.0f; }) &&
         isOneValue(matmul.getLhsScale()) &&
         isOneValue(matmul.getLhsZeroPoint()) &&
         getFloatConstant(matmul.getBias());
}

/// int8 ops: convolutions and matmuls with zero points 0 (s8 weights, s8/u8
/// input and result, or an f32 result) and per-tensor quantize/dequantize
/// reorders. Convolutions and matmuls only where oneDNN's int8 kernels sum
/// exactly (VNNI); elsewhere the portable int8 kernels run them.
static bool supportsQuantizedOp(Operation *op) {
  if (isa<edge::QuantizedConv2DOp, edge::QuantizedMatMulOp>(op) &&
      !runtime::onednn::hostRunsInt8Exactly())
    return false;
  if (auto conv = dyn_cast<edge::QuantizedConv2DOp>(op)) {
    bool residualOk =
        !conv.getResidual() ||
        (!getElementTypeOrSelf(conv.getType()).isF32() &&
         isSigned8(conv.getResidual().getType()) == isSigned8(conv.getType()) &&
         isSymmetricPerTensor(conv.getResidualScale(),
                              conv.getResidualZeroPoint()));
    if (supportsZeroPointConv(conv))
      return true;
    bool bare = !conv.getResidual() && !conv.getClipMinAttr() &&
                !conv.getClipMaxAttr() && !conv.getActivationAttr();
    return residualOk &&
           supportsInt8Linear(
               conv.getInput(), conv.getInputScale(), conv.getInputZeroPoint(),
               conv.getWeight(), conv.getWeightScale(),
               conv.getWeightZeroPoint(), conv.getBias(), conv.getResult(),
               conv.getOutputScale(), conv.getOutputZeroPoint(), bare);
  }
  if (auto matmul = dyn_cast<edge::QuantizedMatMulOp>(op))
    return supportsZeroPointMatMul(matmul) ||
           (shapeOf(matmul.getLhs()).size() >= 2 &&
            supportsInt8Linear(
                matmul.getLhs(), matmul.getLhsScale(), matmul.getLhsZeroPoint(),
                matmul.getRhs(), matmul.getRhsScale(), matmul.getRhsZeroPoint(),
                matmul.getBias(), matmul.getResult(), matmul.getOutputScale(),
                matmul.getOutputZeroPoint(),
                /*bareEpilogue=*/!matmul.getClipMinAttr() &&
                    !matmul.getClipMaxAttr() && !matmul.getActivationAttr(),
                /*anyWeight=*/true));
  if (auto q = dyn_cast<edge::QuantizeLinearOp>(op))
    return isF32Tensor(q.getInput().getType()) && isSigned8(q.getType()) &&
           isSymmetricPerTensor(q.getScale(), q.getZeroPoint());
  if (auto dq = dyn_cast<edge::DequantizeLinearOp>(op))
    return isF32Tensor(dq.getType()) && isSigned8(dq.getInput().getType()) &&
           !dq.getInput().getDefiningOp<edge::ConstantOp>() &&
           isSymmetricPerTensor(dq.getScale(), dq.getZeroPoint());
  return false;
}

/// Whether `value` becomes integers through a cast, directly or after
/// further element-wise arithmetic (`depth` ops at most): an index computed
/// in float, as T5's relative-position buckets (log of a distance, scaled,
/// truncated). oneDNN's log and exp differ from libm's in the last bit,
/// which moves a value at an integer boundary to the next bucket; such
/// arithmetic stays with the portable kernels, which compute as the
/// reference does.
static bool isArithmetic(Operation *op) {
  return isa<edge::AddOp, edge::SubOp, edge::MulOp, edge::DivOp,
             edge::MaximumOp, edge::MinimumOp, edge::PowOp, edge::LogOp,
             edge::ExpOp, edge::SqrtOp, edge::AbsOp, edge::NegOp, edge::TanhOp,
             edge::SigmoidOp, edge::ClipOp, edge::ReluOp>(op);
}

static bool becomesIntegers(Value value, int depth = 4) {
  for (Operation *user : value.getUsers()) {
    if (auto cast = dyn_cast<edge::CastOp>(user))
      if (isa<IntegerType>(getElementTypeOrSelf(cast.getType())))
        return true;
    if (depth > 0 && isArithmetic(user) &&
        isa<FloatType>(getElementTypeOrSelf(user->getResult(0).getType())) &&
        becomesIntegers(user->getResult(0), depth - 1))
      return true;
  }
  return false;
}

/// A mean over one run of axes (the extents of 1 aside): the delegate
/// runs it as a reduction (a trailing run) or as pooling (H and W, or a
/// run with kept axes after it); over several runs oneDNN has only its
/// reference code. A mean only over extents of 1 is a copy, which
/// oneDNN's reduction refuses (its source and result must differ). A
/// dynamic extent counts as more than 1.
static bool supportsStaticMean(edge::ReduceMeanOp mean) {
  ArrayRef<int64_t> in = shapeOf(mean.getInput());
  int64_t rank = static_cast<int64_t>(in.size());
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : mean.getAxes()) {
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
      return false;
    reduced[a] = in[a] != 1;
  }
  int runs = 0;
  bool inRun = false;
  for (int64_t d = 0; d < rank; ++d) {
    if (in[d] == 1)
      continue;
    if (reduced[d] && !inRun)
      ++runs;
    inRun = reduced[d];
  }
  return runs == 1;
}

/// The element-wise and data-movement ops whose graph entries read only
/// their tensors' shapes, static or dynamic: activations, softmax, GELU's
/// erf, squares and square roots, binary ops writing their first
/// operand's shape (or the second's, swapped), reshape, transpose, concat
/// and unit-step slices.
static bool supportsElementwiseOrMovement(Operation *op) {
  if (isa<edge::ReluOp, edge::ClipOp, edge::SigmoidOp, edge::TanhOp,
          edge::ExpOp, edge::SqrtOp, edge::AbsOp, edge::LogOp, edge::NegOp,
          edge::SoftmaxOp, edge::LogSoftmaxOp, edge::TransposeOp,
          edge::ReshapeOp, edge::ConcatOp>(op))
    return true;
  // Erf only as part of a GELU (oneDNN has gelu_erf, not erf).
  if (isa<edge::ErfOp>(op))
    return matchGelu(op).has_value();
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

/// Whether `type` is a ranked f32 tensor (rank 1 to 6) whose static
/// extents are positive.
static bool isBoundedF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32() && tensor.getRank() >= 1 &&
         tensor.getRank() <= 6 &&
         llvm::all_of(tensor.getShape(), [](int64_t d) {
           return ShapedType::isDynamic(d) || d > 0;
         });
}

/// Whether dimensions 1 and up of `value` (NCHW: channels and image) are
/// static: windows run at a dynamic batch only.
static bool dynamicOnlyInBatch(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
}

/// The ops with dynamic extents the delegate takes: f32 ops whose graph
/// entry reads shapes only from its tensors, which the delegate builds at
/// each call's extents (the partition's extent slots, docs/delegation.md).
/// Their dynamic results have a shape rule, from which the slots come.
static bool supportsDynamicOp(Operation *op) {
  if (!backends::isDynamicCandidate(op, isBoundedF32Tensor))
    return false;
  if (isArithmetic(op) && becomesIntegers(op->getResult(0)))
    return false;
  if (auto conv = dyn_cast<edge::Conv2DOp>(op))
    return shapeOf(conv.getInput()).size() == 4 &&
           dynamicOnlyInBatch(conv.getInput()) &&
           dynamicOnlyInBatch(conv.getOutput()) &&
           conv.getWeight().getDefiningOp<edge::ConstantOp>();
  if (isa<edge::MaxPool2DOp, edge::AvgPool2DOp>(op))
    return dynamicOnlyInBatch(op->getOperand(0)) &&
           dynamicOnlyInBatch(op->getResult(0)) &&
           getPoolGeometry(op).has_value();
  if (auto matmul = dyn_cast<edge::MatMulOp>(op)) {
    ArrayRef<int64_t> a = shapeOf(matmul.getLhs()),
                      out = shapeOf(matmul.getOutput());
    return a.size() == out.size() && a.drop_back(2) == out.drop_back(2);
  }
  // A mean over static axes (a global pooling at any batch).
  if (auto mean = dyn_cast<edge::ReduceMeanOp>(op)) {
    ArrayRef<int64_t> in = shapeOf(mean.getInput());
    int64_t rank = static_cast<int64_t>(in.size());
    return llvm::all_of(mean.getAxes(),
                        [&](int64_t axis) {
                          int64_t a = axis < 0 ? axis + rank : axis;
                          return a >= 0 && a < rank &&
                                 !ShapedType::isDynamic(in[a]) && in[a] > 1;
                        }) &&
           supportsStaticMean(mean);
  }
  return supportsElementwiseOrMovement(op);
}

bool supportsOp(Operation *op) {
  if (backends::hasDynamicShape(op))
    return supportsDynamicOp(op);
  if (isArithmetic(op) && becomesIntegers(op->getResult(0)))
    return false;
  if (isa<edge::QuantizedConv2DOp, edge::QuantizedMatMulOp,
          edge::QuantizeLinearOp, edge::DequantizeLinearOp>(op))
    return supportsQuantizedOp(op);
  // Max pooling and data movement on 8-bit values (a quantization hoisted
  // above them): the same primitives on s8.
  auto isS8Tensor = [](Type type) { return isSigned8(type).value_or(false); };
  if (isa<edge::MaxPool2DOp, edge::ConcatOp, edge::ReshapeOp,
          edge::TransposeOp>(op) &&
      llvm::all_of(op->getOperandTypes(), isS8Tensor) &&
      llvm::all_of(op->getResultTypes(), isS8Tensor))
    return !isa<edge::MaxPool2DOp>(op) || getPoolGeometry(op).has_value();
  // A whole recurrent layer on oneDNN's RNN primitives, its weights and
  // biases packed at compile time (the one kind of op with several
  // results the delegate takes). Bidirectional only at batch 1: oneDNN
  // writes Y as [seq, batch, 2 * hidden], which is edge's
  // [seq, 2, batch, hidden] only then.
  if (isa<edge::RNNOp, edge::GRUOp, edge::LSTMOp>(op)) {
    ArrayRef<int64_t> x = shapeOf(op->getOperand(0)),
                      r = shapeOf(op->getOperand(2));
    return llvm::all_of(op->getOperandTypes(), isF32Tensor) &&
           llvm::all_of(op->getResultTypes(), isF32Tensor) &&
           llvm::all_of(op->getOperands().slice(1, 3),
                        [](Value v) {
                          return v.getDefiningOp<edge::ConstantOp>() != nullptr;
                        }) &&
           (r[0] == 1 || x[1] == 1);
  }
  if (!backends::isF32Op(op))
    return false;
  // Weights are packed at compile time: a convolution whose weights are
  // computed at run time stays with the portable kernels.
  if (auto conv = dyn_cast<edge::Conv2DOp>(op))
    return shapeOf(conv.getInput()).size() == 4 &&
           conv.getWeight().getDefiningOp<edge::ConstantOp>();
  // Transposed convolutions: oneDNN's deconvolution, ungrouped, where the
  // output padding fits in the end padding (oneDNN derives the result's
  // extent from the geometry).
  if (auto deconv = dyn_cast<edge::ConvTranspose2DOp>(op)) {
    ArrayRef<int64_t> pads = deconv.getPads(),
                      extra = deconv.getOutputPadding();
    return shapeOf(deconv.getInput()).size() == 4 && deconv.getGroup() == 1 &&
           deconv.getWeight().getDefiningOp<edge::ConstantOp>() &&
           pads.size() == 4 && extra.size() == 2 && pads[2] >= extra[0] &&
           pads[3] >= extra[1];
  }
  if (auto matmul = dyn_cast<edge::MatMulOp>(op)) {
    ArrayRef<int64_t> a = shapeOf(matmul.getLhs()),
                      out = shapeOf(matmul.getOutput());
    // The left operand's batch extents must be the result's.
    return a.size() == out.size() && a.drop_back(2) == out.drop_back(2);
  }
  if (isa<edge::MaxPool2DOp, edge::AvgPool2DOp>(op))
    return getPoolGeometry(op).has_value();
  if (auto mean = dyn_cast<edge::ReduceMeanOp>(op))
    return supportsStaticMean(mean);
  // A resize of H and W with scales known at compile time: the delegate's
  // own kernel, in the layout its producer left (every mode, transform and
  // rounding but tf_crop_and_resize; no antialias).
  if (auto resize = dyn_cast<edge::ResizeOp>(op)) {
    ArrayRef<int64_t> in = shapeOf(resize.getInput()),
                      out = shapeOf(resize.getOutput());
    std::optional<ArrayRef<double>> scales = resize.getScales();
    auto positive = [](int64_t d) { return d > 0; };
    return in.size() == 4 && out.size() == 4 && in[0] == out[0] &&
           in[1] == out[1] && llvm::all_of(in, positive) &&
           llvm::all_of(out, positive) && scales && scales->size() == 4 &&
           (*scales)[0] == 1 && (*scales)[1] == 1 && !resize.getDynamicRoi() &&
           !resize.getDynamicScales() && !resize.getAntialias() &&
           resize.getCoordinateTransformationMode() != "tf_crop_and_resize";
  }
  return supportsElementwiseOrMovement(op);
}

} // namespace strata::onednn
