//===- KernelCalls.cpp - edge ops to exec kernel calls and constants ------===//
//
// One generic pattern turns every op implementing edge::KernelOpInterface
// into an allocation for each result plus an exec.kernel call; constants
// become program-level exec.constant symbols read through exec.constant_ref.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace strata;

std::string strata::uniqueSymbolName(Operation *op, StringRef suffix) {
  std::string node = getNodeName(op->getLoc());
  std::string base =
      (node.empty() ? op->getName().stripDialect().str() : node) + suffix.str();
  llvm::StringSet<> taken;
  if (auto method = op->getParentOfType<exec::MethodOp>())
    method.walk(
        [&](exec::DimSymbolOp symbol) { taken.insert(symbol.getName()); });
  std::string name = base;
  for (unsigned n = 1; taken.contains(name); ++n)
    name = base + "_" + std::to_string(n);
  return name;
}

namespace {

/// The name of `op`'s value-dependent extent: its node's, with ".count",
/// made unique among the method's symbols.
std::string valueDependentSymbolName(Operation *op) {
  return uniqueSymbolName(op, ".count");
}

/// `value` through the conversion's casts: the buffer it stands for.
Value stripCasts(Value value) {
  while (value && value.getDefiningOp<UnrealizedConversionCastOp>())
    value =
        value.getDefiningOp<UnrealizedConversionCastOp>().getInputs().front();
  return value;
}

/// Extent `dim` of converted `buffer`: a static one as an attribute, a
/// dynamic one as the value its input or allocation was made with; failure
/// for anything else.
FailureOr<OpFoldResult> bufferExtent(Builder &builder, Value buffer,
                                     std::optional<int64_t> dim) {
  auto type = buffer ? dyn_cast<MemRefType>(buffer.getType()) : nullptr;
  if (!dim || !type || *dim < 0 || *dim >= type.getRank())
    return failure();
  if (!type.isDynamicDim(*dim))
    return OpFoldResult(builder.getIndexAttr(type.getDimSize(*dim)));
  auto placed = buffer.getDefiningOp<exec::PlacedBufferOpInterface>();
  if (!placed)
    return failure();
  return OpFoldResult(placed.getDynamicSizes()[type.getDynamicDimIndex(*dim)]);
}

/// `extent` with each tensor.dim of a converted value in it replaced by
/// its buffer's extent now (what TensorDimLowering would do later), so that
/// the buffer allocated with it has a bound at once: a value-dependent op
/// reading that buffer bounds its own extent by it.
Value resolveExtent(ConversionPatternRewriter &rewriter, Value extent) {
  Operation *op = extent.getDefiningOp();
  if (auto dim = dyn_cast_or_null<tensor::DimOp>(op)) {
    FailureOr<OpFoldResult> resolved = bufferExtent(
        rewriter, stripCasts(rewriter.getRemappedValue(dim.getSource())),
        dim.getConstantIndex());
    if (failed(resolved))
      return extent;
    return getValueOrCreateConstantIndexOp(rewriter, dim.getLoc(), *resolved);
  }
  if (isa_and_nonnull<affine::AffineApplyOp, affine::AffineMinOp,
                      affine::AffineMaxOp>(op))
    for (OpOperand &operand : op->getOpOperands()) {
      Value resolved = resolveExtent(rewriter, operand.get());
      if (resolved != operand.get())
        rewriter.modifyOpInPlace(op, [&] { operand.set(resolved); });
    }
  return extent;
}

/// Whether one of the dynamic extents of `types` (the op's result buffers)
/// is `op`'s value-dependent one.
bool hasValueDependentExtent(edge::ValueDependentExtentOpInterface op,
                             ArrayRef<Type> types) {
  for (auto [index, type] : llvm::enumerate(types)) {
    auto memref = cast<MemRefType>(type);
    for (int64_t d = 0; d < memref.getRank(); ++d)
      if (memref.isDynamicDim(d) && op.isValueDependentDim(index, d))
        return true;
  }
  return false;
}

/// The bound of `op`'s value-dependent extent: the most its operands give
/// at their bounds (each converted operand's buffer at its bound shape),
/// or the smaller bound the user gave.
FailureOr<int64_t> valueDependentBound(Location loc,
                                       edge::ValueDependentExtentOpInterface op,
                                       ArrayRef<Value> operands) {
  SmallVector<SmallVector<int64_t>> bounds;
  for (Value operand : operands) {
    operand = stripCasts(operand);
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type) {
      bounds.emplace_back();
      continue;
    }
    if (type.hasStaticShape()) {
      bounds.emplace_back(type.getShape());
      continue;
    }
    auto placed = operand.getDefiningOp<exec::PlacedBufferOpInterface>();
    FailureOr<SmallVector<int64_t>> shape = failure();
    if (placed)
      shape = exec::getBoundShape(placed);
    if (failed(shape))
      return emitError(loc, "an operand's extents have no bound, so the "
                            "value-dependent extent has none either; give "
                            "one with strata-compile --max-extent NODE=N");
    bounds.push_back(*shape);
  }
  int64_t bound = op.deriveExtentBound(bounds);
  if (std::optional<int64_t> given = op.getGivenBound())
    bound = std::min(bound, *given);
  if (bound > (int64_t(1) << 40))
    return emitError(loc, "the value-dependent extent has no bound the "
                          "operands give; give one with strata-compile "
                          "--max-extent NODE=N");
  return bound;
}

