//===- Plan.cpp - the pattern engine: plans, phases and reports -----------===//
#include "strata/Patterns/Plan.h"

#include "HL/IR/HLOps.h"
#include "strata/Support/Locations.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <set>

using namespace mlir;

namespace strata {
namespace {

/// The key of an op in plans: its ONNX node name, or "<op>@<n>" (n counts
/// the module's ops in walk order) for an op without one.
class NodeNamer {
public:
  explicit NodeNamer(ModuleOp module) : module(module) {}
  std::string operator()(Operation *op) {
    std::string name = getNodeName(op->getLoc());
    if (!name.empty())
      return name;
    // Only unnamed ops need the walk order; most ops carry their name.
    if (order.empty()) {
      int64_t index = 0;
      module.walk([&](Operation *each) { order[each] = index++; });
    }
    auto it = order.find(op);
    return op->getName().getStringRef().str() + "@" +
           std::to_string(it == order.end() ? -1 : it->second);
  }

private:
  ModuleOp module;
  llvm::DenseMap<Operation *, int64_t> order;
};

/// The patterns of one phase, built, by decreasing priority (stable).
SmallVector<std::unique_ptr<StrataPattern>>
buildPhase(MLIRContext *context, ArrayRef<PatternDescriptor> patterns,
           PatternPhase phase) {
  SmallVector<std::unique_ptr<StrataPattern>> built;
  for (const PatternDescriptor &d : patterns)
    if (d.info.phase == phase)
      built.push_back(d.build(context, d.info));
  std::stable_sort(built.begin(), built.end(), [](auto &a, auto &b) {
    return a->getInfo().priority > b->getInfo().priority;
  });
  return built;
}

/// Where the engine is: making a plan (record everything) or applying one.
struct EngineState {
  const TransformationPlan *plan = nullptr; // null while planning
  std::vector<PlannedMatch> *found = nullptr;
  TransformReport *report = nullptr;
  std::set<std::pair<std::string, std::string>> skipped;

