//===- FoldConstantData.cpp - data movement of constant weights -----------===//
//
// Exporters leave data movement on initializers in the graph: PyTorch's
// LSTM and GRU exports reorder the gates of every weight with Slice and
// Concat, others transpose or reshape weights. The hl folders only fold
// small constants (shape arithmetic); this pass folds those ops whatever the
// size, on the constants' bytes, into one dense_resource constant, so that
// the program stores the rearranged weights instead of moving them on every
// call. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "HL/IR/HLOpUtils.h"
#include "HL/Transforms/Passes.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace strata::hl {
#define GEN_PASS_DEF_FOLDCONSTANTDATA
#include "HL/Transforms/Passes.h.inc"
} // namespace strata::hl

using namespace mlir;
using namespace strata;
using namespace strata::hl;

namespace {

/// The most bytes one folded constant may hold.
constexpr int64_t kMaxFoldedBytes = int64_t(256) << 20;

/// A constant operand's bytes, row-major, `width` bytes an element.
struct ConstantBytes {
  std::vector<char> bytes;
  ArrayRef<int64_t> shape;
};

/// The bytes of the constant `value` (dense or dense_resource, integer or
/// float elements of whole bytes), or none.
std::optional<ConstantBytes> readConstant(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  size_t width = type.getElementTypeBitWidth() / 8;
  size_t size = width * type.getNumElements();
  ConstantBytes result{std::vector<char>(size), type.getShape()};
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return std::nullopt;
    std::memcpy(result.bytes.data(), blob->getData().data(), size);
    return result;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    if (raw.size() != width)
      return std::nullopt;
    for (size_t i = 0; i < size; i += width)
      std::memcpy(result.bytes.data() + i, raw.data(), width);
  } else {
    if (raw.size() != size)
      return std::nullopt;
    std::memcpy(result.bytes.data(), raw.data(), size);
  }
  return result;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Copies, for every element of a result of `count` extents, the input
/// element at `first + coordinate * step` along each input axis `axis[d]`.
void gatherStrided(const ConstantBytes &in, size_t width,
                   ArrayRef<int64_t> count, ArrayRef<int64_t> inputAxis,
                   ArrayRef<int64_t> first, ArrayRef<int64_t> step,
                   std::vector<char> &out) {
  SmallVector<int64_t> inStrides = stridesOf(in.shape);
  int64_t n = 1;
  for (int64_t c : count)
    n *= c;
  out.resize(n * width);
  SmallVector<int64_t> at(count.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t source = 0;
    for (size_t d = 0; d < count.size(); ++d)
      source += (first[d] + at[d] * step[d]) * inStrides[inputAxis[d]];
    std::memcpy(out.data() + i * width, in.bytes.data() + source * width,
                width);
    for (size_t d = count.size(); d-- > 0;) {
      if (++at[d] < count[d])
        break;
      at[d] = 0;
    }
  }
}

/// The folded bytes of `op` (all operands constant), or none.
std::optional<std::vector<char>> foldBytes(Operation *op, size_t width) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (isa<ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(op)) {
    std::optional<ConstantBytes> in = readConstant(op->getOperand(0));
    if (!in)
      return std::nullopt;
    return std::move(in->bytes);
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    std::optional<ConstantBytes> in = readConstant(transpose.getData());
    if (!in)
      return std::nullopt;
    int64_t rank = in->shape.size();
    SmallVector<int64_t> perm;
    if (std::optional<ArrayRef<int64_t>> given = transpose.getPerm())
      perm.assign(given->begin(), given->end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if (static_cast<int64_t>(perm.size()) != rank)
      return std::nullopt;
    std::vector<char> out;
    gatherStrided(*in, width, resultType.getShape(), perm,
                  SmallVector<int64_t>(rank, 0), SmallVector<int64_t>(rank, 1),
                  out);
    return out;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    std::optional<ConstantBytes> in = readConstant(slice.getData());
    std::optional<SmallVector<int64_t>> starts =
        getConstantIntValues(slice.getStarts());
    std::optional<SmallVector<int64_t>> ends =
        getConstantIntValues(slice.getEnds());
    std::optional<SmallVector<int64_t>> axes =
        getConstantIntValues(slice.getAxes());
    std::optional<SmallVector<int64_t>> steps =
        getConstantIntValues(slice.getSteps());
    if (!in || !starts || !ends || !axes || !steps ||
        starts->size() != axes->size() || ends->size() != axes->size() ||
        steps->size() != axes->size())
      return std::nullopt;
    int64_t rank = in->shape.size();
    SmallVector<int64_t> first(rank, 0), step(rank, 1),
        count(in->shape.begin(), in->shape.end()), identity;
    for (int64_t d = 0; d < rank; ++d)
      identity.push_back(d);
    for (size_t k = 0; k < axes->size(); ++k) {
      int64_t axis = (*axes)[k] < 0 ? (*axes)[k] + rank : (*axes)[k];
      if (axis < 0 || axis >= rank || (*steps)[k] == 0)
        return std::nullopt;
      SliceAxis range = resolveSliceAxis(in->shape[axis], (*starts)[k],
                                         (*ends)[k], (*steps)[k]);
      first[axis] = range.first;
      step[axis] = (*steps)[k];
      count[axis] = range.count;
    }
    if (ArrayRef<int64_t>(count) != resultType.getShape())
      return std::nullopt;
    std::vector<char> out;
    gatherStrided(*in, width, count, identity, first, step, out);
    return out;
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size(), axis = concat.getAxis();
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= shape[d];
    SmallVector<ConstantBytes> parts;
    for (Value input : concat.getInputs()) {
      std::optional<ConstantBytes> part = readConstant(input);
      if (!part || static_cast<int64_t>(part->shape.size()) != rank)
        return std::nullopt;
      parts.push_back(std::move(*part));
    }
    std::vector<char> out;
    out.reserve(resultType.getNumElements() * width);
    for (int64_t o = 0; o < outer; ++o)
      for (const ConstantBytes &part : parts) {
        size_t run = part.shape[axis] * inner * width;
        out.insert(out.end(), part.bytes.begin() + o * run,
                   part.bytes.begin() + (o + 1) * run);
      }
    if (static_cast<int64_t>(out.size()) !=
        resultType.getNumElements() * static_cast<int64_t>(width))
      return std::nullopt;
    return out;
  }
  return std::nullopt;
}

struct FoldConstantDataPass
    : public hl::impl::FoldConstantDataBase<FoldConstantDataPass> {
  void runOnOperation() override {
    // Rounds until nothing folds: a fold's result feeds the next op
    // (LSTM gates: Slice of a weight, then Concat of the slices).
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<Operation *> candidates;
      getOperation().walk([&](Operation *op) {
        if (isCandidate(op))
          candidates.push_back(op);
      });
      for (Operation *op : candidates)
        changed |= fold(op);
    }
  }

