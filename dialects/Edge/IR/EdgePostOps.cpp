//===- EdgePostOps.cpp - the post-op attribute and fused forms ------------===//
//
// `#edge.post_op<kind, alpha, beta>`, the verifier of the chains that
// convolutions, matmuls, binary, pooling and reduction ops carry in a
// delegated partition, and the verifiers of edge.activation and
// edge.layer_norm (EdgeFused.td).
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgePostOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace strata::edge;

//===----------------------------------------------------------------------===//
// PostOpAttr
//===----------------------------------------------------------------------===//

/// `<kind>` or `<kind, alpha, beta>`: alpha and beta print only where one
/// is not 0.
Attribute PostOpAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<PostOpKind> kind = symbolizePostOpKind(keyword);
  if (!kind) {
    parser.emitError(loc, "unknown post-op '") << keyword << "'";
    return {};
  }
  APFloat alpha(0.0f), beta(0.0f);
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseFloat(APFloat::IEEEsingle(), alpha) || parser.parseComma() ||
       parser.parseFloat(APFloat::IEEEsingle(), beta)))
    return {};
  if (parser.parseGreater())
    return {};
  return PostOpAttr::get(parser.getContext(), *kind, alpha, beta);
}

void PostOpAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyPostOpKind(getKind());
  if (!getAlpha().isZero() || !getBeta().isZero()) {
    printer << ", ";
    printer.printFloat(getAlpha());
    printer << ", ";
    printer.printFloat(getBeta());
  }
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

SmallVector<PostOpAttr> strata::edge::getPostOpSteps(Operation *op) {
  SmallVector<PostOpAttr> steps;
  if (auto chain = op->getAttrOfType<ArrayAttr>("post_ops"))
    for (Attribute step : chain)
      steps.push_back(cast<PostOpAttr>(step));
  return steps;
}

/// Whether `type` holds 8-bit integers (plain or `!quant.uniform` storage).
static bool isEightBit(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (auto q = dyn_cast<quant::QuantizedType>(element))
    element = q.getStorageType();
  return element.isInteger(8);
}

bool strata::edge::isCompatibleWithQuantizedResult(TypeRange inferred,
                                                   TypeRange actual) {
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  if (inferred.front() == actual.front())
    return true;
  auto expected = dyn_cast<RankedTensorType>(inferred.front());
  auto result = dyn_cast<RankedTensorType>(actual.front());
  return expected && result && expected.getShape() == result.getShape() &&
         isEightBit(result);
}

LogicalResult
strata::edge::verifyPostOps(Operation *op, ArrayAttr postOps,
                            ValueRange postOperands,
                            std::initializer_list<PostOpKind> allowed) {
  if (!postOps)
    return postOperands.empty()
               ? success()
               : op->emitOpError("has post operands but no post-op chain");
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  size_t next = 0;
  for (auto [i, attr] : llvm::enumerate(postOps)) {
    auto step = cast<PostOpAttr>(attr);
    PostOpKind kind = step.getKind();
    if (!llvm::is_contained(allowed, kind))
      return op->emitOpError("takes no '")
             << stringifyPostOpKind(kind) << "' post-op";
    if (kind == PostOpKind::Clip &&
        step.getAlpha().compare(step.getBeta()) == APFloat::cmpGreaterThan)
      return op->emitOpError("clip post-op bounds are not ordered");
    if (kind == PostOpKind::Quantize &&
        (i + 1 != postOps.size() || !isEightBit(result)))
      return op->emitOpError("'quantize' must be the last post-op and the "
                             "result 8-bit");
    if (!step.readsOperand())
      continue;
    if (next == postOperands.size())
      return op->emitOpError("post-op ")
             << i << " reads a post operand that is missing";
    auto operand = cast<RankedTensorType>(postOperands[next++].getType());
    if (kind == PostOpKind::Sum && operand.getShape() != result.getShape())
      return op->emitOpError("'sum' post operand must have the result's shape");
    if (kind == PostOpKind::Add &&
        (operand.getRank() != result.getRank() ||
         llvm::any_of(llvm::zip(operand.getShape(), result.getShape()),
                      [](auto dims) {
                        auto [in, out] = dims;
                        return in != out && in != 1;
                      })))
      return op->emitOpError("'add' post operand must broadcast to the "
                             "result with its rank");
  }
  if (next != postOperands.size())
    return op->emitOpError("has ")
           << postOperands.size() << " post operands for " << next
           << " post-ops that read one";
  return success();
}

//===----------------------------------------------------------------------===//
// ActivationOp, LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::verify() {
  PostOpKind kind = getKind().getKind();
  if (kind != PostOpKind::GeluErf && kind != PostOpKind::Swish &&
      kind != PostOpKind::HardSwish && kind != PostOpKind::Relu)
    return emitOpError("kind must be gelu_erf, swish, hardswish or relu");
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 1 || getOutput().getType() != input)
    return emitOpError("result must have the input's type, of rank >= 1");
  int64_t channels = input.getShape().back();
  for (Value v : {getGamma(), getBeta()})
    if (v && cast<RankedTensorType>(v.getType()).getNumElements() != channels)
      return emitOpError("gamma and beta must hold one value per element of "
                         "the last axis (")
             << channels << ")";
  if (getEpsilon().convertToFloat() < 0)
    return emitOpError("epsilon must not be negative");
  return success();
}
