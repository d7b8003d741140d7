//===- EdgeIndexOperandOps.cpp - verifiers of ops with index operands -----===//
//
// pad, dynamic_slice and cum_sum take their indices as i64 tensor operands.
// The verifiers check operand shapes always, and the values too when an
// operand is a constant; the kernels check run-time values.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeOps.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace strata;
using namespace strata::edge;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// The values of a constant i64 operand; std::nullopt when not constant.
std::optional<SmallVector<int64_t>> constantValues(Value value) {
  DenseIntElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(llvm::map_range(
      attr.getValues<APInt>(), [](const APInt &v) { return v.getSExtValue(); }));
}

} // namespace

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput()), output = shapeOf(getOutput());
  int64_t rank = input.size();
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOpError("'mode' is \"")
           << mode << "\"; expected constant, reflect, edge or wrap";
  if (static_cast<int64_t>(output.size()) != rank)
    return emitOpError("result rank ")
           << output.size() << " differs from the input rank " << rank;
  if (shapeOf(getPads()) != ArrayRef<int64_t>{2 * rank})
    return emitOpError("'pads' should have shape [")
           << 2 * rank << "] (begins then ends), got ["
           << formatShape(shapeOf(getPads())) << "]";
  if (Value value = getValue()) {
    if (mode != "constant")
      return emitOpError("a padding value needs mode \"constant\"");
    if (cast<ShapedType>(value.getType()).getNumElements() != 1)
      return emitOpError("'value' should hold one element");
  }
  if (auto pads = constantValues(getPads())) {
    SmallVector<int64_t> expected;
    for (int64_t d = 0; d < rank; ++d)
      expected.push_back(input[d] + (*pads)[d] + (*pads)[rank + d]);
    if (ArrayRef<int64_t>(expected) != output)
      return emitOpError("result shape [")
             << formatShape(output) << "] should be ["
             << formatShape(expected) << "] for the constant pads";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicSliceOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicSliceOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput()), output = shapeOf(getOutput());
  if (input.size() != output.size())
    return emitOpError("result rank ")
           << output.size() << " differs from the input rank " << input.size();
  ArrayRef<int64_t> starts = shapeOf(getStarts());
  for (Value bound : {getEnds(), getAxes(), getSteps()})
    if (starts.size() != 1 || shapeOf(bound) != starts)
      return emitOpError("'starts', 'ends', 'axes' and 'steps' should be 1-D "
                         "tensors of one length");
  if (starts[0] > static_cast<int64_t>(input.size()))
    return emitOpError("slices ")
           << starts[0] << " axes of a rank-" << input.size() << " input";
  return success();
}

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::verify() {
  if (cast<ShapedType>(getAxis().getType()).getNumElements() != 1)
    return emitOpError("'axis' should hold one element");
  int64_t rank = shapeOf(getInput()).size();
  if (rank == 0)
    return emitOpError("needs an input of rank 1 or more");
  if (auto axis = constantValues(getAxis()))
    if ((*axis)[0] < -rank || (*axis)[0] >= rank)
      return emitOpError("'axis' ")
             << (*axis)[0] << " is outside [" << -rank << ", " << rank << ")";
  return success();
}
