//===- Program.h - verified programs and executable methods -------*- C++
//-*-===//
//
// DataLoader -> Program::load (header, FlatBuffers verifier, semantic checks)
// -> Program::loadMethod (memory from the plan, kernels resolved, delegates
// initialised) -> Method::execute. Nothing in a file is trusted: every index,
// size and offset is checked before it is used, and errors name the field.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_PROGRAM_H
#define STRATA_RUNTIME_PROGRAM_H

#include "strata/Runtime/Backend.h"
#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Error.h"
#include "strata/Runtime/Format.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace strata::fb {
struct Program;
struct Method;
} // namespace strata::fb

namespace strata::runtime {

/// How much Program::load checks up front.
enum class Verification {
  /// Header, FlatBuffers structural verifier, identifier, version and the
  /// segment table. Methods are checked when they are loaded.
  Minimal,
  /// Minimal plus the semantic checks of every method and constant (indices
  /// in range, sizes and offsets consistent, buffers inside their arenas).
  Full,
};

class Method;

/// What a stateful program's methods carry from one call to the next (a KV
/// cache, a recurrent state): per state, a buffer at its capacity, its
/// current shape and its bytes. The methods loaded from one Program share
/// its state (Program::state()); Program::newState() makes another (a second
/// conversation). Not thread-safe: one call at a time per state.
class ProgramState {
public:
  ProgramState(const ProgramState &) = delete;
  ProgramState &operator=(const ProgramState &) = delete;
  ~ProgramState();

  size_t size() const { return slots_.size(); }
  /// The state's name ("" when out of range).
  const std::string &name(size_t index) const;
  /// The index of the state named `name`, or -1.
  int find(const std::string &name) const;
  /// State `index` at its current shape, in the layout it is stored in
  /// (permutation()); its bytes in place, valid while this state lives (a
  /// null view when out of range).
  TensorView view(size_t index) const;
  /// The layout state `index` is stored in: stored dimension d is the
  /// model's dimension permutation[d] (a KV cache stored with its growing
  /// axis first, appended to in place); empty: the model's layout.
  const std::vector<int64_t> &permutation(size_t index) const;
  /// State `index`'s current shape in the model's layout.
  std::vector<int64_t> shape(size_t index) const;
  /// Copies state `index` to `out`, in the model's layout: shape(index)'s
  /// elements, row-major.
  void read(size_t index, void *out) const;
  /// State `index`'s capacity, in the stored layout: the largest shape it
  /// holds.
  const std::vector<int64_t> &capacity(size_t index) const;
  /// Copies `value`, in the model's layout, into state `index`: its dtype
  /// and rank, each extent within the capacity; fails naming the state
  /// otherwise.
  Error set(size_t index, const TensorView &value);
  /// Every state back to its initial shape, its bytes zero.
  void reset();

private:
  friend class Program;
  friend class Method;
  ProgramState() = default;
  /// set() for a value in the stored layout (a method's output).
  Error setStored(size_t index, const TensorView &value);
  /// A method appended to state `index` in place: its bytes are there, its
  /// stored shape becomes `shape` (within the capacity).
  void setStoredShape(size_t index, const std::vector<int64_t> &shape);
  struct Slot {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> capacity, initial, shape, permutation;
    uint8_t *data = nullptr;
    size_t bytes = 0;
  };
  std::vector<Slot> slots_;
};

/// A loaded, verified program. It borrows the DataLoader, which must outlive
/// it and every Method loaded from it.
class Program {
public:
  /// Loads and verifies the program `loader` serves.
  static Result<Program> load(DataLoader &loader,
                              Verification verification = Verification::Full);

  /// The exec.program's name.
  std::string name() const;
  size_t methodCount() const;
  /// Name of method `index` (empty when out of range).
  std::string methodName(size_t index) const;
  /// Whether the program has a method named `name`.
  bool hasMethod(const std::string &name) const;
  /// The method a caller runs by default: "forward" if the program has it,
  /// else its first method (empty for a program without methods).
  std::string defaultMethodName() const;

  /// Prepares method `name` for execution with the given registries (the
  /// portable kernels and no backends by default). Fails with the name of a
  /// missing kernel or backend, or of the field that does not verify.
  /// A stateful program's methods carry `state` (null: the program's own,
  /// shared by every method loaded without one).
  Result<Method> loadMethod(const std::string &name,
                            const KernelRegistry *kernels = nullptr,
                            const BackendRegistry *backends = nullptr,
                            std::shared_ptr<ProgramState> state = {}) const;

  /// The state the methods carry between calls (null for a stateless
  /// program): shared by every method loaded without a state of its own.
  const std::shared_ptr<ProgramState> &state() const { return state_; }
  /// A fresh state at the initial shapes (null for a stateless program).
  std::shared_ptr<ProgramState> newState() const;

  size_t constantCount() const;
  /// Constant `index` as a read-only view into its segment (no copy).
  Result<TensorView> constant(size_t index) const;
  /// The name of constant `index`.
  std::string constantName(size_t index) const;

