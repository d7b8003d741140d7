//===- FormQuantizedOps.cpp - QDQ chains on edge to integer ops -----------===//
//
// After QDQ insertion and lowering, a quantized convolution on edge is a
// chain of float ops around dequantized operands:
//
//   dequantize(x) -> conv2d(., dequantize(w), bias)
//     -> mul/add by per-channel constants   (a batch normalization)
//     -> add(., dequantize(r))              (a residual input)
//     -> relu | clip | SiLU | hardswish | GELU
//     -> quantize                           (the next op's input)
//
// This pass rewrites each such chain into one edge.quantized_conv2d (and
// the matmul form, by a constant weight or of two dequantized activations
// as in attention, into edge.quantized_matmul): the multiply-accumulate runs
// on the 8-bit integers with int32 accumulation, and the float tail becomes
// the op's epilogue: a per-channel scale (weight scale times the folded
// factors), an f32 bias, the residual, the clamp or activation function
// (SiLU, hardswish and GELU as exporters spell them out,
// EdgeActivationChains.h) and the requantization. A
// chain that ends in a float consumer keeps an f32 result. Everything but
// the accumulation order is the float chain's arithmetic, so results match
// it to float rounding. A constant dequantization no integer op took (a
// weight whose layer stays float) folds to the f32 constant it computes.
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Quantization.h"

#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace strata {
#define GEN_PASS_DEF_FORMQUANTIZEDOPS
#include "strata/Quantization/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {

/// A dequantized 8-bit operand: its integer values, constant scale and
/// zero point, and the axis they run along (-1 per tensor).
struct Dequantized {
  Value values, scale, zeroPoint;
  int64_t axis = -1;
};

bool isEightBit(Type element) {
  if (auto q = dyn_cast<mlir::quant::QuantizedType>(element))
    return q.getStorageTypeIntegralWidth() == 8;
  auto integer = dyn_cast<IntegerType>(element);
  return integer && integer.getWidth() == 8 && !integer.isSigned();
}

/// `value` as dequantize_linear of 8-bit values with constant scale and
/// zero point.
std::optional<Dequantized> matchDequantize(Value value) {
  auto dq = value.getDefiningOp<edge::DequantizeLinearOp>();
  if (!dq || !isEightBit(getElementTypeOrSelf(dq.getInput())) ||
      !matchPattern(dq.getScale(), m_Constant()) ||
      !matchPattern(dq.getZeroPoint(), m_Constant()))
    return std::nullopt;
  bool perTensor =
      cast<RankedTensorType>(dq.getScale().getType()).getRank() == 0;
  return Dequantized{dq.getInput(), dq.getScale(), dq.getZeroPoint(),
                     perTensor ? -1 : static_cast<int64_t>(dq.getAxis())};
}

/// The f32 values of a constant.
std::optional<std::vector<float>> constantFloats(Value value) {
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return std::nullopt;
  return edge::readF32Constant(constant.getValue());
}

/// The values of an 8-bit integer constant (dense or resource-backed).
std::optional<std::vector<int64_t>> constantInts(Value value) {
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = cast<ElementsAttr>(constant.getValue());
  auto integer = dyn_cast<IntegerType>(elements.getElementType());
  if (!integer || integer.getWidth() != 8)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  std::vector<int64_t> out;
  out.reserve(elements.getNumElements());
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    for (const APInt &v : dense.getValues<APInt>())
      out.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                               : v.getSExtValue());
    return out;
  }
  std::optional<ArrayRef<char>> raw = edge::getRawConstantData(elements);
  if (!raw || static_cast<int64_t>(raw->size()) != elements.getNumElements())
    return std::nullopt;
  for (char byte : *raw)
    out.push_back(isUnsigned ? static_cast<int64_t>(static_cast<uint8_t>(byte))
                             : static_cast<int64_t>(static_cast<int8_t>(byte)));
  return out;
}

