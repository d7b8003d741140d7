//===- ProgramEmitter.cpp - exec.program -> .strata bytes -----------------===//
//
// One pass over the program: constants go to the constant segment (each
// aligned to EmitOptions::constantAlignment), delegate blobs to their own
// segments (or inline), and every method's buffers, instructions, memory plan
// and debug handles (ONNX node names from NameLocs) to the flatbuffer. The
// file is [64-byte header][flatbuffer][padding][segments...], each segment
// aligned to EmitOptions::segmentAlignment.
//
//===----------------------------------------------------------------------===//
#include "strata/Emit/ProgramEmitter.h"
#include "strata/Support/ElementsBytes.h"

#include "strata/Runtime/Format.h"
#include "strata/Runtime/Schema/program_generated.h"
#include "strata/Support/Locations.h"

#include "Exec/IR/ExecOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace strata;
namespace fbs = strata::fb;

namespace {

/// Maps an element type to the schema's ScalarType. (Quantized values reach
/// exec as their storage type, e.g. i8, with scales in kernel params.)
std::optional<fbs::ScalarType> getScalarType(Type type) {
  if (type.isF32())
    return fbs::ScalarType::F32;
  if (type.isF16())
    return fbs::ScalarType::F16;
  if (type.isBF16())
    return fbs::ScalarType::BF16;
  if (type.isF64())
    return fbs::ScalarType::F64;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return std::nullopt;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return fbs::ScalarType::Bool;
  case 8:
    return isUnsigned ? fbs::ScalarType::U8 : fbs::ScalarType::I8;
  case 16:
    return isUnsigned ? fbs::ScalarType::U16 : fbs::ScalarType::I16;
  case 32:
    return isUnsigned ? fbs::ScalarType::U32 : fbs::ScalarType::I32;
  case 64:
    return isUnsigned ? fbs::ScalarType::U64 : fbs::ScalarType::I64;
  }
  return std::nullopt;
}

/// A method's dim symbols and shape program: each dynamic extent (an
/// exec.dim_symbol, or affine.apply/min/max of extents) becomes a register
/// of integer instructions the runtime evaluates from the inputs' shapes.
class ShapeProgramBuilder {
public:
  /// Declares `symbol` (in body order) and gives it a register.
  void addSymbol(exec::DimSymbolOp symbol) {
    symbolIndex[symbol.getResult()] = static_cast<uint32_t>(symbols.size());
    registers[symbol.getResult()] =
        add(fbs::ShapeOp::Symbol, 0, 0, static_cast<int64_t>(symbols.size()));
    symbols.push_back(symbol);
  }

  /// The index of `symbol`, an exec.dim_symbol declared before.
  FailureOr<uint32_t> symbolOf(Operation *user, Value symbol) const {
    auto it = symbolIndex.find(symbol);
    if (it == symbolIndex.end())
      return user->emitError("binds ")
             << symbol << ", which is not an exec.dim_symbol declared before";
    return it->second;
  }

  /// The register holding `extent`.
  FailureOr<int32_t> compile(Operation *user, Value extent) {
    auto it = registers.find(extent);
    if (it != registers.end())
      return it->second;
    Operation *op = extent.getDefiningOp();
    FailureOr<int32_t> result = failure();
    if (auto constant = op ? dyn_cast<arith::ConstantIndexOp>(op) : nullptr) {
      result = constantRegister(constant.value());
    } else if (op && isa<affine::AffineApplyOp, affine::AffineMinOp,
                         affine::AffineMaxOp>(op)) {
      SmallVector<int32_t> operands;
      for (Value operand : op->getOperands()) {
        FailureOr<int32_t> reg = compile(user, operand);
        if (failed(reg))
          return failure();
        operands.push_back(*reg);
      }
      AffineMap map = op->getAttrOfType<AffineMapAttr>("map").getValue();
      ArrayRef<int32_t> dims = ArrayRef(operands).take_front(map.getNumDims());
      ArrayRef<int32_t> syms = ArrayRef(operands).drop_front(map.getNumDims());
      fbs::ShapeOp combine =
          isa<affine::AffineMinOp>(op) ? fbs::ShapeOp::Min : fbs::ShapeOp::Max;
      std::optional<int32_t> folded;
      for (AffineExpr expr : map.getResults()) {
        FailureOr<int32_t> reg = compileExpr(user, expr, dims, syms);
        if (failed(reg))
          return failure();
        folded = folded ? add(combine, *folded, *reg, 0) : *reg;
      }
      if (folded)
        result = *folded;
    }
    if (failed(result))
      return user->emitError("dynamic extent ")
             << extent << " is not an exec.dim_symbol, an index constant or "
             << "affine.apply/min/max of them";
    registers[extent] = *result;
    return result;
  }

