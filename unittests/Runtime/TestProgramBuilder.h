//===- TestProgramBuilder.h - build .strata buffers in tests ----*- C++ -*-===//
//
// Writes program buffers directly with the FlatBuffers API, so runtime tests
// need no MLIR (they run in the runtime-only and sanitizer builds too). Every
// arena buffer gets its own 64-byte-aligned slot: no memory reuse.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_UNITTESTS_RUNTIME_TESTPROGRAMBUILDER_H
#define STRATA_UNITTESTS_RUNTIME_TESTPROGRAMBUILDER_H

#include "strata/Runtime/Format.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Schema/program_generated.h"
#include "strata/Runtime/Tensor.h"

#include <cstring>
#include <string>
#include <vector>

namespace strata::runtime::testing {

class TestProgramBuilder {
public:
  /// A method input (an arena buffer bound to the next input index).
  int addInput(DType dtype, std::vector<int64_t> shape) {
    int id = addBuffer(dtype, std::move(shape));
    inputs_.push_back(id);
    return id;
  }
  /// A temporary arena buffer.
  int addBuffer(DType dtype, std::vector<int64_t> shape) {
    Value v{dtype, std::move(shape), false, 0, 0, 0};
    v.offset = arenaSize_;
    arenaSize_ = alignTo(arenaSize_ + bytes(v), 64);
    values_.push_back(v);
    return static_cast<int>(values_.size() - 1);
  }
  /// A constant with `data` (its size must match the type).
  int addConstant(DType dtype, std::vector<int64_t> shape, const void *data,
                  const std::string &name = "") {
    Constant c{name.empty() ? "c" + std::to_string(constants_.size()) : name,
               dtype,
               shape,
               {}};
    c.data.assign(static_cast<const uint8_t *>(data),
                  static_cast<const uint8_t *>(data) +
                      numElements(shape) * dtypeSize(dtype));
    constants_.push_back(c);
    Value v{dtype,
            std::move(shape),
            true,
            0,
            static_cast<uint64_t>(constants_.size() - 1),
            0};
    values_.push_back(v);
    return static_cast<int>(values_.size() - 1);
  }
  void addKernel(const std::string &kernel, std::vector<int> ins,
                 std::vector<int> outs, std::vector<Param> params = {},
                 std::vector<std::string> nodes = {}) {
    instructions_.push_back({0, kernel, std::move(ins), std::move(outs),
                             std::move(params), std::move(nodes), 0});
  }
  /// Makes the last kernel call bind symbols `symbols` (indices into the
  /// dim symbols): value-dependent extents of its outputs.
  void setBinds(std::vector<uint32_t> symbols) {
    instructions_.back().binds = std::move(symbols);
  }
  /// A delegate (blob in a segment) and a call of it.
  int addDelegate(const std::string &name, const std::string &backend,
                  std::vector<uint8_t> blob, std::vector<Param> specs = {}) {
    delegates_.push_back({name, backend, std::move(blob), std::move(specs)});
    return static_cast<int>(delegates_.size() - 1);
  }
  void addDelegateCall(int delegate, std::vector<int> ins,
                       std::vector<int> outs) {
    instructions_.push_back(
        {1, "", std::move(ins), std::move(outs), {}, {}, delegate});
  }
  void addMove(int source, int target) {
    instructions_.push_back({2, "", {source}, {target}, {}, {}, 0});
  }
  /// Continue at instruction `target` when value `condition` is false.
  void addJumpIfFalse(int condition, int target) {
    instructions_.push_back({3, "", {condition}, {}, {}, {}, target});
  }
  /// Continue at instruction `target`; a loop's jump back states
  /// `maxTrips`.
  void addJump(int target, uint64_t maxTrips = 0) {
    instructions_.push_back({4, "", {}, {}, {}, {}, target, {}, maxTrips});
  }
  void setOutputs(std::vector<int> outputs) { outputs_ = std::move(outputs); }