/// Per-channel values of a constant broadcast against a result whose
/// channels run along `axis`: every other extent must be 1. Returns one
/// value per channel.
std::optional<std::vector<float>> perChannel(Value value, int64_t axis,
                                             int64_t channels) {
  auto type = cast<RankedTensorType>(value.getType());
  for (auto [i, extent] : llvm::enumerate(type.getShape()))
    if (extent != 1 && !(static_cast<int64_t>(i) == axis && extent == channels))
      return std::nullopt;
  std::optional<std::vector<float>> values = constantFloats(value);
  if (!values)
    return std::nullopt;
  if (values->size() == 1)
    values->assign(channels, values->front());
  return values;
}

/// The float tail of a quantized chain, folded into an epilogue.
struct Epilogue {
  std::vector<float> factor, bias; // real = acc * sx * sw * factor + bias
  std::optional<Dequantized> residual;
  std::optional<float> clipMin, clipMax;
  StringRef activation; // empty, "swish", "hardswish" or "gelu_erf"
  edge::QuantizeLinearOp requantize; // null: f32 result
  Operation *last = nullptr;         // the op whose result is replaced
  /// The ops folded in, but the requantize (named after what reads it).
  SmallVector<Location> locs;

  /// The fused op computes every folded node: it carries all their names.
  Location fusedLoc(MLIRContext *context) const {
    return FusedLoc::get(context, locs);
  }
};

/// The other operand of binary `op` than `self`.
Value otherOperand(Operation *op, Value self) {
  return op->getOperand(0) == self ? op->getOperand(1) : op->getOperand(0);
}

/// Follows single-use float ops from `start` (channels along `axis`):
/// constant per-channel mul/div/add, then at most one dequantized residual
/// add, then at most one relu/clip or spelled-out activation function, then
/// an optional per-tensor 8-bit quantize.
Epilogue collectEpilogue(Operation *start, int64_t axis, int64_t channels,
                         std::vector<float> bias) {
  Epilogue e;
  e.factor.assign(channels, 1.0f);
  e.bias = std::move(bias);
  e.last = start;
  e.locs.push_back(start->getLoc());
  Value current = start->getResult(0);
  auto resultShape = cast<RankedTensorType>(current.getType()).getShape();
  enum Stage { Affine, Residual, Activation } stage = Affine;
  while (true) {
    // SiLU, hardswish and GELU read their input twice.
    if (std::optional<edge::ActivationChain> chain =
            stage < Activation ? edge::matchActivationOf(current)
                               : std::nullopt) {
      e.activation = edge::stringifyActivationKind(chain->kind);
      stage = Activation;
      current = chain->output;
      e.last = current.getDefiningOp();
      e.locs.push_back(e.last->getLoc());
      continue;
    }
    if (!current.hasOneUse())
      break;
    Operation *user = *current.getUsers().begin();
    if (auto q = dyn_cast<edge::QuantizeLinearOp>(user)) {
      if (isEightBit(getElementTypeOrSelf(q.getOutput())) &&
          cast<RankedTensorType>(q.getScale().getType()).getRank() == 0 &&
          matchPattern(q.getScale(), m_Constant()) &&
          matchPattern(q.getZeroPoint(), m_Constant())) {
        e.requantize = q;
        e.last = q;
      }
      break;
    }
    if (user->getNumResults() != 1 ||
        cast<RankedTensorType>(user->getResult(0).getType()).getShape() !=
            resultShape)
      break;
    Value other =
        user->getNumOperands() == 2 ? otherOperand(user, current) : Value();
    if (isa<edge::MulOp>(user) && stage == Affine) {
      std::optional<std::vector<float>> k = perChannel(other, axis, channels);
      if (!k)
        break;
      for (int64_t c = 0; c < channels; ++c) {
        e.factor[c] *= (*k)[c];
        e.bias[c] *= (*k)[c];
      }
    } else if (std::optional<std::vector<float>> k =
                   isa<edge::DivOp>(user) && stage == Affine &&
                           user->getOperand(0) == current
                       ? perChannel(other, axis, channels)
                       : std::nullopt) {
      for (int64_t c = 0; c < channels; ++c) {
        e.factor[c] /= (*k)[c];
        e.bias[c] /= (*k)[c];
      }
    } else if (std::optional<std::vector<float>> shift =
                   isa<edge::AddOp>(user) && stage == Affine
                       ? perChannel(other, axis, channels)
                       : std::nullopt) {
      for (int64_t i = 0; i < channels; ++i)
        e.bias[i] += (*shift)[i];
    } else if (isa<edge::AddOp>(user) && stage < Residual) {
      std::optional<Dequantized> residual = matchDequantize(other);
      if (!residual || residual->axis >= 0 ||
          cast<RankedTensorType>(other.getType()).getShape() != resultShape)
        break;
      e.residual = residual;
      stage = Residual;
    } else if (isa<edge::ReluOp>(user) && stage < Activation) {
      e.clipMin = 0.0f;
      stage = Activation;
    } else if (auto clip = dyn_cast<edge::ClipOp>(user);
               clip && stage < Activation) {
      e.clipMin = clip.getMin().convertToFloat();
      e.clipMax = clip.getMax().convertToFloat();
      stage = Activation;
    } else {
      break;
    }
    e.last = user;
    e.locs.push_back(user->getLoc());
    current = user->getResult(0);
  }
  return e;
}