  std::vector<flatbuffers::Offset<fbs::DimSymbol>>
  emitSymbols(flatbuffers::FlatBufferBuilder &fbb) const {
    std::vector<flatbuffers::Offset<fbs::DimSymbol>> out;
    for (exec::DimSymbolOp symbol : symbols)
      out.push_back(fbs::CreateDimSymbolDirect(
          fbb, symbol.getName().str().c_str(), symbol.getLowerBound(),
          symbol.getUpperBound()));
    return out;
  }
  std::vector<flatbuffers::Offset<fbs::ShapeInstruction>>
  emitProgram(flatbuffers::FlatBufferBuilder &fbb) const {
    std::vector<flatbuffers::Offset<fbs::ShapeInstruction>> out;
    for (const Instruction &inst : program)
      out.push_back(fbs::CreateShapeInstruction(fbb, inst.op, inst.lhs,
                                                inst.rhs, inst.value));
    return out;
  }
  bool empty() const { return symbols.empty(); }

private:
  struct Instruction {
    fbs::ShapeOp op;
    uint32_t lhs, rhs;
    int64_t value;
  };

  int32_t add(fbs::ShapeOp op, uint32_t lhs, uint32_t rhs, int64_t value) {
    program.push_back({op, lhs, rhs, value});
    return static_cast<int32_t>(program.size() - 1);
  }
  int32_t constantRegister(int64_t value) {
    auto [it, inserted] = constants.try_emplace(value, 0);
    if (inserted)
      it->second = add(fbs::ShapeOp::Constant, 0, 0, value);
    return it->second;
  }
  FailureOr<int32_t> compileExpr(Operation *user, AffineExpr expr,
                                 ArrayRef<int32_t> dims,
                                 ArrayRef<int32_t> syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return constantRegister(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return dims[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      return syms[s.getPosition()];
    auto binary = cast<AffineBinaryOpExpr>(expr);
    FailureOr<int32_t> lhs = compileExpr(user, binary.getLHS(), dims, syms);
    FailureOr<int32_t> rhs = compileExpr(user, binary.getRHS(), dims, syms);
    if (failed(lhs) || failed(rhs))
      return failure();
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return add(fbs::ShapeOp::Add, *lhs, *rhs, 0);
    case AffineExprKind::Mul:
      return add(fbs::ShapeOp::Mul, *lhs, *rhs, 0);
    case AffineExprKind::FloorDiv:
      return add(fbs::ShapeOp::FloorDiv, *lhs, *rhs, 0);
    case AffineExprKind::CeilDiv:
      return add(fbs::ShapeOp::CeilDiv, *lhs, *rhs, 0);
    case AffineExprKind::Mod:
      return add(fbs::ShapeOp::Mod, *lhs, *rhs, 0);
    default:
      return user->emitError("unsupported affine expression kind ")
             << static_cast<int>(expr.getKind());
    }
  }

  SmallVector<exec::DimSymbolOp> symbols;
  llvm::DenseMap<Value, uint32_t> symbolIndex;
  std::vector<Instruction> program;
  llvm::DenseMap<Value, int32_t> registers;
  std::map<int64_t, int32_t> constants;
};

/// Bytes per element in the file (bool is one byte).
class Emitter {
public:
  Emitter(exec::ProgramOp program, const EmitOptions &options)
      : program(program), options(options) {}

  LogicalResult emit(llvm::raw_ostream &os);

private:
  /// The bytes of an elements attribute in row-major storage order.
  FailureOr<std::string> getBytes(Operation *op, ElementsAttr value);
  /// Serializes a dictionary of kernel params or compile specs.
  FailureOr<
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Param>>>>
  emitParams(Operation *op, DictionaryAttr dict);
  /// The type of a placed buffer: its bound shape, and for each dynamic
  /// dimension the register of its extent.
  FailureOr<flatbuffers::Offset<fbs::TensorType>>
  emitBufferType(exec::PlacedBufferOpInterface placed,
                 ShapeProgramBuilder &shapes);
  FailureOr<flatbuffers::Offset<fbs::TensorType>> emitType(Operation *op,
                                                           ShapedType type);
  FailureOr<flatbuffers::Offset<fbs::Method>> emitMethod(exec::MethodOp method);
  /// Appends a segment holding `bytes`; returns its index.
  uint32_t addSegment(std::string bytes);
  /// The constants, in one segment (segment 0), each aligned inside it.
  LogicalResult emitConstants();
  /// One delegate: its compile specs, blob (inline or a segment), named
  /// data (equal contents sharing one segment) and debug handles.
  LogicalResult emitDelegate(exec::DelegateOp delegate);
  /// The delegate's named data into `namedData`.
  LogicalResult emitNamedData(exec::DelegateOp delegate);
  /// The program's states, in order.
  LogicalResult emitStates();
  /// The tables of the constants whose bytes a delegate's named data holds
  /// (after the delegates): each points at that data's segment.
  LogicalResult emitSharedConstants();

