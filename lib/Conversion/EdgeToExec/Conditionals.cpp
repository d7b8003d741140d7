//===- Conditionals.cpp - run-time Ifs to forward branches ----------------===//
//
// A run-time If reaches edge->exec as an scf.if on one element of a boolean
// tensor, its branches yielding the results' types (hl->edge casts what a
// branch yields where the branches' shapes differ). Once its branches are
// converted, the If becomes control flow of the method: the block before
// it ends in exec.cond_branch on the condition's buffer, each branch is a
// block that copies what it yields into the results' buffers and branches
// to the block holding the rest of the method. A result extent that the
// branches leave open is an exec.dim_symbol the copies bind
// (`branch_result` kernels), bounded by the larger of the branches' bounds,
// so memory is planned at the bound like any value-dependent extent.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace strata;

namespace {

/// The buffer a branch yields: through hl->edge's tensor.cast and the
/// conversion's casts to the converted producer.
Value yieldedBuffer(Value value) {
  while (true) {
    if (auto cast = value.getDefiningOp<tensor::CastOp>())
      value = cast.getSource();
    else if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>())
      value = cast.getInputs().front();
    else
      return value;
  }
}

/// The bound of extent `dim` of `buffer`: its static extent, or the bound
/// its allocation was planned at.
FailureOr<int64_t> boundOf(Value buffer, int64_t dim) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type)
    return failure();
  if (!type.isDynamicDim(dim))
    return type.getDimSize(dim);
  auto placed = buffer.getDefiningOp<exec::PlacedBufferOpInterface>();
  if (!placed)
    return failure();
  FailureOr<SmallVector<int64_t>> shape = exec::getBoundShape(placed);
  if (failed(shape))
    return failure();
  return (*shape)[dim];
}

} // namespace

LogicalResult strata::lowerConditional(scf::IfOp conditional) {
  Location loc = conditional.getLoc();
  auto method = dyn_cast<exec::MethodOp>(conditional->getParentOp());
  if (!method)
    return conditional.emitOpError("is not at the top level of a method");
  auto extract = conditional.getCondition().getDefiningOp<tensor::ExtractOp>();
  Value condition = extract ? yieldedBuffer(extract.getTensor()) : Value();
  auto conditionType =
      condition ? dyn_cast<MemRefType>(condition.getType()) : MemRefType();
  if (!conditionType || !conditionType.hasStaticShape() ||
      conditionType.getNumElements() != 1 ||
      !conditionType.getElementType().isInteger(1))
    return conditional.emitOpError(
        "condition is not the one element of a boolean buffer");
  auto thenYield =
      cast<scf::YieldOp>(conditional.getThenRegion().front().getTerminator());
  auto elseYield =
      cast<scf::YieldOp>(conditional.getElseRegion().front().getTerminator());

  // The results' buffers, before the branch; the extents the branches
  // leave open are symbols their copies bind.
  OpBuilder builder(conditional);
  Block &entry = method.getBody().front();
  SmallVector<Value> results;
  SmallVector<SmallVector<Value>> binds;
  for (auto [index, result] : llvm::enumerate(conditional.getResults())) {
    auto tensorType = cast<RankedTensorType>(result.getType());
    auto type =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    Value fromThen = yieldedBuffer(thenYield.getOperand(index));
    Value fromElse = yieldedBuffer(elseYield.getOperand(index));
    SmallVector<Value> extents;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      FailureOr<int64_t> thenBound = boundOf(fromThen, d);
      FailureOr<int64_t> elseBound = boundOf(fromElse, d);
      if (failed(thenBound) || failed(elseBound))
        return conditional.emitOpError("result ")
               << index << " dimension " << d
               << ": a branch yields a value whose extent has no bound";
      OpBuilder atStart = OpBuilder::atBlockBegin(&entry);
      extents.push_back(atStart.create<exec::DimSymbolOp>(
          loc,
          uniqueSymbolName(conditional, ".result" + std::to_string(index) +
                                            ".dim" + std::to_string(d)),
          0, std::max(*thenBound, *elseBound)));
    }
    results.push_back(builder.create<exec::AllocOp>(loc, type, extents,
                                                    /*memory_id=*/nullptr,
                                                    /*offset=*/nullptr));
    binds.push_back(extents);
  }
  // Users, converted later, read the buffers as tensors.
  for (auto [result, buffer] : llvm::zip(conditional.getResults(), results))
    result.replaceAllUsesWith(
        createConversionCast(builder, loc, result.getType(), buffer));

  // Blocks: before (ending in the branch), then, else, the rest.
  Block *before = conditional->getBlock();
  Block *rest = before->splitBlock(conditional->getNextNode());
  Block *thenBlock = &conditional.getThenRegion().front();
  Block *elseBlock = &conditional.getElseRegion().front();
  Region &body = method.getBody();
  body.getBlocks().splice(rest->getIterator(),
                          conditional.getThenRegion().getBlocks());
  body.getBlocks().splice(rest->getIterator(),
                          conditional.getElseRegion().getBlocks());
  for (scf::YieldOp yield : {thenYield, elseYield}) {
    builder.setInsertionPoint(yield);
    for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
      Value source = yieldedBuffer(value);
      if (!isa<MemRefType>(source.getType()))
        return yield.emitOpError("yields a value that was not converted");
      builder.create<exec::KernelOp>(loc, "branch_result", ValueRange{source},
                                     ValueRange{results[index]}, binds[index],
                                     builder.getDictionaryAttr({}));
    }
    builder.create<exec::BranchOp>(yield.getLoc(), rest);
    SmallVector<Value> yielded(yield.getOperands());
    yield.erase();
    for (Value value : yielded)
      if (auto cast = value.getDefiningOp<tensor::CastOp>();
          cast && cast->use_empty())
        cast.erase();
  }
  conditional.erase();
  builder.setInsertionPointToEnd(before);
  builder.create<exec::CondBranchOp>(loc, condition, thenBlock, elseBlock);
  if (extract->use_empty())
    extract.erase();
  return success();
}
