//===- StateLayout.cpp - the strata-edge-state-layout pass ----------------===//
//
// Stores a state that grows along one axis (a KV cache) with that axis
// first, so its filled part is a contiguous prefix the next call appends to
// in place.
//
//===----------------------------------------------------------------------===//
#include "Edge/Transforms/Passes.h"

#include "strata/Support/StateNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace strata::edge {
#define GEN_PASS_DEF_EDGESTATELAYOUT
#include "Edge/Transforms/Passes.h.inc"
} // namespace strata::edge

using namespace mlir;

namespace strata::edge {
namespace {

/// The index of the argument (or result) whose hl.name is `name`, or -1.
int64_t argumentNamed(func::FuncOp func, StringRef name) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, "hl.name"))
      if (attr.getValue() == name)
        return i;
  return -1;
}

int64_t resultNamed(func::FuncOp func, StringRef name) {
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto attr = func.getResultAttrOfType<StringAttr>(i, "hl.name"))
      if (attr.getValue() == name)
        return i;
  return -1;
}

/// The (input, output) name pairs `specs` gives for `func`.
SmallVector<std::pair<std::string, std::string>>
statePairs(func::FuncOp func, ArrayRef<std::string> specs) {
  SmallVector<std::pair<std::string, std::string>> pairs;
  for (const std::string &spec : specs) {
    if (spec == "past-present") {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (auto name = func.getArgAttrOfType<StringAttr>(i, "hl.name"))
          if (std::optional<std::string> present =
                  presentNameFor(name.getValue()))
            pairs.push_back({name.getValue().str(), *present});
      // A method with the present outputs only (a prefill without past
      // inputs) stores them as the methods that read them do.
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        if (auto name = func.getResultAttrOfType<StringAttr>(i, "hl.name"))
          if (name.getValue().starts_with("present.") &&
              !llvm::any_of(pairs, [&](const auto &pair) {
                return pair.second == name.getValue();
              }))
            pairs.push_back({"", name.getValue().str()});
      continue;
    }
    if (auto pair = parseStatePair(spec))
      pairs.push_back({pair->first.str(), pair->second.str()});
  }
  return pairs;
}

/// The one dynamic axis of `type`, or -1 (none, or several).
int64_t growingAxis(RankedTensorType type) {
  int64_t axis = -1;
  for (auto [d, extent] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(extent)) {
      if (axis >= 0)
        return -1;
      axis = d;
    }
  return axis;
}

/// The permutation that moves `axis` first: stored dimension d is the
/// model's dimension permutation[d].
SmallVector<int64_t> axisFirst(int64_t axis, int64_t rank) {
  SmallVector<int64_t> permutation{axis};
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      permutation.push_back(d);
  return permutation;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> result(permutation.size());
  for (auto [d, from] : llvm::enumerate(permutation))
    result[from] = d;
  return result;
}

bool isIdentity(ArrayRef<int64_t> permutation) {
  return llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size()));
}

/// `value` permuted by `permutation` (result dimension d is `value`'s
/// dimension permutation[d]), composed with the transpose that defines it:
/// no op where they cancel, a reshape where only extents of 1 move.
Value permuted(OpBuilder &builder, Location loc, Value value,
               ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> composed(permutation);
  if (auto transpose = value.getDefiningOp<TransposeOp>()) {
    for (int64_t &d : composed)
      d = transpose.getPermutation()[d];
    value = transpose.getInput();
  }
  if (isIdentity(composed))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  if (type.hasStaticShape()) {
    SmallVector<int64_t> moved;
    for (int64_t d : composed)
      if (type.getDimSize(d) != 1)
        moved.push_back(d);
    if (llvm::is_sorted(moved)) {
      SmallVector<int64_t> shape;
      for (int64_t d : composed)
        shape.push_back(type.getDimSize(d));
      if (ArrayRef<int64_t>(shape) == type.getShape())
        return value;
      return builder.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, type.getElementType()), value);
    }
  }
  return builder.create<TransposeOp>(loc, value,
                                     builder.getDenseI64ArrayAttr(composed));
}

/// Points the readers of `logical`, the stored value `stored` transposed
/// back by `toModel`, at `stored` where they only need its extents or
/// transpose it again; erases `logical` when nothing else reads it.
void readStored(TransposeOp logical, Value stored) {
  ArrayRef<int64_t> toModel = logical.getPermutation();
  OpBuilder builder(logical.getContext());
  // Each reader once (an op may read it twice).
  llvm::SetVector<Operation *> users(logical->user_begin(),
                                     logical->user_end());
  for (Operation *user : users) {
    builder.setInsertionPoint(user);
    if (auto transpose = dyn_cast<TransposeOp>(user)) {
      Value composed = permuted(builder, transpose.getLoc(), logical,
                                transpose.getPermutation());
      transpose.replaceAllUsesWith(composed);
      transpose.erase();
    } else if (auto shape = dyn_cast<ShapeOfOp>(user)) {
      // The model's extents are the stored ones, gathered.
      auto storedShape =
          builder.create<ShapeOfOp>(shape.getLoc(), shape.getType(), stored);
      auto order = RankedTensorType::get({static_cast<int64_t>(toModel.size())},
                                         builder.getI64Type());
      auto indices = builder.create<ConstantOp>(
          shape.getLoc(), order, DenseIntElementsAttr::get(order, toModel));
      auto gathered = builder.create<GatherOp>(
          shape.getLoc(), storedShape, indices, builder.getI64IntegerAttr(0));
      shape.replaceAllUsesWith(gathered.getOutput());
      shape.erase();
    } else if (auto dim = dyn_cast<tensor::DimOp>(user)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index || *index < 0 ||
          *index >= static_cast<int64_t>(toModel.size()))
        continue;
      auto storedIndex =
          builder.create<arith::ConstantIndexOp>(dim.getLoc(), toModel[*index]);
      dim.replaceAllUsesWith(
          builder.create<tensor::DimOp>(dim.getLoc(), stored, storedIndex)
              .getResult());
      dim.erase();
    }
  }
  if (logical->use_empty())
    logical.erase();
}

