//===- ExecOps.cpp - exec verifiers ---------------------------------------===//
//
// The rules here are what the emitter and the runtime's loader rely on:
// programs hold only constants, delegates and methods; each method input is
// bound once; placements, when present, lie inside their arena.
//
//===----------------------------------------------------------------------===//
#include "Exec/IR/ExecOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata::exec;

int64_t strata::exec::getBufferSizeInBytes(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

namespace {
/// [lo, hi] of an extent expression; saturating, so a bound too large for
/// int64 stays too large instead of wrapping.
struct Interval {
  int64_t lo, hi;
};

int64_t saturate(__int128 v) {
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  constexpr int64_t min = std::numeric_limits<int64_t>::min();
  return v > max ? max : v < min ? min : static_cast<int64_t>(v);
}

std::optional<Interval> evaluate(AffineExpr expr, ArrayRef<Interval> dims,
                                 ArrayRef<Interval> symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return Interval{c.getValue(), c.getValue()};
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[s.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<Interval> a = evaluate(binary.getLHS(), dims, symbols);
  std::optional<Interval> b = evaluate(binary.getRHS(), dims, symbols);
  if (!a || !b)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return Interval{saturate(__int128(a->lo) + b->lo),
                    saturate(__int128(a->hi) + b->hi)};
  case AffineExprKind::Mul: {
    __int128 p[] = {__int128(a->lo) * b->lo, __int128(a->lo) * b->hi,
                    __int128(a->hi) * b->lo, __int128(a->hi) * b->hi};
    return Interval{saturate(*std::min_element(p, p + 4)),
                    saturate(*std::max_element(p, p + 4))};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    // Affine maps divide by positive constants only.
    if (b->lo != b->hi || b->lo <= 0)
      return std::nullopt;
    bool ceil = expr.getKind() == AffineExprKind::CeilDiv;
    return Interval{ceil ? llvm::divideCeilSigned(a->lo, b->lo)
                         : llvm::divideFloorSigned(a->lo, b->lo),
                    ceil ? llvm::divideCeilSigned(a->hi, b->lo)
                         : llvm::divideFloorSigned(a->hi, b->lo)};
  }
  case AffineExprKind::Mod:
    if (b->lo != b->hi || b->lo <= 0)
      return std::nullopt;
    return Interval{0, b->lo - 1};
  default:
    return std::nullopt;
  }
}

/// Interval arithmetic over the symbols' bounds.
std::optional<Interval> intervalOf(Value extent, int depth = 0) {
  if (depth > 64)
    return std::nullopt;
  Operation *op = extent.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto symbol = dyn_cast<DimSymbolOp>(op))
    return Interval{symbol.getLowerBound(), symbol.getUpperBound()};
  if (auto constant = dyn_cast<arith::ConstantIndexOp>(op))
    return Interval{constant.value(), constant.value()};
  AffineMap map;
  ValueRange operands;
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    map = apply.getAffineMap();
    operands = apply.getMapOperands();
  } else if (auto min = dyn_cast<affine::AffineMinOp>(op)) {
    map = min.getAffineMap();
    operands = min.getMapOperands();
  } else if (auto max = dyn_cast<affine::AffineMaxOp>(op)) {
    map = max.getAffineMap();
    operands = max.getMapOperands();
  } else {
    return std::nullopt;
  }
  SmallVector<Interval> values;
  for (Value operand : operands) {
    std::optional<Interval> value = intervalOf(operand, depth + 1);
    if (!value)
      return std::nullopt;
    values.push_back(*value);
  }
  ArrayRef<Interval> dims = ArrayRef(values).take_front(map.getNumDims());
  ArrayRef<Interval> symbols = ArrayRef(values).drop_front(map.getNumDims());
  std::optional<Interval> result;
  for (AffineExpr expr : map.getResults()) {
    std::optional<Interval> value = evaluate(expr, dims, symbols);
    if (!value)
      return std::nullopt;
    if (!result)
      result = value;
    else if (isa<affine::AffineMinOp>(op))
      result = Interval{std::min(result->lo, value->lo),
                        std::min(result->hi, value->hi)};
    else
      result = Interval{std::max(result->lo, value->lo),
                        std::max(result->hi, value->hi)};
  }
  return result;
}

