//===- Extents.cpp - dynamic extents of partitions as slots ---------------===//
//
// See Extents.h. The slots are found inside the fused partition, where each
// dynamic extent resolves to one index value over the partition's
// arguments; that computation is then rebuilt before the call over the
// call's operands (and, through them, over the caller's arguments), where
// edge-to-exec turns it into the shape program and where it is evaluated
// at the bounds for preprocess.
//
//===----------------------------------------------------------------------===//
#include "Extents.h"

#include "strata/Delegation/Delegation.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace strata::delegation {

namespace {

/// Collects the ops a builder inserts.
struct Collector : OpBuilder::Listener {
  SmallVectorImpl<Operation *> &ops;
  explicit Collector(SmallVectorImpl<Operation *> &ops) : ops(ops) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
};

bool isDynamic(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && !ranked.hasStaticShape();
}

} // namespace

Value ExtentResolver::extent(Value value, int64_t dim) {
  auto key = std::make_pair(value, dim);
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  Collector collect(created);
  OpBuilder builder(context, &collect);
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  Operation *def = value.getDefiningOp();
  if (def)
    builder.setInsertionPoint(def);
  else
    builder.setInsertionPointToStart(value.getParentBlock());
  Value result;
  if (!type.isDynamicDim(dim)) {
    result = builder.create<arith::ConstantIndexOp>(loc, type.getDimSize(dim));
  } else if (def && isa<ReifyRankedShapedTypeOpInterface>(def)) {
    size_t first = created.size();
    ReifiedRankedShapedTypeDims shapes;
    if (succeeded(reifyResultShapes(builder, def, shapes))) {
      OpFoldResult reified =
          shapes[cast<OpResult>(value).getResultNumber()][dim];
      // The rule reads its operands' extents through tensor.dim: each is
      // resolved in turn (the operands are defined before `def`).
      size_t last = created.size();
      for (size_t i = first; i < last; ++i) {
        auto read = dyn_cast_or_null<tensor::DimOp>(created[i]);
        std::optional<int64_t> index =
            read ? read.getConstantIndex() : std::nullopt;
        if (!index)
          continue;
        Value resolved = extent(read.getSource(), *index);
        if (reified == OpFoldResult(read.getResult()))
          reified = resolved;
        read.getResult().replaceAllUsesWith(resolved);
        read.erase();
        created[i] = nullptr;
      }
      result = getValueOrCreateConstantIndexOp(builder, loc, reified);
    } else {
      for (size_t i = created.size(); i > first; --i)
        if (created[i - 1])
          created[i - 1]->erase();
      created.resize(first);
    }
  }
  // No rule gives it (a value-dependent extent, an argument's): read it
  // from the value, after its definition.
  if (!result) {
    if (def)
      builder.setInsertionPointAfter(def);
    result = builder.create<tensor::DimOp>(loc, value, dim);
  }
  memo[key] = result;
  return result;
}

SmallVector<Operation *> ExtentResolver::createdOps() const {
  SmallVector<Operation *> kept;
  for (Operation *op : created)
    if (op)
      kept.push_back(op);
  return kept;
}

/// Erases the ops of `ops` no longer used, last first, until none is.
static void eraseUnused(ArrayRef<Operation *> ops) {
  llvm::SetVector<Operation *> live(ops.begin(), ops.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *op : llvm::reverse(live.getArrayRef()))
      if (op->use_empty()) {
        live.remove(op);
        op->erase();
        erased = true;
        break;
      }
  }
}

void resolveDims(func::FuncOp func) {
  SmallVector<tensor::DimOp> reads;
  func.walk([&](tensor::DimOp read) {
    Operation *def = read.getSource().getDefiningOp();
    if (def && isa<ReifyRankedShapedTypeOpInterface>(def) &&
        read.getConstantIndex())
      reads.push_back(read);
  });
  if (reads.empty())
    return;
  ExtentResolver resolver(func.getContext());
  SmallVector<Operation *> replaced;
  for (tensor::DimOp read : reads) {
    read.getResult().replaceAllUsesWith(
        resolver.extent(read.getSource(), *read.getConstantIndex()));
    replaced.push_back(read);
  }
  for (Operation *op : replaced)
    op->erase();
  eraseUnused(resolver.createdOps());
}