/// Scalar or [n] f32 constant.
Value f32Constant(OpBuilder &b, Location loc, ArrayRef<float> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getF32Type());
  return b.create<edge::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

/// The per-channel scale (weight scale times the folded factors) and the
/// per-channel zero point of a weight dequantized per tensor or per
/// `channels`.
std::optional<std::pair<Value, Value>> channelScale(OpBuilder &b, Location loc,
                                                    const Dequantized &w,
                                                    ArrayRef<float> factor) {
  std::optional<std::vector<float>> scales = constantFloats(w.scale);
  std::optional<std::vector<int64_t>> zeroPoints = constantInts(w.zeroPoint);
  if (!scales || !zeroPoints)
    return std::nullopt;
  size_t channels = factor.size();
  if (scales->size() == 1)
    scales->assign(channels, scales->front());
  if (zeroPoints->size() == 1)
    zeroPoints->assign(channels, zeroPoints->front());
  if (scales->size() != channels || zeroPoints->size() != channels)
    return std::nullopt;
  std::vector<float> combined(channels);
  for (size_t c = 0; c < channels; ++c)
    combined[c] = (*scales)[c] * factor[c];
  Type storage = getElementTypeOrSelf(w.zeroPoint);
  auto zpType =
      RankedTensorType::get({static_cast<int64_t>(channels)}, storage);
  SmallVector<APInt> zps;
  for (int64_t z : *zeroPoints)
    zps.push_back(APInt(8, static_cast<uint64_t>(z), /*isSigned=*/true));
  Value zp =
      b.create<edge::ConstantOp>(loc, DenseElementsAttr::get(zpType, zps));
  return std::make_pair(f32Constant(b, loc, combined), zp);
}

/// Sets clip_min / clip_max and the activation on a quantized op from the
/// epilogue.
void setEpilogueAttrs(Operation *op, const Epilogue &e, Builder &b) {
  if (e.clipMin)
    op->setAttr("clip_min", b.getF32FloatAttr(*e.clipMin));
  if (e.clipMax)
    op->setAttr("clip_max", b.getF32FloatAttr(*e.clipMax));
  if (!e.activation.empty())
    op->setAttr("activation", b.getStringAttr(e.activation));
}

/// The result type of the fused op.
Type fusedResultType(const Epilogue &e) {
  return e.requantize ? e.requantize->getResult(0).getType()
                      : e.last->getResult(0).getType();
}

