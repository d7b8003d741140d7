//===- EdgeTensorOps.cpp - concat, reshape, transpose, slice --------------===//
//
// The result type is exactly the one the operands and attributes imply:
// ops whose result follows from them infer it (InferTypeOpInterface, whose
// verifier compares it with the actual one), the others' verifiers check
// it. Backends and the portable runtime rely on it and never re-derive
// shapes (EdgeOpUtils.h has the shared helpers). A slice of a slice
// canonicalizes to one slice.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "Edge/IR/EdgeActivationChains.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgePostOps.h"
#include "EdgeOpUtils.h"

#include "strata/Support/ShapeInference.h"
#include "strata/Support/WindowExtent.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::edge;
using namespace strata::edge::detail;

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<ConcatOp>(location);
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty() || !rankedType(inputs.front()))
    return emitError() << "needs at least one ranked input";
  ArrayRef<int64_t> first = rankedType(inputs.front()).getShape();
  int64_t rank = first.size();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= rank)
    return emitError() << "'axis' " << axis << " is outside [0, " << rank
                       << ")";
  SmallVector<int64_t> shape(first);
  shape[axis] = 0;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    RankedTensorType type = rankedType(input);
    if (!type || type.getRank() != rank)
      return emitError() << "input " << index << " has rank "
                         << (type ? type.getRank() : 0) << ", expected "
                         << rank;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != axis && type.getDimSize(dim) != first[dim])
        return emitError() << "input " << index
                           << " differs from input 0 at dimension " << dim;
    if (ShapedType::isDynamic(type.getDimSize(axis)) ||
        ShapedType::isDynamic(shape[axis]))
      shape[axis] = ShapedType::kDynamic;
    else
      shape[axis] += type.getDimSize(axis);
  }
  return pushTensor(inferred, shape, getElementTypeOrSelf(inputs.front()));
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto inputType = cast<ShapedType>(getInput().getType());
  auto outputType = cast<ShapedType>(getOutput().getType());
  if (inputType.getElementType() != outputType.getElementType())
    return emitOpError("requires the same element type for all operands and "
                       "results");
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      outputType.getNumDynamicDims())
    return emitOpError("has ")
           << getDynamicSizes().size() << " dynamic sizes for "
           << outputType.getNumDynamicDims() << " dynamic result dimensions";
  if (inputType.hasStaticShape() && outputType.hasStaticShape() &&
      inputType.getNumElements() != outputType.getNumElements())
    return emitOpError("result has ")
           << outputType.getNumElements() << " elements, input has "
           << inputType.getNumElements();
  return success();
}