  static bool isCandidate(Operation *op) {
    if (!isa<SliceOp, ConcatOp, TransposeOp, ReshapeOp, SqueezeOp, UnsqueezeOp,
             FlattenOp>(op))
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0 ||
        type.getNumElements() * (type.getElementTypeBitWidth() / 8) >
            kMaxFoldedBytes)
      return false;
    // Only ops that move constant data: every operand a constant.
    return llvm::all_of(op->getOperands(),
                        [](Value v) { return matchPattern(v, m_Constant()); });
  }

  bool fold(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    size_t width = type.getElementTypeBitWidth() / 8;
    std::optional<std::vector<char>> bytes = foldBytes(op, width);
    if (!bytes || static_cast<int64_t>(bytes->size()) !=
                      type.getNumElements() * static_cast<int64_t>(width))
      return false;
    OpBuilder builder(op);
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(*bytes), alignof(uint64_t));
    auto attr = DenseResourceElementsAttr::get(type, "folded", std::move(blob));
    Value folded =
        builder.create<hl::ConstantOp>(op->getLoc(), cast<ElementsAttr>(attr));
    op->getResult(0).replaceAllUsesWith(folded);
    SmallVector<Operation *> sources;
    for (Value operand : op->getOperands())
      if (Operation *source = operand.getDefiningOp())
        sources.push_back(source);
    op->erase();
    // The constants read only by this op (intermediate results of earlier
    // rounds among them) are dead now.
    for (Operation *source : sources)
      if (source->use_empty())
        source->erase();
    ++numFolded;
    return true;
  }
};

} // namespace
