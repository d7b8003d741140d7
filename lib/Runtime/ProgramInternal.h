//===- ProgramInternal.h - loader helpers shared by Program and Method ----===//
#ifndef STRATA_LIB_RUNTIME_PROGRAMINTERNAL_H
#define STRATA_LIB_RUNTIME_PROGRAMINTERNAL_H

#include "strata/Runtime/Program.h"
#include "strata/Runtime/Schema/program_generated.h"

#include <string>
#include <vector>

namespace strata::runtime::detail {

/// An InvalidProgram error.
Error invalid(const std::string &message);

/// Whether the elements of `vector` are aligned for T. The FlatBuffers 2.0
/// verifier aligns only a vector's length prefix (4 bytes), so a damaged
/// offset can leave 8-byte elements misaligned; every [long], [ulong] and
/// [double] is checked before it is read. (Empty vectors are never aligned
/// by the builder, and nothing is read from them.)
template <typename T> bool isAligned(const flatbuffers::Vector<T> *vector) {
  return !vector || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

/// Checks a TensorType (known dtype, sane rank and dimensions) and fills
/// `view`'s dtype and shape.
Error checkTensorType(const fb::TensorType *type, const std::string &where,
                      TensorView &view);

/// Converts schema params (kernel params or compile specs).
Result<Params>
convertParams(const flatbuffers::Vector<flatbuffers::Offset<fb::Param>> *params,
              const std::string &where);

/// A method value after verification.
struct ValueLayout {
  TensorView view; ///< data set for constants, null for arena values.
  bool isConstant = false;
  uint32_t memoryId = 0;
  uint64_t offset = 0;
  /// Per dimension: the shape program register holding its extent, or -1
  /// (static). Empty for a static value, whose `view.shape` is exact; for
  /// a dynamic one `view.shape` holds the bounds.
  std::vector<int32_t> dimRegisters;
};

/// A symbolic extent of a method.
struct SymbolLayout {
  std::string name;
  int64_t min = 0, max = 0;
};

/// One shape program instruction; it writes the register of its index.
struct ShapeInstructionLayout {
  fb::ShapeOp op = fb::ShapeOp::Constant;
  uint32_t lhs = 0, rhs = 0;
  int64_t value = 0;
};

/// An instruction after verification.
struct InstructionLayout {
  enum class Kind {
    Kernel,
    Delegate,
    Move,
    JumpIfFalse,
    Jump
  } kind = Kind::Kernel;
  /// Operator or delegate index; a jump's target instruction.
  uint32_t index = 0;
  /// A jump back to a loop's first instruction: the most times in a row it
  /// may be taken (0 for every other instruction).
  uint64_t maxTrips = 0;
  std::vector<uint32_t> ins, outs;
  Params params;
  std::vector<std::string> nodeNames;
  /// A dynamic delegate call: the shape-program registers of its extents.
  std::vector<uint32_t> extentRegisters;
  /// A kernel call's value-dependent extents: symbol `symbol` is dim `dim`
  /// of output `out`, as the kernel reports it.
  struct BoundExtent {
    uint32_t out = 0, dim = 0, symbol = 0;
  };
  std::vector<BoundExtent> boundExtents;
};

/// A method after every semantic check.
struct MethodLayout {
  std::string name;
  std::vector<uint64_t> arenaSizes;
  std::vector<ValueLayout> values;
  std::vector<uint32_t> inputs, outputs;
  /// The model's names of the inputs and outputs (empty when the program
  /// has none).
  std::vector<std::string> inputNames, outputNames;
  std::vector<InstructionLayout> instructions;
  /// Empty for a method whose values are all static.
  std::vector<SymbolLayout> symbols;
  std::vector<ShapeInstructionLayout> shapeProgram;
  /// Per symbol: bound by a kernel call's result (a value-dependent
  /// extent) rather than by the inputs.
  std::vector<bool> boundByKernel;
  /// The program states the method carries: state `state` feeds input
  /// `input` and takes output `output` (-1: none).
  struct StateBinding {
    uint32_t state = 0;
    int input = -1, output = -1;
  };
  std::vector<StateBinding> stateBindings;

  bool isDynamic() const { return !symbols.empty(); }
};

/// Checks every index, size and offset of `method` and returns its layout.
Result<MethodLayout> layoutMethod(const Program &program,
                                  const fb::Method *method,
                                  const std::string &file);

} // namespace strata::runtime::detail

#endif // STRATA_LIB_RUNTIME_PROGRAMINTERNAL_H