/// The output scale and zero point of the fused op (null for f32).
std::pair<Value, Value> requantizeOperands(const Epilogue &e) {
  if (!e.requantize)
    return {};
  edge::QuantizeLinearOp q = e.requantize;
  return {q.getScale(), q.getZeroPoint()};
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

struct FormQuantizedConv2D : public OpRewritePattern<edge::Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(edge::Conv2DOp conv,
                                PatternRewriter &rewriter) const override {
    std::optional<Dequantized> x = matchDequantize(conv.getInput());
    std::optional<Dequantized> w = matchDequantize(conv.getWeight());
    if (!x || x->axis >= 0 || !w || (w->axis != -1 && w->axis != 0) ||
        !matchPattern(w->values, m_Constant()))
      return rewriter.notifyMatchFailure(conv, "operands are not dequantized "
                                               "8-bit values and weights");
    int64_t channels =
        cast<RankedTensorType>(conv.getWeight().getType()).getDimSize(0);
    std::vector<float> bias(channels, 0.0f);
    if (Value b = conv.getBias()) {
      std::optional<std::vector<float>> values = constantFloats(b);
      if (!values)
        return rewriter.notifyMatchFailure(conv, "bias is not constant");
      bias = *values;
    }
    Epilogue e = collectEpilogue(conv, /*axis=*/1, channels, std::move(bias));
    Location loc = e.fusedLoc(rewriter.getContext());
    rewriter.setInsertionPoint(e.last);
    std::optional<std::pair<Value, Value>> scale =
        channelScale(rewriter, loc, *w, e.factor);
    if (!scale)
      return rewriter.notifyMatchFailure(conv, "weight scale not constant");
    auto [outScale, outZeroPoint] = requantizeOperands(e);
    Value residual, residualScale, residualZeroPoint;
    if (e.residual) {
      residual = e.residual->values;
      residualScale = e.residual->scale;
      residualZeroPoint = e.residual->zeroPoint;
    }
    auto fused = rewriter.create<edge::QuantizedConv2DOp>(
        loc, fusedResultType(e), x->values, x->scale, x->zeroPoint, w->values,
        scale->first, scale->second, f32Constant(rewriter, loc, e.bias),
        outScale, outZeroPoint, residual, residualScale, residualZeroPoint,
        conv.getStridesAttr(), conv.getDilationsAttr(), conv.getPadsAttr(),
        conv.getGroupAttr(), FloatAttr(), FloatAttr(), StringAttr());
    setEpilogueAttrs(fused, e, rewriter);
    rewriter.replaceOp(e.last, fused.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// A constant weight matrix `[K, N]` reached from a matmul's rhs through
/// reshapes that add leading 1s and a transpose of the last two axes of a
/// dequantized 2-d constant. The values are the int8 bytes row-major in
/// `[K, N]` order; the scale runs along N (per column) or is per tensor.
struct WeightMatrix {
  int64_t k = 0, n = 0;
  std::vector<int64_t> values;
  Dequantized dq;
};

std::optional<WeightMatrix> matchWeightMatrix(Value rhs) {
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (rhsType.getRank() < 2 || llvm::any_of(rhsType.getShape().drop_back(2),
                                            [](int64_t e) { return e != 1; }))
    return std::nullopt;
  Value v = rhs;
  if (auto reshape = v.getDefiningOp<edge::ReshapeOp>())
    v = reshape.getInput();
  bool transposed = false;
  if (auto transpose = v.getDefiningOp<edge::TransposeOp>()) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    if (perm.size() != 2 || perm[0] != 1 || perm[1] != 0)
      return std::nullopt;
    transposed = true;
    v = transpose.getInput();
  }
  std::optional<Dequantized> dq = matchDequantize(v);
  auto type = cast<RankedTensorType>(v.getType());
  if (!dq || type.getRank() != 2)
    return std::nullopt;
  std::optional<std::vector<int64_t>> values = constantInts(dq->values);
  if (!values)
    return std::nullopt;
  // Axis of the scale in the stored constant; it must end up along N.
  int64_t nAxis = transposed ? 0 : 1;
  if (dq->axis >= 0 && dq->axis != nAxis)
    return std::nullopt;
  WeightMatrix m;
  m.k = type.getDimSize(transposed ? 1 : 0);
  m.n = type.getDimSize(transposed ? 0 : 1);
  if (m.k != rhsType.getShape().end()[-2] || m.n != rhsType.getShape().back())
    return std::nullopt;
  m.dq = *dq;
  if (values->size() == 1)
    values->assign(m.k * m.n, values->front());
  m.values.resize(m.k * m.n);
  for (int64_t i = 0; i < m.k; ++i)
    for (int64_t j = 0; j < m.n; ++j)
      m.values[i * m.n + j] =
          transposed ? (*values)[j * m.k + i] : (*values)[i * m.n + j];
  return m;
}

/// `value` as a dequantized 8-bit activation, possibly scaled by a scalar
/// constant (attention's 1 / sqrt(d) on Q): the dequantized operand and the
/// factor.
std::optional<std::pair<Dequantized, float>>
matchScaledDequantize(Value value) {
  float factor = 1.0f;
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<edge::MulOp, edge::DivOp>(def) && value.hasOneUse()) {
    bool isDiv = isa<edge::DivOp>(def);
    for (int side = 0; side < (isDiv ? 1 : 2); ++side) {
      std::optional<std::vector<float>> k =
          constantFloats(def->getOperand(1 - side));
      if (!k || k->empty() ||
          llvm::any_of(*k, [&](float v) { return v != k->front(); }) ||
          k->front() == 0.0f ||
          cast<RankedTensorType>(def->getOperand(1 - side).getType())
                  .getNumElements() != static_cast<int64_t>(k->size()) ||
          def->getOperand(side).getType() != value.getType())
        continue;
      factor = isDiv ? 1.0f / k->front() : k->front();
      value = def->getOperand(side);
      break;
    }
  }
  std::optional<Dequantized> dq = matchDequantize(value);
  if (!dq || dq->axis >= 0)
    return std::nullopt;
  return std::make_pair(*dq, factor);
}

/// A product of two dequantized activations (attention's Q K^T and P V):
/// both per tensor, the rhs with the lhs's rank and batch extents. A scalar
/// scaling of either operand joins the epilogue's factor.
struct FormQuantizedActivationMatMul : public OpRewritePattern<edge::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(edge::MatMulOp matmul,
                                PatternRewriter &rewriter) const override {
    auto a = matchScaledDequantize(matmul.getLhs());
    auto b = matchScaledDequantize(matmul.getRhs());
    if (!a || !b || matchPattern(b->first.values, m_Constant()))
      return rewriter.notifyMatchFailure(
          matmul, "operands are not two dequantized activations");
    ArrayRef<int64_t>
        lhsShape = cast<RankedTensorType>(matmul.getLhs().getType()).getShape(),
        rhsShape = cast<RankedTensorType>(matmul.getRhs().getType()).getShape();
    if (lhsShape.size() < 2 || rhsShape.size() != lhsShape.size() ||
        lhsShape.drop_back(2) != rhsShape.drop_back(2))
      return rewriter.notifyMatchFailure(matmul, "batch extents differ");
    int64_t rank = lhsShape.size(), n = rhsShape.back();
    Epilogue e =
        collectEpilogue(matmul, rank - 1, n, std::vector<float>(n, 0.0f));
    if (e.residual)
      return rewriter.notifyMatchFailure(matmul, "residual not supported");
    std::optional<std::vector<float>> rhsScale = constantFloats(b->first.scale);
    if (!rhsScale || rhsScale->size() != 1)
      return rewriter.notifyMatchFailure(matmul, "rhs scale not constant");
    Location loc = e.fusedLoc(rewriter.getContext());
    rewriter.setInsertionPoint(e.last);
    std::vector<float> scale(n);
    for (int64_t j = 0; j < n; ++j)
      scale[j] = rhsScale->front() * a->second * b->second * e.factor[j];
    std::vector<float> bias = e.bias;
    auto [outScale, outZeroPoint] = requantizeOperands(e);
    auto fused = rewriter.create<edge::QuantizedMatMulOp>(
        loc, fusedResultType(e), a->first.values, a->first.scale,
        a->first.zeroPoint, b->first.values, f32Constant(rewriter, loc, scale),
        broadcastZeroPoint(rewriter, loc, b->first.zeroPoint, n),
        f32Constant(rewriter, loc, bias), outScale, outZeroPoint, FloatAttr(),
        FloatAttr(), StringAttr());
    setEpilogueAttrs(fused, e, rewriter);
    rewriter.replaceOp(e.last, fused.getResult());
    return success();
  }

  /// A [n] zero point constant holding the scalar `zeroPoint`.
  static Value broadcastZeroPoint(OpBuilder &b, Location loc, Value zeroPoint,
                                  int64_t n) {
    std::optional<std::vector<int64_t>> zp = constantInts(zeroPoint);
    Type storage = getElementTypeOrSelf(zeroPoint);
    auto type = RankedTensorType::get({n}, storage);
    SmallVector<APInt> values(
        n, APInt(8, static_cast<uint64_t>(zp ? zp->front() : 0), true));
    return b.create<edge::ConstantOp>(loc,
                                      DenseElementsAttr::get(type, values));
  }
};

