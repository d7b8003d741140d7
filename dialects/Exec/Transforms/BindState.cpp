//===- BindState.cpp - values carried from one call to the next ----------===//
//
// Turns method input/output pairs into program states (exec.state) and the
// methods' state_bindings: what a decoder's past/present KV cache or a
// streaming model's recurrent state needs to live in the runtime rather
// than be passed back by every caller.
//
//===----------------------------------------------------------------------===//
#include "Exec/Transforms/Passes.h"

#include "strata/Support/StateNames.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace strata::exec {
// A pass without dependent dialects leaves getDependentDialects' parameter
// unused in TableGen's generated code; that one warning is off for it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define GEN_PASS_DEF_BINDSTATE
#include "Exec/Transforms/Passes.h.inc"
#pragma GCC diagnostic pop
} // namespace strata::exec

using namespace mlir;
using namespace strata::exec;

namespace {

/// One pair: the output of one call feeds the input of the next.
struct StatePair {
  std::string input, output;
};

/// The name's index in `names`, or -1.
int64_t indexOf(std::optional<ArrayAttr> names, StringRef name) {
  if (names)
    for (auto [index, attr] : llvm::enumerate(*names))
      if (cast<StringAttr>(attr).getValue() == name)
        return static_cast<int64_t>(index);
  return -1;
}

/// The pairs `specs` names for `program`'s methods ("past-present" expanded
/// against their input names).
FailureOr<SmallVector<StatePair>> resolvePairs(ProgramOp program,
                                               ArrayRef<std::string> specs) {
  SmallVector<StatePair> pairs;
  for (const std::string &spec : specs) {
    if (spec == "past-present") {
      llvm::StringSet<> seen;
      for (auto method : program.getBody().getOps<MethodOp>())
        if (std::optional<ArrayAttr> names = method.getInputNames())
          for (Attribute attr : *names) {
            StringRef name = cast<StringAttr>(attr).getValue();
            if (std::optional<std::string> present =
                    strata::presentNameFor(name))
              if (seen.insert(name).second)
                pairs.push_back({name.str(), *present});
          }
      if (pairs.empty())
        return program.emitError("state 'past-present': no method has an "
                                 "input named past_key_values.* or past.*");
      continue;
    }
    auto pair = strata::parseStatePair(spec);
    if (!pair)
      return program.emitError("state '")
             << spec << "' must be IN=OUT (an input and the output that "
             << "feeds it at the next call) or past-present";
    pairs.push_back({pair->first.str(), pair->second.str()});
  }
  return pairs;
}

/// The bound shape of the buffer `value` is (an input's, an allocation's, a
/// constant's type).
FailureOr<SmallVector<int64_t>> boundShapeOf(Value value) {
  if (auto placed = value.getDefiningOp<PlacedBufferOpInterface>())
    return getBoundShape(placed);
  auto type = cast<MemRefType>(value.getType());
  if (!type.hasStaticShape())
    return failure();
  return SmallVector<int64_t>(type.getShape());
}

/// Each extent of input `input` at its start: static ones as they are, a
/// dynamic one at its symbol's lower bound.
SmallVector<int64_t> initialShapeOf(InputOp input, ArrayRef<int64_t> bound) {
  SmallVector<int64_t> shape(bound);
  auto sizes = input.getDynamicSizes().begin();
  for (auto [d, extent] : llvm::enumerate(input.getType().getShape())) {
    if (!ShapedType::isDynamic(extent))
      continue;
    Value size = *sizes++;
    shape[d] = 0;
    if (auto symbol = size.getDefiningOp<DimSymbolOp>())
      shape[d] = std::max<int64_t>(symbol.getLowerBound(), 0);
  }
  return shape;
}

/// The layout `name` is stored in within `method` (the permutation that
/// strata-edge-state-layout recorded), or none: the model's.
SmallVector<int64_t> storedLayout(MethodOp method, StringRef name) {
  if (auto layouts =
          method->getAttrOfType<DictionaryAttr>(strata::kStatePermutationsAttr))
    if (auto permutation = layouts.getAs<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(permutation.asArrayRef());
  return {};
}

/// The state's stored layout, or none.
SmallVector<int64_t> storedLayout(StateOp state) {
  if (std::optional<ArrayRef<int64_t>> permutation = state.getPermutation())
    return SmallVector<int64_t>(*permutation);
  return {};
}

/// The method's exec.input of index `index`.
InputOp inputAt(MethodOp method, int64_t index) {
  for (auto input : method.getBody().getOps<InputOp>())
    if (input.getIndex() == static_cast<uint64_t>(index))
      return input;
  return {};
}

/// The names a method has, for an error: "x, h (inputs); y, h_next (outputs)".
std::string namesOf(ProgramOp program) {
  std::string text;
  for (auto method : program.getBody().getOps<MethodOp>()) {
    auto join = [](std::optional<ArrayAttr> names) {
      SmallVector<StringRef> list;
      if (names)
        for (Attribute attr : *names)
          list.push_back(cast<StringAttr>(attr).getValue());
      return list.empty() ? std::string("none") : llvm::join(list, ", ");
    };
    text += (text.empty() ? "" : "; ") +
            ("method " + method.getSymName() + ": inputs " +
             join(method.getInputNames()) + ", outputs " +
             join(method.getOutputNames()))
                .str();
  }
  return text;
}

} // namespace

LogicalResult strata::exec::bindStates(ProgramOp program,
                                       ArrayRef<std::string> specs) {
  FailureOr<SmallVector<StatePair>> pairs = resolvePairs(program, specs);
  if (failed(pairs))
    return failure();
  OpBuilder builder(program.getContext());
  llvm::StringMap<StateOp> states;
  // A method with the input and the output carries the state; one with
  // the output only starts it (Hugging Face's decoder_model.onnx: a prefill
  // without past inputs), after those that declare it.
  auto bind = [&](MethodOp method, StateOp state, int64_t in, int64_t out) {
    SmallVector<Attribute> bindings;
    if (std::optional<ArrayAttr> existing = method.getStateBindings())
      bindings.append(existing->begin(), existing->end());
    bindings.push_back(builder.getArrayAttr(
        {FlatSymbolRefAttr::get(state.getSymNameAttr()),
         builder.getI64IntegerAttr(in), builder.getI64IntegerAttr(out)}));
    method.setStateBindingsAttr(builder.getArrayAttr(bindings));
  };
  for (const StatePair &pair : *pairs) {
    bool found = false;
    for (auto method : program.getBody().getOps<MethodOp>()) {
      int64_t in = indexOf(method.getInputNames(), pair.input);
      int64_t out = indexOf(method.getOutputNames(), pair.output);
      if (in < 0)
        continue;
      if (out < 0)
        return method.emitError("state '")
               << pair.input << "=" << pair.output << "': method "
               << method.getSymName() << " has input '" << pair.input
               << "' but no output '" << pair.output << "' ("
               << namesOf(program) << ")";
      found = true;
      InputOp input = inputAt(method, in);
      if (!input)
        return method.emitError("state '")
               << pair.input << "': input " << in << " has no exec.input";
      auto ret = cast<ReturnOp>(method.getBody().back().getTerminator());
      FailureOr<SmallVector<int64_t>> inBound = boundShapeOf(input);
      FailureOr<SmallVector<int64_t>> outBound =
          boundShapeOf(ret.getOperand(out));
      if (failed(inBound) || failed(outBound))
        return method.emitError("state '")
               << pair.input << "': the buffers of input " << in
               << " and output " << out << " have no bound shape";
      auto inType = cast<MemRefType>(input.getType());
      auto outType = cast<MemRefType>(ret.getOperand(out).getType());
      if (inType.getElementType() != outType.getElementType() ||
          inType.getRank() != outType.getRank())
        return method.emitError("state '")
               << pair.input << "=" << pair.output << "': input " << inType
               << " and output " << outType << " differ in element type or "
               << "rank";
      SmallVector<int64_t> capacity(*inBound);
      for (auto [c, o] : llvm::zip(capacity, *outBound))
        c = std::max(c, o);
      SmallVector<int64_t> initial = initialShapeOf(input, *inBound);
      SmallVector<int64_t> layout = storedLayout(method, pair.input);
      if (layout != storedLayout(method, pair.output))
        return method.emitError("state '")
               << pair.input << "=" << pair.output
               << "': the input and the output are stored in different "
                  "layouts (--state-in-place=false keeps the model's)";
      StateOp &state = states[pair.input];
      if (!state) {
        // Before the first method, in the order of the pairs.
        builder.setInsertionPoint(
            *program.getBody().getOps<MethodOp>().begin());
        state = builder.create<StateOp>(
            method.getLoc(), builder.getStringAttr(pair.input),
            TypeAttr::get(MemRefType::get(capacity, inType.getElementType())),
            builder.getDenseI64ArrayAttr(initial),
            layout.empty() ? DenseI64ArrayAttr()
                           : builder.getDenseI64ArrayAttr(layout));
      } else {
        // A second method carrying it: the capacity covers both.
        auto known = cast<MemRefType>(state.getType());
        if (known.getElementType() != inType.getElementType() ||
            known.getRank() != inType.getRank() ||
            ArrayRef<int64_t>(initial) != state.getInitialShape() ||
            layout != storedLayout(state))
          return method.emitError("state '")
                 << pair.input << "' has another type, start or layout in "
                 << "method " << method.getSymName()
                 << " (a layout differs where one method's extent is static "
                    "and another's dynamic: --state-in-place=false keeps the "
                    "model's)";
        for (auto [c, k] : llvm::zip(capacity, known.getShape()))
          c = std::max(c, k);
        state.setTypeAttr(
            TypeAttr::get(MemRefType::get(capacity, inType.getElementType())));
      }
      bind(method, state, in, out);
    }
    for (auto method : program.getBody().getOps<MethodOp>()) {
      int64_t in = indexOf(method.getInputNames(), pair.input);
      int64_t out = indexOf(method.getOutputNames(), pair.output);
      StateOp state = states.lookup(pair.input);
      if (in >= 0 || out < 0 || !state)
        continue;
      auto ret = cast<ReturnOp>(method.getBody().back().getTerminator());
      FailureOr<SmallVector<int64_t>> outBound =
          boundShapeOf(ret.getOperand(out));
      auto outType = cast<MemRefType>(ret.getOperand(out).getType());
      auto known = cast<MemRefType>(state.getType());
      if (failed(outBound) ||
          outType.getElementType() != known.getElementType() ||
          outType.getRank() != known.getRank() ||
          storedLayout(method, pair.output) != storedLayout(state))
        return method.emitError("state '")
               << pair.input << "': output " << out << " (" << outType
               << ") does not fit the state (" << known << ")";
      SmallVector<int64_t> capacity(known.getShape());
      for (auto [c, o] : llvm::zip(capacity, *outBound))
        c = std::max(c, o);
      state.setTypeAttr(
          TypeAttr::get(MemRefType::get(capacity, known.getElementType())));
      bind(method, state, -1, out);
    }
    if (!found)
      return program.emitError("state '")
             << pair.input << "=" << pair.output << "': no method has an "
             << "input named '" << pair.input << "' (" << namesOf(program)
             << ")";
  }
  return success();
}

namespace {

struct BindStatePass : public strata::exec::impl::BindStateBase<BindStatePass> {
  using BindStateBase::BindStateBase;
  void runOnOperation() override {
    std::vector<std::string> specs(pairs.begin(), pairs.end());
    if (failed(bindStates(getOperation(), specs)))
      signalPassFailure();
  }
};

} // namespace
