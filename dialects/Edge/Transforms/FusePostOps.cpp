//===- FusePostOps.cpp - anchors take the chains they feed as post-ops ----===//
//
// strata-edge-fuse's second sweep: a convolution, matmul, binary, pooling
// or reduction op (an anchor the target names) takes what its result alone
// feeds (a residual sum, a bias or shift, one activation, a quantization)
// as `post_ops` steps (EdgePostOps.td), changed in place; the absorbed ops
// are erased. A dequantize -> global mean -> quantize chain becomes one
// reduce_mean of the 8-bit values. Each pattern looks only forward from its
// anchor, and the sweep visits anchors in program order.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Fusion.h"

#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace strata::edge {
namespace {

/// The single user of `value`, when it has exactly one use.
Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// The f32 values of an edge.constant operand.
std::optional<std::vector<float>> floatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant ? readF32Constant(constant.getValue()) : std::nullopt;
}

/// Whether a tensor type holds s8 (plain i8 or a signed 8-bit
/// `!quant.uniform` storage) of rank 1 to 6, not empty: what the delegates'
/// int8 tensors are.
bool isS8Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getRank() < 1 ||
      tensor.getRank() > 6 || tensor.getNumElements() == 0)
    return false;
  Type element = tensor.getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(element))
    return q.getStorageTypeIntegralWidth() == 8 && q.isSigned();
  return element.isSignlessInteger(8);
}

/// The scale of a per-tensor quantization into s8 with a constant, positive
/// scale.
std::optional<float> s8QuantizeScale(QuantizeLinearOp quantize) {
  if (!quantize || !isS8Tensor(quantize.getType()))
    return std::nullopt;
  std::optional<std::vector<float>> scale = floatConstant(quantize.getScale());
  if (!scale || scale->size() != 1 || !(scale->front() > 0))
    return std::nullopt;
  return scale->front();
}

/// The zero point of a per-tensor quantization, 0 where it is not a
/// readable constant.
float zeroPointOf(QuantizeLinearOp quantize) {
  DenseIntElementsAttr values;
  if (matchPattern(quantize.getZeroPoint(), m_Constant(&values)) &&
      values.getNumElements() == 1)
    return static_cast<float>((*values.begin()).getSExtValue());
  return 0.0f;
}

/// Whether the operands of binary `op` swap so that the first has the
/// result's shape (a commutative op whose broadcast operand comes first).
bool operandsSwap(Operation *op) {
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  ArrayRef<int64_t> result = shape(op->getResult(0));
  return shape(op->getOperand(0)) != result &&
         shape(op->getOperand(1)) == result &&
         op->hasTrait<OpTrait::IsCommutative>();
}

/// The steps an anchor takes, the post operands they read, the ops they
/// absorb and the value the anchor then writes.
struct PostOpChain {
  explicit PostOpChain(Operation *anchor) : result(anchor->getResult(0)) {}
  void take(Operation *op, PostOpAttr step, Value operand = {}) {
    steps.push_back(step);
    if (operand)
      operands.push_back(operand);
    absorbed.push_back(op);
    result = op->getResult(0);
  }
  SmallVector<Attribute> steps;
  SmallVector<Value> operands;
  SmallVector<Operation *> absorbed;
  Value result;
};

/// Takes the activation that alone reads the chain's result, where the
/// target takes it: relu, clip, or an edge.activation.
void takeActivation(PostOpChain &chain, const FusionCapabilities &caps) {
  Operation *next = soleUser(chain.result);
  if (!next)
    return;
  MLIRContext *context = next->getContext();
  std::optional<PostOpAttr> step;
  if (auto activation = dyn_cast<ActivationOp>(next))
    step = activation.getKind();
  else if (isa<ReluOp>(next))
    step = PostOpAttr::get(context, PostOpKind::Relu);
  else if (auto clip = dyn_cast<ClipOp>(next))
    step = PostOpAttr::get(context, PostOpKind::Clip,
                           clip.getMin().convertToFloat(),
                           clip.getMax().convertToFloat());
  if (step && caps.takesActivation(step->getKind()))
    chain.take(next, *step);
}

/// Takes the per-tensor s8 quantization that alone reads the chain's result.
void takeQuantize(PostOpChain &chain) {
  auto quantize = dyn_cast_or_null<QuantizeLinearOp>(soleUser(chain.result));
  if (std::optional<float> scale = s8QuantizeScale(quantize))
    chain.take(quantize,
               PostOpAttr::get(quantize.getContext(), PostOpKind::Quantize,
                               *scale, zeroPointOf(quantize)));
}

/// Moves the constant `value` reads before `anchor` where it stands after.
void hoistConstant(PatternRewriter &rewriter, Value value, Operation *anchor) {
  Operation *def = value.getDefiningOp();
  if (def && def->getBlock() == anchor->getBlock() &&
      anchor->isBeforeInBlock(def))
    rewriter.moveOpBefore(def, anchor);
}