struct FormQuantizedMatMul : public OpRewritePattern<edge::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(edge::MatMulOp matmul,
                                PatternRewriter &rewriter) const override {
    std::optional<Dequantized> a = matchDequantize(matmul.getLhs());
    std::optional<WeightMatrix> w = matchWeightMatrix(matmul.getRhs());
    if (!a || a->axis >= 0 || !w)
      return rewriter.notifyMatchFailure(
          matmul, "operands are not a dequantized activation and weight");
    int64_t rank = cast<RankedTensorType>(matmul.getType()).getRank();
    Epilogue e =
        collectEpilogue(matmul, rank - 1, w->n, std::vector<float>(w->n, 0.0f));
    if (e.residual)
      return rewriter.notifyMatchFailure(matmul, "residual not supported");
    Location loc = e.fusedLoc(rewriter.getContext());
    rewriter.setInsertionPoint(e.last);
    std::optional<std::pair<Value, Value>> scale =
        channelScale(rewriter, loc, w->dq, e.factor);
    if (!scale)
      return rewriter.notifyMatchFailure(matmul, "weight scale not constant");
    Type storage = getElementTypeOrSelf(w->dq.zeroPoint);
    auto weightType = RankedTensorType::get({w->k, w->n}, storage);
    SmallVector<APInt> bytes;
    bytes.reserve(w->values.size());
    for (int64_t v : w->values)
      bytes.push_back(APInt(8, static_cast<uint64_t>(v), /*isSigned=*/true));
    Value weight = rewriter.create<edge::ConstantOp>(
        w->dq.values.getLoc(), DenseElementsAttr::get(weightType, bytes));
    auto [outScale, outZeroPoint] = requantizeOperands(e);
    auto fused = rewriter.create<edge::QuantizedMatMulOp>(
        loc, fusedResultType(e), a->values, a->scale, a->zeroPoint, weight,
        scale->first, scale->second, f32Constant(rewriter, loc, e.bias),
        outScale, outZeroPoint, FloatAttr(), FloatAttr(), StringAttr());
    setEpilogueAttrs(fused, e, rewriter);
    rewriter.replaceOp(e.last, fused.getResult());
    return success();
  }
};

