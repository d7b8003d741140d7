//===- PlanMemory.cpp - liveness-based arena planning for exec methods ----===//
//
// Greedy-by-size best-fit packing of buffer live intervals into one arena,
// compared against a start-ordered variant; the smaller plan wins.
//
//===----------------------------------------------------------------------===//
#include "Exec/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace strata::exec {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_PLANMEMORY
#include "Exec/Transforms/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata::exec

using namespace mlir;
using namespace strata::exec;

namespace {

/// One buffer to place: its live interval [start, end] in instruction
/// indices and its aligned size.
struct Interval {
  PlacedBufferOpInterface op;
  int64_t start;
  int64_t end;
  int64_t size;
  int64_t offset = -1;

  bool overlapsInTime(const Interval &other) const {
    return start <= other.end && other.start <= end;
  }
};

/// Places `order` one by one: each buffer goes into the smallest gap between
/// already placed, time-overlapping buffers that holds it (best fit), or
/// after the last of them. Returns the arena size.
int64_t packBestFit(SmallVectorImpl<Interval *> &order) {
  SmallVector<Interval *> placed;
  int64_t arena = 0;
  for (Interval *current : order) {
    // Occupied ranges of placed buffers that are live at the same time.
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Interval *other : placed)
      if (other->overlapsInTime(*current))
        busy.push_back({other->offset, other->offset + other->size});
    llvm::sort(busy);
    int64_t bestOffset = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (auto [begin, end] : busy) {
      int64_t gap = begin - cursor;
      if (gap >= current->size && gap < bestGap) {
        bestGap = gap;
        bestOffset = cursor;
      }
      cursor = std::max(cursor, end);
    }
    current->offset = bestOffset >= 0 ? bestOffset : cursor;
    arena = std::max(arena, current->offset + current->size);
    placed.push_back(current);
  }
  return arena;
}

} // namespace

FailureOr<MemoryPlanSummary> strata::exec::planMemory(MethodOp method,
                                                      int64_t alignment) {
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return method.emitOpError("alignment ")
           << alignment << " is not a power of two";

  // The instruction order: the blocks' operations in order (a run-time If's
  // branches follow each other, a loop's blocks come between its entry and
  // its exit). Intervals over it are conservative for forward branches: a
  // buffer that one branch reads stays live across the other, and the
  // buffers of one branch may share memory with the other's.
  SmallVector<Operation *> body;
  for (Block &block : method.getBody())
    for (Operation &op : block)
      body.push_back(&op);
  DenseMap<Operation *, int64_t> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[op] = index;
  int64_t last = body.empty() ? 0 : static_cast<int64_t>(position.size()) - 1;

  SmallVector<Interval> intervals;
  for (Operation *opPtr : body) {
    Operation &op = *opPtr;
    auto placed = dyn_cast<PlacedBufferOpInterface>(op);
    if (!placed)
      continue;
    if (placed.getPlacedMemoryId())
      return op.emitOpError("is already placed; memory planning runs once");
    // Inputs are written before the first instruction; an allocation comes
    // alive at the first instruction that touches it. Returned buffers stay
    // alive to the end.
    int64_t start = std::numeric_limits<int64_t>::max(), end = 0;
    for (Operation *user : placed.getBuffer().getUsers()) {
      int64_t at = isa<ReturnOp>(user) ? last : position[user];
      start = std::min(start, at);
      end = std::max(end, at);
    }
    if (isa<InputOp>(op) || start > end)
      start = isa<InputOp>(op) ? 0 : position[&op];
    end = std::max(end, start);
    // A buffer with dynamic dimensions is planned at its bound.
    FailureOr<int64_t> bytes = getBoundSizeInBytes(placed);
    if (failed(bytes))
      return failure();
    int64_t size = llvm::alignTo(*bytes, alignment);
    intervals.push_back({placed, start, end, size});
  }

  // A loop's blocks run again after its jump back: a buffer that is live
  // when the loop's header starts (defined before it, read inside) stays
  // live to the jump back. Nested loops extend in turn.
  SmallVector<std::pair<int64_t, int64_t>> loops;
  for (Operation *op : body)
    if (auto branch = dyn_cast<BranchOp>(op); branch && branch.getMaxTrips())
      loops.push_back({position[&branch.getDest()->front()], position[op]});
  for (bool changed = !loops.empty(); changed;) {
    changed = false;
    for (auto [header, back] : loops)
      for (Interval &interval : intervals)
        if (interval.start < header && interval.end >= header &&
            interval.end < back) {
          interval.end = back;
          changed = true;
        }
  }

  MemoryPlanSummary summary;
  for (const Interval &interval : intervals)
    summary.naiveBytes += interval.size;
  // Live bytes only change where an interval starts.
  for (const Interval &at : intervals) {
    int64_t live = 0;
    for (const Interval &other : intervals)
      if (other.start <= at.start && at.start <= other.end)
        live += other.size;
    summary.lowerBoundBytes = std::max(summary.lowerBoundBytes, live);
  }

  // Two orders; keep the offsets of the smaller arena.
  SmallVector<Interval *> bySize, byStart;
  for (Interval &interval : intervals) {
    bySize.push_back(&interval);
    byStart.push_back(&interval);
  }
  llvm::stable_sort(bySize, [](const Interval *a, const Interval *b) {
    return a->size > b->size;
  });
  llvm::stable_sort(byStart, [](const Interval *a, const Interval *b) {
    return a->start < b->start;
  });
  int64_t startArena = packBestFit(byStart);
  SmallVector<int64_t> startOffsets = llvm::map_to_vector(
      intervals, [](const Interval &i) { return i.offset; });
  int64_t sizeArena = packBestFit(bySize);
  if (startArena < sizeArena) {
    for (auto [interval, offset] : llvm::zip_equal(intervals, startOffsets))
      interval.offset = offset;
  }
  summary.arenaBytes = std::min(startArena, sizeArena);

  summary.instructions = static_cast<int64_t>(body.size());
  for (Interval &interval : intervals) {
    interval.op.setPlacement(/*memoryId=*/0, interval.offset);
    MemoryPlanSummary::Buffer buffer;
    buffer.offset = interval.offset;
    buffer.size = interval.size;
    buffer.first = interval.start;
    buffer.last = interval.end;
    Operation *op = interval.op.getOperation();
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      buffer.node = name.getName().str();
    buffer.input = isa<InputOp>(op);
    buffer.output =
        llvm::any_of(interval.op.getBuffer().getUsers(),
                     [](Operation *user) { return isa<ReturnOp>(user); });
    summary.buffers.push_back(std::move(buffer));
  }
  method.setArenaSizes(ArrayRef<int64_t>{summary.arenaBytes});
  return summary;
}

namespace {

struct PlanMemoryPass
    : public strata::exec::impl::PlanMemoryBase<PlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](MethodOp method) {
      FailureOr<MemoryPlanSummary> summary = planMemory(method, alignment);
      if (failed(summary))
        return WalkResult::interrupt();
      arenaBytes += summary->arenaBytes;
      lowerBoundBytes += summary->lowerBoundBytes;
      naiveBytes += summary->naiveBytes;
      if (report)
        method.emitRemark()
            << "memory plan: arena " << summary->arenaBytes
            << " bytes, lower bound " << summary->lowerBoundBytes
            << " bytes, naive " << summary->naiveBytes << " bytes";
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