LogicalResult FillOp::verify() {
  auto type = cast<ShapedType>(getOutput().getType());
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      type.getNumDynamicDims())
    return emitOpError("has ")
           << getDynamicSizes().size() << " dynamic sizes for "
           << type.getNumDynamicDims() << " dynamic result dimensions";
  bool isFloat = isa<FloatType>(type.getElementType());
  if (isFloat != isa<FloatAttr>(getValue()))
    return emitOpError("value ") << getValue() << " does not suit elements of "
                                 << type.getElementType();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // The same type is the identity when at most one extent is dynamic (the
  // element counts agree); two dynamic extents may trade places.
  if (getInput().getType() == getOutput().getType() &&
      cast<ShapedType>(getType()).getNumDynamicDims() <= 1)
    return getInput();
  auto type = cast<ShapedType>(getOutput().getType());
  if (!type.hasStaticShape())
    return {};
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(type);
  // A resource blob holds row-major data whatever its shape: share it.
  if (auto resource =
          dyn_cast_or_null<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto emitError = inferErrorFor<TransposeOp>(location);
  RankedTensorType inputType = rankedType(adaptor.getInput());
  if (!inputType)
    return emitError() << "needs a ranked input";
  ArrayRef<int64_t> input = inputType.getShape();
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  if (permutation.size() != input.size())
    return emitError() << "'permutation' has " << permutation.size()
                       << " entries, input rank is " << input.size();
  SmallVector<bool> seen(input.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= static_cast<int64_t>(input.size()) || seen[dim])
      return emitError() << "'permutation' is not a permutation of [0, "
                         << input.size() << ")";
    seen[dim] = true;
    shape.push_back(input[dim]);
  }
  return pushTensor(inferred, shape, inputType.getElementType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getOutput().getType());
  if (llvm::equal(getPermutation(), llvm::seq<int64_t>(0, type.getRank())))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(type);
  std::optional<ArrayRef<char>> data = getRawConstantData(adaptor.getInput());
  if (!data)
    return {};
  ArrayRef<int64_t> inShape = shapeOf(getInput());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (elementBytes == 0 || static_cast<int64_t>(data->size()) !=
                               type.getNumElements() * elementBytes)
    return {};
  // Row-major strides of the input, visited in the output's order.
  int64_t rank = type.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  SmallVector<char> out(data->size());
  SmallVector<int64_t> index(rank, 0);
  ArrayRef<int64_t> outShape = type.getShape();
  for (int64_t linear = 0, n = type.getNumElements(); linear < n; ++linear) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * inStrides[getPermutation()[d]];
    std::memcpy(out.data() + linear * elementBytes,
                data->data() + source * elementBytes, elementBytes);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == outShape[d]; --d)
      index[d] = 0;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(
        type, "transposed",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            out, resource.getRawHandle().getBlob()->getDataAlignment()));
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> output = shapeOf(getOutput());
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getOutput()))
    return emitOpError("requires the same element type for all operands and "
                       "results");
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      llvm::count_if(output, ShapedType::isDynamic))
    return emitOpError("has ")
           << getDynamicSizes().size() << " dynamic sizes for "
           << llvm::count_if(output, ShapedType::isDynamic)
           << " dynamic result dimensions";
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  if (output.size() != input.size() || starts.size() != input.size() ||
      steps.size() != input.size())
    return emitOpError("'starts', 'steps' and the result need the input's "
                       "rank ")
           << input.size();
  for (size_t d = 0; d < input.size(); ++d) {
    if (steps[d] == 0)
      return emitOpError("step of dimension ") << d << " is zero";
    // Dynamic extents: the kernel checks the reads at run time.
    if (ShapedType::isDynamic(input[d]) || ShapedType::isDynamic(output[d])) {
      if (starts[d] < 0 ||
          (!ShapedType::isDynamic(input[d]) && starts[d] >= input[d]))
        return emitOpError("dimension ")
               << d << " starts at " << starts[d] << " outside the input";
      continue;
    }
    if (output[d] == 0)
      continue;
    int64_t last = starts[d] + (output[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= input[d] || last < 0 || last >= input[d])
      return emitOpError("dimension ")
             << d << " reads indices " << starts[d] << ".." << last
             << " outside [0, " << input[d] << ")";
  }
  return success();
}

namespace {

/// A unit-step slice of a unit-step slice is one slice of the first input,
/// at the sum of the starts: PyTorch slices a causal mask row- then
/// column-wise (`mask[:n][:, :n]`), which would copy the rows first. The
/// outer slice's extents that read the inner one's (`tensor.dim`) become
/// the inner one's size operands, so the inner slice goes when nothing
/// else reads it.
struct ComposeUnitStepSlices : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp outer,
                                PatternRewriter &rewriter) const override {
    auto inner = outer.getInput().getDefiningOp<SliceOp>();
    auto unit = [](ArrayRef<int64_t> steps) {
      return llvm::all_of(steps, [](int64_t step) { return step == 1; });
    };
    if (!inner || !unit(inner.getSteps()) || !unit(outer.getSteps()))
      return failure();
    ArrayRef<int64_t> input = shapeOf(inner.getInput());
    ArrayRef<int64_t> middle = shapeOf(inner.getOutput());
    ArrayRef<int64_t> output = shapeOf(outer.getOutput());
    SmallVector<int64_t> starts;
    for (auto [d, first, second] :
         llvm::enumerate(inner.getStarts(), outer.getStarts())) {
      starts.push_back(first + second);
      // Only a start that reads an element (an empty static result may
      // start anywhere, which the verifier allows of it alone).
      if (!ShapedType::isDynamic(input[d]) && starts.back() >= input[d] &&
          output[d] != 0)
        return failure();
    }
    SmallVector<Value> sizes;
    for (Value size : outer.getDynamicSizes()) {
      auto dim = size.getDefiningOp<tensor::DimOp>();
      if (!dim || dim.getSource() != inner.getOutput()) {
        sizes.push_back(size);
        continue;
      }
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d || *d < 0 || *d >= static_cast<int64_t>(middle.size()) ||
          !ShapedType::isDynamic(middle[*d]))
        return failure();
      int64_t operand =
          llvm::count_if(middle.take_front(*d), ShapedType::isDynamic);
      sizes.push_back(inner.getDynamicSizes()[operand]);
    }
    rewriter.replaceOpWithNewOp<SliceOp>(
        outer, outer.getType(), inner.getInput(), sizes,
        rewriter.getDenseI64ArrayAttr(starts), outer.getStepsAttr());
    return success();
  }
};

} // namespace

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ComposeUnitStepSlices>(context);
}
