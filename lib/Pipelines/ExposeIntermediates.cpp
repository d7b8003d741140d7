//===- ExposeIntermediates.cpp - every node's value as a program output ---===//
//
// The debug build --bisect compares: after lowering to edge, and before any
// delegate claims ops, the value each ONNX node computes becomes an extra
// result of the main function. Delegates then see those values as partition
// outputs and write them out, so the comparison reaches inside partitions.
//
// Locations carry node names. An op that several nodes became (a fusion
// pattern's result, a folded normalization) computes the output of the
// latest of them in the reference's order; when several ops compute one
// node (a lowering into a few edge ops), the last one holds its value.
//
//===----------------------------------------------------------------------===//
#include "strata/Pipelines/CompileOptions.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "llvm/ADT/StringMap.h"

#include <map>

using namespace mlir;

namespace strata {
namespace {

/// The function the program's first method comes from.
func::FuncOp findMainFunction(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isPrivate() && !func.isExternal())
      return func;
  return nullptr;
}

/// Whether a value of `type` can be compared as numbers: a float tensor, or
/// an integer one quantized per tensor (set in `quantization`).
bool isObservable(Type type,
                  std::optional<std::pair<double, int64_t>> &quantization) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  Type element = tensor.getElementType();
  if (auto uniform = dyn_cast<mlir::quant::UniformQuantizedType>(element)) {
    quantization = {uniform.getScale(), uniform.getZeroPoint()};
    return true;
  }
  return element.isF32();
}

} // namespace

LogicalResult exposeIntermediates(ModuleOp module,
                                  const CompileOptions::Expose &options,
                                  std::vector<ExposedValue> &exposed) {
  func::FuncOp func = findMainFunction(module);
  if (!func)
    return module.emitError("a debug build needs a public function");
  Block &body = func.getBody().front();

  llvm::StringMap<size_t> rank;
  for (const std::string &name : options.nodeOrder)
    rank.try_emplace(name, rank.size());
  if (options.nodeOrder.empty())
    for (Operation &op : body) {
      llvm::SetVector<StringRef> names;
      collectNodeNames(op.getLoc(), names);
      for (StringRef name : names)
        rank.try_emplace(name, rank.size());
    }

  // (node, result) -> the last op computing it, by position in the body.
  struct Candidate {
    size_t position;
    Value value;
    ExposedValue record;
  };
  std::map<std::pair<std::string, unsigned>, Candidate> latest;
  size_t position = 0;
  for (Operation &op : body.without_terminator()) {
    ++position;
    if (op.hasTrait<OpTrait::ConstantLike>() || op.getNumResults() == 0)
      continue;
    llvm::SetVector<StringRef> names;
    collectNodeNames(op.getLoc(), names);
    std::optional<size_t> best;
    StringRef node;
    for (StringRef name : names) {
      auto it = rank.find(name);
      if (it != rank.end() && (!best || it->second > *best)) {
        best = it->second;
        node = name;
      }
    }
    if (!best)
      continue;
    for (OpResult result : op.getResults()) {
      ExposedValue record;
      if (!isObservable(result.getType(), record.quantization))
        continue;
      record.node = node.str();
      record.result = result.getResultNumber();
      for (StringRef name : names)
        record.nodes.push_back(name.str());
      record.op = op.getName().getStringRef().str();
      std::pair<std::string, unsigned> key{record.node, record.result};
      latest[key] = {position, result, std::move(record)};
    }
  }

  std::vector<Candidate *> ordered;
  for (auto &[key, candidate] : latest)
    ordered.push_back(&candidate);
  llvm::sort(ordered, [](const Candidate *a, const Candidate *b) {
    return a->position != b->position ? a->position < b->position
                                      : a->record.result < b->record.result;
  });
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (Candidate *candidate : ordered) {
    // A model output is exposed where it already is.
    auto returned = llvm::find(ret.getOperands(), candidate->value);
    if (returned != ret.getOperands().end()) {
      candidate->record.output = returned - ret.getOperands().begin();
      exposed.push_back(std::move(candidate->record));
      continue;
    }
    unsigned index = func.getNumResults();
    func.insertResult(index, candidate->value.getType(), DictionaryAttr());
    ret->insertOperands(ret.getNumOperands(), candidate->value);
    candidate->record.output = index;
    exposed.push_back(std::move(candidate->record));
  }
  return success();
}

} // namespace strata