/// Makes `anchor` take `chain` in place: the post operands appended by
/// `append`, the steps as `post_ops`, the chain's result type and the
/// locations of the absorbed ops; then erases them.
LogicalResult commit(PatternRewriter &rewriter, Operation *anchor,
                     PostOpChain &chain,
                     function_ref<void(ValueRange)> append) {
  if (chain.steps.empty())
    return rewriter.notifyMatchFailure(anchor, "nothing to fuse");
  SmallVector<Location> locs{anchor->getLoc()};
  for (Operation *op : chain.absorbed)
    locs.push_back(op->getLoc());
  for (Value operand : chain.operands)
    hoistConstant(rewriter, operand, anchor);
  Value result = chain.result;
  rewriter.modifyOpInPlace(anchor, [&] {
    append(chain.operands);
    anchor->setAttr("post_ops", rewriter.getArrayAttr(chain.steps));
    anchor->getResult(0).setType(result.getType());
    anchor->setLoc(rewriter.getFusedLoc(locs));
  });
  rewriter.replaceAllUsesWith(result, anchor->getResult(0));
  for (Operation *op : llvm::reverse(chain.absorbed))
    rewriter.eraseOp(op);
  return success();
}

template <typename OpT>
using PostOperandsOf = decltype(std::declval<OpT>().getPostOperandsMutable());

/// A base for the anchors: matches only ops the target names that carry no
/// chain yet.
template <typename OpT> struct AnchorPattern : OpRewritePattern<OpT> {
  AnchorPattern(MLIRContext *context, const FusionCapabilities &caps)
      : OpRewritePattern<OpT>(context), caps(caps) {}
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const final {
    if (!caps.isAnchor(op) || op.getPostOps())
      return rewriter.notifyMatchFailure(op, "not an anchor here");
    PostOpChain chain(op);
    collect(op, chain);
    return commit(rewriter, op, chain, [&](ValueRange operands) {
      // Pooling and reductions take no post operands, nor steps that read
      // one.
      if constexpr (llvm::is_detected<PostOperandsOf, OpT>::value)
        op.getPostOperandsMutable().append(operands);
    });
  }
  /// Collects the steps `op` takes.
  virtual void collect(OpT op, PostOpChain &chain) const = 0;
  const FusionCapabilities caps;
};

/// conv2d [-> add(residual)] [-> activation].
struct ConvPostOps : AnchorPattern<Conv2DOp> {
  using AnchorPattern::AnchorPattern;
  void collect(Conv2DOp conv, PostOpChain &chain) const override {
    Value result = conv.getOutput();
    auto add = dyn_cast_or_null<AddOp>(soleUser(result));
    if (caps.convSum && add &&
        add.getLhs().getType() == add.getRhs().getType()) {
      Value residual = add.getLhs() == result ? add.getRhs() : add.getLhs();
      // The residual must exist when the convolution runs.
      Operation *def = residual.getDefiningOp();
      bool ready =
          !def || isa<ConstantOp>(def) ||
          (def->getBlock() == conv->getBlock() && def->isBeforeInBlock(conv));
      if (residual != result && ready)
        chain.take(add, PostOpAttr::get(conv.getContext(), PostOpKind::Sum),
                   residual);
    }
    takeActivation(chain, caps);
  }
};

/// conv_transpose2d [-> activation].
struct DeconvPostOps : AnchorPattern<ConvTranspose2DOp> {
  using AnchorPattern::AnchorPattern;
  void collect(ConvTranspose2DOp, PostOpChain &chain) const override {
    takeActivation(chain, caps);
  }
};

/// matmul [-> add(constant row [1.., N])] [-> activation].
struct MatMulPostOps : AnchorPattern<MatMulOp> {
  using AnchorPattern::AnchorPattern;
  void collect(MatMulOp matmul, PostOpChain &chain) const override {
    Value result = matmul.getOutput();
    auto add = dyn_cast_or_null<AddOp>(soleUser(result));
    if (caps.matmulBias && add) {
      Value bias = add.getLhs() == result ? add.getRhs() : add.getLhs();
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(bias.getType()).getShape();
      ArrayRef<int64_t> out =
          cast<RankedTensorType>(result.getType()).getShape();
      bool rowVector =
          bias.getDefiningOp<ConstantOp>() && !shape.empty() &&
          shape.back() == out.back() &&
          llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }) &&
          add.getType() == result.getType();
      if (rowVector)
        chain.take(add, PostOpAttr::get(matmul.getContext(), PostOpKind::Add),
                   bias);
    }
    takeActivation(chain, caps);
  }
};