  // Dynamic dimensions (docs/dynamic-shapes.md).
  /// A dim symbol and the shape instruction reading it; returns its
  /// register.
  int addSymbol(const std::string &name, int64_t min, int64_t max) {
    symbols_.push_back({name, min, max});
    return addShapeOp(fb::ShapeOp::Symbol, 0, 0,
                      static_cast<int64_t>(symbols_.size() - 1));
  }
  /// A shape instruction; returns its register.
  int addShapeOp(fb::ShapeOp op, uint32_t lhs, uint32_t rhs,
                 int64_t value = 0) {
    shapeProgram_.push_back({op, lhs, rhs, value});
    return static_cast<int>(shapeProgram_.size() - 1);
  }
  /// Makes value `id`'s dimensions dynamic: `registers[d]` >= 0 names the
  /// register of dim d's extent (its shape holds the bound).
  void setDimRegisters(int id, std::vector<int32_t> registers) {
    values_[id].dimRegisters = std::move(registers);
  }

  // Hooks that write what a damaged or hostile file would hold.
  /// An arena value at an explicit memory id and offset.
  int addArenaValue(DType dtype, std::vector<int64_t> shape, uint32_t memoryId,
                    uint64_t offset) {
    values_.push_back({dtype, std::move(shape), false, offset, 0, memoryId});
    return static_cast<int>(values_.size() - 1);
  }
  /// A constant value referring to constant `index` (which may not exist).
  int addConstantRef(DType dtype, std::vector<int64_t> shape, uint64_t index) {
    values_.push_back({dtype, std::move(shape), true, 0, index, 0});
    return static_cast<int>(values_.size() - 1);
  }
  /// Added to every operator index of kernel calls.
  uint32_t operatorIndexBias = 0;
  /// A debug handle for instruction `first` (which may not exist).
  std::vector<std::pair<uint32_t, std::string>> extraDebugHandles;
  uint32_t version = kProgramVersion;
  /// The method's input and output names (none when empty).
  std::vector<std::string> inputNames, outputNames;
  /// Write delegate blobs inside the flatbuffer instead of in segments.
  bool inlineBlobs = false;
  /// Method arena size (0: what the buffers need).
  uint64_t arenaSizeOverride = 0;
  /// Program states (Program.states; set `version` to
  /// kStatefulProgramVersion with them) and the method's bindings.
  struct State {
    std::string name;
    DType dtype;
    std::vector<int64_t> capacity, initial;
    /// The stored layout (State.permutation; empty: the model's).
    std::vector<int64_t> permutation = {};
  };
  std::vector<State> states;
  struct StateBinding {
    uint32_t state;
    int input, output;
  };
  std::vector<StateBinding> stateBindings;
  /// More methods, each the same as "forward" under another name.
  std::vector<std::string> extraMethodNames;
  /// The file bytes.
  std::vector<uint8_t> build(uint64_t segmentAlignment = 4096) const;

private:
  struct Value {
    DType dtype;
    std::vector<int64_t> shape;
    bool constant;
    uint64_t offset;
    uint64_t constantIndex;
    uint32_t memoryId;
    std::vector<int32_t> dimRegisters = {};
  };
  struct Symbol {
    std::string name;
    int64_t min, max;
  };
  struct ShapeInstruction {
    fb::ShapeOp op;
    uint32_t lhs, rhs;
    int64_t value;
  };
  std::vector<Symbol> symbols_;
  std::vector<ShapeInstruction> shapeProgram_;
  struct Constant {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;
  };
  struct Instruction {
    int kind;
    std::string kernel;
    std::vector<int> ins, outs;
    std::vector<Param> params;
    std::vector<std::string> nodes;
    int delegate;
    std::vector<uint32_t> binds = {};
    uint64_t maxTrips = 0;
  };
  struct Delegate {
    std::string name, backend;
    std::vector<uint8_t> blob;
    std::vector<Param> specs;
  };
  static uint64_t bytes(const Value &v) {
    return numElements(v.shape) * dtypeSize(v.dtype);
  }