  exec::ProgramOp program;
  const EmitOptions &options;
  flatbuffers::FlatBufferBuilder fbb{1 << 16};
  llvm::StringMap<uint32_t> constantIndex, delegateIndex, stateIndex;
  std::vector<flatbuffers::Offset<fbs::State>> states;
  /// Constants stored in a named data segment, and their index.
  std::vector<std::pair<exec::ConstantOp, size_t>> sharedConstants;
  llvm::MapVector<StringRef, uint32_t> operatorIndex;
  std::vector<std::string> segmentBytes;
  std::vector<flatbuffers::Offset<fbs::Constant>> constants;
  std::vector<flatbuffers::Offset<fbs::Delegate>> delegates;
  std::vector<flatbuffers::Offset<fbs::NamedData>> namedData;
  llvm::StringMap<uint32_t> namedDataSegment;
  llvm::DenseMap<uint64_t, llvm::SmallVector<uint32_t, 1>> segmentsByHash;
};

} // namespace

uint32_t Emitter::addSegment(std::string bytes) {
  segmentBytes.push_back(std::move(bytes));
  return segmentBytes.size() - 1;
}

FailureOr<std::string> Emitter::getBytes(Operation *op, ElementsAttr value) {
  Type elementType = value.getElementType();
  if (!getScalarType(elementType))
    return op->emitError("unsupported element type ")
           << elementType << " for the program buffer";
  std::string error;
  FailureOr<std::string> bytes = getElementsBytes(value, error);
  if (failed(bytes))
    return op->emitError(error);
  return bytes;
}

FailureOr<flatbuffers::Offset<fbs::TensorType>>
Emitter::emitType(Operation *op, ShapedType type) {
  std::optional<fbs::ScalarType> scalar = getScalarType(type.getElementType());
  if (!scalar)
    return op->emitError("unsupported element type ")
           << type.getElementType() << " for the program buffer";
  if (!type.hasStaticShape())
    return op->emitError("buffer type ") << type << " is not static";
  if (auto memref = dyn_cast<MemRefType>(type))
    if (!memref.getLayout().isIdentity())
      return op->emitError("buffer type ")
             << type << " has a non-identity layout (the runtime reads "
             << "dense row-major buffers)";
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  return fbs::CreateTensorTypeDirect(fbb, *scalar, &shape);
}

FailureOr<flatbuffers::Offset<fbs::TensorType>>
Emitter::emitBufferType(exec::PlacedBufferOpInterface placed,
                        ShapeProgramBuilder &shapes) {
  MemRefType type = placed.getBuffer().getType();
  if (type.hasStaticShape() || !type.getLayout().isIdentity())
    return emitType(placed, type);
  FailureOr<SmallVector<int64_t>> bounds = exec::getBoundShape(placed);
  if (failed(bounds))
    return failure();
  FailureOr<flatbuffers::Offset<fbs::TensorType>> checked =
      emitType(placed, MemRefType::get(*bounds, type.getElementType()));
  if (failed(checked))
    return failure();
  std::vector<int32_t> registers;
  auto sizes = placed.getDynamicSizes().begin();
  for (int64_t dim : type.getShape()) {
    if (!ShapedType::isDynamic(dim)) {
      registers.push_back(-1);
      continue;
    }
    FailureOr<int32_t> reg = shapes.compile(placed, *sizes++);
    if (failed(reg))
      return failure();
    registers.push_back(*reg);
  }
  std::optional<fbs::ScalarType> scalar = getScalarType(type.getElementType());
  std::vector<int64_t> shape(bounds->begin(), bounds->end());
  return fbs::CreateTensorTypeDirect(fbb, *scalar, &shape, &registers);
}

FailureOr<
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Param>>>>
Emitter::emitParams(Operation *op, DictionaryAttr dict) {
  std::vector<flatbuffers::Offset<fbs::Param>> params;
  for (NamedAttribute named : dict) {
    auto name = fbb.CreateString(named.getName().getValue().str());
    Attribute attr = named.getValue();
    if (auto b = dyn_cast<BoolAttr>(attr)) {
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::Bool,
                                        b.getValue() ? 1 : 0));
    } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::Int,
                                        i.getValue().getSExtValue()));
    } else if (auto f = dyn_cast<FloatAttr>(attr)) {
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::Float, 0,
                                        f.getValueAsDouble()));
    } else if (auto s = dyn_cast<StringAttr>(attr)) {
      auto value = fbb.CreateString(s.getValue().str());
      params.push_back(
          fbs::CreateParam(fbb, name, fbs::ParamKind::String, 0, 0.0, value));
    } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr)) {
      auto values = fbb.CreateVector(ints.asArrayRef().vec());
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::IntList, 0,
                                        0.0, 0, values));
    } else if (auto ints32 = dyn_cast<DenseI32ArrayAttr>(attr)) {
      std::vector<int64_t> v(ints32.asArrayRef().begin(),
                             ints32.asArrayRef().end());
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::IntList, 0,
                                        0.0, 0, fbb.CreateVector(v)));
    } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(attr)) {
      std::vector<double> v(floats.asArrayRef().begin(),
                            floats.asArrayRef().end());
      params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::FloatList, 0,
                                        0.0, 0, 0, fbb.CreateVector(v)));
    } else if (auto doubles = dyn_cast<DenseF64ArrayAttr>(attr)) {
      params.push_back(
          fbs::CreateParam(fbb, name, fbs::ParamKind::FloatList, 0, 0.0, 0, 0,
                           fbb.CreateVector(doubles.asArrayRef().vec())));
    } else if (auto array = dyn_cast<ArrayAttr>(attr)) {
      std::vector<int64_t> ints;
      std::vector<double> floats;
      for (Attribute element : array) {
        if (auto i = dyn_cast<IntegerAttr>(element))
          ints.push_back(i.getValue().getSExtValue());
        else if (auto f = dyn_cast<FloatAttr>(element))
          floats.push_back(f.getValueAsDouble());
        else
          return op->emitError("parameter '")
                 << named.getName().getValue()
                 << "': arrays must hold only integers or only floats";
      }
      if (!ints.empty() && !floats.empty())
        return op->emitError("parameter '")
               << named.getName().getValue()
               << "': arrays must hold only integers or only floats";
      if (!floats.empty())
        params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::FloatList,
                                          0, 0.0, 0, 0,
                                          fbb.CreateVector(floats)));
      else
        params.push_back(fbs::CreateParam(fbb, name, fbs::ParamKind::IntList, 0,
                                          0.0, 0, fbb.CreateVector(ints)));
    } else {
      return op->emitError("parameter '")
             << named.getName().getValue() << "' has unsupported attribute "
             << attr << " (int, float, bool, string or int/float lists)";
    }
  }
  return fbb.CreateVector(params);
}

