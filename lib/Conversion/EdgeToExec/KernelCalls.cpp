//===- KernelCalls.cpp - edge ops to exec kernel calls and constants ------===//
//
// One generic pattern turns every op implementing edge::KernelOpInterface
// into an allocation for each result plus an exec.kernel call; constants
// become program-level exec.constant symbols read through exec.constant_ref.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace strata;

namespace {

/// The name of `op`'s value-dependent extent: its node's, with ".count",
/// made unique among the method's symbols.
std::string valueDependentSymbolName(Operation *op) {
  std::string node = getNodeName(op->getLoc());
  std::string base =
      (node.empty() ? op->getName().stripDialect().str() : node) + ".count";
  llvm::StringSet<> taken;
  if (auto method = op->getParentOfType<exec::MethodOp>())
    method.walk(
        [&](exec::DimSymbolOp symbol) { taken.insert(symbol.getName()); });
  std::string name = base;
  for (unsigned suffix = 1; taken.contains(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  return name;
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
    // op's other extents are static (its verifier checks).
    auto valueDependent = dyn_cast<edge::ValueDependentExtentOpInterface>(op);
    Value boundSymbol;
    if (dynamic && valueDependent)
      boundSymbol = rewriter.create<exec::DimSymbolOp>(
          loc, valueDependentSymbolName(op), 0,
          valueDependent.getExtentBound());
    else if (dynamic && failed(reifyResultShapes(rewriter, op, shapes)))
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
        if (!boundSymbol) {
          extents.push_back(
              getValueOrCreateConstantIndexOp(rewriter, loc, shapes[index][d]));
          continue;
        }
        if (!valueDependent.isValueDependentDim(index, d))
          return op->emitOpError("result ")
                 << index << " dimension " << d
                 << " is dynamic but not its value-dependent extent";
        extents.push_back(boundSymbol);
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
    std::optional<int64_t> dim = op.getConstantIndex();
    Value buffer = adaptor.getSource();
    while (auto cast = buffer.getDefiningOp<UnrealizedConversionCastOp>())
      buffer = cast.getInputs().front();
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!dim || !type || *dim < 0 || *dim >= type.getRank())
      return rewriter.notifyMatchFailure(op, "not a constant dimension of a "
                                             "buffer");
    if (!type.isDynamicDim(*dim)) {
      rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(
          op, type.getDimSize(*dim));
      return success();
    }
    auto placed = buffer.getDefiningOp<exec::PlacedBufferOpInterface>();
    if (!placed)
      return rewriter.notifyMatchFailure(op, "a dynamic buffer that is not "
                                             "an input or allocation");
    rewriter.replaceOp(op,
                       placed.getDynamicSizes()[type.getDynamicDimIndex(*dim)]);
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
