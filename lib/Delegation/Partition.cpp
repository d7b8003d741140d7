//===- Partition.cpp - claim, group and outline delegate partitions -------===//
//
// Grouping walks each function's block in order. A claimed op joins the
// partition of one of its claimed producers unless one of its other
// operands depends on that partition through an unclaimed op (joining
// would make a cycle: partition -> outside op -> partition). An op without
// a claimed producer joins the latest partition under the same test;
// otherwise it opens a new partition. `reach[v]` is the set of partitions a
// value depends on, so the check is one bit test per operand.
//
// With a cost calibration (CostModel.h), each group is then priced both
// ways; a group cheaper on the portable kernels, once the delegate call
// and the conversion of its boundary tensors are counted, is not outlined.
//
//===----------------------------------------------------------------------===//
#include "strata/Delegation/Delegation.h"
#include "strata/Support/StateNames.h"

#include "Extents.h"

#include "Edge/IR/EdgeOps.h"
#include "strata/Support/Locations.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;

namespace strata {

int DelegationReport::delegatedCount() const {
  return llvm::count_if(
      ops, [](const Placement &p) { return !p.partition.empty(); });
}

int DelegationReport::fallbackCount() const {
  return static_cast<int>(ops.size()) - delegatedCount();
}

void DelegationReport::merge(DelegationReport later) {
  std::vector<Placement> merged;
  for (Placement &p : ops)
    if (!p.partition.empty())
      merged.push_back(std::move(p));
  for (Placement &p : later.ops)
    if (p.op != "edge.delegate_call")
      merged.push_back(std::move(p));
  ops = std::move(merged);
  backend += "," + later.backend;
  partitions += later.partitions;
  for (Decision &d : later.decisions)
    decisions.push_back(std::move(d));
  if (!later.calibration.empty() && later.calibration != calibration)
    calibration += (calibration.empty() ? "" : ", ") + later.calibration;
}

llvm::json::Value DelegationReport::toJSON() const {
  llvm::json::Array placements;
  std::map<std::string, int64_t> perOp, perBackend;
  for (const Placement &p : ops) {
    placements.push_back(
        llvm::json::Object{{"op", p.op},
                           {"node", p.node},
                           {"backend", p.backend},
                           {"partition", p.partition},
                           {"class", p.work.opClass},
                           {"work", p.work.units},
                           {"nodes", llvm::json::Array(p.nodes)}});
    if (p.partition.empty())
      ++perOp[p.op];
    else
      ++perBackend[p.backend];
  }
  llvm::json::Object byBackend;
  for (const auto &[name, count] : perBackend)
    byBackend[name] = count;
  llvm::json::Object fallback;
  for (const auto &[op, count] : perOp)
    fallback[op] = count;
  llvm::json::Array verdicts;
  for (const Decision &d : decisions) {
    llvm::json::Object verdict{
        {"first_node", d.firstNode},
        {"ops", d.ops},
        {"decision", d.delegated ? "delegate" : "portable"}};
    if (!d.partition.empty())
      verdict["partition"] = d.partition;
    if (!calibration.empty()) {
      verdict["estimate_delegate_us"] = std::round(d.delegateUs * 100) / 100;
      verdict["estimate_portable_us"] = std::round(d.portableUs * 100) / 100;
      verdict["boundary_bytes"] = static_cast<int64_t>(d.boundaryBytes);
    }
    verdicts.push_back(std::move(verdict));
  }
  return llvm::json::Object{
      {"backend", backend},
      {"partitions", partitions},
      {"cost_calibration",
       calibration.empty() ? "none (every group delegated)" : calibration},
      {"decisions", std::move(verdicts)},
      {"delegated_ops", delegatedCount()},
      {"delegated_by_backend", std::move(byBackend)},
      {"portable_ops", fallbackCount()},
      {"portable_by_op", std::move(fallback)},
      {"ops", std::move(placements)}};
}

namespace {

bool isConstant(Operation *op) { return isa<edge::ConstantOp>(op); }

/// Ops that take part in partitioning (everything but constants and the
/// terminator).
bool isCandidate(Operation *op) {
  return !isConstant(op) && !op->hasTrait<OpTrait::IsTerminator>();
}

/// Marks with kBackendAttr every op `backend` supports.
LogicalResult tag(func::FuncOp func, const Backend &backend) {
  const BackendHooks &hooks = backend.getHooks();
  if (hooks.partitioner)
    return hooks.partitioner(func);
  if (!hooks.supportsOp)
    return func.emitError("backend '")
           << backend.getName() << "' has neither a partitioner nor a "
           << "support check";
  auto name = StringAttr::get(func.getContext(), backend.getName());
  func.walk([&](Operation *op) {
    if (op != func && isCandidate(op) && hooks.supportsOp(op))
      op->setAttr(delegation::kBackendAttr, name);
  });
  return success();
}

/// Partition index of each claimed op of `block`, cycle-free.
llvm::MapVector<Operation *, int> group(Block &block, StringRef backend,
                                        int &count) {
  llvm::MapVector<Operation *, int> partOf;
  llvm::DenseMap<Operation *, llvm::BitVector> reach;
  count = 0;
  auto reachOf = [&](Value v) -> llvm::BitVector {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block)
      return llvm::BitVector(count);
    llvm::BitVector r = reach.lookup(def);
    r.resize(count);
    auto it = partOf.find(def);
    if (it != partOf.end())
      r.set(it->second);
    return r;
  };
  for (Operation &op : block) {
    auto claimed = op.getAttrOfType<StringAttr>(delegation::kBackendAttr);
    if (claimed && claimed.getValue() == backend && isCandidate(&op)) {
      int chosen = -1;
      for (Value operand : op.getOperands()) {
        Operation *def = operand.getDefiningOp();
        auto it = def ? partOf.find(def) : partOf.end();
        if (it == partOf.end())
          continue;
        int candidate = it->second;
        // Joining is a cycle when another operand depends on the candidate
        // through an op outside it.
        bool cycle = llvm::any_of(op.getOperands(), [&](Value other) {
          Operation *otherDef = other.getDefiningOp();
          auto in = otherDef ? partOf.find(otherDef) : partOf.end();
          if (in != partOf.end() && in->second == candidate)
            return false;
          llvm::BitVector r = reachOf(other);
          return r.size() > static_cast<unsigned>(candidate) &&
                 r.test(candidate);
        });
        if (!cycle) {
          chosen = candidate;
          break;
        }
      }
      // An op with no claimed producer (it reads only block arguments,
      // constants and unclaimed results) joins the latest partition unless
      // one of its operands depends on it: independent siblings, such as
      // the two readers of a GELU's input, stay together.
      bool anyClaimedProducer = llvm::any_of(op.getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && partOf.count(def);
      });
      if (chosen < 0 && !anyClaimedProducer && count > 0) {
        int latest = count - 1;
        bool depends = llvm::any_of(op.getOperands(), [&](Value other) {
          llvm::BitVector r = reachOf(other);
          return r.size() > static_cast<unsigned>(latest) && r.test(latest);
        });
        if (!depends)
          chosen = latest;
      }
      if (chosen < 0)
        chosen = count++;
      partOf[&op] = chosen;
    }
    llvm::BitVector r(count);
    for (Value operand : op.getOperands()) {
      llvm::BitVector o = reachOf(operand);
      o.resize(count);
      r |= o;
    }
    reach[&op] = std::move(r);
  }
  return partOf;
}