FailureOr<flatbuffers::Offset<fbs::Method>>
Emitter::emitMethod(exec::MethodOp method) {
  llvm::DenseMap<Value, uint32_t> valueIndex;
  std::vector<flatbuffers::Offset<fbs::Value>> values;
  std::vector<flatbuffers::Offset<fbs::Instruction>> instructions;
  std::vector<flatbuffers::Offset<fbs::DebugHandle>> debugHandles;
  std::vector<uint32_t> inputs(method.getFunctionType().getNumInputs(), 0);
  std::vector<uint32_t> outputs;
  std::optional<ArrayRef<int64_t>> arenaSizes = method.getArenaSizes();

  auto lookup = [&](Operation *op, Value value) -> FailureOr<uint32_t> {
    auto it = valueIndex.find(value);
    if (it == valueIndex.end())
      return op->emitError("operand is not an exec buffer of this method");
    return it->second;
  };
  auto lookupAll = [&](Operation *op,
                       ValueRange range) -> FailureOr<std::vector<uint32_t>> {
    std::vector<uint32_t> result;
    for (Value v : range) {
      FailureOr<uint32_t> index = lookup(op, v);
      if (failed(index))
        return failure();
      result.push_back(*index);
    }
    return result;
  };

  // Where each block's instructions start: blocks follow each other, a
  // branch to the next block is no instruction.
  auto isInstruction = [](Operation &op) {
    return isa<exec::KernelOp, exec::DelegateCallOp, exec::MoveOp>(op);
  };
  auto jumpsOf = [](Operation &op) -> uint32_t {
    Block *next = op.getBlock()->getNextNode();
    if (auto branch = dyn_cast<exec::BranchOp>(op))
      return branch.getDest() == next ? 0 : 1;
    if (auto branch = dyn_cast<exec::CondBranchOp>(op))
      return branch.getTrueDest() == next ? 1 : 2;
    return 0;
  };
  DenseMap<Block *, uint32_t> blockStart;
  uint32_t instructionCount = 0;
  for (Block &block : method.getBody()) {
    blockStart[&block] = instructionCount;
    for (Operation &op : block)
      instructionCount += isInstruction(op) ? 1 : jumpsOf(op);
  }

  ShapeProgramBuilder shapes;
  for (Block &block : method.getBody())
    for (Operation &op : block) {
      if (auto branch = dyn_cast<exec::BranchOp>(op)) {
        if (!jumpsOf(op))
          continue;
        // A loop's jump back names its node, for the error a call that
        // runs past the bound gets.
        std::optional<uint64_t> maxTrips = branch.getMaxTrips();
        llvm::SetVector<StringRef> names;
        if (maxTrips)
          collectNodeNames(op.getLoc(), names);
        if (!names.empty()) {
          std::vector<std::string> strings;
          for (StringRef name : names)
            strings.push_back(name.str());
          debugHandles.push_back(fbs::CreateDebugHandle(
              fbb, instructions.size(), fbb.CreateVectorOfStrings(strings)));
        }
        instructions.push_back(fbs::CreateInstruction(
            fbb, fbs::InstructionArgs::Jump,
            fbs::CreateJump(fbb, blockStart[branch.getDest()],
                            maxTrips.value_or(0))
                .Union()));
        continue;
      }
      if (auto branch = dyn_cast<exec::CondBranchOp>(op)) {
        FailureOr<uint32_t> condition = lookup(&op, branch.getCondition());
        if (failed(condition))
          return failure();
        instructions.push_back(fbs::CreateInstruction(
            fbb, fbs::InstructionArgs::JumpIfFalse,
            fbs::CreateJumpIfFalse(fbb, *condition,
                                   blockStart[branch.getFalseDest()])
                .Union()));
        if (jumpsOf(op) == 2)
          instructions.push_back(fbs::CreateInstruction(
              fbb, fbs::InstructionArgs::Jump,
              fbs::CreateJump(fbb, blockStart[branch.getTrueDest()]).Union()));
        continue;
      }
      if (auto symbol = dyn_cast<exec::DimSymbolOp>(op)) {
        shapes.addSymbol(symbol);
        continue;
      }
      // Extent arithmetic: compiled into the shape program where used.
      if (isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp,
              arith::ConstantIndexOp>(op))
        continue;
      if (auto placed = dyn_cast<exec::PlacedBufferOpInterface>(op)) {
        std::optional<uint64_t> id = placed.getPlacedMemoryId();
        std::optional<uint64_t> offset = placed.getPlacedOffset();
        if (!id || !offset || !arenaSizes)
          return op.emitError("buffer is not placed; run "
                              "--strata-exec-plan-memory before emission");
        FailureOr<flatbuffers::Offset<fbs::TensorType>> type =
            emitBufferType(placed, shapes);
        if (failed(type))
          return failure();
        valueIndex[placed.getBuffer()] = values.size();
        if (auto input = dyn_cast<exec::InputOp>(op))
          inputs[input.getIndex()] = values.size();
        values.push_back(
            fbs::CreateValue(fbb, *type, fbs::ValueKind::Arena, *id, *offset));
        continue;
      }
      if (auto ref = dyn_cast<exec::ConstantRefOp>(op)) {
        auto it = constantIndex.find(ref.getConstant());
        if (it == constantIndex.end())
          return op.emitError("unknown constant @") << ref.getConstant();
        FailureOr<flatbuffers::Offset<fbs::TensorType>> type =
            emitType(&op, ref.getType());
        if (failed(type))
          return failure();
        valueIndex[ref.getResult()] = values.size();
        values.push_back(fbs::CreateValue(fbb, *type, fbs::ValueKind::Constant,
                                          0, 0, it->second));
        continue;
      }
      if (auto ret = dyn_cast<exec::ReturnOp>(op)) {
        FailureOr<std::vector<uint32_t>> outs =
            lookupAll(&op, ret.getOutputs());
        if (failed(outs))
          return failure();
        outputs = *outs;
        continue;
      }

      flatbuffers::Offset<fbs::Instruction> instruction;
      if (auto kernel = dyn_cast<exec::KernelOp>(op)) {
        FailureOr<std::vector<uint32_t>> ins = lookupAll(&op, kernel.getIns());
        FailureOr<std::vector<uint32_t>> outs =
            lookupAll(&op, kernel.getOuts());
        auto params = emitParams(&op, kernel.getParams());
        if (failed(ins) || failed(outs) || failed(params))
          return failure();
        // Value-dependent extents the kernel reports (absent when none, so
        // that other programs keep their bytes).
        std::vector<uint32_t> binds;
        for (Value bound : kernel.getBinds()) {
          FailureOr<uint32_t> symbol = shapes.symbolOf(&op, bound);
          if (failed(symbol))
            return failure();
          binds.push_back(*symbol);
        }
        auto [it, inserted] =
            operatorIndex.insert({kernel.getKernel(), operatorIndex.size()});
        (void)inserted;
        auto call = fbs::CreateKernelCall(
            fbb, it->second, fbb.CreateVector(*ins), fbb.CreateVector(*outs),
            *params, binds.empty() ? 0 : fbb.CreateVector(binds));
        instruction = fbs::CreateInstruction(
            fbb, fbs::InstructionArgs::KernelCall, call.Union());
      } else if (auto call = dyn_cast<exec::DelegateCallOp>(op)) {
        FailureOr<std::vector<uint32_t>> ins = lookupAll(&op, call.getIns());
        FailureOr<std::vector<uint32_t>> outs = lookupAll(&op, call.getOuts());
        if (failed(ins) || failed(outs))
          return failure();
        auto it = delegateIndex.find(call.getDelegate());
        if (it == delegateIndex.end())
          return op.emitError("unknown delegate @") << call.getDelegate();
        std::vector<uint32_t> extents;
        for (Value extent : call.getExtents()) {
          FailureOr<int32_t> reg = shapes.compile(&op, extent);
          if (failed(reg))
            return failure();
          extents.push_back(static_cast<uint32_t>(*reg));
        }
        auto args = fbs::CreateDelegateCall(
            fbb, it->second, fbb.CreateVector(*ins), fbb.CreateVector(*outs),
            extents.empty() ? 0 : fbb.CreateVector(extents));
        instruction = fbs::CreateInstruction(
            fbb, fbs::InstructionArgs::DelegateCall, args.Union());
      } else if (auto move = dyn_cast<exec::MoveOp>(op)) {
        FailureOr<uint32_t> source = lookup(&op, move.getSource());
        FailureOr<uint32_t> target = lookup(&op, move.getTarget());
        if (failed(source) || failed(target))
          return failure();
        auto args = fbs::CreateMove(fbb, *source, *target);
        instruction = fbs::CreateInstruction(fbb, fbs::InstructionArgs::Move,
                                             args.Union());
      } else {
        return op.emitError("cannot be emitted to the program buffer");
      }
      llvm::SetVector<StringRef> names;
      collectNodeNames(op.getLoc(), names);
      if (!names.empty()) {
        std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
        for (StringRef name : names)
          strings.push_back(fbb.CreateString(name.str()));
        debugHandles.push_back(fbs::CreateDebugHandle(
            fbb, instructions.size(), fbb.CreateVector(strings)));
      }
      instructions.push_back(instruction);
    }

  std::vector<uint64_t> arenas;
  if (arenaSizes)
    arenas.assign(arenaSizes->begin(), arenaSizes->end());
  auto plan = fbs::CreateMemoryPlanDirect(fbb, &arenas);
  // A static method writes neither field, so its bytes stay as they were.
  std::vector<flatbuffers::Offset<fbs::DimSymbol>> symbols =
      shapes.emitSymbols(fbb);
  std::vector<flatbuffers::Offset<fbs::ShapeInstruction>> shapeProgram =
      shapes.emitProgram(fbb);
  auto names = [&](std::optional<ArrayAttr> list)
      -> std::optional<std::vector<flatbuffers::Offset<flatbuffers::String>>> {
    if (!list)
      return std::nullopt;
    std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
    for (Attribute name : *list)
      strings.push_back(fbb.CreateString(cast<StringAttr>(name).str()));
    return strings;
  };
  auto inputNames = names(method.getInputNames());
  auto outputNames = names(method.getOutputNames());
  // The verifier checked each binding's shape: [@state, input, output].
  std::vector<flatbuffers::Offset<fbs::StateBinding>> bindings;
  if (std::optional<ArrayAttr> list = method.getStateBindings())
    for (Attribute entry : *list) {
      auto binding = cast<ArrayAttr>(entry);
      StringRef state = cast<FlatSymbolRefAttr>(binding[0]).getValue();
      bindings.push_back(fbs::CreateStateBinding(
          fbb, stateIndex.lookup(state),
          static_cast<int32_t>(cast<IntegerAttr>(binding[1]).getInt()),
          static_cast<int32_t>(cast<IntegerAttr>(binding[2]).getInt())));
    }
  return fbs::CreateMethodDirect(
      fbb, method.getSymName().str().c_str(), &inputs, &outputs, &values,
      &instructions, plan, &debugHandles, shapes.empty() ? nullptr : &symbols,
      shapes.empty() ? nullptr : &shapeProgram,
      inputNames ? &*inputNames : nullptr,
      outputNames ? &*outputNames : nullptr,
      bindings.empty() ? nullptr : &bindings);
}

