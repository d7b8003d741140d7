//===- Delegates.cpp - delegate partitions to exec.delegate and calls -----===//
//
// A preprocessed partition (an external function marked edge.delegate)
// becomes a program-level exec.delegate holding its blob, named data and
// working-memory size; each edge.delegate_call becomes an allocation per
// result, one more for the working memory when the delegate needs some,
// and an exec.delegate_call that writes them.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"
#include "strata/Delegation/Delegation.h"

#include "Edge/IR/EdgeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace strata;

LogicalResult strata::buildDelegate(func::FuncOp func,
                                    exec::ProgramOp program) {
  auto backend = func->getAttrOfType<StringAttr>(delegation::kDelegateAttr);
  if (!func.isExternal())
    return func.emitOpError("is a partition for '")
           << backend.getValue()
           << "' that its backend has not compiled yet (run "
              "--strata-to-backend)";
  auto processed =
      func->getAttrOfType<ElementsAttr>(delegation::kProcessedAttr);
  if (!processed)
    return func.emitOpError("has no edge.processed blob");
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToEnd(&program.getBody().front());
  auto dict = [&](StringRef name) {
    auto attr = func->getAttrOfType<DictionaryAttr>(name);
    return attr ? attr : builder.getDictionaryAttr({});
  };
  auto scratch = func->getAttrOfType<IntegerAttr>(delegation::kScratchAttr);
  builder.create<exec::DelegateOp>(
      func.getLoc(), func.getSymNameAttr(), backend,
      dict(delegation::kCompileSpecsAttr), processed,
      dict(delegation::kNamedDataAttr),
      builder.getI64IntegerAttr(scratch ? scratch.getInt() : 0),
      dict(delegation::kDebugHandlesAttr));
  func.erase();
  return success();
}

namespace {

struct DelegateCallLowering : public OpConversionPattern<edge::DelegateCallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(edge::DelegateCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto program = op->getParentOfType<exec::ProgramOp>();
    auto delegate = program
                        ? program.lookupSymbol<exec::DelegateOp>(op.getCallee())
                        : exec::DelegateOp();
    if (!delegate)
      return rewriter.notifyMatchFailure(op, "no exec.delegate for callee");
    Location loc = op.getLoc();
    SmallVector<Value> outs;
    for (auto [index, type] : llvm::enumerate(op.getResultTypes())) {
      auto buffer =
          dyn_cast_or_null<MemRefType>(getTypeConverter()->convertType(type));
      if (!buffer)
        return rewriter.notifyMatchFailure(op, "result type does not convert");
      // A dynamic dimension's extent is the slot the call passes for it.
      SmallVector<Value> extents;
      ArrayAttr slots = op.getResultExtentsAttr();
      for (int64_t d = 0; d < buffer.getRank(); ++d) {
        if (!buffer.isDynamicDim(d))
          continue;
        auto perDim = slots ? dyn_cast<DenseI64ArrayAttr>(slots[index])
                            : DenseI64ArrayAttr();
        if (!perDim)
          return op.emitOpError("result ")
                 << index << " is dynamic but the call has no result_extents";
        extents.push_back(adaptor.getExtents()[perDim[d]]);
      }
      outs.push_back(rewriter.create<exec::AllocOp>(loc, buffer, extents,
                                                    nullptr, nullptr));
    }
    SmallVector<Value> results(outs);
    if (int64_t scratch = delegate.getScratchBytes())
      outs.push_back(rewriter.create<exec::AllocOp>(
          loc, MemRefType::get({scratch}, rewriter.getI8Type()), nullptr,
          nullptr));
    rewriter.create<exec::DelegateCallOp>(
        loc, op.getCallee(), adaptor.getInputs(), outs, adaptor.getExtents());
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void strata::populateDelegateCallPatterns(TypeConverter &typeConverter,
                                          RewritePatternSet &patterns) {
  patterns.add<DelegateCallLowering>(typeConverter, patterns.getContext());
}