struct EdgeStateLayoutPass
    : public impl::EdgeStateLayoutBase<EdgeStateLayoutPass> {
  using EdgeStateLayoutBase::EdgeStateLayoutBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    std::vector<std::string> specs(states.begin(), states.end());
    SmallVector<NamedAttribute> layouts;
    if (auto existing =
            func->getAttrOfType<DictionaryAttr>(kStatePermutationsAttr))
      layouts.append(existing.begin(), existing.end());
    OpBuilder builder(func.getContext());
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    for (const auto &[inputName, outputName] : statePairs(func, specs)) {
      int64_t in = inputName.empty() ? -1 : argumentNamed(func, inputName);
      int64_t out = resultNamed(func, outputName);
      if (in < 0 && out < 0)
        continue;
      auto type =
          dyn_cast<RankedTensorType>(in >= 0 ? func.getArgument(in).getType()
                                             : func.getResultTypes()[out]);
      if (!type)
        continue;
      int64_t axis = growingAxis(type);
      if (axis <= 0)
        continue;
      if (out >= 0) {
        auto outType = dyn_cast<RankedTensorType>(func.getResultTypes()[out]);
        if (!outType || outType.getRank() != type.getRank() ||
            growingAxis(outType) != axis)
          continue;
      }
      // Already a contiguous prefix: nothing to move.
      if (llvm::all_of(type.getShape().take_front(axis),
                       [](int64_t extent) { return extent == 1; }))
        continue;
      SmallVector<int64_t> toStored = axisFirst(axis, type.getRank());
      SmallVector<int64_t> toModel = inverse(toStored);
      auto storedType = [&](RankedTensorType model) {
        SmallVector<int64_t> shape;
        for (int64_t d : toStored)
          shape.push_back(model.getDimSize(d));
        return RankedTensorType::get(shape, model.getElementType());
      };

      // The input: stored, and transposed back for its readers.
      TransposeOp logical;
      if (in >= 0) {
        BlockArgument arg = func.getArgument(in);
        arg.setType(storedType(type));
        builder.setInsertionPointToStart(&func.getBody().front());
        logical = builder.create<TransposeOp>(
            arg.getLoc(), arg, builder.getDenseI64ArrayAttr(toModel));
        arg.replaceAllUsesExcept(logical, logical);
        if (auto params = func.getArgAttrOfType<ArrayAttr>(in, "hl.dim_params"))
          if (params.size() == toStored.size()) {
            SmallVector<Attribute> stored;
            for (int64_t d : toStored)
              stored.push_back(params[d]);
            func.setArgAttr(in, "hl.dim_params", builder.getArrayAttr(stored));
          }
        layouts.push_back(builder.getNamedAttr(
            inputName, builder.getDenseI64ArrayAttr(toStored)));
      }

      // The output: a concat along the growing axis becomes one along the
      // stored first axis (the append); anything else is transposed.
      if (out >= 0) {
        Value value = ret.getOperand(out);
        auto concat = value.getDefiningOp<ConcatOp>();
        Value stored;
        if (concat && static_cast<int64_t>(concat.getAxis()) == axis) {
          builder.setInsertionPoint(concat);
          SmallVector<Value> parts;
          for (Value part : concat.getInputs())
            parts.push_back(permuted(builder, concat.getLoc(), part, toStored));
          stored = builder.create<ConcatOp>(concat.getLoc(), parts,
                                            builder.getI64IntegerAttr(0));
          auto back = builder.create<TransposeOp>(
              concat.getLoc(), stored, builder.getDenseI64ArrayAttr(toModel));
          SmallVector<Value> before(concat.getInputs());
          concat.replaceAllUsesWith(back.getOutput());
          concat.erase();
          // The new rows' own transposes, composed into the stored ones.
          for (Value part : before)
            if (auto transpose = part.getDefiningOp<TransposeOp>())
              if (transpose != logical && transpose->use_empty())
                transpose.erase();
          ret.setOperand(out, stored);
          readStored(back, stored);
        } else {
          builder.setInsertionPoint(ret);
          ret.setOperand(out, permuted(builder, ret.getLoc(), value, toStored));
        }
        layouts.push_back(builder.getNamedAttr(
            outputName, builder.getDenseI64ArrayAttr(toStored)));
      }
      if (logical)
        readStored(logical, func.getArgument(in));
    }
    if (layouts.empty())
      return;
    func.setType(builder.getFunctionType(func.getBody().getArgumentTypes(),
                                         ret.getOperandTypes()));
    func->setAttr(kStatePermutationsAttr,
                  DictionaryAttr::get(func.getContext(), layouts));
  }
};

} // namespace
} // namespace strata::edge
