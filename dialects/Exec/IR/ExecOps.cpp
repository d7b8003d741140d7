//===- ExecOps.cpp - exec verifiers ---------------------------------------===//
//
// The rules here are what the emitter and the runtime's loader rely on:
// programs hold only constants, delegates and methods; each method input is
// bound once; placements, when present, lie inside their arena.
//
//===----------------------------------------------------------------------===//
#include "Exec/IR/ExecOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace strata::exec;

int64_t strata::exec::getBufferSizeInBytes(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
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
    if (!isa<ConstantOp, DelegateOp>(op))
      return op.emitOpError("is not allowed in an exec.program (only "
                            "exec.constant, exec.delegate and exec.method)");
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

LogicalResult MethodOp::verify() {
  FunctionType type = getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<MemRefType>(t) || !cast<MemRefType>(t).hasStaticShape())
      return emitOpError("signature types must be statically shaped memrefs, "
                         "got ")
             << t;
  SmallVector<InputOp> inputs(type.getNumInputs());
  for (auto input : getBody().getOps<InputOp>()) {
    int64_t index = input.getIndex();
    if (index < 0 || index >= static_cast<int64_t>(inputs.size()))
      return input.emitOpError("index ")
             << index << " is outside the method's " << inputs.size()
             << " inputs";
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
  int64_t end = *offset + getBufferSizeInBytes(op.getBuffer().getType());
  if (end > (*sizes)[*id])
    return op->emitOpError("buffer ends at byte ")
           << end << ", past arena " << *id << " of " << (*sizes)[*id]
           << " bytes";
  return success();
}

LogicalResult InputOp::verify() {
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

LogicalResult AllocOp::verify() { return verifyPlacement(*this); }

LogicalResult
ConstantRefOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto constant = symbolTable.lookupNearestSymbolFrom<ConstantOp>(
      *this, getConstantAttr());
  if (!constant)
    return emitOpError("'") << getConstant()
                            << "' does not name an exec.constant";
  auto valueType = cast<ShapedType>(constant.getValue().getType());
  if (valueType.getShape() != getType().getShape() ||
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
  return success();
}

LogicalResult DelegateCallOp::verify() {
  if (getOuts().empty())
    return emitOpError("must write at least one output buffer");
  return success();
}

LogicalResult
DelegateCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<DelegateOp>(*this,
                                                       getDelegateAttr()))
    return emitOpError("'") << getDelegate()
                            << "' does not name an exec.delegate";
  auto delegate = symbolTable.lookupNearestSymbolFrom<DelegateOp>(
      *this, getDelegateAttr());
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