LogicalResult Emitter::emitStates() {
  for (auto state : program.getBody().getOps<exec::StateOp>()) {
    FailureOr<flatbuffers::Offset<fbs::TensorType>> type =
        emitType(state, cast<ShapedType>(state.getType()));
    if (failed(type))
      return failure();
    std::vector<int64_t> initial(state.getInitialShape().begin(),
                                 state.getInitialShape().end());
    std::vector<int64_t> permutation;
    if (std::optional<ArrayRef<int64_t>> stored = state.getPermutation())
      permutation.assign(stored->begin(), stored->end());
    stateIndex[state.getSymName()] = states.size();
    states.push_back(fbs::CreateStateDirect(
        fbb, state.getSymName().str().c_str(), *type, &initial,
        permutation.empty() ? nullptr : &permutation));
  }
  return success();
}

LogicalResult Emitter::emitConstants() {
  // The delegates' named data, by hash: a constant with the same bytes (a
  // weight one method reads on the portable kernels and another's delegate
  // stores unpacked) points into that data's segment instead.
  llvm::DenseMap<uint64_t, SmallVector<std::string, 1>> namedBytes;
  for (auto delegate : program.getBody().getOps<exec::DelegateOp>())
    for (NamedAttribute entry : delegate.getNamedData()) {
      FailureOr<std::string> bytes =
          getBytes(delegate, cast<ElementsAttr>(entry.getValue()));
      if (failed(bytes))
        return failure();
      uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(*bytes));
      namedBytes[hash].push_back(std::move(*bytes));
    }
  std::string constantSegment;
  for (auto constant : program.getBody().getOps<exec::ConstantOp>()) {
    FailureOr<std::string> bytes = getBytes(constant, constant.getValue());
    if (failed(bytes))
      return failure();
    auto found = namedBytes.find(llvm::xxh3_64bits(llvm::StringRef(*bytes)));
    if (found != namedBytes.end() && !bytes->empty() &&
        llvm::is_contained(found->second, *bytes)) {
      // Its table is made once the named data has its segment.
      constantIndex[constant.getSymName()] = constants.size();
      sharedConstants.push_back({constant, constants.size()});
      constants.emplace_back();
      continue;
    }
    auto type =
        emitType(constant, cast<ShapedType>(constant.getValue().getType()));
    if (failed(type))
      return failure();
    constantSegment.resize(
        runtime::alignTo(constantSegment.size(), options.constantAlignment),
        '\0');
    uint64_t offset = constantSegment.size();
    constantSegment += *bytes;
    constantIndex[constant.getSymName()] = constants.size();
    // The constant segment is always segment 0 when it exists.
    constants.push_back(
        fbs::CreateConstantDirect(fbb, constant.getSymName().str().c_str(),
                                  *type, 0, offset, bytes->size()));
  }
  if (constants.size() > sharedConstants.size())
    addSegment(std::move(constantSegment));
  return success();
}