/// Outlines `ops` (in block order) into `@name` and calls it.
LogicalResult outline(func::FuncOp parent, ArrayRef<Operation *> ops,
                      StringRef name, StringRef backend,
                      Operation *&insertAfter) {
  llvm::SmallPtrSet<Operation *, 32> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs, outputs;
  llvm::SetVector<Operation *> constants;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inside.contains(def))
        continue;
      if (def && isConstant(def))
        constants.insert(def);
      else
        inputs.insert(operand);
    }
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        outputs.insert(result);

  // Index operands (a reshape's dynamic sizes) are extents: the function
  // takes them after the tensors, the call as its `extents`.
  SmallVector<Value> tensorInputs, indexInputs;
  for (Value input : inputs)
    (input.getType().isIndex() ? indexInputs : tensorInputs).push_back(input);
  inputs.clear();
  inputs.insert(tensorInputs.begin(), tensorInputs.end());
  inputs.insert(indexInputs.begin(), indexInputs.end());

  MLIRContext *context = parent.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(insertAfter);
  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  Location loc = FusedLoc::get(context, locs);
  auto type = builder.getFunctionType(
      llvm::map_to_vector(inputs, [](Value v) { return v.getType(); }),
      llvm::map_to_vector(outputs, [](Value v) { return v.getType(); }));
  auto func = builder.create<func::FuncOp>(loc, name, type);
  func.setPrivate();
  func->setAttr(delegation::kDelegateAttr, builder.getStringAttr(backend));
  insertAfter = func;
  Block *body = func.addEntryBlock();
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), body->getArguments());
  builder.setInsertionPointToStart(body);
  for (Operation *c : constants)
    builder.clone(*c, mapping);
  for (Operation *op : ops) {
    Operation *clone = builder.clone(*op, mapping);
    clone->removeAttr(delegation::kBackendAttr);
  }
  builder.create<func::ReturnOp>(
      loc,
      llvm::map_to_vector(outputs, [&](Value v) { return mapping.lookup(v); }));

  builder.setInsertionPointAfter(ops.back());
  auto call = builder.create<edge::DelegateCallOp>(loc, type.getResults(), name,
                                                   tensorInputs, indexInputs,
                                                   /*result_extents=*/nullptr);
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    Value(output).replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inside.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  // Users of early partition results may precede the call.
  if (!sortTopologically(call->getBlock()))
    return parent.emitError("outlining '") << name << "' made a cycle";
  for (Operation *c : constants)
    if (c->use_empty())
      c->erase();
  return success();
}