/// Any edge op that the runtime runs as one kernel.
struct KernelCallLowering : public ConversionPattern {
  KernelCallLowering(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernel = dyn_cast<edge::KernelOpInterface>(op);
    if (!kernel)
      return rewriter.notifyMatchFailure(op, "not a kernel op");
    // Fused post-op chains (strata-edge-fuse) exist inside delegated
    // partitions only: no portable kernel runs them.
    if (op->hasAttr("post_ops"))
      return rewriter.notifyMatchFailure(op, "a fused post-op chain");
    if (op->getNumResults() == 0)
      return rewriter.notifyMatchFailure(op, "kernels have results");
    Location loc = op->getLoc();
    SmallVector<Type> bufferTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                bufferTypes)) ||
        bufferTypes.size() != op->getNumResults())
      return rewriter.notifyMatchFailure(op, "a result type does not convert");
    // Dynamic result extents, from the op's shape rule
    // (ReifyRankedShapedTypeOpInterface): tensor.dim of its operands, which
    // TensorDimLowering resolves to their buffers' extents.
    ReifiedRankedShapedTypeDims shapes;
    bool dynamic = llvm::any_of(bufferTypes, [](Type type) {
      return !cast<MemRefType>(type).hasStaticShape();
    });
    // An extent that depends on the data is a symbol the kernel binds; the
    // op's other extents follow its operands (reifyOtherExtents). An op
    // whose extents can also all follow its operands (a range with a length
    // operand) takes this path only when one of its dynamic extents is
    // value-dependent.
    auto valueDependent = dyn_cast<edge::ValueDependentExtentOpInterface>(op);
    if (valueDependent && !hasValueDependentExtent(valueDependent, bufferTypes))
      valueDependent = nullptr;
    Value boundSymbol;
    if (dynamic && valueDependent) {
      FailureOr<int64_t> bound =
          valueDependentBound(op->getLoc(), valueDependent, operands);
      if (failed(bound))
        return failure();
      boundSymbol = rewriter.create<exec::DimSymbolOp>(
          loc, valueDependentSymbolName(op), 0, *bound);
      if (failed(valueDependent.reifyOtherExtents(rewriter, shapes)))
        return failure();
    } else if (dynamic && failed(reifyResultShapes(rewriter, op, shapes)))
      return op->emitOpError(
          "has dynamic result dimensions but no shape "
          "rule for them (ReifyRankedShapedTypeOpInterface)");
    // One buffer per result, written by the one call.
    SmallVector<Value> buffers;
    for (auto [index, bufferType] : llvm::enumerate(bufferTypes)) {
      SmallVector<Value> extents;
      auto memref = cast<MemRefType>(bufferType);
      for (int64_t d = 0; dynamic && d < memref.getRank(); ++d) {
        if (!memref.isDynamicDim(d))
          continue;
        if (boundSymbol && valueDependent.isValueDependentDim(index, d)) {
          extents.push_back(boundSymbol);
          continue;
        }
        if (!shapes[index][d])
          return op->emitOpError("result ")
                 << index << " dimension " << d << " has no extent";
        extents.push_back(resolveExtent(
            rewriter,
            getValueOrCreateConstantIndexOp(rewriter, loc, shapes[index][d])));
      }
      buffers.push_back(rewriter.create<exec::AllocOp>(
          loc, bufferType, extents, /*memory_id=*/nullptr, /*offset=*/nullptr));
    }
    // Index operands (a reshape's dynamic sizes) are extents, not data: the
    // buffers carry them.
    SmallVector<Value> data;
    for (Value operand : operands)
      if (!operand.getType().isIndex())
        data.push_back(operand);
    rewriter.create<exec::KernelOp>(loc, kernel.getKernelName(), data, buffers,
                                    boundSymbol ? ValueRange(boundSymbol)
                                                : ValueRange(),
                                    kernel.getKernelParams());
    rewriter.replaceOp(op, buffers);
    return success();
  }
};

/// tensor.dim of a converted value -> the extent its buffer was made with
/// (an exec.input's symbol, an exec.alloc's extent), or a constant.
struct TensorDimLowering : public OpConversionPattern<tensor::DimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensor::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<OpFoldResult> extent = bufferExtent(
        rewriter, stripCasts(adaptor.getSource()), op.getConstantIndex());
    if (failed(extent))
      return rewriter.notifyMatchFailure(op, "not a constant dimension of a "
                                             "buffer, or a dynamic one that "
                                             "is not an input or allocation");
    rewriter.replaceOp(
        op, getValueOrCreateConstantIndexOp(rewriter, op.getLoc(), *extent));
    return success();
  }
};

/// edge.constant -> exec.constant (program level, named after the value's
/// location) + exec.constant_ref at the use site.
struct ConstantLowering : public OpConversionPattern<edge::ConstantOp> {
  ConstantLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {}

  LogicalResult
  matchAndRewrite(edge::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto program = op->getParentOfType<exec::ProgramOp>();
    if (!program)
      return rewriter.notifyMatchFailure(op, "not inside an exec.program");
    Type bufferType = getTypeConverter()->convertType(op.getType());
    if (!bufferType)
      return rewriter.notifyMatchFailure(op, "type does not convert");
    std::string base = getNodeName(op.getLoc());
    if (base.empty())
      base = "constant";
    std::string name = base;
    for (unsigned suffix = 1; SymbolTable::lookupSymbolIn(program, name);
         ++suffix)
      name = base + "_" + std::to_string(suffix);
    exec::ConstantOp constant;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&program.getBody().front());
      constant =
          rewriter.create<exec::ConstantOp>(op.getLoc(), name, op.getValue());
    }
    rewriter.replaceOpWithNewOp<exec::ConstantRefOp>(
        op, bufferType, FlatSymbolRefAttr::get(constant.getSymNameAttr()));
    return success();
  }
};

} // namespace

void strata::populateEdgeToExecPatterns(TypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<KernelCallLowering, ConstantLowering, TensorDimLowering>(
      typeConverter, patterns.getContext());
}