LogicalResult Emitter::emitSharedConstants() {
  for (auto [constant, index] : sharedConstants) {
    FailureOr<std::string> bytes = getBytes(constant, constant.getValue());
    auto type =
        emitType(constant, cast<ShapedType>(constant.getValue().getType()));
    if (failed(bytes) || failed(type))
      return failure();
    std::optional<uint32_t> segment;
    for (uint32_t candidate :
         segmentsByHash[llvm::xxh3_64bits(llvm::StringRef(*bytes))])
      if (segmentBytes[candidate] == *bytes)
        segment = candidate;
    if (!segment)
      return constant.emitError("shares its bytes with named data that was "
                                "not emitted");
    constants[index] =
        fbs::CreateConstantDirect(fbb, constant.getSymName().str().c_str(),
                                  *type, *segment, 0, bytes->size());
  }
  return success();
}

LogicalResult Emitter::emitNamedData(exec::DelegateOp delegate) {
  for (NamedAttribute entry : delegate.getNamedData()) {
    FailureOr<std::string> bytes =
        getBytes(delegate, cast<ElementsAttr>(entry.getValue()));
    if (failed(bytes))
      return failure();
    StringRef key = entry.getName().getValue();
    if (auto seen = namedDataSegment.find(key);
        seen != namedDataSegment.end()) {
      if (segmentBytes[seen->second] != *bytes)
        return delegate.emitError("named data '")
               << key << "' is stored twice with different bytes";
      continue;
    }
    // Equal contents share one segment.
    uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(*bytes));
    std::optional<uint32_t> segment;
    for (uint32_t candidate : segmentsByHash[hash])
      if (segmentBytes[candidate] == *bytes)
        segment = candidate;
    if (!segment) {
      segment = addSegment(std::move(*bytes));
      segmentsByHash[hash].push_back(*segment);
    }
    namedDataSegment[key] = *segment;
    namedData.push_back(
        fbs::CreateNamedDataDirect(fbb, key.str().c_str(), *segment));
  }
  return success();
}