/// A binary op [-> activation] [-> quantize], or mul(x, s) -> add(c) (a
/// scale-shift) [-> activation] -> [quantize].
template <typename OpT> struct BinaryPostOps : AnchorPattern<OpT> {
  using AnchorPattern<OpT>::AnchorPattern;
  using AnchorPattern<OpT>::caps;
  void collect(OpT op, PostOpChain &chain) const override {
    bool swap = operandsSwap(op);
    Value other = op->getOperand(swap ? 0 : 1);
    if (std::is_same_v<OpT, MulOp> && caps.scaleShift &&
        takeShift(op, other, chain)) {
      takeActivation(chain, caps);
      if (caps.quantize)
        takeQuantize(chain);
      return;
    }
    takeActivation(chain, caps);
    // A quantization only where the delegate's own kernels take the
    // broadcast: equal shapes, or one value per channel.
    auto bType = cast<RankedTensorType>(other.getType());
    auto rType = cast<RankedTensorType>(op.getType());
    bool perChannel =
        bType.getRank() == rType.getRank() && rType.getRank() >= 2 &&
        llvm::all_of(llvm::enumerate(bType.getShape()), [&](auto dim) {
          return dim.value() == 1 ||
                 (dim.index() == 1 && dim.value() == rType.getDimSize(1));
        });
    if (caps.quantize && (bType.getShape() == rType.getShape() || perChannel))
      takeQuantize(chain);
  }
  /// x * scale + shift, scale and shift constants of one type.
  bool takeShift(OpT op, Value scale, PostOpChain &chain) const {
    Value result = op.getOutput();
    auto add = dyn_cast_or_null<AddOp>(soleUser(result));
    if (!add || !scale.getDefiningOp<ConstantOp>() ||
        add.getType() != result.getType())
      return false;
    Value shift = add.getLhs() == result ? add.getRhs() : add.getLhs();
    if (shift == result || !shift.getDefiningOp<ConstantOp>() ||
        shift.getType() != scale.getType())
      return false;
    chain.take(add, PostOpAttr::get(op.getContext(), PostOpKind::Add), shift);
    return true;
  }
};

/// Pooling and reductions [-> activation]; they read no post operands.
template <typename OpT> struct WindowPostOps : AnchorPattern<OpT> {
  using AnchorPattern<OpT>::AnchorPattern;
  using AnchorPattern<OpT>::caps;
  void collect(OpT, PostOpChain &chain) const override {
    takeActivation(chain, caps);
  }
};

/// dequantize -> reduce_mean(axes 2, 3, kept) -> quantize into s8 (the
/// global average pooling of an int8 network): one reduce_mean of the
/// 8-bit values, then linear(in scale) and quantize(out scale).
struct Int8GlobalPool : OpRewritePattern<DequantizeLinearOp> {
  Int8GlobalPool(MLIRContext *context, const FusionCapabilities &caps)
      : OpRewritePattern(context), caps(caps) {}
  LogicalResult matchAndRewrite(DequantizeLinearOp dq,
                                PatternRewriter &rewriter) const override {
    if (!caps.int8GlobalPool)
      return rewriter.notifyMatchFailure(dq, "not taken by the target");
    std::optional<std::vector<float>> inScale = floatConstant(dq.getScale());
    auto reduce = dyn_cast_or_null<ReduceMeanOp>(soleUser(dq.getResult()));
    if (!inScale || inScale->size() != 1 || !reduce || reduce.getPostOps() ||
        !reduce.getKeepDims() || reduce.getAxes() != ArrayRef<int64_t>{2, 3} ||
        cast<RankedTensorType>(reduce.getType()).getRank() != 4)
      return rewriter.notifyMatchFailure(dq, "no global mean follows");
    auto quantize =
        dyn_cast_or_null<QuantizeLinearOp>(soleUser(reduce.getResult()));
    std::optional<float> outScale = s8QuantizeScale(quantize);
    if (!outScale)
      return rewriter.notifyMatchFailure(dq, "no s8 quantization follows");
    MLIRContext *context = getContext();
    Attribute steps = rewriter.getArrayAttr(
        {PostOpAttr::get(context, PostOpKind::Linear, inScale->front()),
         PostOpAttr::get(context, PostOpKind::Quantize, *outScale,
                         zeroPointOf(quantize))});
    auto pooled = rewriter.create<ReduceMeanOp>(
        rewriter.getFusedLoc({dq.getLoc(), reduce.getLoc(), quantize.getLoc()}),
        quantize.getType(), dq.getInput(), reduce.getAxesAttr(),
        reduce.getKeepDimsAttr(), cast<ArrayAttr>(steps));
    rewriter.replaceOp(quantize, pooled.getResult());
    rewriter.eraseOp(reduce);
    rewriter.eraseOp(dq);
    return success();
  }
  const FusionCapabilities caps;
};

} // namespace

void populateEdgePostOpPatterns(RewritePatternSet &patterns,
                                const FusionCapabilities &caps) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvPostOps, DeconvPostOps, MatMulPostOps, BinaryPostOps<AddOp>,
               BinaryPostOps<SubOp>, BinaryPostOps<MulOp>, BinaryPostOps<DivOp>,
               BinaryPostOps<MaximumOp>, BinaryPostOps<MinimumOp>,
               WindowPostOps<MaxPool2DOp>, WindowPostOps<AvgPool2DOp>,
               WindowPostOps<ReduceMeanOp>, Int8GlobalPool>(context, caps);
}

} // namespace strata::edge
