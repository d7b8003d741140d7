//===- Method.cpp - method verification, loading and execution ------------===//
#include "ProgramInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sys/mman.h>
#include <utility>

namespace strata::runtime {

using detail::InstructionLayout;
using detail::invalid;
using detail::MethodLayout;
using detail::ValueLayout;

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

namespace {
/// The largest bound a loop's jump back may state: a damaged program's loop
/// ends in bounded time.
constexpr uint64_t kMaxLoopTrips = uint64_t{1} << 31;

/// Checks a list of value indices; `written` requires arena values.
Error checkValueList(const flatbuffers::Vector<uint32_t> *list,
                     const MethodLayout &layout, const std::string &where,
                     bool written, std::vector<uint32_t> &out) {
  out.clear();
  if (!list)
    return Error::success();
  for (size_t i = 0; i < list->size(); ++i) {
    uint32_t index = list->Get(i);
    std::string at = where + "[" + std::to_string(i) + "]";
    if (index >= layout.values.size())
      return invalid(at + ": value " + std::to_string(index) +
                     " is out of range (" +
                     std::to_string(layout.values.size()) + " values)");
    if (written && layout.values[index].isConstant)
      return invalid(at + ": value " + std::to_string(index) +
                     " is a constant and cannot be written");
    out.push_back(index);
  }
  return Error::success();
}
/// One value of a method: its type, and its constant (which must match
/// it) or its place in an arena (which must hold it, aligned).
Result<ValueLayout> layoutValue(const Program &program, const fb::Value *v,
                                const MethodLayout &layout,
                                const std::string &at) {
  ValueLayout value;
  STRATA_RETURN_IF_ERROR(detail::checkTensorType(v->type(), at, value.view));
  uint64_t nbytes = value.view.nbytes();
  if (const auto *registers = v->type()->dim_registers();
      registers && registers->size()) {
    if (registers->size() != value.view.rank())
      return invalid(at + ": " + std::to_string(registers->size()) +
                     " dim_registers for rank " +
                     std::to_string(value.view.rank()));
    bool dynamic = false;
    for (size_t d = 0; d < registers->size(); ++d) {
      int32_t reg = registers->Get(d);
      if (reg < -1 ||
          (reg >= 0 && static_cast<size_t>(reg) >= layout.shapeProgram.size()))
        return invalid(at + ": dim " + std::to_string(d) + " register " +
                       std::to_string(reg) + " is out of range (" +
                       std::to_string(layout.shapeProgram.size()) +
                       " shape instructions)");
      dynamic |= reg >= 0;
      value.dimRegisters.push_back(reg);
    }
    if (!dynamic)
      value.dimRegisters.clear();
    else if (v->kind() == fb::ValueKind::Constant)
      return invalid(at + ": a constant cannot have dynamic dimensions");
  }
  if (v->kind() == fb::ValueKind::Constant) {
    value.isConstant = true;
    Result<TensorView> constant = program.constant(v->constant());
    if (!constant.ok())
      return invalid(at + ".constant: " + constant.error().message());
    if (constant->dtype != value.view.dtype || constant->nbytes() != nbytes)
      return invalid(at + ": type " + value.view.typeString() +
                     " does not match constant " +
                     std::to_string(v->constant()) + " of type " +
                     constant->typeString());
    value.view.data = constant->data;
  } else if (v->kind() == fb::ValueKind::Arena) {
    value.memoryId = v->memory_id();
    value.offset = v->offset();
    if (value.memoryId >= layout.arenaSizes.size())
      return invalid(at + ": memory_id " + std::to_string(value.memoryId) +
                     " has no arena (" +
                     std::to_string(layout.arenaSizes.size()) +
                     " arenas in memory_plan)");
    uint64_t arena = layout.arenaSizes[value.memoryId];
    if (value.offset > arena || nbytes > arena - value.offset)
      return invalid(at + ": " + std::to_string(nbytes) + " bytes at offset " +
                     std::to_string(value.offset) + " lie outside arena " +
                     std::to_string(value.memoryId) + " of " +
                     std::to_string(arena) + " bytes");
    if (value.offset % dtypeSize(value.view.dtype))
      return invalid(at + ": offset " + std::to_string(value.offset) +
                     " is misaligned for " + dtypeName(value.view.dtype));
  } else {
    return invalid(at + ": unknown kind " +
                   std::to_string(static_cast<int>(v->kind())));
  }
  return value;
}

/// Where a kernel call's outputs hold value-dependent symbol `symbol`: the
/// first dimension of `outs` whose extent is that symbol's register.
Result<InstructionLayout::BoundExtent>
findBoundExtent(const MethodLayout &layout, const std::vector<uint32_t> &outs,
                uint32_t symbol, const std::string &at) {
  if (symbol >= layout.symbols.size())
    return invalid(at + ": binds symbol " + std::to_string(symbol) +
                   ", which is out of range (" +
                   std::to_string(layout.symbols.size()) + " symbols)");
  for (uint32_t k = 0; k < outs.size(); ++k) {
    const std::vector<int32_t> &regs = layout.values[outs[k]].dimRegisters;
    for (uint32_t d = 0; d < regs.size(); ++d) {
      if (regs[d] < 0)
        continue;
      const detail::ShapeInstructionLayout &inst = layout.shapeProgram[regs[d]];
      if (inst.op == fb::ShapeOp::Symbol &&
          inst.value == static_cast<int64_t>(symbol))
        return InstructionLayout::BoundExtent{k, d, symbol};
    }
  }
  return invalid(at + ": binds symbol '" + layout.symbols[symbol].name +
                 "', which is no extent of its outputs");
}

/// One instruction of a method: a kernel call, a delegate call or a move,
/// its operator or delegate in range and its operands valid values.
Result<InstructionLayout> layoutInstruction(const fb::Program *root,
                                            const fb::Instruction *inst,
                                            const MethodLayout &layout,
                                            const std::string &at) {
  size_t operatorCount = root->operators() ? root->operators()->size() : 0;
  size_t delegateCount = root->delegates() ? root->delegates()->size() : 0;
  InstructionLayout out;
  switch (inst->args_type()) {
  case fb::InstructionArgs::KernelCall: {
    const fb::KernelCall *call = inst->args_as_KernelCall();
    if (!call)
      return invalid(at + ": kernel call without arguments");
    out.kind = InstructionLayout::Kind::Kernel;
    out.index = call->op();
    if (out.index >= operatorCount)
      return invalid(at + ": operator " + std::to_string(out.index) +
                     " is out of range (" + std::to_string(operatorCount) +
                     " operators)");
    const fb::Operator *op = root->operators()->Get(out.index);
    if (!op->name() || op->name()->size() == 0)
      return invalid(at + ": operator " + std::to_string(out.index) +
                     " has no name");
    STRATA_RETURN_IF_ERROR(
        checkValueList(call->ins(), layout, at + ".ins", false, out.ins));
    STRATA_RETURN_IF_ERROR(
        checkValueList(call->outs(), layout, at + ".outs", true, out.outs));
    STRATA_ASSIGN_OR_RETURN(out.params,
                            detail::convertParams(call->params(), at));
    if (const auto *binds = call->binds())
      for (uint32_t symbol : *binds) {
        STRATA_ASSIGN_OR_RETURN(InstructionLayout::BoundExtent bound,
                                findBoundExtent(layout, out.outs, symbol, at));
        out.boundExtents.push_back(bound);
      }
    break;
  }
  case fb::InstructionArgs::DelegateCall: {
    const fb::DelegateCall *call = inst->args_as_DelegateCall();
    if (!call)
      return invalid(at + ": delegate call without arguments");
    out.kind = InstructionLayout::Kind::Delegate;
    out.index = call->delegate();
    if (out.index >= delegateCount)
      return invalid(at + ": delegate " + std::to_string(out.index) +
                     " is out of range (" + std::to_string(delegateCount) +
                     " delegates)");
    STRATA_RETURN_IF_ERROR(
        checkValueList(call->ins(), layout, at + ".ins", false, out.ins));
    STRATA_RETURN_IF_ERROR(
        checkValueList(call->outs(), layout, at + ".outs", true, out.outs));
    if (const auto *extents = call->extents())
      for (uint32_t reg : *extents) {
        if (reg >= layout.shapeProgram.size())
          return invalid(at + ": extent register " + std::to_string(reg) +
                         " is out of range (" +
                         std::to_string(layout.shapeProgram.size()) +
                         " shape instructions)");
        out.extentRegisters.push_back(reg);
      }
    // Dynamic buffers need the extents the delegate was compiled for.
    for (const std::vector<uint32_t> *list : {&out.ins, &out.outs})
      for (uint32_t v : *list)
        if (!layout.values[v].dimRegisters.empty() &&
            out.extentRegisters.empty())
          return invalid(at + ": delegate operand " + std::to_string(v) +
                         " has dynamic dimensions but the call passes no "
                         "extents (docs/dynamic-shapes.md)");
    break;
  }
  case fb::InstructionArgs::Move: {
    const fb::Move *move = inst->args_as_Move();
    if (!move)
      return invalid(at + ": move without arguments");
    out.kind = InstructionLayout::Kind::Move;
    uint32_t source = move->source(), target = move->target();
    if (source >= layout.values.size() || target >= layout.values.size())
      return invalid(at + ": move " + std::to_string(source) + " -> " +
                     std::to_string(target) + " is out of range (" +
                     std::to_string(layout.values.size()) + " values)");
    if (layout.values[target].isConstant)
      return invalid(at + ": move target is a constant");
    if (layout.values[source].view.nbytes() !=
        layout.values[target].view.nbytes())
      return invalid(at + ": move between buffers of different sizes");
    if (layout.values[source].dimRegisters !=
        layout.values[target].dimRegisters)
      return invalid(at + ": move between buffers of different dynamic "
                          "extents");
    out.ins = {source};
    out.outs = {target};
    break;
  }
  case fb::InstructionArgs::JumpIfFalse: {
    const fb::JumpIfFalse *jump = inst->args_as_JumpIfFalse();
    if (!jump)
      return invalid(at + ": jump without arguments");
    out.kind = InstructionLayout::Kind::JumpIfFalse;
    out.index = jump->target();
    uint32_t condition = jump->condition();
    if (condition >= layout.values.size())
      return invalid(at + ": condition value " + std::to_string(condition) +
                     " is out of range (" +
                     std::to_string(layout.values.size()) + " values)");
    const ValueLayout &value = layout.values[condition];
    if (value.view.dtype != DType::Bool || value.view.numel() != 1 ||
        !value.dimRegisters.empty())
      return invalid(at + ": condition value " + std::to_string(condition) +
                     " is " + value.view.typeString() +
                     ", not one boolean element");
    out.ins = {condition};
    break;
  }
  case fb::InstructionArgs::Jump: {
    const fb::Jump *jump = inst->args_as_Jump();
    if (!jump)
      return invalid(at + ": jump without arguments");
    out.kind = InstructionLayout::Kind::Jump;
    out.index = jump->target();
    out.maxTrips = jump->max_trips();
    break;
  }
  default:
    return invalid(at + ": unknown instruction kind " +
                   std::to_string(static_cast<int>(inst->args_type())));
  }
  return out;
}

/// The method's symbols and shape program: bounds ordered, every register
/// read by an instruction written before it.
Error layoutShapeProgram(const fb::Method *method, const std::string &where,
                         MethodLayout &layout) {
  if (const auto *symbols = method->dim_symbols())
    for (size_t i = 0; i < symbols->size(); ++i) {
      const fb::DimSymbol *symbol = symbols->Get(i);
      std::string at = where + " dim_symbols[" + std::to_string(i) + "]";
      detail::SymbolLayout out;
      out.name = symbol->name() ? symbol->name()->str() : "";
      out.min = symbol->min();
      out.max = symbol->max();
      if (out.name.empty())
        return invalid(at + ": a symbol needs a name");
      if (out.min < 0 || out.max < out.min || out.max > (int64_t(1) << 40))
        return invalid(at + ": bounds " + std::to_string(out.min) + ".." +
                       std::to_string(out.max) + " of '" + out.name +
                       "' are not 0 <= min <= max <= 2^40");
      layout.symbols.push_back(std::move(out));
    }
  const auto *program = method->shape_program();
  if (program && program->size() && layout.symbols.empty())
    return invalid(where + ": a shape program without dim_symbols");
  if (program)
    for (uint32_t i = 0; i < program->size(); ++i) {
      const fb::ShapeInstruction *inst = program->Get(i);
      std::string at = where + " shape_program[" + std::to_string(i) + "]";
      detail::ShapeInstructionLayout out;
      out.op = inst->op();
      out.lhs = inst->lhs();
      out.rhs = inst->rhs();
      out.value = inst->value();
      switch (out.op) {
      case fb::ShapeOp::Constant:
        break;
      case fb::ShapeOp::Symbol:
        if (out.value < 0 ||
            static_cast<uint64_t>(out.value) >= layout.symbols.size())
          return invalid(at + ": symbol " + std::to_string(out.value) +
                         " is out of range (" +
                         std::to_string(layout.symbols.size()) + " symbols)");
        break;
      case fb::ShapeOp::Add:
      case fb::ShapeOp::Sub:
      case fb::ShapeOp::Mul:
      case fb::ShapeOp::FloorDiv:
      case fb::ShapeOp::CeilDiv:
      case fb::ShapeOp::Mod:
      case fb::ShapeOp::Min:
      case fb::ShapeOp::Max:
        if (out.lhs >= i || out.rhs >= i)
          return invalid(at + ": reads register " +
                         std::to_string(std::max(out.lhs, out.rhs)) +
                         ", which is not written before it");
        break;
      default:
        return invalid(at + ": unknown op " +
                       std::to_string(static_cast<int>(out.op)));
      }
      layout.shapeProgram.push_back(out);
    }
  return Error::success();
}

/// Inputs bind the symbols: a dynamic input dimension names a symbol
/// directly, and every symbol is named by some input or bound by exactly
/// one kernel call (a value-dependent extent), never both.
Error checkSymbolBinding(const MethodLayout &layout, const std::string &where) {
  // A symbol may be bound by several kernel calls: the branches of a
  // run-time If each bind the extents of its results. Whichever ran last
  // holds; every extent is checked against the symbol's bounds.
  std::vector<bool> bound(layout.symbols.size(), false);
  for (const InstructionLayout &inst : layout.instructions)
    for (const InstructionLayout::BoundExtent &extent : inst.boundExtents)
      bound[extent.symbol] = true;
  for (size_t i = 0; i < layout.inputs.size(); ++i) {
    const ValueLayout &value = layout.values[layout.inputs[i]];
    for (size_t d = 0; d < value.dimRegisters.size(); ++d) {
      int32_t reg = value.dimRegisters[d];
      if (reg < 0)
        continue;
      const detail::ShapeInstructionLayout &inst = layout.shapeProgram[reg];
      if (inst.op != fb::ShapeOp::Symbol)
        return invalid(where + " input " + std::to_string(i) + " dim " +
                       std::to_string(d) +
                       ": a dynamic input extent must be "
                       "a symbol, not a computed register");
      const detail::SymbolLayout &symbol = layout.symbols[inst.value];
      if (value.view.shape[d] != symbol.max)
        return invalid(where + " input " + std::to_string(i) + " dim " +
                       std::to_string(d) + ": bound " +
                       std::to_string(value.view.shape[d]) +
                       " differs from symbol '" + symbol.name + "''s " +
                       std::to_string(symbol.max));
      if (layout.boundByKernel[inst.value])
        return invalid(where + " input " + std::to_string(i) + " dim " +
                       std::to_string(d) + ": symbol '" + symbol.name +
                       "' is bound by a kernel call, not by inputs");
      bound[inst.value] = true;
    }
  }
  for (size_t s = 0; s < bound.size(); ++s)
    if (!bound[s])
      return invalid(where + ": symbol '" + layout.symbols[s].name +
                     "' is bound by no input dimension");
  return Error::success();
}

} // namespace

/// The method's state bindings: each names a state of the program and an
/// input or output (or both) of the state's dtype and rank, and no input or
/// output is bound twice.
static Error layoutStateBindings(const fb::Program *root,
                                 const fb::Method *method,
                                 const std::string &where,
                                 MethodLayout &layout) {
  const auto *bindings = method->state_bindings();
  if (!bindings)
    return Error::success();
  const auto *states = root->states();
  size_t stateCount = states ? states->size() : 0;
  std::set<int> inputs, outputs;
  std::set<uint32_t> bound;
  for (size_t i = 0; i < bindings->size(); ++i) {
    const fb::StateBinding *b = bindings->Get(i);
    std::string at = where + " state_bindings[" + std::to_string(i) + "]";
    if (b->state() >= stateCount)
      return invalid(at + ": state " + std::to_string(b->state()) +
                     " is out of range (" + std::to_string(stateCount) +
                     " states)");
    if (!bound.insert(b->state()).second)
      return invalid(at + ": state " + std::to_string(b->state()) +
                     " is bound twice");
    const fb::State *state = states->Get(b->state());
    TensorView capacity;
    STRATA_RETURN_IF_ERROR(
        detail::checkTensorType(state->type(), at + " state", capacity));
    if (b->input() < -1 || b->output() < -1 ||
        (b->input() == -1 && b->output() == -1) ||
        b->input() >= static_cast<int>(layout.inputs.size()) ||
        b->output() >= static_cast<int>(layout.outputs.size()))
      return invalid(at + ": input " + std::to_string(b->input()) +
                     " and output " + std::to_string(b->output()) +
                     " must name one of the " +
                     std::to_string(layout.inputs.size()) + " inputs or " +
                     std::to_string(layout.outputs.size()) + " outputs");
    for (auto [index, values, taken, kind] :
         {std::tuple{b->input(), &layout.inputs, &inputs, "input"},
          std::tuple{b->output(), &layout.outputs, &outputs, "output"}}) {
      if (index < 0)
        continue;
      if (!taken->insert(index).second)
        return invalid(at + ": " + kind + " " + std::to_string(index) +
                       " is bound to a state twice");
      const TensorView &value = layout.values[(*values)[index]].view;
      if (value.dtype != capacity.dtype ||
          value.shape.size() != capacity.shape.size())
        return invalid(at + ": " + kind + " " + std::to_string(index) + " (" +
                       value.typeString() + ") does not fit state '" +
                       state->name()->str() + "' (" + capacity.typeString() +
                       ")");
    }
    layout.stateBindings.push_back({b->state(), b->input(), b->output()});
  }
  return Error::success();
}

Result<MethodLayout> detail::layoutMethod(const Program &program,
                                          const fb::Method *method,
                                          const std::string &file) {
  MethodLayout layout;
  layout.name = method->name() ? method->name()->str() : "";
  std::string where = file + ": method '" + layout.name + "'";
  const fb::Program *root = program.flatbuffer();

  if (method->memory_plan() && method->memory_plan()->arena_sizes()) {
    if (!detail::isAligned(method->memory_plan()->arena_sizes()))
      return invalid(where + ": misaligned memory_plan.arena_sizes");
    for (uint64_t size : *method->memory_plan()->arena_sizes()) {
      if (size > (uint64_t(1) << 40))
        return invalid(where + ": memory_plan arena of " +
                       std::to_string(size) + " bytes is too large");
      layout.arenaSizes.push_back(size);
    }
  }

  STRATA_RETURN_IF_ERROR(layoutShapeProgram(method, where, layout));

  if (const auto *values = method->values())
    for (size_t i = 0; i < values->size(); ++i) {
      const fb::Value *v = values->Get(i);
      std::string at = where + " values[" + std::to_string(i) + "]";
      STRATA_ASSIGN_OR_RETURN(ValueLayout value,
                              layoutValue(program, v, layout, at));
      layout.values.push_back(std::move(value));
    }

  STRATA_RETURN_IF_ERROR(checkValueList(
      method->inputs(), layout, where + " inputs", true, layout.inputs));
  STRATA_RETURN_IF_ERROR(checkValueList(
      method->outputs(), layout, where + " outputs", false, layout.outputs));
  for (auto [names, field, count, out] :
       {std::tuple{method->input_names(), "input_names", layout.inputs.size(),
                   &layout.inputNames},
        std::tuple{method->output_names(), "output_names",
                   layout.outputs.size(), &layout.outputNames}}) {
    if (!names)
      continue;
    if (names->size() != count)
      return invalid(where + " " + field + ": " +
                     std::to_string(names->size()) + " names for " +
                     std::to_string(count) + " values");
    for (const flatbuffers::String *name : *names)
      out->push_back(name->str());
  }
  if (const auto *instructions = method->instructions())
    for (size_t i = 0; i < instructions->size(); ++i) {
      const fb::Instruction *inst = instructions->Get(i);
      std::string at = where + " instructions[" + std::to_string(i) + "]";
      STRATA_ASSIGN_OR_RETURN(InstructionLayout out,
                              layoutInstruction(root, inst, layout, at));
      // Jumps go forward, at most to the end, except a loop's jump back,
      // which states how many times in a row it may be taken: every
      // method ends.
      bool isJump = out.kind == InstructionLayout::Kind::JumpIfFalse ||
                    out.kind == InstructionLayout::Kind::Jump;
      bool backward = out.kind == InstructionLayout::Kind::Jump &&
                      out.index <= i && out.maxTrips != 0;
      if (backward && out.maxTrips > kMaxLoopTrips)
        return invalid(at + ": a loop bound of " +
                       std::to_string(out.maxTrips) + " trips exceeds " +
                       std::to_string(kMaxLoopTrips));
      if (isJump && !backward &&
          (out.index <= i || out.index > instructions->size()))
        return invalid(at + ": jump target " + std::to_string(out.index) +
                       " is not a later instruction (" +
                       std::to_string(instructions->size()) +
                       " instructions; only a loop's jump back, which "
                       "states its bound, goes to an earlier one)");
      if (!backward && out.maxTrips != 0)
        return invalid(at + ": a forward jump states a loop bound");
      layout.instructions.push_back(std::move(out));
    }
  layout.boundByKernel.assign(layout.symbols.size(), false);
  for (const InstructionLayout &inst : layout.instructions)
    for (const InstructionLayout::BoundExtent &extent : inst.boundExtents)
      layout.boundByKernel[extent.symbol] = true;
  STRATA_RETURN_IF_ERROR(checkSymbolBinding(layout, where));

  STRATA_RETURN_IF_ERROR(layoutStateBindings(root, method, where, layout));

  if (const auto *handles = method->debug_handles())
    for (size_t i = 0; i < handles->size(); ++i) {
      const fb::DebugHandle *handle = handles->Get(i);
      if (handle->instruction() >= layout.instructions.size())
        return invalid(
            where + " debug_handles[" + std::to_string(i) + "]: instruction " +
            std::to_string(handle->instruction()) + " is out of range");
      if (handle->node_names())
        for (const flatbuffers::String *name : *handle->node_names())
          layout.instructions[handle->instruction()].nodeNames.push_back(
              name->str());
    }
  return layout;
}

//===----------------------------------------------------------------------===//
// Method::Impl
//===----------------------------------------------------------------------===//

namespace {
/// An arena: anonymous pages, zeroed lazily by the kernel, page aligned.
class Arena {
public:
  static Result<Arena> allocate(size_t size) {
    Arena arena;
    arena.size_ = size ? size : 1;
    void *p = ::mmap(nullptr, arena.size_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return Error(ErrorCode::OutOfMemory,
                   "cannot map an arena of " + std::to_string(size) + " bytes");
    arena.data_ = static_cast<uint8_t *>(p);
    return arena;
  }
  Arena() = default;
  Arena(Arena &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(other.size_) {}
  Arena &operator=(Arena &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~Arena() {
    if (data_)
      ::munmap(data_, size_);
  }
  uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

/// The program's named data, as delegates see it.
class ProgramNamedData final : public NamedDataMap {
public:
  explicit ProgramNamedData(const Program &program) : program(program) {}
  Result<ByteSpan> get(const std::string &key) const override {
    return program.namedData(key);
  }

private:
  const Program &program;
};

struct DelegateInstance {
  Backend *backend = nullptr;
  DelegateHandle *handle = nullptr;
  std::string name;
};

struct Instruction {
  InstructionLayout::Kind kind;
  /// The kernel (re-prepared when a dynamic method's shapes change) and
  /// the method values of the operands.
  const KernelEntry *entry = nullptr;
  std::vector<uint32_t> inValues, outValues;
  /// The state does not match the operand views (a prepare at new shapes
  /// failed): prepared again before the method next runs.
  bool stale = false;
  /// A legacy kernel, or a typed kernel's execute and its prepared state.
  KernelFn fn = nullptr;
  KernelExecuteFn execute = nullptr;
  std::unique_ptr<KernelState> state;
  /// Kernel operands (also used for delegate operands); a typed kernel's
  /// parameters are dropped once its state is prepared.
  KernelContext ctx;
  size_t delegate = 0;
  /// A jump's target instruction.
  size_t target = 0;
  /// A loop's jump back: its bound, and how many times in a row it was
  /// taken since the loop was entered.
  uint64_t maxTrips = 0, trips = 0;
  /// A dynamic delegate call: its extents' registers and current values.
  std::vector<uint32_t> extentRegisters;
  std::vector<int64_t> extents;
  /// A kernel whose outputs have value-dependent extents: where it reports
  /// them (its outputs are passed at their bounds).
  std::vector<InstructionLayout::BoundExtent> boundExtents;
  std::string label;
  std::vector<std::string> nodeNames;
};
/// Validates a kernel instruction whose ctx is filled in: a typed kernel
/// prepares its state (and its parameters are dropped unless `keepParams`:
/// a dynamic method prepares again at each new shape), a legacy one runs
/// with validateOnly set.
Error prepareKernel(const KernelEntry &entry, Instruction &inst,
                    bool keepParams) {
  inst.entry = &entry;
  if (entry.isTyped()) {
    STRATA_ASSIGN_OR_RETURN(inst.state, entry.prepare(inst.ctx));
    inst.execute = entry.execute;
    if (!keepParams)
      inst.ctx.params = Params();
    return Error::success();
  }
  inst.fn = entry.fn;
  inst.ctx.validateOnly = true;
  STRATA_RETURN_IF_ERROR(inst.fn(inst.ctx));
  inst.ctx.validateOnly = false;
  return Error::success();
}
} // namespace

/// The shape state of a method with dynamic dimensions.
struct DynamicShapes {
  std::vector<detail::SymbolLayout> symbols;
  std::vector<detail::ShapeInstructionLayout> program;
  /// Per value: its dim registers (empty: static) and its bound shape.
  std::vector<std::vector<int32_t>> dimRegisters;
  std::vector<std::vector<int64_t>> bounds;
  std::vector<int64_t> registers;
  /// Per symbol: its current value, and whether a kernel binds it (a
  /// value-dependent extent, kept from that kernel's last call).
  std::vector<int64_t> symbolValues;
  std::vector<bool> boundByKernel;
  /// An input's shape changed since the shapes were last derived.
  bool dirty = true;
};

struct Method::Impl {
  std::string name;
  /// Null for a method whose values are all static.
  std::unique_ptr<DynamicShapes> dynamic;
  std::vector<Arena> arenas;
  std::vector<size_t> arenaSizes;
  std::vector<TensorView> values;
  std::vector<uint32_t> inputs, outputs;
  std::vector<std::string> inputNames, outputNames;
  /// The state the method carries (null when it carries none), its
  /// bindings, and per input and output the state it is bound to, or -1.
  std::shared_ptr<ProgramState> state;
  std::vector<MethodLayout::StateBinding> stateBindings;
  std::vector<int> inputState, outputState;
  std::vector<Instruction> instructions;
  /// Per input: its bytes in the arena, whether an instruction writes it
  /// (then it is never bound to the caller's memory), and the operand
  /// slots (instruction, index in ctx.ins) that read it.
  struct InputUses {
    void *arenaData = nullptr;
    bool written = false;
    std::vector<std::pair<size_t, size_t>> reads;
  };
  std::vector<InputUses> inputUses;
  /// The indices of the loops' jumps back, in order.
  std::vector<size_t> loopJumps;
  std::vector<DelegateInstance> delegates;
  std::vector<float> scratch;
  bool profiling = false;
  std::vector<uint64_t> times;
  /// Per instruction: the delegate's steps in the last profiled execute.
  std::vector<std::vector<DelegateOpProfile>> delegateSteps;

  /// A dynamic method: the symbols from the inputs' current shapes, then
  /// propagateShapes(0).
  Error deriveShapes();
  /// The shape program on the current symbols, every value's extents
  /// (each checked against its bound), and the operand views of
  /// instructions `first` onwards, kernels prepared again where an
  /// operand's shape changed.
  Error propagateShapes(size_t first);
  /// After kernel instruction `index` ran: its value-dependent extents
  /// (checked against their bounds) become symbol values, and the shapes
  /// of the instructions after it follow.
  Error bindKernelExtents(size_t index);
  /// Error naming input `index`'s expected type and `got`.
  Error inputMismatch(size_t index, const TensorView &got,
                      const std::string &why) const;
  /// Checks `shape` against input `index`'s type and bounds.
  Error checkInputShape(size_t index, DType dtype,
                        const std::vector<int64_t> &shape) const;
  /// "f32[batch: 1..8, 4]" for input `index`.
  std::string inputTypeString(size_t index) const;
  /// Method::setInput, for the caller's inputs and the state's alike.
  Result<bool> setInput(size_t index, const TensorView &value, bool bind);
  /// Feeds the state inputs from the state, before a call.
  Error feedState();
  /// Copies the state outputs into the state, after a call.
  Error updateState();
  /// Where input `index` is read from: the value's and every reading
  /// operand's data pointer.
  void pointInput(size_t index, void *data);
  /// Finds inputUses (after the instructions are built).
  void findInputUses();
  /// Per state binding: whether the method appends to the state in place.
  std::vector<bool> appendsInPlace;
  /// Points the output of each binding whose state the method appends to
  /// in place at the state's buffer (after findInputUses): its concat of
  /// the state's input and the new rows along the stored first axis then
  /// writes only the new rows, and the state takes its shape without a
  /// copy.
  void findInPlaceAppends();

  ~Impl() {
    for (DelegateInstance &d : delegates)
      if (d.backend && d.handle)
        d.backend->destroy(d.handle);
  }
};

void Method::Impl::pointInput(size_t index, void *data) {
  values[inputs[index]].data = data;
  for (auto [inst, slot] : inputUses[index].reads)
    instructions[inst].ctx.ins[slot].data = data;
}

void Method::Impl::findInputUses() {
  inputUses.resize(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    InputUses &uses = inputUses[k];
    uses.arenaData = values[inputs[k]].data;
    for (size_t i = 0; i < instructions.size(); ++i) {
      const Instruction &inst = instructions[i];
      for (size_t slot = 0; slot < inst.inValues.size(); ++slot)
        if (inst.inValues[slot] == inputs[k])
          uses.reads.push_back({i, slot});
      uses.written |= std::find(inst.outValues.begin(), inst.outValues.end(),
                                inputs[k]) != inst.outValues.end();
    }
  }
}

void Method::Impl::findInPlaceAppends() {
  appendsInPlace.assign(stateBindings.size(), false);
  for (size_t k = 0; k < stateBindings.size(); ++k) {
    const MethodLayout::StateBinding &b = stateBindings[k];
    if (b.input < 0 || b.output < 0 || inputUses[b.input].written)
      continue;
    uint32_t past = inputs[b.input], present = outputs[b.output];
    // The one instruction that writes the output: a concat whose first
    // operand is the state's input, along an axis after extents of 1 only
    // (each call's rows follow the filled prefix).
    const Instruction *writer = nullptr;
    size_t writers = 0;
    for (const Instruction &inst : instructions)
      if (std::find(inst.outValues.begin(), inst.outValues.end(), present) !=
          inst.outValues.end()) {
        writer = &inst;
        ++writers;
      }
    if (writers != 1 || writer->kind != InstructionLayout::Kind::Kernel ||
        writer->ctx.kernelName != "concat" || writer->outValues.size() != 1 ||
        writer->inValues.empty() || writer->inValues[0] != past ||
        std::count(writer->inValues.begin(), writer->inValues.end(), past) !=
            1 ||
        past == present)
      continue;
    const std::vector<int64_t> &bound =
        dynamic ? dynamic->bounds[present] : values[present].shape;
    Result<int64_t> axis = writer->ctx.params.getInt("axis", 0);
    if (!axis.ok() || *axis < 0 ||
        *axis >= static_cast<int64_t>(bound.size()) ||
        !std::all_of(bound.begin(), bound.begin() + *axis,
                     [](int64_t extent) { return extent == 1; }))
      continue;
    TensorView atBound = values[present];
    atBound.shape = bound;
    TensorView buffer = state->view(b.state);
    buffer.shape = state->capacity(b.state);
    if (atBound.dtype != buffer.dtype || atBound.nbytes() > buffer.nbytes())
      continue;
    values[present].data = buffer.data;
    for (Instruction &inst : instructions) {
      for (size_t slot = 0; slot < inst.inValues.size(); ++slot)
        if (inst.inValues[slot] == present)
          inst.ctx.ins[slot].data = buffer.data;
      for (size_t slot = 0; slot < inst.outValues.size(); ++slot)
        if (inst.outValues[slot] == present)
          inst.ctx.outs[slot].data = buffer.data;
    }
    appendsInPlace[k] = true;
  }
}

std::string Method::Impl::inputTypeString(size_t index) const {
  const TensorView &view = values[inputs[index]];
  if (!dynamic || dynamic->dimRegisters[inputs[index]].empty())
    return TensorView{view.dtype,
                      dynamic ? dynamic->bounds[inputs[index]] : view.shape,
                      nullptr}
        .typeString();
  const std::vector<int32_t> &regs = dynamic->dimRegisters[inputs[index]];
  std::string out = std::string(dtypeName(view.dtype)) + "[";
  for (size_t d = 0; d < regs.size(); ++d) {
    out += d ? ", " : "";
    if (regs[d] < 0) {
      out += std::to_string(dynamic->bounds[inputs[index]][d]);
      continue;
    }
    const detail::SymbolLayout &symbol =
        dynamic->symbols[dynamic->program[regs[d]].value];
    out += symbol.name + ": " + std::to_string(symbol.min) + ".." +
           std::to_string(symbol.max);
  }
  return out + "]";
}

Error Method::Impl::inputMismatch(size_t index, const TensorView &got,
                                  const std::string &why) const {
  return Error(ErrorCode::InvalidArgument,
               "input " + std::to_string(index) + " of method '" + name +
                   "' must be " + inputTypeString(index) + ", got " +
                   got.typeString() + why);
}

Error Method::Impl::checkInputShape(size_t index, DType dtype,
                                    const std::vector<int64_t> &shape) const {
  uint32_t v = inputs[index];
  TensorView got{dtype, shape, nullptr};
  if (!dynamic || dynamic->dimRegisters[v].empty()) {
    const std::vector<int64_t> &want =
        dynamic ? dynamic->bounds[v] : values[v].shape;
    if (dtype != values[v].dtype || shape != want)
      return inputMismatch(index, got, "");
    return Error::success();
  }
  const std::vector<int32_t> &regs = dynamic->dimRegisters[v];
  if (dtype != values[v].dtype || shape.size() != regs.size())
    return inputMismatch(index, got, "");
  for (size_t d = 0; d < regs.size(); ++d) {
    if (regs[d] < 0) {
      if (shape[d] != dynamic->bounds[v][d])
        return inputMismatch(index, got,
                             ": dim " + std::to_string(d) + " is fixed");
      continue;
    }
    const detail::SymbolLayout &symbol =
        dynamic->symbols[dynamic->program[regs[d]].value];
    if (shape[d] < symbol.min || shape[d] > symbol.max)
      return inputMismatch(
          index, got,
          ": dim " + std::to_string(d) + " ('" + symbol.name + "') is " +
              std::to_string(shape[d]) + ", outside its bounds " +
              std::to_string(symbol.min) + ".." + std::to_string(symbol.max));
  }
  return Error::success();
}

namespace {
/// One shape instruction on registers already computed; false on
/// overflow or a divisor that is not positive.
bool evaluateShapeInstruction(const detail::ShapeInstructionLayout &inst,
                              const std::vector<int64_t> &registers,
                              const std::vector<int64_t> &symbols,
                              int64_t &out) {
  using fb::ShapeOp;
  if (inst.op == ShapeOp::Constant) {
    out = inst.value;
    return true;
  }
  if (inst.op == ShapeOp::Symbol) {
    out = symbols[inst.value];
    return true;
  }
  int64_t a = registers[inst.lhs], b = registers[inst.rhs];
  switch (inst.op) {
  case ShapeOp::Add:
    return !__builtin_add_overflow(a, b, &out);
  case ShapeOp::Sub:
    return !__builtin_sub_overflow(a, b, &out);
  case ShapeOp::Mul:
    return !__builtin_mul_overflow(a, b, &out);
  case ShapeOp::FloorDiv:
  case ShapeOp::CeilDiv:
  case ShapeOp::Mod: {
    if (b <= 0)
      return false;
    int64_t q = a / b, r = a % b;
    if (inst.op == ShapeOp::Mod)
      out = r < 0 ? r + b : r;
    else if (inst.op == ShapeOp::FloorDiv)
      out = (r != 0 && a < 0) ? q - 1 : q;
    else
      out = (r != 0 && a > 0) ? q + 1 : q;
    return true;
  }
  case ShapeOp::Min:
    out = std::min(a, b);
    return true;
  case ShapeOp::Max:
    out = std::max(a, b);
    return true;
  default:
    return false;
  }
}
} // namespace

Error Method::Impl::deriveShapes() {
  DynamicShapes &dyn = *dynamic;
  auto fail = [&](const std::string &message) {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + name + "': " + message);
  };
  // The symbols, from the inputs; inputs naming one symbol must agree.
  // Value-dependent ones keep their last values (their kernels set them).
  std::vector<int64_t> &symbols = dyn.symbolValues;
  for (size_t s = 0; s < symbols.size(); ++s)
    if (!dyn.boundByKernel[s])
      symbols[s] = -1;
  std::vector<std::pair<size_t, size_t>> boundAt(dyn.symbols.size(),
                                                 {SIZE_MAX, 0});
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<int32_t> &regs = dyn.dimRegisters[inputs[i]];
    for (size_t d = 0; d < regs.size(); ++d) {
      if (regs[d] < 0)
        continue;
      size_t s = static_cast<size_t>(dyn.program[regs[d]].value);
      int64_t extent = values[inputs[i]].shape[d];
      if (boundAt[s].first == SIZE_MAX) {
        symbols[s] = extent;
        boundAt[s] = {i, d};
      } else if (symbols[s] != extent) {
        return fail("input " + std::to_string(i) + " dim " + std::to_string(d) +
                    " is " + std::to_string(extent) + " but symbol '" +
                    dyn.symbols[s].name + "' is " + std::to_string(symbols[s]) +
                    " (input " + std::to_string(boundAt[s].first) + " dim " +
                    std::to_string(boundAt[s].second) + ")");
      }
    }
  }
  STRATA_RETURN_IF_ERROR(propagateShapes(0));
  dyn.dirty = false;
  return Error::success();
}

Error Method::Impl::propagateShapes(size_t first) {
  DynamicShapes &dyn = *dynamic;
  auto fail = [&](const std::string &message) {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + name + "': " + message);
  };
  for (size_t i = 0; i < dyn.program.size(); ++i)
    if (!evaluateShapeInstruction(dyn.program[i], dyn.registers,
                                  dyn.symbolValues, dyn.registers[i]))
      return fail("shape instruction " + std::to_string(i) +
                  " overflows or divides by a non-positive extent");
  // Each value's extents, never past its bound (what memory holds).
  for (size_t v = 0; v < values.size(); ++v) {
    const std::vector<int32_t> &regs = dyn.dimRegisters[v];
    for (size_t d = 0; d < regs.size(); ++d) {
      if (regs[d] < 0)
        continue;
      int64_t extent = dyn.registers[regs[d]];
      if (extent < 0 || extent > dyn.bounds[v][d])
        return fail("value " + std::to_string(v) + " dim " + std::to_string(d) +
                    " is " + std::to_string(extent) + ", outside 0.." +
                    std::to_string(dyn.bounds[v][d]) + " (its bound)");
      values[v].shape[d] = extent;
    }
  }
  // Operand views; kernels whose operands changed shape prepare again.
  for (size_t i = first; i < instructions.size(); ++i) {
    Instruction &inst = instructions[i];
    bool changed = false;
    auto refresh = [&](std::vector<TensorView> &views,
                       const std::vector<uint32_t> &ids) {
      for (size_t k = 0; k < ids.size(); ++k)
        if (views[k].shape != values[ids[k]].shape) {
          views[k].shape = values[ids[k]].shape;
          changed = true;
        }
    };
    refresh(inst.ctx.ins, inst.inValues);
    refresh(inst.ctx.outs, inst.outValues);
    for (size_t k = 0; k < inst.extentRegisters.size(); ++k)
      inst.extents[k] = dyn.registers[inst.extentRegisters[k]];
    // A kernel that cannot prepare at these shapes fails when it runs: it
    // may sit in a branch of a run-time If that this call skips (a
    // reduction of the empty tensor the branch guards against).
    if ((changed || inst.stale) && inst.kind == InstructionLayout::Kind::Kernel)
      inst.stale = !prepareKernel(*inst.entry, inst, /*keepParams=*/true).ok();
  }
  return Error::success();
}

Error Method::Impl::bindKernelExtents(size_t index) {
  DynamicShapes &dyn = *dynamic;
  Instruction &inst = instructions[index];
  bool changed = false;
  for (const InstructionLayout::BoundExtent &bound : inst.boundExtents) {
    const std::vector<int64_t> &shape = inst.ctx.outs[bound.out].shape;
    int64_t extent = bound.dim < shape.size() ? shape[bound.dim] : -1;
    const detail::SymbolLayout &symbol = dyn.symbols[bound.symbol];
    if (extent < symbol.min || extent > symbol.max)
      return Error(ErrorCode::ExecutionFailed,
                   "method '" + name + "' instruction " +
                       std::to_string(index) + " (" + inst.label +
                       (inst.nodeNames.empty()
                            ? std::string()
                            : ", node '" + inst.nodeNames.front() + "'") +
                       "): value-dependent extent '" + symbol.name + "' is " +
                       std::to_string(extent) + ", outside its bounds " +
                       std::to_string(symbol.min) + ".." +
                       std::to_string(symbol.max));
    if (dyn.symbolValues[bound.symbol] != extent) {
      dyn.symbolValues[bound.symbol] = extent;
      changed = true;
    }
  }
  // The kernel's own views go back to the values' (its outputs are passed
  // at their bounds on the next call).
  for (size_t k = 0; k < inst.outValues.size(); ++k)
    inst.ctx.outs[k].shape = values[inst.outValues[k]].shape;
  if (!changed)
    return Error::success();
  STRATA_RETURN_IF_ERROR(propagateShapes(index + 1));
  for (size_t k = 0; k < inst.outValues.size(); ++k)
    inst.ctx.outs[k].shape = values[inst.outValues[k]].shape;
  return Error::success();
}

Method::Method(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Method::Method(Method &&) noexcept = default;
Method &Method::operator=(Method &&) noexcept = default;
Method::~Method() = default;

//===----------------------------------------------------------------------===//
// Program::loadMethod
//===----------------------------------------------------------------------===//

Result<Method> Program::loadMethod(const std::string &name,
                                   const KernelRegistry *kernels,
                                   const BackendRegistry *backends,
                                   std::shared_ptr<ProgramState> state) const {
  const fb::Method *method = nullptr;
  std::string known;
  for (size_t i = 0; i < methodCount(); ++i) {
    const fb::Method *m = program_->methods()->Get(i);
    if (m->name()->str() == name)
      method = m;
    known += (known.empty() ? "" : ", ") + m->name()->str();
  }
  if (!method)
    return Error(ErrorCode::NotFound, loader_->name() + ": no method '" + name +
                                          "' (methods: " + known + ")");
  if (!kernels)
    kernels = &portableKernelRegistry();
  STRATA_ASSIGN_OR_RETURN(MethodLayout layout,
                          detail::layoutMethod(*this, method, loader_->name()));
  std::string where = loader_->name() + ": method '" + name + "'";

  auto impl = std::make_unique<Method::Impl>();
  impl->name = name;
  for (uint64_t size : layout.arenaSizes) {
    Result<Arena> arena = Arena::allocate(size);
    if (!arena.ok())
      return Error(ErrorCode::OutOfMemory,
                   where + ": " + arena.error().message());
    impl->arenas.push_back(std::move(*arena));
    impl->arenaSizes.push_back(size);
  }
  for (ValueLayout &value : layout.values) {
    if (!value.isConstant)
      value.view.data = impl->arenas[value.memoryId].data() + value.offset;
    impl->values.push_back(value.view);
  }
  impl->inputs = layout.inputs;
  impl->outputs = layout.outputs;
  impl->inputNames = std::move(layout.inputNames);
  impl->outputNames = std::move(layout.outputNames);
  impl->inputState.assign(impl->inputs.size(), -1);
  impl->outputState.assign(impl->outputs.size(), -1);
  if (!layout.stateBindings.empty()) {
    impl->state = state ? std::move(state) : state_;
    // A state made by another program has other slots.
    const auto *states = program_->states();
    bool matches = impl->state && impl->state->size() == states->size();
    for (size_t i = 0; matches && i < states->size(); ++i) {
      TensorView capacity;
      matches =
          impl->state->name(i) == states->Get(i)->name()->str() &&
          detail::checkTensorType(states->Get(i)->type(), "", capacity).ok() &&
          impl->state->view(i).dtype == capacity.dtype &&
          impl->state->capacity(i) == capacity.shape;
    }
    if (!matches)
      return Error(ErrorCode::InvalidArgument,
                   where + ": the state given is not this program's");
    impl->stateBindings = layout.stateBindings;
    for (const MethodLayout::StateBinding &b : impl->stateBindings) {
      if (b.input >= 0)
        impl->inputState[b.input] = static_cast<int>(b.state);
      if (b.output >= 0)
        impl->outputState[b.output] = static_cast<int>(b.state);
    }
  }
  if (layout.isDynamic()) {
    // Values start at the shapes of every symbol at its largest.
    auto dyn = std::make_unique<DynamicShapes>();
    dyn->symbols = layout.symbols;
    dyn->program = layout.shapeProgram;
    dyn->registers.assign(dyn->program.size(), 0);
    dyn->boundByKernel = layout.boundByKernel;
    for (const detail::SymbolLayout &symbol : layout.symbols)
      dyn->symbolValues.push_back(symbol.max);
    for (const ValueLayout &value : layout.values) {
      dyn->dimRegisters.push_back(value.dimRegisters);
      dyn->bounds.push_back(value.view.shape);
    }
    impl->dynamic = std::move(dyn);
    Error error = impl->deriveShapes();
    if (!error.ok())
      return Error(ErrorCode::InvalidProgram,
                   where + " at its largest shapes: " + error.message());
  }

  // Delegates this method calls, initialised once each.
  std::vector<int> delegateSlot(
      program_->delegates() ? program_->delegates()->size() : 0, -1);
  for (size_t i = 0; i < layout.instructions.size(); ++i) {
    InstructionLayout &inst = layout.instructions[i];
    Instruction out;
    out.kind = inst.kind;
    out.nodeNames = inst.nodeNames;
    for (uint32_t v : inst.ins)
      out.ctx.ins.push_back(impl->values[v]);
    for (uint32_t v : inst.outs)
      out.ctx.outs.push_back(impl->values[v]);
    out.inValues = inst.ins;
    out.outValues = inst.outs;
    out.boundExtents = inst.boundExtents;
    out.ctx.instruction = i;
    switch (inst.kind) {
    case InstructionLayout::Kind::Kernel: {
      std::string kernel =
          program_->operators()->Get(inst.index)->name()->str();
      const KernelEntry *entry = kernels->lookup(kernel);
      if (!entry)
        return Error(ErrorCode::NotFound, where + " instruction " +
                                              std::to_string(i) + ": kernel '" +
                                              kernel + "' is not registered");
      out.label = "kernel " + kernel;
      out.ctx.kernelName = kernel;
      out.ctx.params = std::move(inst.params);
      out.ctx.scratch = &impl->scratch;
      Error error = prepareKernel(*entry, out, impl->dynamic != nullptr);
      if (!error.ok())
        return Error(error.code(), where + ": " + error.message());
      break;
    }
    case InstructionLayout::Kind::Delegate: {
      const fb::Delegate *d = program_->delegates()->Get(inst.index);
      std::string delegateName = d->name() ? d->name()->str() : "";
      std::string backendName = d->backend() ? d->backend()->str() : "";
      out.label = "delegate " + delegateName;
      if (delegateSlot[inst.index] < 0) {
        Backend *backend = backends ? backends->lookup(backendName) : nullptr;
        if (!backend) {
          std::string registered;
          if (backends)
            for (const std::string &n : backends->names())
              registered += (registered.empty() ? "" : ", ") + n;
          return Error(ErrorCode::NotFound,
                       where + ": delegate '" + delegateName +
                           "' needs backend '" + backendName +
                           "', which is not registered (registered: " +
                           (registered.empty() ? "none" : registered) + ")");
        }
        if (!backend->isAvailable())
          return Error(ErrorCode::NotSupported,
                       where + ": backend '" + backendName +
                           "' is not available on this machine");
        ByteSpan blob;
        if (d->segment() >= 0) {
          STRATA_ASSIGN_OR_RETURN(blob,
                                  segment(static_cast<size_t>(d->segment())));
        } else if (d->inline_blob()) {
          blob = {d->inline_blob()->data(), d->inline_blob()->size()};
        }
        STRATA_ASSIGN_OR_RETURN(
            Params specs,
            detail::convertParams(d->compile_specs(),
                                  where + " delegate '" + delegateName + "'"));
        Result<DelegateHandle *> handle =
            backend->init(blob, specs, ProgramNamedData(*this));
        if (!handle.ok())
          return Error(handle.error().code(),
                       where + ": backend '" + backendName +
                           "' failed to init delegate '" + delegateName +
                           "': " + handle.error().message());
        delegateSlot[inst.index] = static_cast<int>(impl->delegates.size());
        impl->delegates.push_back({backend, *handle, delegateName});
      }
      out.delegate = static_cast<size_t>(delegateSlot[inst.index]);
      out.extentRegisters = inst.extentRegisters;
      for (uint32_t reg : inst.extentRegisters)
        out.extents.push_back(impl->dynamic ? impl->dynamic->registers[reg]
                                            : 0);
      break;
    }
    case InstructionLayout::Kind::Move:
      out.label = "move";
      break;
    case InstructionLayout::Kind::JumpIfFalse:
    case InstructionLayout::Kind::Jump:
      out.target = inst.index;
      out.maxTrips = inst.maxTrips;
      out.label =
          (inst.kind == InstructionLayout::Kind::Jump ? "jump to "
                                                      : "jump if false to ") +
          std::to_string(inst.index);
      if (inst.maxTrips) {
        out.label +=
            " (loop, at most " + std::to_string(inst.maxTrips) + " trips)";
        impl->loopJumps.push_back(impl->instructions.size());
      }
      break;
    }
    impl->instructions.push_back(std::move(out));
  }
  impl->times.assign(impl->instructions.size(), 0);
  impl->delegateSteps.resize(impl->instructions.size());
  impl->findInputUses();
  if (impl->state)
    impl->findInPlaceAppends();
  return Method(std::move(impl));
}

//===----------------------------------------------------------------------===//
// Method
//===----------------------------------------------------------------------===//

const std::string &Method::name() const { return impl_->name; }
size_t Method::inputCount() const { return impl_->inputs.size(); }
size_t Method::outputCount() const { return impl_->outputs.size(); }

Result<TensorView> Method::input(size_t index) {
  if (index >= impl_->inputs.size())
    return Error(ErrorCode::InvalidArgument,
                 "input " + std::to_string(index) + " is out of range (" +
                     std::to_string(impl_->inputs.size()) + " inputs)");
  impl_->pointInput(index, impl_->inputUses[index].arenaData);
  return impl_->values[impl_->inputs[index]];
}

int Method::inputState(size_t index) const {
  return index < impl_->inputState.size() ? impl_->inputState[index] : -1;
}

int Method::outputState(size_t index) const {
  return index < impl_->outputState.size() ? impl_->outputState[index] : -1;
}

ProgramState *Method::state() const { return impl_->state.get(); }

std::vector<std::string> Method::statesAppendedInPlace() const {
  std::vector<std::string> names;
  for (size_t k = 0; k < impl_->appendsInPlace.size(); ++k)
    if (impl_->appendsInPlace[k])
      names.push_back(impl_->state->name(impl_->stateBindings[k].state));
  return names;
}

Error Method::setInput(size_t index, const TensorView &value) {
  STRATA_ASSIGN_OR_RETURN(bool bound, setInput(index, value, false));
  (void)bound;
  return Error::success();
}

Result<bool> Method::setInput(size_t index, const TensorView &value,
                              bool bind) {
  if (inputState(index) >= 0)
    return Error(
        ErrorCode::InvalidArgument,
        "input " + std::to_string(index) +
            (inputName(index).empty() ? std::string()
                                      : " ('" + inputName(index) + "')") +
            " is fed from state '" + impl_->state->name(inputState(index)) +
            "' (set it through the method's state)");
  return impl_->setInput(index, value, bind);
}

Result<bool> Method::Impl::setInput(size_t index, const TensorView &value,
                                    bool bind) {
  if (index >= inputs.size())
    return Error(ErrorCode::InvalidArgument,
                 "input " + std::to_string(index) + " is out of range (" +
                     std::to_string(inputs.size()) + " inputs)");
  pointInput(index, inputUses[index].arenaData);
  TensorView target = values[inputs[index]];
  STRATA_RETURN_IF_ERROR(checkInputShape(index, value.dtype, value.shape));
  if (dynamic && target.shape != value.shape) {
    values[inputs[index]].shape = value.shape;
    dynamic->dirty = true;
    target.shape = value.shape;
  }
  // The caller's memory is read in place where nothing writes the input,
  // its elements are aligned as the kernels and delegates load them, and it
  // lies outside the method's arenas (an output fed back in is overwritten
  // while the method runs).
  size_t align = std::max<size_t>(dtypeSize(value.dtype), 1);
  auto begin = reinterpret_cast<uintptr_t>(value.data);
  auto end = begin + value.nbytes();
  bool inArena =
      std::any_of(arenas.begin(), arenas.end(), [&](const Arena &arena) {
        auto first = reinterpret_cast<uintptr_t>(arena.data());
        return begin < first + arena.size() && first < end;
      });
  if (bind && value.data && !inputUses[index].written && begin % align == 0 &&
      !inArena) {
    pointInput(index, const_cast<void *>(value.data));
    return true;
  }
  // An empty tensor may come with a null pointer: memmove must not see it.
  if (value.data != target.data && target.nbytes())
    std::memmove(target.data, value.data, target.nbytes());
  return false;
}

const std::string &Method::inputName(size_t index) const {
  static const std::string none;
  return index < impl_->inputNames.size() ? impl_->inputNames[index] : none;
}

const std::string &Method::outputName(size_t index) const {
  static const std::string none;
  return index < impl_->outputNames.size() ? impl_->outputNames[index] : none;
}

const void *Method::inputData(size_t index) const {
  return index < impl_->inputs.size() ? impl_->values[impl_->inputs[index]].data
                                      : nullptr;
}

void Method::releaseInputs() {
  for (size_t k = 0; k < impl_->inputs.size(); ++k)
    impl_->pointInput(k, impl_->inputUses[k].arenaData);
}

Error Method::setInputShape(size_t index, const std::vector<int64_t> &shape) {
  STRATA_ASSIGN_OR_RETURN(TensorView target, input(index));
  STRATA_RETURN_IF_ERROR(impl_->checkInputShape(index, target.dtype, shape));
  if (impl_->dynamic && target.shape != shape) {
    impl_->values[impl_->inputs[index]].shape = shape;
    impl_->dynamic->dirty = true;
  }
  return Error::success();
}

bool Method::isDynamic() const { return impl_->dynamic != nullptr; }

std::string Method::inputTypeString(size_t index) const {
  return index < impl_->inputs.size() ? impl_->inputTypeString(index) : "";
}

std::vector<Method::DimSymbol> Method::dimSymbols() const {
  std::vector<DimSymbol> symbols;
  if (impl_->dynamic)
    for (size_t s = 0; s < impl_->dynamic->symbols.size(); ++s) {
      const detail::SymbolLayout &symbol = impl_->dynamic->symbols[s];
      symbols.push_back({symbol.name, symbol.min, symbol.max,
                         impl_->dynamic->boundByKernel[s]});
    }
  return symbols;
}

std::vector<int64_t>
Method::inputShapeAt(size_t index, const std::vector<int64_t> &extents) const {
  if (index >= impl_->inputs.size())
    return {};
  uint32_t value = impl_->inputs[index];
  if (!impl_->dynamic)
    return impl_->values[value].shape;
  const DynamicShapes &dynamic = *impl_->dynamic;
  std::vector<int64_t> shape = dynamic.bounds[value];
  const std::vector<int32_t> &regs = dynamic.dimRegisters[value];
  for (size_t d = 0; d < regs.size() && d < shape.size(); ++d) {
    if (regs[d] < 0)
      continue;
    // An input's dynamic extent is a symbol's register (verified at load).
    int64_t symbol = dynamic.program[regs[d]].value;
    if (symbol >= 0 && static_cast<size_t>(symbol) < extents.size())
      shape[d] = extents[symbol];
  }
  return shape;
}

Result<TensorView> Method::output(size_t index) const {
  if (index >= impl_->outputs.size())
    return Error(ErrorCode::InvalidArgument,
                 "output " + std::to_string(index) + " is out of range (" +
                     std::to_string(impl_->outputs.size()) + " outputs)");
  return impl_->values[impl_->outputs[index]];
}

Error Method::Impl::feedState() {
  for (const MethodLayout::StateBinding &b : stateBindings) {
    if (b.input < 0)
      continue;
    Result<bool> fed = setInput(b.input, state->view(b.state), /*bind=*/true);
    if (!fed.ok())
      return Error(ErrorCode::InvalidArgument,
                   "method '" + name + "': state '" + state->name(b.state) +
                       "' cannot feed input " + std::to_string(b.input) +
                       (inputNames.empty()
                            ? std::string()
                            : " ('" + inputNames[b.input] + "')") +
                       ": " + fed.error().message());
  }
  return Error::success();
}

Error Method::Impl::updateState() {
  // Every output is checked before any is copied: a state the method
  // cannot hold leaves every state as it was.
  for (const MethodLayout::StateBinding &b : stateBindings) {
    if (b.output < 0)
      continue;
    const std::vector<int64_t> &capacity = state->capacity(b.state);
    const std::vector<int64_t> &shape = values[outputs[b.output]].shape;
    for (size_t d = 0; d < shape.size() && d < capacity.size(); ++d)
      if (shape[d] > capacity[d])
        return Error(
            ErrorCode::ExecutionFailed,
            "method '" + name + "': output " + std::to_string(b.output) +
                (outputNames.empty() ? std::string()
                                     : " ('" + outputNames[b.output] + "')") +
                " has extent " + std::to_string(shape[d]) + " in dimension " +
                std::to_string(d) + ", over state '" + state->name(b.state) +
                "''s capacity of " + std::to_string(capacity[d]) +
                " (reset the state, or compile with a larger bound)");
  }
  // An output that lies in another state's buffer (a state input passed
  // through to another state's output) is read before any state is
  // written.
  std::vector<std::vector<uint8_t>> staged(stateBindings.size());
  for (size_t k = 0; k < stateBindings.size(); ++k) {
    const MethodLayout::StateBinding &b = stateBindings[k];
    if (b.output < 0)
      continue;
    const TensorView &value = values[outputs[b.output]];
    auto begin = static_cast<const uint8_t *>(value.data);
    for (size_t other = 0; other < state->size() && begin; ++other) {
      // The whole buffer, at the state's capacity.
      TensorView slot = state->view(other);
      slot.shape = state->capacity(other);
      auto first = static_cast<const uint8_t *>(slot.data);
      if (other != b.state && begin < first + slot.nbytes() &&
          first < begin + value.nbytes())
        staged[k].assign(begin, begin + value.nbytes());
    }
  }
  for (size_t k = 0; k < stateBindings.size(); ++k) {
    const MethodLayout::StateBinding &b = stateBindings[k];
    if (b.output < 0)
      continue;
    TensorView value = values[outputs[b.output]];
    if (!staged[k].empty())
      value.data = staged[k].data();
    // The output is in the stored layout; appended in place, it already
    // is the state's bytes (no copy).
    STRATA_RETURN_IF_ERROR(state->setStored(b.state, value));
  }
  return Error::success();
}

Error Method::execute() {
  if (impl_->state)
    STRATA_RETURN_IF_ERROR(impl_->feedState());
  STRATA_RETURN_IF_ERROR(run());
  return impl_->state ? impl_->updateState() : Error::success();
}

Error Method::run() {
  using Clock = std::chrono::steady_clock;
  if (impl_->dynamic && impl_->dynamic->dirty)
    STRATA_RETURN_IF_ERROR(impl_->deriveShapes());
  for (size_t loop : impl_->loopJumps)
    impl_->instructions[loop].trips = 0;
  for (size_t i = 0; i < impl_->instructions.size(); ++i) {
    Instruction &inst = impl_->instructions[i];
    Clock::time_point start;
    if (impl_->profiling)
      start = Clock::now();
    switch (inst.kind) {
    case InstructionLayout::Kind::JumpIfFalse:
      if (*static_cast<const uint8_t *>(inst.ctx.ins[0].data) != 0)
        break;
      [[fallthrough]];
    case InstructionLayout::Kind::Jump:
      if (inst.maxTrips) {
        // A loop's jump back, bounded (the loader checked the target).
        if (++inst.trips > inst.maxTrips)
          return Error(ErrorCode::InvalidArgument,
                       "method '" + impl_->name + "': instruction " +
                           std::to_string(i) + ": the loop ran past its " +
                           "bound of " + std::to_string(inst.maxTrips) +
                           " iterations" +
                           (inst.nodeNames.empty()
                                ? std::string()
                                : " (node '" + inst.nodeNames.front() +
                                      "'; strata-compile --max-extent " +
                                      inst.nodeNames.front() + "=N)"));
      } else {
        // Leaving loops: the jumps back that this jump passes count from
        // zero when their loop is entered again.
        for (size_t loop : impl_->loopJumps)
          if (loop > i && loop < inst.target)
            impl_->instructions[loop].trips = 0;
      }
      i = inst.target - 1;
      continue;
    case InstructionLayout::Kind::Kernel: {
      if (inst.stale) {
        Error error = prepareKernel(*inst.entry, inst, /*keepParams=*/true);
        if (!error.ok())
          return Error(ErrorCode::InvalidArgument,
                       "method '" + impl_->name + "': instruction " +
                           std::to_string(i) +
                           " at the inputs' shapes: " + error.message() +
                           (inst.nodeNames.empty()
                                ? std::string()
                                : " (node '" + inst.nodeNames.front() + "')"));
        inst.stale = false;
      }
      // Value-dependent extents: the kernel writes at most the bound (the
      // symbol's, within the buffer's) and reports how much it wrote.
      for (const InstructionLayout::BoundExtent &bound : inst.boundExtents)
        inst.ctx.outs[bound.out].shape[bound.dim] = std::min(
            impl_->dynamic->symbols[bound.symbol].max,
            impl_->dynamic->bounds[inst.outValues[bound.out]][bound.dim]);
      Error error = inst.execute ? inst.execute(*inst.state, inst.ctx)
                                 : inst.fn(inst.ctx);
      if (!error.ok())
        return Error(ErrorCode::ExecutionFailed,
                     "method '" + impl_->name + "': " + error.message() +
                         (inst.nodeNames.empty()
                              ? std::string()
                              : " (node '" + inst.nodeNames.front() + "')"));
      if (!inst.boundExtents.empty())
        STRATA_RETURN_IF_ERROR(impl_->bindKernelExtents(i));
      break;
    }
    case InstructionLayout::Kind::Delegate: {
      DelegateInstance &d = impl_->delegates[inst.delegate];
      Error error =
          inst.extentRegisters.empty()
              ? d.backend->execute(d.handle, inst.ctx.ins, inst.ctx.outs)
              : d.backend->executeDynamic(d.handle, inst.ctx.ins, inst.ctx.outs,
                                          inst.extents);
      if (!error.ok())
        return Error(ErrorCode::ExecutionFailed,
                     "method '" + impl_->name + "' instruction " +
                         std::to_string(i) + ": delegate '" + d.name +
                         "' failed: " + error.message());
      if (impl_->profiling)
        impl_->delegateSteps[i] = d.backend->profile(d.handle);
      break;
    }
    case InstructionLayout::Kind::Move:
      if (inst.ctx.outs[0].data != inst.ctx.ins[0].data &&
          inst.ctx.outs[0].nbytes())
        std::memmove(inst.ctx.outs[0].data, inst.ctx.ins[0].data,
                     inst.ctx.outs[0].nbytes());
      break;
    }
    if (impl_->profiling)
      impl_->times[i] = static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                               start)
              .count());
  }
  return Error::success();
}

size_t Method::instructionCount() const { return impl_->instructions.size(); }

std::string Method::instructionLabel(size_t index) const {
  return index < impl_->instructions.size() ? impl_->instructions[index].label
                                            : "";
}

const std::vector<std::string> &
Method::instructionNodeNames(size_t index) const {
  static const std::vector<std::string> empty;
  return index < impl_->instructions.size()
             ? impl_->instructions[index].nodeNames
             : empty;
}

void Method::setProfiling(bool enabled) {
  impl_->profiling = enabled;
  for (DelegateInstance &d : impl_->delegates)
    d.backend->setProfiling(d.handle, enabled);
}

const std::vector<uint64_t> &Method::instructionTimesNs() const {
  return impl_->times;
}

const std::vector<DelegateOpProfile> &
Method::delegateProfile(size_t index) const {
  static const std::vector<DelegateOpProfile> empty;
  return index < impl_->delegateSteps.size() ? impl_->delegateSteps[index]
                                             : empty;
}

std::vector<size_t> Method::arenaSizes() const { return impl_->arenaSizes; }

} // namespace strata::runtime