/// The value of `extent` with every symbol of its function at its upper
/// bound (hl.dim_params naming hl.dim_bounds; with `lower`, at its lower
/// bound), folding the index arithmetic; nullopt when a leaf has no bound.
static std::optional<int64_t>
valueAtBounds(Value extent, llvm::DenseMap<Value, int64_t> &known,
              bool lower = false) {
  if (auto it = known.find(extent); it != known.end())
    return it->second;
  std::optional<int64_t> result;
  IntegerAttr constant;
  Operation *def = extent.getDefiningOp();
  if (matchPattern(extent, m_Constant(&constant))) {
    result = constant.getInt();
  } else if (auto read = dyn_cast_or_null<tensor::DimOp>(def)) {
    std::optional<int64_t> dim = read.getConstantIndex();
    auto type = cast<RankedTensorType>(read.getSource().getType());
    auto arg = dyn_cast<BlockArgument>(read.getSource());
    auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                    : func::FuncOp();
    if (dim && !type.isDynamicDim(*dim)) {
      result = type.getDimSize(*dim);
    } else if (dim && func) {
      auto params =
          func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "hl.dim_params");
      auto bounds = func->getAttrOfType<DictionaryAttr>("hl.dim_bounds");
      auto name = params && *dim < static_cast<int64_t>(params.size())
                      ? dyn_cast<StringAttr>(params[*dim])
                      : StringAttr();
      auto range =
          name && bounds
              ? dyn_cast_or_null<DenseI64ArrayAttr>(bounds.get(name.getValue()))
              : DenseI64ArrayAttr();
      if (range && range.size() == 2)
        result = range[lower ? 0 : 1];
    }
  } else if (def && def->getNumResults() == 1 && def->getNumRegions() == 0) {
    SmallVector<Attribute> operands;
    for (Value operand : def->getOperands()) {
      std::optional<int64_t> v = valueAtBounds(operand, known, lower);
      if (!v)
        return std::nullopt;
      operands.push_back(IntegerAttr::get(operand.getType(), *v));
    }
    SmallVector<OpFoldResult> folded;
    if (succeeded(def->fold(operands, folded)) && folded.size() == 1) {
      if (auto attr = dyn_cast_or_null<IntegerAttr>(
              dyn_cast<Attribute>(folded.front())))
        result = attr.getInt();
      else if (auto value = dyn_cast<Value>(folded.front()))
        result = valueAtBounds(value, known, lower);
    }
  }
  if (result)
    known[extent] = *result;
  return result;
}

TypesAtBounds::~TypesAtBounds() { eraseUnused(resolver.createdOps()); }

Type TypesAtBounds::operator()(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.hasStaticShape())
    return value.getType();
  if (Type known = types.lookup(value))
    return known;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d)) {
      std::optional<int64_t> bound =
          valueAtBounds(resolver.extent(value, d), known);
      if (!bound || *bound < 0)
        return types[value] = value.getType();
      shape[d] = *bound;
    }
  return types[value] = type.clone(shape);
}

bool TypesAtBounds::mayBeEmpty(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.hasStaticShape())
    return false;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d)) {
      std::optional<int64_t> least =
          valueAtBounds(resolver.extent(value, d), knownAtLowerBounds,
                        /*lower=*/true);
      if (least && *least <= 0)
        return true;
    }
  return false;
}

/// The symbol whose extent `extent` reads: a tensor.dim of an argument
/// whose dimension hl.dim_params names; null otherwise.
static StringAttr symbolOf(Value extent) {
  auto read = extent.getDefiningOp<tensor::DimOp>();
  auto arg = read ? dyn_cast<BlockArgument>(read.getSource()) : BlockArgument();
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  std::optional<int64_t> dim = read ? read.getConstantIndex() : std::nullopt;
  if (!func || !dim)
    return {};
  auto params =
      func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "hl.dim_params");
  auto name = params && *dim < static_cast<int64_t>(params.size())
                  ? dyn_cast<StringAttr>(params[*dim])
                  : StringAttr();
  return name && !name.getValue().empty() ? name : StringAttr();
}

