//===- HLControlFlowOps.cpp - verifiers of hl.if, hl.loop, hl.scan --------===//
#include "HL/IR/HLOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata::hl;

/// The hl.yield ending `region` (its terminator).
static YieldOp yieldOf(Region &region) {
  return cast<YieldOp>(region.front().getTerminator());
}

LogicalResult IfOp::verify() {
  for (Region *branch : {&getThenBranch(), &getElseBranch()}) {
    YieldOp yield = yieldOf(*branch);
    if (yield.getValues().size() != getNumResults())
      return emitOpError("each branch must yield ")
             << getNumResults() << " values, one yields "
             << yield.getValues().size();
    for (auto [value, result] : llvm::zip(yield.getValues(), getResults()))
      if (getElementTypeOrSelf(value.getType()) !=
          getElementTypeOrSelf(result.getType()))
        return emitOpError("a branch yields element type ")
               << getElementTypeOrSelf(value.getType())
               << " for a result of element type "
               << getElementTypeOrSelf(result.getType());
  }
  return success();
}

LogicalResult LoopOp::verify() {
  Block &body = getBody().front();
  size_t carried = getInitial().size();
  if (body.getNumArguments() != carried + 2)
    return emitOpError("body must take the iteration number, the condition "
                       "and ")
           << carried << " carried values, it takes " << body.getNumArguments()
           << " arguments";
  YieldOp yield = yieldOf(getBody());
  if (yield.getValues().size() < carried + 1)
    return emitOpError("body must yield the condition and ")
           << carried << " carried values";
  size_t scans = yield.getValues().size() - carried - 1;
  if (getNumResults() != carried + scans)
    return emitOpError("expected ")
           << carried + scans << " results (carried values and scan "
           << "outputs), got " << getNumResults();
  return success();
}

LogicalResult ScanOp::verify() {
  int64_t scanInputs = static_cast<int64_t>(getNumScanInputs());
  int64_t inputs = getInputs().size();
  if (scanInputs < 1 || scanInputs > inputs)
    return emitOpError("'num_scan_inputs' must be in [1, ")
           << inputs << "], got " << scanInputs;
  if (getScanInputAxes() &&
      static_cast<int64_t>(getScanInputAxes()->size()) != scanInputs)
    return emitOpError("'scan_input_axes' needs one entry per scan input");
  Block &body = getBody().front();
  if (static_cast<int64_t>(body.getNumArguments()) != inputs)
    return emitOpError("body must take one argument per operand");
  int64_t states = inputs - scanInputs;
  YieldOp yield = yieldOf(getBody());
  if (static_cast<int64_t>(yield.getValues().size()) < states)
    return emitOpError("body must yield the ") << states << " states first";
  if (yield.getValues().size() != getNumResults())
    return emitOpError("expected one result per yielded value (")
           << yield.getValues().size() << "), got " << getNumResults();
  return success();
}

YieldOp FusedOp::getYield() { return yieldOf(getBody()); }

LogicalResult FusedOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body must take one argument per operand (")
           << getInputs().size() << "), it takes " << body.getNumArguments();
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getInputs(), body.getArguments())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError("body argument ")
             << index << " has type " << std::get<1>(pair).getType()
             << ", its operand " << std::get<0>(pair).getType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with hl.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values for " << getNumResults()
           << " results";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(yield.getValues(), getResults())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError("body yields ")
             << std::get<0>(pair).getType() << " for result " << index
             << " of type " << std::get<1>(pair).getType();
  if (getKind().empty())
    return emitOpError("needs a non-empty kind");
  if (std::optional<ArrayAttr> points = getQdqPoints())
    for (Attribute point : *points) {
      auto dict = dyn_cast<DictionaryAttr>(point);
      auto input = dict ? dict.getAs<IntegerAttr>("input") : IntegerAttr();
      if (!input || input.getInt() < 0 ||
          input.getInt() >= static_cast<int64_t>(getInputs().size()))
        return emitOpError("qdq_points entries must be dictionaries with "
                           "an 'input' index below ")
               << getInputs().size();
    }
  return success();
}