  std::vector<Value> values_;
  std::vector<Constant> constants_;
  std::vector<Instruction> instructions_;
  std::vector<Delegate> delegates_;
  std::vector<int> inputs_, outputs_;
  uint64_t arenaSize_ = 0;
};

/// conv2d (constant weights and bias) -> relu -> max_pool2d -> reshape ->
/// matmul (constant weights) -> softmax on a [1, 1, 4, 4] input: every kind
/// of value and several kernels, with debug handles.
std::vector<uint8_t> buildSampleNetwork();

/// A run-time loop: inputs n, zero, one (i64 scalars); i = zero; while
/// (i < n) i = i + one; returns i. Instruction 1 is the loop's header; the
/// jump at instruction 5 goes to `backTo` stating `maxTrips`.
TestProgramBuilder buildCountingLoop(uint64_t maxTrips, int backTo = 1);

/// A stateful program: present = concat(past, k) on axis 0, past f32[p <=
/// 3, 2] fed from state "past" (capacity [4, 2], starting empty), k f32[1,
/// 2]; present [p + 1, 2] becomes the state.
TestProgramBuilder buildGrowingCache();

/// The growing cache stored transposed: the model's state is f32[2, p]
/// (permutation {1, 0}), stored [p, 2] so that the concat on axis 0
/// appends to it; scores = q [1, 2] x the model's [2, p + 1], read from the
/// present through rhs_permutation {1, 0}, is a second output.
TestProgramBuilder buildStoredCache();

/// A kernel param `name` of `kind` whose `field` holds `value`.
template <typename Field, typename Value>
inline Param makeParam(const std::string &name, Param::Kind kind,
                       Field Param::*field, Value value) {
  Param p;
  p.name = name;
  p.kind = kind;
  p.*field = std::move(value);
  return p;
}

/// Shorthands for kernel params.
inline Param intsParam(const std::string &name, std::vector<int64_t> v) {
  return makeParam(name, Param::Kind::IntList, &Param::ints, std::move(v));
}
inline Param intParam(const std::string &name, int64_t v) {
  return makeParam(name, Param::Kind::Int, &Param::intValue, v);
}
inline Param boolParam(const std::string &name, bool v) {
  return makeParam(name, Param::Kind::Bool, &Param::intValue, int64_t(v));
}
inline Param floatParam(const std::string &name, double v) {
  return makeParam(name, Param::Kind::Float, &Param::floatValue, v);
}
inline Param floatsParam(const std::string &name, std::vector<double> v) {
  return makeParam(name, Param::Kind::FloatList, &Param::floats, std::move(v));
}
inline Param stringParam(const std::string &name, std::string v) {
  return makeParam(name, Param::Kind::String, &Param::stringValue,
                   std::move(v));
}

/// `params` of the window kernel `kernel` (conv2d, deform_conv2d,
/// conv_transpose2d, max_pool2d, avg_pool2d, quantized_conv2d) completed
/// with ONNX's defaults for each attribute it lacks, as the compiler states
/// every one (the kernels refuse a program that leaves one out).
inline std::vector<Param> windowParams(const std::string &kernel,
                                       std::vector<Param> params) {
  auto add = [&](Param p) {
    for (const Param &given : params)
      if (given.name == p.name)
        return;
    params.push_back(std::move(p));
  };
  add(intsParam("strides", {1, 1}));
  add(intsParam("dilations", {1, 1}));
  add(intsParam("pads", {0, 0, 0, 0}));
  if (kernel == "max_pool2d" || kernel == "avg_pool2d")
    add(boolParam("ceil_mode", false));
  else
    add(intParam("group", 1));
  if (kernel == "avg_pool2d")
    add(boolParam("count_include_pad", false));
  if (kernel == "deform_conv2d")
    add(intParam("offset_group", 1));
  if (kernel == "conv_transpose2d")
    add(intsParam("output_padding", {0, 0}));
  return params;
}

} // namespace strata::runtime::testing

#endif // STRATA_UNITTESTS_RUNTIME_TESTPROGRAMBUILDER_H