/// Whether every affine map `extent` depends on is affine (no product of
/// symbols), which is what ValueBoundsConstraintSet can reason about.
bool isPureAffineSlice(Value extent, int depth = 0) {
  Operation *op = extent.getDefiningOp();
  if (!op || depth > 64)
    return false;
  if (isa<DimSymbolOp, arith::ConstantIndexOp>(op))
    return true;
  if (!isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(op))
    return false;
  auto map = op->getAttrOfType<AffineMapAttr>("map");
  if (!map || !llvm::all_of(map.getValue().getResults(),
                            [](AffineExpr e) { return e.isPureAffine(); }))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isPureAffineSlice(operand, depth + 1);
  });
}
/// Whether interval arithmetic gives `extent`'s exact upper bound: every
/// symbol is read once in the whole computation, each map reads each of
/// its operands once per result, and no result takes a remainder (whose
/// interval is only an enclosure). Then the symbols vary independently
/// and each operation is monotone in each operand, so the bounds are
/// attained; Presburger arithmetic (quadratic in the symbols) adds
/// nothing. The sum of a detector's 90 per-class counts is such an extent.
bool isIntervalExact(Value extent, llvm::SmallPtrSetImpl<Operation *> &seen,
                     int depth = 0) {
  Operation *op = extent.getDefiningOp();
  if (!op || depth > 64)
    return false;
  if (isa<arith::ConstantIndexOp>(op))
    return true;
  if (isa<DimSymbolOp>(op))
    return seen.insert(op).second;
  auto map = op->getAttrOfType<AffineMapAttr>("map");
  if (!map)
    return false;
  for (AffineExpr expr : map.getValue().getResults()) {
    SmallVector<int> reads(map.getValue().getNumInputs(), 0);
    bool exact = true;
    expr.walk([&](AffineExpr e) {
      if (e.getKind() == AffineExprKind::Mod)
        exact = false;
      else if (auto d = dyn_cast<AffineDimExpr>(e))
        exact &= ++reads[d.getPosition()] == 1;
      else if (auto s = dyn_cast<AffineSymbolExpr>(e))
        exact &= ++reads[map.getValue().getNumDims() + s.getPosition()] == 1;
    });
    if (!exact)
      return false;
  }
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isIntervalExact(operand, seen, depth + 1);
  });
}
} // namespace

FailureOr<int64_t> strata::exec::getExtentBound(Value extent) {
  std::optional<Interval> interval = intervalOf(extent);
  std::optional<int64_t> bound;
  if (interval)
    bound = interval->hi;
  llvm::SmallPtrSet<Operation *, 8> seen;
  bool exact = interval && isIntervalExact(extent, seen);
  if (!exact && isPureAffineSlice(extent)) {
    FailureOr<int64_t> upper = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, extent, /*stopCondition=*/nullptr,
        /*closedUB=*/true);
    if (succeeded(upper))
      bound = bound ? std::min(*bound, *upper) : *upper;
  }
  if (!bound || *bound < 0 || *bound > (int64_t(1) << 40))
    return failure();
  return *bound;
}

FailureOr<SmallVector<int64_t>>
strata::exec::getBoundShape(PlacedBufferOpInterface op) {
  MemRefType type = op.getBuffer().getType();
  SmallVector<int64_t> shape;
  auto sizes = op.getDynamicSizes().begin();
  for (int64_t dim : type.getShape()) {
    if (!ShapedType::isDynamic(dim)) {
      shape.push_back(dim);
      continue;
    }
    FailureOr<int64_t> bound = getExtentBound(*sizes);
    if (failed(bound))
      return op->emitOpError("dynamic dimension ")
             << shape.size() << " has no upper bound (its extent must come "
             << "from exec.dim_symbol through affine.apply/min/max)";
    shape.push_back(*bound);
    ++sizes;
  }
  return shape;
}

FailureOr<int64_t>
strata::exec::getBoundSizeInBytes(PlacedBufferOpInterface op) {
  FailureOr<SmallVector<int64_t>> shape = getBoundShape(op);
  if (failed(shape))
    return failure();
  MemRefType type = op.getBuffer().getType();
  // Each bound is at most 2^40; their product may not be.
  int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
  for (int64_t extent : *shape)
    if (__builtin_mul_overflow(bytes, extent, &bytes) ||
        bytes > (int64_t(1) << 40))
      return op->emitOpError("buffer of ")
             << type << " would take more than 2^40 bytes at its bounds";
  return bytes;
}