/// quantize(op(x...)) -> op(quantize(x)...) for the ops a per-tensor
/// quantization commutes with exactly: max pooling (rounding and clamping
/// are monotonic, so the largest element stays the largest), concatenation
/// (every part takes the one scale) and reshape/transpose (data movement).
/// The op then runs on the 8-bit values, and the ops producing its inputs
/// can requantize into them (an int8 convolution followed by an int8 max
/// pool or concat, instead of an f32 result pooled in float).
struct HoistQuantize : public OpRewritePattern<edge::QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(edge::QuantizeLinearOp quantize,
                                PatternRewriter &rewriter) const override {
    Operation *op = quantize.getInput().getDefiningOp();
    if (!op ||
        !isa<edge::MaxPool2DOp, edge::ConcatOp, edge::ReshapeOp,
             edge::TransposeOp>(op) ||
        op->getNumResults() != 1 || !op->hasOneUse())
      return failure();
    if (cast<RankedTensorType>(quantize.getScale().getType()).getRank() != 0)
      return rewriter.notifyMatchFailure(quantize, "per-axis quantization");
    Type storage = getElementTypeOrSelf(quantize.getType());
    IRMapping mapping;
    for (Value input : op->getOperands()) {
      auto type = cast<RankedTensorType>(input.getType());
      Value quantized = rewriter.create<edge::QuantizeLinearOp>(
          quantize.getLoc(), type.clone(storage), input, quantize.getScale(),
          quantize.getZeroPoint(), quantize.getAxisAttr());
      mapping.map(input, quantized);
    }
    Operation *moved = rewriter.clone(*op, mapping);
    moved->getResult(0).setType(quantize.getType());
    rewriter.replaceOp(quantize, moved->getResults());
    return success();
  }
};

