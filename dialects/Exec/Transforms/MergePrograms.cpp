//===- MergePrograms.cpp - one program of several methods -----------------===//
//
// A program with a prefill and a decode method (or any methods compiled
// apart, from one model at other shapes or from other models) shares its
// weights: each method is compiled on its own, then moved into the first
// program, its constants stored once where another method's are equal.
//
//===----------------------------------------------------------------------===//
#include "Exec/Transforms/Passes.h"
#include "strata/Support/ElementsBytes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace strata::exec;

namespace {

/// A constant's type and bytes, for finding an equal one.
struct ConstantKey {
  Type type;
  std::string bytes;
};

FailureOr<ConstantKey> keyOf(ConstantOp constant) {
  std::string error;
  FailureOr<std::string> bytes =
      strata::getElementsBytes(cast<ElementsAttr>(constant.getValue()), error);
  if (failed(bytes))
    return constant.emitError(error);
  return ConstantKey{constant.getValue().getType(), std::move(*bytes)};
}

/// A name `table` does not use: `base`, else `base` with a counter.
std::string freshName(SymbolTable &table, const std::string &base) {
  std::string name = base;
  for (int n = 1; table.lookup(name); ++n)
    name = base + "." + std::to_string(n);
  return name;
}

} // namespace

LogicalResult strata::exec::mergeProgramInto(ProgramOp into, ProgramOp from,
                                             StringRef methodName) {
  auto methods = from.getBody().getOps<MethodOp>();
  if (std::distance(methods.begin(), methods.end()) != 1)
    return from.emitError("a program merged into another must have one "
                          "method");
  MethodOp method = *methods.begin();
  SymbolTable intoTable(into);
  if (intoTable.lookup(methodName))
    return into.emitError("the program already has a symbol '")
           << methodName << "'";
  // The constants `into` has, by hash of their bytes.
  llvm::DenseMap<uint64_t, SmallVector<std::pair<ConstantOp, ConstantKey>>>
      known;
  for (auto constant : into.getBody().getOps<ConstantOp>()) {
    FailureOr<ConstantKey> key = keyOf(constant);
    if (failed(key))
      return failure();
    known[llvm::xxh3_64bits(key->bytes)].push_back({constant, *key});
  }
  Block &target = into.getBody().front();
  // First every symbol of `from` takes a name neither program uses, so that
  // renaming one to its final name never catches another's references.
  SymbolTable fromTable(from);
  SmallVector<std::pair<Operation *, std::string>> moved;
  for (Operation &op : from.getBody().front()) {
    if (isa<MethodOp>(op))
      continue;
    if (!isa<ConstantOp, DelegateOp>(op))
      return op.emitError("cannot be merged into another program");
    std::string original = SymbolTable::getSymbolName(&op).str();
    std::string temporary;
    for (int n = 0;; ++n) {
      temporary =
          "__merging." + std::to_string(moved.size()) + "." + std::to_string(n);
      if (!intoTable.lookup(temporary) && !fromTable.lookup(temporary))
        break;
    }
    auto name = StringAttr::get(into.getContext(), temporary);
    if (failed(SymbolTable::replaceAllSymbolUses(&op, name, method)))
      return failure();
    SymbolTable::setSymbolName(&op, name);
    moved.push_back({&op, original});
  }
  for (auto [op, original] : moved) {
    auto temporary = SymbolTable::getSymbolName(op);
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      FailureOr<ConstantKey> key = keyOf(constant);
      if (failed(key))
        return failure();
      uint64_t hash = llvm::xxh3_64bits(key->bytes);
      ConstantOp equal;
      for (auto &[candidate, candidateKey] : known[hash])
        if (candidateKey.type == key->type && candidateKey.bytes == key->bytes)
          equal = candidate;
      if (equal) {
        if (failed(SymbolTable::replaceAllSymbolUses(
                temporary, equal.getSymNameAttr(), method)))
          return failure();
        constant.erase();
        continue;
      }
      known[hash].push_back({constant, std::move(*key)});
    } else if (intoTable.lookup(original)) {
      // Each method's partitions are named apart (CompileOptions::
      // partitionPrefix): their blobs name their named data by it.
      return op->emitError("delegate '")
             << original
             << "' is named as one the program has (compile each method "
                "with a partition prefix of its own)";
    }
    std::string final =
        intoTable.lookup(original)
            ? freshName(intoTable, (methodName + "." + original).str())
            : original;
    auto name = StringAttr::get(into.getContext(), final);
    if (failed(SymbolTable::replaceAllSymbolUses(temporary, name, method)))
      return failure();
    SymbolTable::setSymbolName(op, name);
    op->moveBefore(&target, target.end());
    intoTable.insert(op);
  }
  method.setSymName(methodName);
  method->moveBefore(&target, target.end());
  intoTable.insert(method);
  return success();
}
