//===- PlanJSON.cpp - plans and reports as JSON, JSON files ---------------===//
#include "strata/Patterns/Plan.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata {

llvm::json::Value TransformationPlan::toJSON() const {
  llvm::json::Array patternArray;
  for (const PatternDescriptor &d : patterns)
    patternArray.push_back(
        llvm::json::Object{{"name", d.info.name},
                           {"phase", stringifyPatternPhase(d.info.phase)},
                           {"priority", d.info.priority}});
  llvm::json::Object byNode;
  for (const PlannedMatch &match : matches) {
    llvm::json::Object entry{{"apply", match.apply},
                             {"phase", stringifyPatternPhase(match.phase)},
                             {"nodes", llvm::json::Array(match.nodes)}};
    if (!match.reason.empty())
      entry["reason"] = match.reason;
    llvm::json::Value &slot = byNode[match.node];
    if (!slot.getAsObject())
      slot = llvm::json::Object{};
    (*slot.getAsObject())[match.pattern] = std::move(entry);
  }
  return llvm::json::Object{{"patterns", std::move(patternArray)},
                            {"matches", std::move(byNode)}};
}

LogicalResult TransformationPlan::updateFromJSON(const llvm::json::Value &json,
                                                 std::string &error) {
  const llvm::json::Object *root = json.getAsObject();
  const llvm::json::Object *byNode =
      root ? root->getObject("matches") : nullptr;
  if (!byNode) {
    error = "a plan is an object with a 'matches' object";
    return failure();
  }
  // Validate everything before changing anything.
  std::vector<std::pair<PlannedMatch *, bool>> updates;
  for (const auto &[node, patternsValue] : *byNode) {
    const llvm::json::Object *byPattern = patternsValue.getAsObject();
    if (!byPattern) {
      error = "matches['" + node.str() + "'] is not an object";
      return failure();
    }
    for (const auto &[pattern, entryValue] : *byPattern) {
      const llvm::json::Object *entry = entryValue.getAsObject();
      std::optional<bool> apply =
          entry ? entry->getBoolean("apply") : std::nullopt;
      if (!apply) {
        error = "matches['" + node.str() + "']['" + pattern.str() +
                "'] needs a boolean 'apply'";
        return failure();
      }
      PlannedMatch *match = find(node, pattern);
      if (!match) {
        StringRef name = pattern; // a structured binding: not capturable
        bool known = llvm::any_of(patterns, [&](const PatternDescriptor &d) {
          return d.info.name == name;
        });
        error = known ? "the model has no match of pattern '" + pattern.str() +
                            "' at node '" + node.str() +
                            "' (a plan applies to the model, input shapes "
                            "and backend it was made for)"
                      : "pattern '" + pattern.str() +
                            "' is not among the backend's patterns (a plan "
                            "applies to the backend it was made for)";
        return failure();
      }
      updates.push_back({match, *apply});
    }
  }
  for (auto [match, apply] : updates)
    match->apply = apply;
  return success();
}

llvm::json::Value TransformReport::toJSON() const {
  llvm::json::Array patternArray, skipArray;
  for (const PatternCount &count : patterns)
    patternArray.push_back(
        llvm::json::Object{{"name", count.name},
                           {"phase", stringifyPatternPhase(count.phase)},
                           {"applied", count.applied},
                           {"skipped", count.skipped}});
  for (const Skip &skip : skips)
    skipArray.push_back(llvm::json::Object{{"node", skip.node},
                                           {"pattern", skip.pattern},
                                           {"reason", skip.reason}});
  llvm::json::Array matchArray;
  for (const Applied &match : matches)
    matchArray.push_back(llvm::json::Object{
        {"pattern", match.pattern}, {"nodes", llvm::json::Array(match.nodes)}});
  return llvm::json::Object{{"applied_count", appliedCount},
                            {"skipped_count", skippedCount},
                            {"patterns", std::move(patternArray)},
                            {"skips", std::move(skipArray)},
                            {"matches", std::move(matchArray)}};
}

LogicalResult writeJSONFile(StringRef path, const llvm::json::Value &json,
                            std::string &error) {
  std::string text = llvm::formatv("{0:2}", json).str() + "\n";
  if (path == "-") {
    llvm::outs() << text;
    return success();
  }
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      })) {
    error = "cannot write '" + path.str() + "': " + toString(std::move(e));
    return failure();
  }
  return success();
}

FailureOr<llvm::json::Value> readJSONFile(StringRef path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    error = "'" + path.str() + "' is not JSON: " + toString(json.takeError());
    return failure();
  }
  return std::move(*json);
}

} // namespace strata