llvm::StringSet<> TypesAtBounds::symbolsRead(Value value) {
  llvm::StringSet<> symbols;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.hasStaticShape())
    return symbols;
  SmallVector<Value> work;
  llvm::DenseSet<Value> seen;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      work.push_back(resolver.extent(value, d));
  while (!work.empty()) {
    Value extent = work.pop_back_val();
    if (!seen.insert(extent).second)
      continue;
    if (StringAttr symbol = symbolOf(extent))
      symbols.insert(symbol.getValue());
    if (Operation *op = extent.getDefiningOp())
      if (!isa<tensor::DimOp>(op))
        for (Value operand : op->getOperands())
          if (operand.getType().isIndex() || operand.getType().isInteger())
            work.push_back(operand);
  }
  return symbols;
}

/// Whether `a` and `b` compute the same extent: the same value, one
/// symbol read from two inputs (the runtime checks that they agree), or
/// ops of one kind and attributes over the same extents.
static bool sameExtent(Value a, Value b) {
  if (a == b)
    return true;
  if (StringAttr symbol = symbolOf(a); symbol && symbol == symbolOf(b))
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumResults() != 1 ||
      y->getNumResults() != 1 || x->getNumRegions() || y->getNumRegions())
    return false;
  return llvm::all_of(llvm::zip(x->getOperands(), y->getOperands()),
                      [](auto pair) {
                        return sameExtent(std::get<0>(pair), std::get<1>(pair));
                      });
}