LogicalResult Emitter::emitDelegate(exec::DelegateOp delegate) {
  auto specs = emitParams(delegate, delegate.getCompileSpecs());
  if (failed(specs))
    return failure();
  std::string blob;
  if (std::optional<ElementsAttr> processed = delegate.getProcessed()) {
    FailureOr<std::string> bytes = getBytes(delegate, *processed);
    if (failed(bytes))
      return failure();
    blob = std::move(*bytes);
  }
  auto name = fbb.CreateString(delegate.getSymName().str());
  auto backend = fbb.CreateString(delegate.getBackend().str());
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> inlineBlob;
  int32_t segment = -1;
  if (options.delegateBlobsInline)
    inlineBlob = fbb.CreateVector(
        reinterpret_cast<const uint8_t *>(blob.data()), blob.size());
  else if (delegate.getProcessed())
    segment = static_cast<int32_t>(addSegment(std::move(blob)));
  if (failed(emitNamedData(delegate)))
    return failure();
  std::vector<flatbuffers::Offset<fbs::DebugHandle>> handles;
  for (NamedAttribute entry : delegate.getDebugHandles()) {
    unsigned index = 0;
    auto nodes = dyn_cast<ArrayAttr>(entry.getValue());
    if (entry.getName().getValue().getAsInteger(10, index) || !nodes)
      return delegate.emitError("debug handle '")
             << entry.getName().getValue()
             << "' must be an op index mapping to node names";
    std::vector<std::string> names;
    for (Attribute node : nodes)
      if (auto str = dyn_cast<StringAttr>(node))
        names.push_back(str.str());
    handles.push_back(
        fbs::CreateDebugHandle(fbb, index, fbb.CreateVectorOfStrings(names)));
  }
  delegateIndex[delegate.getSymName()] = delegates.size();
  delegates.push_back(fbs::CreateDelegate(fbb, name, backend, *specs,
                                          inlineBlob, segment,
                                          fbb.CreateVector(handles)));
  return success();
}