//===----------------------------------------------------------------------===//
// DimSymbolOp
//===----------------------------------------------------------------------===//

LogicalResult DimSymbolOp::verify() {
  if (getName().empty())
    return emitOpError("needs a name");
  int64_t min = getLowerBound(), max = getUpperBound();
  if (min < 0 || max < min || max > (int64_t(1) << 40))
    return emitOpError("bounds ")
           << min << " to " << max << " are not 0 <= min <= max <= 2^40";
  return success();
}

void DimSymbolOp::populateBoundsForIndexValue(Value value,
                                              ValueBoundsConstraintSet &cstr) {
  cstr.bound(value) >= getLowerBound();
  cstr.bound(value) <= getUpperBound();
}

//===----------------------------------------------------------------------===//
// BranchOp, CondBranchOp
//===----------------------------------------------------------------------===//

/// Branches go to later blocks of the method (a loop's branch back states
/// its bound), so that every method ends.
static LogicalResult verifyForward(Operation *op, Block *dest) {
  Block *from = op->getBlock();
  if (dest->getParent() != from->getParent())
    return op->emitOpError("branches out of its method");
  for (Block *b = from->getNextNode(); b; b = b->getNextNode())
    if (b == dest)
      return success();
  return op->emitOpError("must branch to a later block (forward branches "
                         "only)");
}

/// Whether `dest` is `from` or a block before it.
static bool isBackward(Block *from, Block *dest) {
  for (Block *b = from; b; b = b->getPrevNode())
    if (b == dest)
      return true;
  return false;
}

LogicalResult BranchOp::verify() {
  Block *from = (*this)->getBlock();
  if (getDest()->getParent() == from->getParent() &&
      isBackward(from, getDest())) {
    if (!getMaxTrips())
      return emitOpError("branches back to an earlier block without "
                         "'max_trips' (a loop must state its bound)");
    return success();
  }
  if (getMaxTrips())
    return emitOpError("is a forward branch: 'max_trips' is for loops");
  return verifyForward(*this, getDest());
}