FailureOr<PartitionExtents> assignExtentSlots(func::FuncOp partition,
                                              edge::DelegateCallOp call) {
  Block &body = partition.getBody().front();
  SmallVector<Operation *> ops;
  bool dynamic = llvm::any_of(body.getArgumentTypes(), isDynamic);
  for (Operation &op : body.without_terminator()) {
    ops.push_back(&op);
    dynamic |= llvm::any_of(op.getResultTypes(), isDynamic);
  }
  if (!dynamic)
    return PartitionExtents();

  // Inside the partition: one value per distinct extent.
  MLIRContext *context = partition.getContext();
  Builder attrs(context);
  ExtentResolver inner(context);
  llvm::SetVector<Value> slots;
  auto slotsOf = [&](Value value) {
    SmallVector<int64_t> perDim;
    if (auto type = dyn_cast<RankedTensorType>(value.getType()))
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          perDim.push_back(-1);
          continue;
        }
        Value extent = inner.extent(value, d);
        slots.insert(extent);
        perDim.push_back(static_cast<int64_t>(
            llvm::find(slots.getArrayRef(), extent) - slots.begin()));
      }
    return perDim;
  };
  using PerValue = SmallVector<SmallVector<int64_t>>;
  auto slotsOfAll = [&](ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return slotsOf(v); });
  };
  PerValue argSlots = slotsOfAll(body.getArguments());
  SmallVector<std::pair<Operation *, PerValue>> opSlots;
  for (Operation *op : ops)
    if (llvm::any_of(op->getResultTypes(), isDynamic))
      opSlots.push_back({op, slotsOfAll(op->getResults())});
  PartitionExtents extents;
  extents.resultSlots = slotsOfAll(body.getTerminator()->getOperands());

  // Before the call: the same computations over the call's operands.
  size_t tensorCount = call.getInputs().size();
  ExtentResolver outer(context);
  OpBuilder builder(call);
  IRMapping mapping;
  std::function<FailureOr<Value>(Value)> rebuild =
      [&](Value inside) -> FailureOr<Value> {
    if (Value known = mapping.lookupOrNull(inside))
      return known;
    Value outside;
    if (auto arg = dyn_cast<BlockArgument>(inside)) {
      if (arg.getArgNumber() < tensorCount ||
          arg.getArgNumber() - tensorCount >= call.getExtents().size())
        return failure();
      outside = call.getExtents()[arg.getArgNumber() - tensorCount];
    } else if (auto read = inside.getDefiningOp<tensor::DimOp>()) {
      auto arg = dyn_cast<BlockArgument>(read.getSource());
      if (!arg || arg.getArgNumber() >= tensorCount || !read.getConstantIndex())
        return failure();
      outside = outer.extent(call.getInputs()[arg.getArgNumber()],
                             *read.getConstantIndex());
    } else {
      Operation *def = inside.getDefiningOp();
      if (def->getNumRegions() || def->getNumResults() != 1)
        return failure();
      for (Value operand : def->getOperands())
        if (failed(rebuild(operand)))
          return failure();
      outside = builder.clone(*def, mapping)->getResult(0);
    }
    mapping.map(inside, outside);
    return outside;
  };
  // Extents computed twice over (a reshape's size the caller passes, and
  // the same extent read from the input) are one slot.
  llvm::DenseMap<Value, int64_t> known;
  SmallVector<int64_t> bounds, merged;
  for (auto [index, slot] : llvm::enumerate(slots)) {
    FailureOr<Value> value = rebuild(slot);
    std::optional<int64_t> bound =
        succeeded(value) ? valueAtBounds(*value, known) : std::nullopt;
    if (!bound || *bound < 0)
      return call.emitOpError("extent slot ")
             << index << " of @" << partition.getSymName()
             << " has no value at the symbols' upper bounds (its extent is "
             << "not computed from the inputs' bounded dimensions)";
    auto same = llvm::find_if(extents.values, [&](Value earlier) {
      return sameExtent(earlier, *value);
    });
    merged.push_back(same - extents.values.begin());
    if (same == extents.values.end()) {
      extents.values.push_back(*value);
      bounds.push_back(*bound);
    }
  }
  auto renumber = [&](PerValue &perValue) {
    for (SmallVector<int64_t> &perDim : perValue)
      for (int64_t &slot : perDim)
        if (slot >= 0)
          slot = merged[slot];
  };
  auto slotAttr = [&](PerValue perValue) {
    renumber(perValue);
    return attrs.getArrayAttr(
        llvm::map_to_vector(perValue, [&](ArrayRef<int64_t> perDim) {
          return Attribute(attrs.getDenseI64ArrayAttr(perDim));
        }));
  };
  partition->setAttr(edge::kExtentSlotsAttrName, slotAttr(argSlots));
  for (auto &[op, perResult] : opSlots)
    op->setAttr(edge::kExtentSlotsAttrName, slotAttr(perResult));
  renumber(extents.resultSlots);
  partition->setAttr(edge::kExtentBoundsAttrName,
                     attrs.getDenseI64ArrayAttr(bounds));
  // The partition's own copy of the computation is not its backend's to
  // run.
  SmallVector<Operation *> computation = inner.createdOps();
  for (Operation *op : llvm::reverse(computation))
    op->dropAllUses();
  for (Operation *op : llvm::reverse(computation))
    op->erase();
  return extents;
}

void passExtentSlots(func::FuncOp partition, edge::DelegateCallOp call,
                     const PartitionExtents &extents) {
  partition->removeAttr(edge::kExtentSlotsAttrName);
  partition->removeAttr(edge::kExtentBoundsAttrName);
  if (extents.values.empty())
    return;
  OpBuilder builder(call);
  SmallVector<Type> inputs(call.getInputs().getTypes());
  inputs.append(extents.values.size(), builder.getIndexType());
  partition.setType(builder.getFunctionType(inputs, call.getResultTypes()));
  ArrayAttr resultSlots = builder.getArrayAttr(
      llvm::map_to_vector(extents.resultSlots, [&](ArrayRef<int64_t> slots) {
        return Attribute(builder.getDenseI64ArrayAttr(slots));
      }));
  auto replacement = builder.create<edge::DelegateCallOp>(
      call.getLoc(), call.getResultTypes(), call.getCallee(), call.getInputs(),
      extents.values, resultSlots);
  call.replaceAllUsesWith(replacement.getResults());
  call.erase();
}

} // namespace strata::delegation