LogicalResult Emitter::emit(llvm::raw_ostream &os) {
  auto isPowerOfTwo = [](uint64_t v) { return v && !(v & (v - 1)); };
  if (!isPowerOfTwo(options.segmentAlignment) ||
      !isPowerOfTwo(options.constantAlignment))
    return program.emitError("segment and constant alignments must be powers "
                             "of two");

  if (failed(emitConstants()) || failed(emitStates()))
    return failure();
  for (auto delegate : program.getBody().getOps<exec::DelegateOp>())
    if (failed(emitDelegate(delegate)))
      return failure();
  if (failed(emitSharedConstants()))
    return failure();

  std::vector<flatbuffers::Offset<fbs::Method>> methods;
  for (auto method : program.getBody().getOps<exec::MethodOp>()) {
    FailureOr<flatbuffers::Offset<fbs::Method>> emitted = emitMethod(method);
    if (failed(emitted))
      return failure();
    methods.push_back(*emitted);
  }

  std::vector<flatbuffers::Offset<fbs::Operator>> operators;
  for (auto &entry : operatorIndex)
    operators.push_back(
        fbs::CreateOperatorDirect(fbb, entry.first.str().c_str()));

  // Segment offsets count from the segment base; each is aligned.
  std::vector<flatbuffers::Offset<fbs::Segment>> segments;
  uint64_t segmentEnd = 0;
  std::vector<uint64_t> segmentOffsets;
  for (const std::string &bytes : segmentBytes) {
    uint64_t offset = runtime::alignTo(segmentEnd, options.segmentAlignment);
    segmentOffsets.push_back(offset);
    segments.push_back(fbs::CreateSegment(fbb, offset, bytes.size()));
    segmentEnd = offset + bytes.size();
  }

  auto root = fbs::CreateProgramDirect(
      fbb,
      states.empty() ? runtime::kProgramVersion
                     : runtime::kStatefulProgramVersion,
      program.getSymName().str().c_str(), &methods, &operators, &constants,
      &delegates, &segments, &namedData, states.empty() ? nullptr : &states);
  fbs::FinishProgramBuffer(fbb, root);

  runtime::FileHeader header{};
  std::memcpy(header.magic, runtime::kFileMagic, sizeof(header.magic));
  header.headerSize = sizeof(runtime::FileHeader);
  header.headerVersion = runtime::kFileHeaderVersion;
  header.flatbufferOffset = sizeof(runtime::FileHeader);
  header.flatbufferSize = fbb.GetSize();
  header.segmentBaseOffset =
      runtime::alignTo(header.flatbufferOffset + header.flatbufferSize,
                       options.segmentAlignment);
  header.segmentDataSize = segmentEnd;
  header.segmentAlignment = options.segmentAlignment;

  auto pad = [&](uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; ++i)
      os << '\0';
  };
  os.write(reinterpret_cast<const char *>(&header), sizeof(header));
  os.write(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
           fbb.GetSize());
  pad(header.flatbufferOffset + header.flatbufferSize,
      header.segmentBaseOffset);
  uint64_t written = 0;
  for (auto [bytes, offset] : llvm::zip(segmentBytes, segmentOffsets)) {
    pad(written, offset);
    os.write(bytes.data(), bytes.size());
    written = offset + bytes.size();
  }
  return success();
}

LogicalResult strata::emitProgram(exec::ProgramOp program,
                                  llvm::raw_ostream &os,
                                  const EmitOptions &options) {
  return Emitter(program, options).emit(os);
}

void strata::registerProgramEmitTranslation() {
  static llvm::cl::opt<uint64_t> segmentAlignment(
      "segment-alignment",
      llvm::cl::desc("--emit-program: file alignment of each segment"),
      llvm::cl::init(4096));
  static llvm::cl::opt<uint64_t> constantAlignment(
      "constant-alignment",
      llvm::cl::desc("--emit-program: alignment of constants in a segment"),
      llvm::cl::init(64));
  static llvm::cl::opt<bool> delegateBlobsInline(
      "delegate-blobs-inline",
      llvm::cl::desc("--emit-program: keep delegate blobs in the flatbuffer"),
      llvm::cl::init(false));
  TranslateFromMLIRRegistration registration(
      "emit-program", "serialize an exec.program to a .strata program",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        exec::ProgramOp program;
        if (auto direct = dyn_cast<exec::ProgramOp>(op)) {
          program = direct;
        } else {
          auto range = op->getRegion(0).getOps<exec::ProgramOp>();
          if (std::distance(range.begin(), range.end()) != 1)
            return op->emitError(
                "--emit-program needs a module holding exactly one "
                "exec.program");
          program = *range.begin();
        }
        EmitOptions options;
        options.segmentAlignment = segmentAlignment;
        options.constantAlignment = constantAlignment;
        options.delegateBlobsInline = delegateBlobsInline;
        return emitProgram(program, os, options);
      },
      [](DialectRegistry &registry) {
        registry.insert<exec::ExecDialect, func::FuncDialect,
                        affine::AffineDialect, arith::ArithDialect>();
        affine::registerValueBoundsOpInterfaceExternalModels(registry);
      });
}