std::string opNodeName(Operation *op) { return getNodeName(op->getLoc()); }

/// Bytes of a statically shaped tensor type (0 otherwise).
double bytesOf(Type valueType) {
  auto type = dyn_cast<ShapedType>(valueType);
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return static_cast<double>(type.getNumElements()) * ((bits + 7) / 8);
}

/// The work of a block's ops and the bytes of the values they read and
/// write, dynamic extents at their bounds.
struct Pricing {
  llvm::DenseMap<Operation *, OpWork> work;
  llvm::DenseMap<Value, double> bytes;
};

Pricing price(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    if (isCandidate(&op))
      ops.push_back(&op);
  Pricing pricing;
  // Its index computations are erased when it goes, before the users of
  // the values are looked at.
  delegation::TypesAtBounds typeOf(block.getParentOp()->getContext());
  for (Operation *op : ops) {
    pricing.work[op] = estimateWork(op, std::ref(typeOf));
    auto priceBytes = [&](ValueRange values) {
      for (Value value : values)
        if (!pricing.bytes.count(value))
          pricing.bytes[value] = bytesOf(typeOf(value));
    };
    priceBytes(op->getOperands());
    priceBytes(op->getResults());
  }
  return pricing;
}

/// The verdict on one group of claimed ops: delegated without a
/// calibration, else priced both ways.
DelegationReport::Decision decide(ArrayRef<Operation *> ops,
                                  const CostCalibration *calibration,
                                  const Pricing &pricing) {
  DelegationReport::Decision decision;
  decision.ops = static_cast<int>(ops.size());
  decision.firstNode = opNodeName(ops.front());
  if (!calibration)
    return decision;
  llvm::SmallPtrSet<Operation *, 32> inside(ops.begin(), ops.end());
  llvm::SmallPtrSet<Value, 16> crossing;
  double delegateNs = calibration->callNs(), portableNs = 0;
  for (Operation *op : ops) {
    OpWork work = pricing.work.lookup(op);
    delegateNs += calibration->delegateNs(work);
    portableNs += calibration->portableNs(work);
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!(def && (inside.contains(def) || isConstant(def))))
        crossing.insert(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        crossing.insert(result);
  }
  for (Value value : crossing)
    decision.boundaryBytes += pricing.bytes.lookup(value);
  delegateNs += decision.boundaryBytes * calibration->boundaryNsPerByte();
  decision.delegateUs = delegateNs / 1e3;
  decision.portableUs = portableNs / 1e3;
  decision.delegated = delegateNs <= portableNs;
  return decision;
}

} // namespace

/// The symbols of the dynamic extents of `func`'s inputs that a state
/// feeds (`statePairs`): the extents that change at every call.
static llvm::StringSet<> stateSymbols(func::FuncOp func,
                                      ArrayRef<std::string> statePairs) {
  llvm::StringSet<> symbols;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "hl.name");
    auto params = func.getArgAttrOfType<ArrayAttr>(i, "hl.dim_params");
    if (!name || !params || !isStateInput(name.getValue(), statePairs))
      continue;
    for (Attribute param : params)
      if (auto symbol = dyn_cast<StringAttr>(param))
        if (!symbol.getValue().empty())
          symbols.insert(symbol.getValue());
  }
  return symbols;
}