  /// The raw flatbuffer root (for strata-dump).
  const fb::Program *flatbuffer() const { return program_; }
  const FileHeader &header() const { return header_; }
  /// The segment data (from FileHeader.segmentBaseOffset to the end).
  ByteSpan segmentData() const { return segments_; }
  /// Bytes of segment `index`; fails when out of range.
  Result<ByteSpan> segment(size_t index) const;
  /// The named data stored under `key` (delegates' pre-packed weights).
  Result<ByteSpan> namedData(const std::string &key) const;

private:
  Program() = default;
  Error verifyMethod(const fb::Method *method) const;
  Error verifyConstants() const;
  Error verifyNamedData() const;
  Error verifyStates() const;

  DataLoader *loader_ = nullptr;
  FileHeader header_{};
  ByteSpan flatbufferBytes_;
  ByteSpan segments_;
  const fb::Program *program_ = nullptr;
  std::shared_ptr<ProgramState> state_;
};

/// An executable method: its arenas, resolved kernels and delegate handles.
/// Move-only; destroying it destroys its delegate handles.
class Method {
public:
  Method(Method &&) noexcept;
  Method &operator=(Method &&) noexcept;
  ~Method();

  const std::string &name() const;
  size_t inputCount() const;
  size_t outputCount() const;
  /// The model's name of input or output `index` ("" when the program
  /// names none).
  const std::string &inputName(size_t index) const;
  const std::string &outputName(size_t index) const;

  /// Input `index` as a writable view into the arena at its current shape
  /// (write it in place); the input reads the arena again if it was bound.
  Result<TensorView> input(size_t index);
  /// Copies `value` into input `index`; fails when the dtype or shape
  /// differs from the method's, naming both. A dynamic dimension takes any
  /// extent within its symbol's bounds; the value's shape becomes the
  /// input's current shape.
  Error setInput(size_t index, const TensorView &value);
  /// setInput, but with `bind` the method reads `value`'s memory where it
  /// is, without a copy, where it can: nothing in the method writes that
  /// input, the data is aligned to its element size and lies outside the
  /// method's arenas (a view of an output is copied). True when bound: the
  /// caller then keeps that memory alive and unchanged until the input is
  /// set again, input() or setInputShape() is called, or releaseInputs().
  /// An output that is a bound input reads the caller's memory until then.
  /// False when copied.
  Result<bool> setInput(size_t index, const TensorView &value, bool bind);
  /// The index of the state input `index` is fed from (the method's
  /// ProgramState), or -1 for an input the caller sets. setInput refuses a
  /// state's input.
  int inputState(size_t index) const;
  /// The index of the state output `index` updates after each call, or -1.
  int outputState(size_t index) const;
  /// The state this method carries (null when it carries none).
  ProgramState *state() const;
  /// The states this method appends to in place (a KV cache stored with
  /// its growing axis first, extended by a concat): each call writes only
  /// its new rows into the state's buffer, and nothing is copied after it.
  std::vector<std::string> statesAppendedInPlace() const;
  /// Where input `index` is read from now: the arena, or the memory bound
  /// to it.
  const void *inputData(size_t index) const;
  /// Every bound input reads the arena again (whose bytes are then what
  /// the arena held: set the inputs before the next execute).
  void releaseInputs();
  /// Sets input `index`'s current shape (within its bounds), to write it
  /// in place through input() (a bound input reads the arena again).
  Error setInputShape(size_t index, const std::vector<int64_t> &shape);
  /// Whether the method has dynamic dimensions (docs/dynamic-shapes.md).
  bool isDynamic() const;
  /// Input `index`'s type with its bounds: "f32[batch: 1..8, 4]".
  std::string inputTypeString(size_t index) const;
  /// A dynamic method's symbols with their bounds, in the program's order
  /// (empty for a static method).
  struct DimSymbol {
    std::string name;
    int64_t min = 0, max = 0;
    /// A value-dependent extent (NonZero's count): a kernel sets it at run
    /// time, no input does.
    bool boundByKernel = false;
  };
  std::vector<DimSymbol> dimSymbols() const;
  /// Input `index`'s shape when symbol `i` has extent `extents[i]` (one per
  /// dimSymbols() entry): its static extents as they are.
  std::vector<int64_t> inputShapeAt(size_t index,
                                    const std::vector<int64_t> &extents) const;
  /// Output `index` at its shape in the last execute (valid until the
  /// next execute).
  Result<TensorView> output(size_t index) const;

  /// Runs every instruction in order. A stateful method first feeds its
  /// state inputs from the state (in place where it can), and after a
  /// successful run copies its state outputs into the state (a failed run
  /// leaves the state as it was).
  Error execute();

  size_t instructionCount() const;
  /// "kernel conv2d", "delegate onednn_0", "move".
  std::string instructionLabel(size_t index) const;
  /// The ONNX node names instruction `index` came from.
  const std::vector<std::string> &instructionNodeNames(size_t index) const;
  /// Turns per-instruction timing on or off (off by default).
  void setProfiling(bool enabled);
  /// Nanoseconds each instruction took in the last execute (profiling on).
  const std::vector<uint64_t> &instructionTimesNs() const;
  /// The steps inside delegate call `index` in the last execute with
  /// profiling on (empty for kernels, moves, and delegates that do not
  /// time their steps).
  const std::vector<DelegateOpProfile> &delegateProfile(size_t index) const;
  /// Bytes of each arena.
  std::vector<size_t> arenaSizes() const;

private:
  friend class Program;
  struct Impl;
  explicit Method(std::unique_ptr<Impl> impl);
  /// The instructions, without the state's feeding and update.
  Error run();
  std::unique_ptr<Impl> impl_;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_PROGRAM_H