  void countApplied(StringRef pattern, std::vector<std::string> nodes) {
    if (!report)
      return;
    report->matches.push_back({pattern.str(), std::move(nodes)});
    for (auto &count : report->patterns)
      if (count.name == pattern)
        ++count.applied;
    ++report->appliedCount;
  }
  void countSkipped(const std::string &node, const std::string &pattern,
                    std::string reason) {
    if (!report || !skipped.insert({node, pattern}).second)
      return;
    for (auto &count : report->patterns)
      if (count.name == pattern)
        ++count.skipped;
    ++report->skippedCount;
    report->skips.push_back({node, pattern, std::move(reason)});
  }
};

std::vector<std::string> namesOf(ArrayRef<Operation *> ops, NodeNamer &namer) {
  std::vector<std::string> names;
  for (Operation *op : ops)
    names.push_back(namer(op));
  return names;
}

/// Conversions go through MLIR's greedy driver; the gate lets the plan
/// switch matches off and records what was rewritten.
class ConversionGate : public MatchGate {
public:
  ConversionGate(EngineState &state, ModuleOp module)
      : state(state), module(module) {}
  bool allow(const StrataPattern &pattern, Operation *root,
             ArrayRef<Operation *> ops) override {
    NodeNamer namer(module);
    std::string node = namer(root);
    if (state.plan) {
      const PlannedMatch *entry =
          state.plan->find(node, pattern.getInfo().name);
      if (entry && !entry->apply) {
        state.countSkipped(node, pattern.getInfo().name,
                           "switched off in the plan");
        return false;
      }
    }
    // Names are taken now: the ops may be gone once rewritten.
    pending = {node, pattern.getInfo().name, PatternPhase::Conversion,
               true, namesOf(ops, namer),    ""};
    return true;
  }
  void finished(const StrataPattern &pattern, bool rewritten) override {
    if (!rewritten)
      return;
    if (state.found)
      state.found->push_back(pending);
    state.countApplied(pattern.getInfo().name, pending.nodes);
  }

private:
  EngineState &state;
  ModuleOp module;
  PlannedMatch pending;
};

LogicalResult runConversions(ModuleOp module,
                             ArrayRef<PatternDescriptor> descriptors,
                             EngineState &state) {
  auto built =
      buildPhase(module.getContext(), descriptors, PatternPhase::Conversion);
  if (built.empty())
    return success();
  ConversionGate gate(state, module);
  RewritePatternSet set(module.getContext());
  for (auto &pattern : built) {
    pattern->setGate(&gate);
    set.add(std::move(pattern));
  }
  FrozenRewritePatternSet frozen(std::move(set));
  GreedyRewriteConfig config;
  config.maxIterations = 64;
  // Patterns rewrite ops; regions (hl.if, hl.loop bodies) keep their shape.
  config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  if (failed(
          applyPatternsAndFoldGreedily(module.getOperation(), frozen, config)))
    return module.emitError("conversion patterns did not reach a fixed "
                            "point in ")
           << config.maxIterations << " iterations";
  return success();
}

/// Whether `op` is of the root kind, interface or trait `pattern` declares.
bool rootMatches(const StrataPattern &pattern, Operation *op) {
  if (std::optional<OperationName> kind = pattern.getRootKind())
    return op->getName() == *kind;
  if (std::optional<TypeID> iface = pattern.getRootInterfaceID())
    return op->getName().hasInterface(*iface);
  if (std::optional<TypeID> trait = pattern.getRootTraitID())
    return op->getName().hasTrait(*trait);
  return true;
}

/// One single-pass phase: every match of every pattern (by priority), each
/// claiming its ops; then the rewrites.
LogicalResult runSinglePass(ModuleOp module,
                            ArrayRef<PatternDescriptor> descriptors,
                            PatternPhase phase, EngineState &state) {
  auto built = buildPhase(module.getContext(), descriptors, phase);
  if (built.empty())
    return success();
  NodeNamer namer(module);
  struct Found {
    StrataPattern *pattern;
    Operation *root;
    SmallVector<Operation *> ops;
    std::string node;
  };
  std::vector<Found> matches;
  for (auto &pattern : built) {
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == module.getOperation())
        return WalkResult::advance();
      // A pattern sees only the roots it declares, as in MLIR's drivers.
      if (!rootMatches(*pattern, op))
        return isa<hl::FusedOp>(op) ? WalkResult::skip()
                                    : WalkResult::advance();
      FailureOr<SmallVector<Operation *>> ops = pattern->matchOps(op);
      if (succeeded(ops))
        matches.push_back({pattern.get(), op, std::move(*ops), namer(op)});
      // Fused groups are claimed as a whole; their bodies are not matched.
      return isa<hl::FusedOp>(op) ? WalkResult::skip() : WalkResult::advance();
    });
  }

  llvm::DenseMap<Operation *, std::pair<std::string, std::string>> claimedBy;
  std::vector<Found *> toRewrite;
  for (Found &match : matches) {
    const std::string &name = match.pattern->getInfo().name;
    const std::string &node = match.node;
    std::string reason;
    for (Operation *op : match.ops)
      if (auto it = claimedBy.find(op); it != claimedBy.end()) {
        reason =
            "overlaps " + it->second.second + " at '" + it->second.first + "'";
        break;
      }
    bool apply = reason.empty();
    if (state.plan) {
      // An overlap with a match applied in this run is the reason first;
      // otherwise the plan decides.
      const PlannedMatch *entry = state.plan->find(node, name);
      if (reason.empty() && !entry)
        reason = "not in the plan (conversions switched off changed the "
                 "module)";
      else if (reason.empty() && !entry->apply)
        reason =
            entry->reason.empty()
                ? "switched off in the plan"
                : "switched off in the plan (planned: " + entry->reason + ")";
      apply = reason.empty();
      if (!apply)
        state.countSkipped(node, name, reason);
    }
    if (state.found)
      state.found->push_back(
          {node, name, phase, apply, namesOf(match.ops, namer), reason});
    if (!apply)
      continue;
    for (Operation *op : match.ops)
      claimedBy[op] = {node, name};
    toRewrite.push_back(&match);
  }

  // While planning, the scratch copy is rewritten too, so that later phases
  // (quantized patterns claim fused groups) see what this one produces.
  PatternRewriter rewriter(module.getContext());
  for (Found *match : toRewrite) {
    const std::string &node = match->node;
    std::vector<std::string> nodes = namesOf(match->ops, namer);
    rewriter.setInsertionPoint(match->root);
    if (failed(
            match->pattern->rewriteMatch(match->root, match->ops, rewriter))) {
      state.countSkipped(node, match->pattern->getInfo().name,
                         "the rewrite failed (values the group needs are "
                         "not available where it goes)");
      continue;
    }
    state.countApplied(match->pattern->getInfo().name, std::move(nodes));
  }
  return success();
}