FailureOr<DelegationReport> partition(ModuleOp module, const Backend &backend,
                                      const CostCalibration *calibration,
                                      StringRef namePrefix,
                                      ArrayRef<std::string> statePairs) {
  if (!backend.getHooks().delegates())
    return module.emitError("backend '")
           << backend.getName() << "' has no delegate to partition for";
  DelegationReport report;
  report.backend = backend.getName();
  if (calibration)
    report.calibration = calibration->getSource();
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(delegation::kDelegateAttr))
      funcs.push_back(func);
  for (func::FuncOp func : funcs) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("partitioning needs a single-block function");
    // Shape computations read the arguments' extents, not ops' results (a
    // reshape's sizes would otherwise tie it to its input's partition).
    bool dynamic = false;
    func.walk([&](Operation *op) {
      dynamic |= llvm::any_of(op->getResultTypes(), [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor && !tensor.hasStaticShape();
      });
    });
    if (dynamic)
      delegation::resolveDims(func);
    if (failed(tag(func, backend)))
      return failure();
    // A delegate is prepared at the symbols' bounds: an op with an extent
    // that has none there (sized by the data: a detector's per-class
    // counts) stays portable, and so does one with an extent that may be
    // 0 (an empty KV cache): the delegates run extents of 1 and more. An
    // extent that follows only a state's (attention over a KV cache in a
    // decode step, one row longer at every call) is new at every call and
    // its work small, and a delegate builds its graph per shape: such ops
    // stay portable too. One that also follows another input's (a
    // prompt's attention) does work enough to pay for the build.
    if (dynamic) {
      delegation::TypesAtBounds typeAtBounds(func.getContext());
      llvm::StringSet<> perCall = stateSymbols(func, statePairs);
      auto followsOnlyState = [&](Value value) {
        if (perCall.empty())
          return false;
        llvm::StringSet<> read = typeAtBounds.symbolsRead(value);
        return !read.empty() &&
               llvm::all_of(read.keys(), [&](StringRef symbol) {
                 return perCall.contains(symbol);
               });
      };
      auto unbounded = [&](Value value) {
        auto type = dyn_cast<RankedTensorType>(value.getType());
        return type && !type.hasStaticShape() &&
               (!cast<RankedTensorType>(typeAtBounds(value)).hasStaticShape() ||
                typeAtBounds.mayBeEmpty(value) || followsOnlyState(value));
      };
      func.walk([&](Operation *op) {
        if (op->hasAttr(delegation::kBackendAttr) &&
            (llvm::any_of(op->getOperands(), unbounded) ||
             llvm::any_of(op->getResults(), unbounded)))
          op->removeAttr(delegation::kBackendAttr);
      });
    }
    Block &block = func.getBody().front();
    int groups = 0;
    llvm::MapVector<Operation *, int> groupOf =
        group(block, backend.getName(), groups);
    std::vector<SmallVector<Operation *>> groupOps(groups);
    for (auto [op, index] : groupOf)
      groupOps[index].push_back(op);
    // The cost model's verdict per group; a group kept portable is dropped
    // (partitions form a DAG, so dropping one makes no cycle).
    std::vector<int> partitionOf(groups, -1);
    std::vector<SmallVector<Operation *>> members;
    std::vector<DelegationReport::Decision> decisions;
    // Dynamic extents are priced at the bounds.
    Pricing pricing = price(block);
    for (int g = 0; g < groups; ++g) {
      DelegationReport::Decision decision =
          decide(groupOps[g], calibration, pricing);
      if (decision.delegated) {
        partitionOf[g] = static_cast<int>(members.size());
        members.push_back(groupOps[g]);
      }
      decisions.push_back(std::move(decision));
    }
    int count = static_cast<int>(members.size());
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) {
      std::string base = namePrefix.str() + backend.getName() + "_" +
                         std::to_string(report.partitions + i);
      std::string name = base;
      for (int n = 1; symbols.lookup(name); ++n)
        name = base + "_" + std::to_string(n);
      names.push_back(name);
    }
    for (int g = 0; g < groups; ++g) {
      if (partitionOf[g] >= 0)
        decisions[g].partition = names[partitionOf[g]];
      report.decisions.push_back(decisions[g]);
    }
    for (Operation &op : block) {
      if (!isCandidate(&op))
        continue;
      auto it = groupOf.find(&op);
      int index = it == groupOf.end() ? -1 : partitionOf[it->second];
      bool delegated = index >= 0;
      llvm::SetVector<StringRef> nodes;
      collectNodeNames(op.getLoc(), nodes);
      // The first name is the op's node, as getNodeName gives it.
      report.ops.push_back(
          {op.getName().getStringRef().str(),
           nodes.empty() ? "" : nodes.front().str(),
           delegated ? backend.getName() : "portable",
           delegated ? names[index] : "", pricing.work.lookup(&op),
           std::vector<std::string>(nodes.begin(), nodes.end())});
    }
    Operation *insertAfter = func;
    for (int i = 0; i < count; ++i) {
      if (failed(outline(func, members[i], names[i], backend.getName(),
                         insertAfter)))
        return failure();
      symbols.insert(module.lookupSymbol(names[i]));
    }
    func.walk([](Operation *op) { op->removeAttr(delegation::kBackendAttr); });
    report.partitions += count;
  }
  return report;
}

} // namespace strata
