//===- KernelCalls.cpp - edge ops to exec kernel calls and constants ------===//
//
// One generic pattern turns every op implementing edge::KernelOpInterface
// into an allocation for each result plus an exec.kernel call; constants
// become program-level exec.constant symbols read through exec.constant_ref.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"
#include "strata/Support/Locations.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace strata;

namespace {

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
    // One buffer per result, written by the one call.
    SmallVector<Value> buffers;
    for (Type bufferType : bufferTypes)
      buffers.push_back(rewriter.create<exec::AllocOp>(
          loc, bufferType, /*memory_id=*/nullptr, /*offset=*/nullptr));
    rewriter.create<exec::KernelOp>(loc, kernel.getKernelName(), operands,
                                    buffers, kernel.getKernelParams());
    rewriter.replaceOp(op, buffers);
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
  patterns.add<KernelCallLowering, ConstantLowering>(typeConverter,
                                                     patterns.getContext());
}