/// dequantize_linear of a constant that no integer op took (a weight whose
/// conv or matmul stays float, as mixed precision leaves when it keeps the
/// activation float): the f32 constant it computes, so that the float op
/// has a constant weight (delegates pack it) instead of a run-time
/// dequantization. Computed as the dequantize_linear kernel does.
struct FoldConstantDequantize
    : public OpRewritePattern<edge::DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(edge::DequantizeLinearOp dq,
                                PatternRewriter &rewriter) const override {
    std::optional<std::vector<int64_t>> values = constantInts(dq.getInput());
    std::optional<std::vector<float>> scales = constantFloats(dq.getScale());
    std::optional<std::vector<int64_t>> zeroPoints =
        constantInts(dq.getZeroPoint());
    auto type = cast<RankedTensorType>(dq.getType());
    if (!values || !scales || !zeroPoints || scales->empty() ||
        zeroPoints->size() != scales->size() || !type.hasStaticShape() ||
        static_cast<int64_t>(values->size()) != type.getNumElements())
      return rewriter.notifyMatchFailure(dq, "not a constant dequantization");
    bool perTensor =
        cast<RankedTensorType>(dq.getScale().getType()).getRank() == 0;
    int64_t axis = perTensor ? -1 : static_cast<int64_t>(dq.getAxis());
    if (axis >= type.getRank() ||
        (axis >= 0 &&
         type.getDimSize(axis) != static_cast<int64_t>(scales->size())))
      return rewriter.notifyMatchFailure(dq, "scale does not match the axis");
    int64_t inner = 1;
    for (int64_t d = axis + 1; axis >= 0 && d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    std::vector<float> real(values->size());
    for (size_t i = 0; i < values->size(); ++i) {
      size_t c = axis < 0 ? 0 : (i / inner) % scales->size();
      real[i] = (static_cast<float>((*values)[i]) -
                 static_cast<float>((*zeroPoints)[c])) *
                (*scales)[c];
    }
    rewriter.replaceOpWithNewOp<edge::ConstantOp>(
        dq, edge::makeF32Constant(type, real));
    return success();
  }
};

struct FormQuantizedOpsPass
    : public strata::impl::FormQuantizedOpsBase<FormQuantizedOpsPass> {
  void runOnOperation() override {
    // Quantizations move up first, so that the chains below end in them.
    RewritePatternSet hoist(&getContext());
    hoist.add<HoistQuantize>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(hoist))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<FormQuantizedConv2D, FormQuantizedMatMul,
                 FormQuantizedActivationMatMul>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What no integer op took runs in float on constant weights.
    RewritePatternSet folds(&getContext());
    folds.add<FoldConstantDequantize>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(folds))))
      signalPassFailure();
  }
};

} // namespace