constexpr PatternPhase kSinglePassPhases[] = {
    PatternPhase::Fusion, PatternPhase::Smooth, PatternPhase::Quantized};

/// Runs every phase on `module` in place.
LogicalResult runPhases(ModuleOp module,
                        ArrayRef<PatternDescriptor> descriptors,
                        EngineState &state) {
  if (failed(runConversions(module, descriptors, state)))
    return failure();
  for (PatternPhase phase : kSinglePassPhases)
    if (failed(runSinglePass(module, descriptors, phase, state)))
      return failure();
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// TransformationPlan
//===----------------------------------------------------------------------===//

PlannedMatch *TransformationPlan::find(StringRef node, StringRef pattern) {
  for (PlannedMatch &match : matches)
    if (match.node == node && match.pattern == pattern)
      return &match;
  return nullptr;
}

const PlannedMatch *TransformationPlan::find(StringRef node,
                                             StringRef pattern) const {
  return const_cast<TransformationPlan *>(this)->find(node, pattern);
}

//===----------------------------------------------------------------------===//
// TransformReport
//===----------------------------------------------------------------------===//

int64_t TransformReport::applied(StringRef name) const {
  for (const PatternCount &count : patterns)
    if (count.name == name)
      return count.applied;
  return 0;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<TransformationPlan>
getTransformationPlan(ModuleOp module, ArrayRef<PatternDescriptor> patterns) {
  TransformationPlan plan;
  plan.module = module.clone();
  plan.patterns.assign(patterns.begin(), patterns.end());
  OwningOpRef<ModuleOp> scratch = module.clone();
  EngineState state;
  state.found = &plan.matches;
  if (failed(runPhases(*scratch, patterns, state)))
    return failure();
  return plan;
}

FailureOr<TransformResult>
applyTransformationPlan(const TransformationPlan &plan) {
  TransformResult result;
  result.module = const_cast<TransformationPlan &>(plan).module->clone();
  for (const PatternDescriptor &d : plan.patterns)
    result.report.patterns.push_back({d.info.name, d.info.phase, 0, 0});
  EngineState state;
  state.plan = &plan;
  state.report = &result.report;
  if (failed(runPhases(*result.module, plan.patterns, state)))
    return failure();
  return result;
}

FailureOr<TransformResult> transform(ModuleOp module,
                                     ArrayRef<PatternDescriptor> patterns) {
  FailureOr<TransformationPlan> plan = getTransformationPlan(module, patterns);
  if (failed(plan))
    return failure();
  return applyTransformationPlan(*plan);
}

FailureOr<TransformationPlan>
planWithFlags(ModuleOp module, ArrayRef<PatternDescriptor> patterns,
              StringRef planIn, const llvm::json::Value *planFlags) {
  FailureOr<TransformationPlan> plan = getTransformationPlan(module, patterns);
  if (failed(plan))
    return failure();
  std::string error;
  if (!planIn.empty()) {
    FailureOr<llvm::json::Value> json = readJSONFile(planIn, error);
    if (failed(json) || failed(plan->updateFromJSON(*json, error)))
      return module.emitError("plan '") << planIn << "': " << error;
  }
  if (planFlags && failed(plan->updateFromJSON(*planFlags, error)))
    return module.emitError("plan: ") << error;
  return plan;
}

FailureOr<TransformReport>
transformInPlace(ModuleOp module, ArrayRef<PatternDescriptor> patterns,
                 StringRef planIn, StringRef planOut,
                 const llvm::json::Value *planFlags) {
  FailureOr<TransformationPlan> plan =
      planWithFlags(module, patterns, planIn, planFlags);
  if (failed(plan))
    return failure();
  std::string error;
  if (!planOut.empty() && failed(writeJSONFile(planOut, plan->toJSON(), error)))
    return module.emitError(error);
  FailureOr<TransformResult> result = applyTransformationPlan(*plan);
  if (failed(result))
    return failure();
  module.getBodyRegion().takeBody(result->module->getBodyRegion());
  return std::move(result->report);
}

} // namespace strata
