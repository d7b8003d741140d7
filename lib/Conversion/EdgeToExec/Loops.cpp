//===- Loops.cpp - run-time loops to blocks with a jump back --------------===//
//
// A run-time Loop reaches edge->exec as an scf.while (hl->edge's Loop.cpp)
// whose carried values have static types. Once the ops before it are
// converted, and before its own regions are, the while becomes blocks of
// the method:
//
//   entry:  each carried value's buffer (exec.alloc) gets its initial
//           value (exec.move);
//   header: the before region, reading the carried buffers; it ends in
//           exec.cond_branch on the condition: into the body, or past it;
//   body:   the after region, reading the values the header forwards; it
//           moves the next carried values into their buffers and branches
//           back to the header, at most `max_trips` times in a row (the
//           function's `edge.max_trips` entry for the loop's node);
//   exit:   the rest of the method, reading the forwarded values.
//
// The regions' ops are then converted in place like any others (a run-time
// If or loop inside the body is lowered in a later round). A yielded value
// that is another carried value's buffer is copied aside first, so that
// the moves do not read what an earlier move wrote. Memory planning keeps
// every buffer live in the header alive to the jump back (PlanMemory).
//
// Once the method is converted, a scan output's row store (`scatter_nd` of
// the carried buffer into a fresh one, moved back at the end of the body)
// writes the carried buffer in place: one row per iteration instead of two
// copies of the whole buffer.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace strata;

namespace {

/// The bound of a loop without one: the most the runtime accepts, so that
/// a loop bounded by its data alone still ends.
constexpr int64_t kUnboundedLoopTrips = int64_t{1} << 31;

} // namespace

LogicalResult strata::lowerLoop(scf::WhileOp loop,
                                std::optional<int64_t> maxTrips) {
  Location loc = loop.getLoc();
  auto method = dyn_cast<exec::MethodOp>(loop->getParentOp());
  if (!method)
    return loop.emitOpError("is not at the top level of a method");
  auto condition =
      cast<scf::ConditionOp>(loop.getBefore().front().getTerminator());
  auto extract = condition.getCondition().getDefiningOp<tensor::ExtractOp>();
  auto flagType =
      extract ? dyn_cast<RankedTensorType>(extract.getTensor().getType())
              : RankedTensorType();
  if (!flagType || !flagType.hasStaticShape() || flagType.getNumElements() != 1)
    return loop.emitOpError(
        "condition is not the one element of a boolean tensor");

  // The carried values' buffers, with their initial values.
  OpBuilder builder(loop);
  SmallVector<Value> carried;
  for (auto [index, init] : llvm::enumerate(loop.getInits())) {
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!type || !type.hasStaticShape())
      return loop.emitOpError("carried value ")
             << index << " has type " << init.getType()
             << ": a run-time loop carries static shapes";
    auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = builder.create<exec::AllocOp>(loc, bufferType, ValueRange{},
                                                 /*memory_id=*/nullptr,
                                                 /*offset=*/nullptr);
    builder.create<exec::MoveOp>(
        loc, createConversionCast(builder, loc, bufferType, init), buffer);
    carried.push_back(buffer);
  }

  // Blocks: entry (ending here), header, body, exit (the rest).
  Block *entry = loop->getBlock();
  Block *exit = entry->splitBlock(loop->getNextNode());
  Block *header = &loop.getBefore().front();
  Block *body = &loop.getAfter().front();
  Region &region = method.getBody();
  region.getBlocks().splice(exit->getIterator(), loop.getBefore().getBlocks());
  region.getBlocks().splice(exit->getIterator(), loop.getAfter().getBlocks());

  // The header reads the carried buffers.
  builder.setInsertionPointToStart(header);
  SmallVector<Value> reads;
  for (auto [arg, buffer] : llvm::zip_equal(header->getArguments(), carried)) {
    reads.push_back(createConversionCast(builder, loc, arg.getType(), buffer));
    arg.replaceAllUsesWith(reads.back());
  }
  header->eraseArguments(0, header->getNumArguments());

  // The body and the rest read what the header forwards.
  SmallVector<Value> forwarded(condition.getArgs());
  for (auto [arg, value] : llvm::zip_equal(body->getArguments(), forwarded))
    arg.replaceAllUsesWith(value);
  body->eraseArguments(0, body->getNumArguments());
  for (auto [result, value] : llvm::zip_equal(loop.getResults(), forwarded))
    result.replaceAllUsesWith(value);

  builder.setInsertionPoint(condition);
  Value flag = createConversionCast(
      builder, loc,
      MemRefType::get(flagType.getShape(), flagType.getElementType()),
      extract.getTensor());
  builder.create<exec::CondBranchOp>(loc, flag, body, exit);
  condition.erase();
  if (extract->use_empty())
    extract.erase();

  // The next carried values, then the jump back.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  builder.setInsertionPoint(yield);
  SmallVector<Value> sources;
  for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
    auto type = cast<MemRefType>(carried[index].getType());
    auto read = llvm::find(reads, value);
    if (read == reads.end()) {
      sources.push_back(createConversionCast(builder, loc, type, value));
      continue;
    }
    // A carried buffer: itself needs no move; another's is copied aside
    // before any move writes it.
    size_t from = read - reads.begin();
    if (from == index) {
      sources.push_back(Value());
      continue;
    }
    Value aside = builder.create<exec::AllocOp>(loc, type, ValueRange{},
                                                nullptr, nullptr);
    builder.create<exec::MoveOp>(loc, carried[from], aside);
    sources.push_back(aside);
  }
  for (auto [source, buffer] : llvm::zip_equal(sources, carried))
    if (source)
      builder.create<exec::MoveOp>(loc, source, buffer);
  builder.create<exec::BranchOp>(
      yield.getLoc(),
      builder.getI64IntegerAttr(maxTrips.value_or(kUnboundedLoopTrips)),
      header);
  yield.erase();

  builder.setInsertionPointToEnd(entry);
  builder.create<exec::BranchOp>(loc, header);
  loop.erase();
  return success();
}

void strata::updateLoopBuffersInPlace(exec::MethodOp method) {
  SmallVector<exec::MoveOp> moves;
  method.walk([&](exec::MoveOp move) { moves.push_back(move); });
  for (exec::MoveOp move : moves) {
    // `scatter_nd(buffer, ...) -> fresh`, then `move fresh -> buffer`.
    Value fresh = move.getSource(), buffer = move.getTarget();
    auto alloc = fresh.getDefiningOp<exec::AllocOp>();
    if (!alloc || !llvm::hasNItems(fresh.getUses(), 2))
      continue;
    auto update = dyn_cast<exec::KernelOp>(*llvm::find_if(
        fresh.getUsers(), [&](Operation *user) { return user != move; }));
    if (!update || update.getKernel() != "scatter_nd" ||
        update->getBlock() != move->getBlock() ||
        !update->isBeforeInBlock(move) || update.getOuts().size() != 1 ||
        update.getOuts()[0] != fresh || update.getIns().size() != 3 ||
        update.getIns()[0] != buffer || update.getIns()[1] == buffer ||
        update.getIns()[2] == buffer)
      continue;
    // Nothing between them reads or writes the buffer.
    bool touched = false;
    for (Operation *op = update->getNextNode(); op != move.getOperation();
         op = op->getNextNode())
      touched |= llvm::is_contained(op->getOperands(), buffer);
    if (touched)
      continue;
    update.getOutsMutable()[0].set(buffer);
    move.erase();
    alloc.erase();
  }
}