LogicalResult CondBranchOp::verify() {
  auto type = cast<MemRefType>(getCondition().getType());
  if (!type.getElementType().isInteger(1) || type.getNumElements() != 1 ||
      !type.hasStaticShape())
    return emitOpError("condition must be one i1 element, got ") << type;
  if (failed(verifyForward(*this, getTrueDest())) ||
      failed(verifyForward(*this, getFalseDest())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  bool hasMethod = false;
  for (Operation &op : getBody().front()) {
    if (isa<MethodOp>(op)) {
      hasMethod = true;
      continue;
    }
    if (!isa<ConstantOp, DelegateOp, StateOp>(op))
      return op.emitOpError("is not allowed in an exec.program (only "
                            "exec.constant, exec.delegate, exec.state and "
                            "exec.method)");
  }
  if (!hasMethod)
    return emitOpError("must hold at least one exec.method");
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<ShapedType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("value must have a static shape");
  return success();
}

//===----------------------------------------------------------------------===//
// StateOp
//===----------------------------------------------------------------------===//

LogicalResult StateOp::verify() {
  auto type = cast<MemRefType>(getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return emitOpError("capacity must be a static row-major memref, got ")
           << type;
  ArrayRef<int64_t> initial = getInitialShape();
  if (initial.size() != static_cast<size_t>(type.getRank()))
    return emitOpError("'initial_shape' has ")
           << initial.size() << " extents for a rank-" << type.getRank()
           << " state";
  for (auto [d, extent] : llvm::enumerate(initial))
    if (extent < 0 || extent > type.getDimSize(d))
      return emitOpError("initial extent ")
             << extent << " of dimension " << d << " lies outside 0.."
             << type.getDimSize(d);
  if (std::optional<ArrayRef<int64_t>> permutation = getPermutation()) {
    SmallVector<bool> seen(type.getRank(), false);
    bool valid = permutation->size() == static_cast<size_t>(type.getRank());
    for (int64_t d : *permutation) {
      valid = valid && d >= 0 && d < type.getRank() && !seen[d];
      if (valid)
        seen[d] = true;
    }
    if (!valid)
      return emitOpError("'permutation' is not a permutation of the ")
             << type.getRank() << " dimensions";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateOp
//===----------------------------------------------------------------------===//

LogicalResult DelegateOp::verify() {
  if (getBackend().empty())
    return emitOpError("'backend' must name a backend");
  for (NamedAttribute spec : getCompileSpecs())
    if (!isa<StringAttr, IntegerAttr, FloatAttr, BoolAttr>(spec.getValue()))
      return emitOpError("compile spec '")
             << spec.getName().getValue()
             << "' must be a string, integer, float or bool";
  for (NamedAttribute entry : getNamedData())
    if (!isa<ElementsAttr>(entry.getValue()))
      return emitOpError("named data '")
             << entry.getName().getValue() << "' must be an elements attribute";
  // An I64Attr reads back as uint64_t: a negative value is a huge one.
  if (static_cast<int64_t>(getScratchBytes()) < 0)
    return emitOpError("'scratch_bytes' must not be negative");
  return success();
}

//===----------------------------------------------------------------------===//
// MethodOp
//===----------------------------------------------------------------------===//

/// Each binding is [@state, input, output]: a state of the program, and an
/// input or output index (or -1) whose element type and rank are the
/// state's; no input or output is bound twice.
LogicalResult MethodOp::verifyStateBindings() {
  std::optional<ArrayAttr> bindings = getStateBindings();
  if (!bindings)
    return success();
  FunctionType type = getFunctionType();
  llvm::SmallDenseSet<int64_t> inputs, outputs;
  llvm::SmallDenseSet<Attribute> bound;
  for (auto [i, attr] : llvm::enumerate(*bindings)) {
    auto binding = dyn_cast<ArrayAttr>(attr);
    auto symbol = binding && binding.size() == 3
                      ? dyn_cast<FlatSymbolRefAttr>(binding[0])
                      : FlatSymbolRefAttr();
    auto input = symbol ? dyn_cast<IntegerAttr>(binding[1]) : IntegerAttr();
    auto output = input ? dyn_cast<IntegerAttr>(binding[2]) : IntegerAttr();
    if (!output)
      return emitOpError("'state_bindings' entry ")
             << i << " must be [@state, input, output]";
    auto program = (*this)->getParentOfType<ProgramOp>();
    auto state = program ? SymbolTable::lookupNearestSymbolFrom<StateOp>(
                               program, symbol.getAttr())
                         : StateOp();
    if (!state)
      return emitOpError("'state_bindings' entry ")
             << i << " names no exec.state " << symbol;
    if (!bound.insert(symbol).second)
      return emitOpError("'state_bindings' names state ") << symbol << " twice";
    auto capacity = cast<MemRefType>(state.getType());
    int64_t in = input.getInt(), out = output.getInt();
    if (in < -1 || out < -1 || (in == -1 && out == -1) ||
        in >= static_cast<int64_t>(type.getNumInputs()) ||
        out >= static_cast<int64_t>(type.getNumResults()))
      return emitOpError("'state_bindings' entry ")
             << i << ": input " << in << " and output " << out
             << " must name one of the " << type.getNumInputs() << " inputs or "
             << type.getNumResults() << " outputs";
    for (auto [index, types, taken, kind] :
         {std::tuple{in, type.getInputs(), &inputs, "input"},
          std::tuple{out, type.getResults(), &outputs, "output"}}) {
      if (index < 0)
        continue;
      if (!taken->insert(index).second)
        return emitOpError(kind)
               << " " << index << " is bound to a state twice";
      auto bound = cast<MemRefType>(types[index]);
      if (bound.getElementType() != capacity.getElementType() ||
          bound.getRank() != capacity.getRank())
        return emitOpError(kind)
               << " " << index << " (" << bound << ") does not fit state "
               << symbol << " (" << capacity << ")";
    }
  }
  return success();
}

LogicalResult MethodOp::verify() {
  FunctionType type = getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<MemRefType>(t))
      return emitOpError("signature types must be ranked memrefs, got ") << t;
  llvm::StringMap<DimSymbolOp> symbols;
  for (auto symbol : getBody().getOps<DimSymbolOp>())
    if (!symbols.try_emplace(symbol.getName(), symbol).second)
      return symbol.emitOpError("'")
             << symbol.getName() << "' is declared twice in the method";
  SmallVector<InputOp> inputs(type.getNumInputs());
  for (auto input : getBody().getOps<InputOp>()) {
    int64_t index = input.getIndex();
    if (index < 0 || index >= static_cast<int64_t>(inputs.size()))
      return input.emitOpError("index ") << index << " is outside the method's "
                                         << inputs.size() << " inputs";
    if (inputs[index])
      return input.emitOpError("binds input ") << index << " a second time";
    inputs[index] = input;
  }
  for (auto [index, input] : llvm::enumerate(inputs))
    if (!input)
      return emitOpError("input ") << index << " is never bound by exec.input";
  if (std::optional<ArrayRef<int64_t>> sizes = getArenaSizes())
    if (llvm::any_of(*sizes, [](int64_t s) { return s < 0; }))
      return emitOpError("'arena_sizes' entries must be non-negative");
  for (auto [what, names, count] :
       {std::tuple{"input_names", getInputNames(), type.getNumInputs()},
        std::tuple{"output_names", getOutputNames(), type.getNumResults()}})
    if (names && names->size() != count)
      return emitOpError("'") << what << "' has " << names->size()
                              << " names for " << count << " values";
  if (failed(verifyStateBindings()))
    return failure();
  // The blocks are the instruction list in order: only the last returns.
  for (auto [number, block] : llvm::enumerate(getBody())) {
    Operation *terminator = block.empty() ? nullptr : &block.back();
    bool isLast = &block == &getBody().back();
    if (!terminator || isLast != isa<ReturnOp>(terminator))
      return emitOpError("block ")
             << number
             << (isLast ? " (the last) must end in exec.return"
                        : " must end in exec.branch or exec.cond_branch "
                          "(only the last block returns)");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// Placement is all or nothing; a placed buffer lies inside its arena when
/// the method's arena sizes are known.
static LogicalResult verifyPlacement(PlacedBufferOpInterface op) {
  std::optional<uint64_t> id = op.getPlacedMemoryId();
  std::optional<uint64_t> offset = op.getPlacedOffset();
  if (id.has_value() != offset.has_value())
    return op->emitOpError("'memory_id' and 'offset' go together");
  if (!id)
    return success();
  if (static_cast<int64_t>(*id) < 0 || static_cast<int64_t>(*offset) < 0)
    return op->emitOpError("placement must be non-negative");
  auto method = op->getParentOfType<MethodOp>();
  std::optional<ArrayRef<int64_t>> sizes = method.getArenaSizes();
  if (!sizes)
    return success();
  if (*id >= sizes->size())
    return op->emitOpError("memory id ")
           << *id << " has no arena (the method has " << sizes->size() << ")";
  FailureOr<int64_t> size = getBoundSizeInBytes(op);
  if (failed(size))
    return failure();
  int64_t end = *offset + *size;
  if (end > (*sizes)[*id])
    return op->emitOpError("buffer ends at byte ")
           << end << ", past arena " << *id << " of " << (*sizes)[*id]
           << " bytes";
  return success();
}

/// One extent operand per dynamic dimension.
static LogicalResult verifyDynamicSizes(PlacedBufferOpInterface op) {
  int64_t dynamic = op.getBuffer().getType().getNumDynamicDims();
  if (static_cast<int64_t>(op.getDynamicSizes().size()) != dynamic)
    return op->emitOpError("has ")
           << op.getDynamicSizes().size() << " extents for " << dynamic
           << " dynamic dimensions";
  return success();
}

LogicalResult InputOp::verify() {
  if (failed(verifyDynamicSizes(*this)))
    return failure();
  for (Value size : getDynamicSizes())
    if (!size.getDefiningOp<DimSymbolOp>())
      return emitOpError("a dynamic input extent must be an exec.dim_symbol "
                         "(the input binds it)");
  auto method = (*this)->getParentOfType<MethodOp>();
  ArrayRef<Type> inputs = method.getFunctionType().getInputs();
  int64_t index = getIndex();
  if (index >= 0 && index < static_cast<int64_t>(inputs.size()) &&
      inputs[index] != getType())
    return emitOpError("type ")
           << getType() << " differs from the method's input " << index
           << " type " << inputs[index];
  return verifyPlacement(*this);
}

LogicalResult AllocOp::verify() {
  if (failed(verifyDynamicSizes(*this)))
    return failure();
  return verifyPlacement(*this);
}

LogicalResult
ConstantRefOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto constant =
      symbolTable.lookupNearestSymbolFrom<ConstantOp>(*this, getConstantAttr());
  if (!constant)
    return emitOpError("'")
           << getConstant() << "' does not name an exec.constant";
  auto valueType = cast<ShapedType>(constant.getValue().getType());
  if (!getType().hasStaticShape() ||
      valueType.getShape() != getType().getShape() ||
      valueType.getElementType() != getType().getElementType())
    return emitOpError("type ")
           << getType() << " does not match constant of type " << valueType;
  return success();
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  if (getKernel().empty())
    return emitOpError("kernel name must not be empty");
  if (getOuts().empty())
    return emitOpError("must write at least one output buffer");
  for (Value out : getOuts())
    if (out.getDefiningOp<ConstantRefOp>())
      return emitOpError("writes a constant buffer");
  // A bound symbol is an extent of an output, so that the kernel can report
  // it (the runtime reads it back from there).
  for (Value bound : getBinds()) {
    if (!bound.getDefiningOp<DimSymbolOp>())
      return emitOpError("binds ")
             << bound << ", which is not an exec.dim_symbol";
    bool isExtent = llvm::any_of(getOuts(), [&](Value out) {
      auto placed = out.getDefiningOp<PlacedBufferOpInterface>();
      return placed && llvm::is_contained(placed.getDynamicSizes(), bound);
    });
    if (!isExtent)
      return emitOpError("binds a symbol that is no dynamic extent of its "
                         "outputs");
  }
  return success();
}

LogicalResult DelegateCallOp::verify() {
  if (getOuts().empty())
    return emitOpError("must write at least one output buffer");
  // A buffer of dynamic extents needs the extents the delegate was compiled
  // to receive.
  if (getExtents().empty())
    for (Type type : getOperandTypes())
      if (isa<MemRefType>(type) && !cast<MemRefType>(type).hasStaticShape())
        return emitOpError("operand of type ")
               << type << " has dynamic dimensions but the call passes no "
               << "extents (docs/dynamic-shapes.md)";
  return success();
}

LogicalResult
DelegateCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<DelegateOp>(*this,
                                                       getDelegateAttr()))
    return emitOpError("'")
           << getDelegate() << "' does not name an exec.delegate";
  auto delegate =
      symbolTable.lookupNearestSymbolFrom<DelegateOp>(*this, getDelegateAttr());
  if (int64_t scratch = delegate.getScratchBytes()) {
    auto last = dyn_cast<MemRefType>(getOuts().back().getType());
    if (!last || last.getRank() != 1 || !last.getElementType().isInteger(8) ||
        last.getNumElements() < scratch)
      return emitOpError("'")
             << getDelegate() << "' needs " << scratch
             << " bytes of working memory as its last output (a 1-d i8 "
             << "buffer)";
  }
  return success();
}

LogicalResult ReturnOp::verify() {
  auto method = (*this)->getParentOfType<MethodOp>();
  ArrayRef<Type> results = method.getFunctionType().getResults();
  if (getOutputs().size() != results.size())
    return emitOpError("returns ")
           << getOutputs().size() << " buffers, the method declares "
           << results.size();
  for (auto [index, pair] : llvm::enumerate(llvm::zip(getOutputs(), results)))
    if (std::get<0>(pair).getType() != std::get<1>(pair))
      return emitOpError("output ")
             << index << " has type " << std::get<0>(pair).getType()
             << ", the method declares " << std::get<1>(pair);
  return success();
}

// TableGen's generated code leaves parameters unused (adaptors, builders,
// default interface methods); that one warning is off for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GET_OP_CLASSES
#include "Exec/IR/ExecOps.cpp.inc"
#pragma GCC diagnostic pop
