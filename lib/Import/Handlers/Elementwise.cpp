//===- Elementwise.cpp - ONNX elementwise operators to hl -----------------===//
//
// Unary and binary ops map 1:1 (generic handlers). Normalisations here:
// variadic Sum/Max/Min/Mean become chains of binary ops, Clip-6 attribute
// bounds become operands, CastLike becomes Cast.
//
//===----------------------------------------------------------------------===//
#include "../ImportContext.h"

#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace strata::importer {

/// The broadcast type of two operands (unranked when a rank is unknown).
static Type broadcastType(Value lhs, Value rhs, Type element) {
  auto l = dyn_cast<RankedTensorType>(lhs.getType());
  auto r = dyn_cast<RankedTensorType>(rhs.getType());
  if (l && r)
    if (auto shape = broadcastShapes(l.getShape(), r.getShape());
        succeeded(shape))
      return RankedTensorType::get(*shape, element);
  return UnrankedTensorType::get(element);
}

/// Folds the variadic inputs of Sum/Max/Min/Mean into a chain of `OpTy`; the
/// last op gets the inferred output type.
template <typename OpTy> static FailureOr<Value> chain(NodeContext &ctx) {
  SmallVector<Value> inputs = ctx.presentInputs();
  if (inputs.empty())
    return ctx.emitError() << "needs at least one input", failure();
  Type resultType = ctx.outputType(0);
  Value acc = inputs.front();
  for (size_t i = 1; i < inputs.size(); ++i) {
    Type type = i + 1 == inputs.size()
                    ? resultType
                    : broadcastType(acc, inputs[i],
                                    getElementTypeOrSelf(acc.getType()));
    acc = ctx.create<OpTy>(type, acc, inputs[i]);
  }
  if (inputs.size() == 1 && acc.getType() != resultType)
    acc = ctx.create<hl::IdentityOp>(resultType, acc);
  return acc;
}

template <typename OpTy>
static LogicalResult convertVariadic(NodeContext &ctx) {
  FailureOr<Value> result = chain<OpTy>(ctx);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Mean: a chain of adds divided by the number of inputs.
static LogicalResult convertMean(NodeContext &ctx) {
  FailureOr<Value> sum = chain<hl::AddOp>(ctx);
  if (failed(sum))
    return failure();
  Type element = getElementTypeOrSelf(sum->getType());
  Value count =
      ctx.constScalar(element, static_cast<double>(ctx.presentInputs().size()));
  ctx.setOutput(0, ctx.create<hl::DivOp>(ctx.outputType(0), *sum, count));
  return success();
}

/// Clip: bounds as optional operands (attributes before opset 11).
static LogicalResult convertClip(NodeContext &ctx) {
  Value input = ctx.input(0);
  Value min, max;
  if (ctx.opset() < 11) {
    Type element = getElementTypeOrSelf(input.getType());
    if (ctx.attr("min"))
      min = ctx.constScalar(element, ctx.getFloat("min", 0));
    if (ctx.attr("max"))
      max = ctx.constScalar(element, ctx.getFloat("max", 0));
  } else {
    min = ctx.input(1);
    max = ctx.input(2);
  }
  ctx.setOutput(0, ctx.create<hl::ClipOp>(ctx.outputType(0), input, min, max));
  return success();
}

/// Cast and CastLike: the target element type is the result's.
static LogicalResult convertCast(NodeContext &ctx) {
  Type element;
  if (ctx.opType() == "CastLike") {
    element = getElementTypeOrSelf(ctx.input(1).getType());
  } else {
    element = convertElementType(ctx.getInt("to", 0), ctx.getContext());
    if (!element)
      return ctx.emitError()
             << "unsupported target type " << ctx.getInt("to", 0);
  }
  if (auto type = dyn_cast<RankedTensorType>(ctx.input(0).getType()))
    ctx.refineOutputShape(0, type.getShape(), element);
  Type resultType = ctx.outputType(0, element);
  ctx.setOutput(0, ctx.create<hl::CastOp>(resultType, ctx.input(0)));
  return success();
}

void populateElementwiseHandlers(OpTable &t) {
  // Opset-1 schemas only differ by the legacy `consumed_inputs` attribute.
  StringRef legacy[] = {"consumed_inputs"};
  t.on("Relu", 1, generic<hl::ReluOp>(legacy));
  t.on("Identity", 1, generic<hl::IdentityOp>());
  t.on("Abs", 1, generic<hl::AbsOp>(legacy));
  t.on("Neg", 1, generic<hl::NegOp>(legacy));
  t.on("Sign", 9, generic<hl::SignOp>());
  t.on("Not", 1, generic<hl::NotOp>());
  t.on("Exp", 1, generic<hl::ExpOp>(legacy));
  t.on("Log", 1, generic<hl::LogOp>(legacy));
  t.on("Sqrt", 1, generic<hl::SqrtOp>(legacy));
  t.on("Reciprocal", 1, generic<hl::ReciprocalOp>(legacy));
  t.on("Sigmoid", 1, generic<hl::SigmoidOp>(legacy));
  t.on("Tanh", 1, generic<hl::TanhOp>(legacy));
  t.on("Ceil", 1, generic<hl::CeilOp>(legacy));
  t.on("Floor", 1, generic<hl::FloorOp>(legacy));
  t.on("Round", 11, generic<hl::RoundOp>());
  t.on("Erf", 9, generic<hl::ErfOp>());
  t.on("Sin", 7, generic<hl::SinOp>());
  t.on("Cos", 7, generic<hl::CosOp>());
  t.on("Tan", 7, generic<hl::TanOp>());
  t.on("Asin", 7, generic<hl::AsinOp>());
  t.on("Acos", 7, generic<hl::AcosOp>());
  t.on("Atan", 7, generic<hl::AtanOp>());
  t.on("Sinh", 9, generic<hl::SinhOp>());
  t.on("Cosh", 9, generic<hl::CoshOp>());
  t.on("Asinh", 9, generic<hl::AsinhOp>());
  t.on("Acosh", 9, generic<hl::AcoshOp>());
  t.on("Atanh", 9, generic<hl::AtanhOp>());
  t.on("Softsign", 1, generic<hl::SoftsignOp>());
  t.on("Softplus", 1, generic<hl::SoftplusOp>());
  t.on("HardSwish", 14, generic<hl::HardSwishOp>());
  t.on("LeakyRelu", 1, generic<hl::LeakyReluOp>(legacy));
  t.on("Elu", 1, generic<hl::EluOp>(legacy));
  t.on("Celu", 12, generic<hl::CeluOp>());
  t.on("ThresholdedRelu", 10, generic<hl::ThresholdedReluOp>());
  t.on("Selu", 1, generic<hl::SeluOp>(legacy));
  t.on("HardSigmoid", 1, generic<hl::HardSigmoidOp>(legacy));
  t.on("Shrink", 9, generic<hl::ShrinkOp>());
  t.on("IsNaN", 9, generic<hl::IsNaNOp>());
  t.on("IsInf", 10, generic<hl::IsInfOp>());

  // Binary ops: NumPy broadcasting from opset 7 on (legacy broadcast/axis
  // attributes before that are not supported).
  t.on("Add", 7, generic<hl::AddOp>());
  t.on("Sub", 7, generic<hl::SubOp>());
  t.on("Mul", 7, generic<hl::MulOp>());
  t.on("Div", 7, generic<hl::DivOp>());
  t.on("Pow", 7, generic<hl::PowOp>());
  t.on("Mod", 10, generic<hl::ModOp>());
  t.on("BitShift", 11, generic<hl::BitShiftOp>());
  // Bitwise ops are opset 18; their schemas are registered at 17 (see
  // ONNXChecks.cpp).
  t.on("BitwiseAnd", 17, generic<hl::BitwiseAndOp>());
  t.on("BitwiseOr", 17, generic<hl::BitwiseOrOp>());
  t.on("BitwiseXor", 17, generic<hl::BitwiseXorOp>());
  t.on("BitwiseNot", 17, generic<hl::BitwiseNotOp>());
  t.on("And", 7, generic<hl::AndOp>());
  t.on("Or", 7, generic<hl::OrOp>());
  t.on("Xor", 7, generic<hl::XorOp>());
  t.on("PRelu", 7, generic<hl::PReluOp>());
  t.on("Equal", 7, generic<hl::EqualOp>());
  t.on("Less", 7, generic<hl::LessOp>());
  t.on("LessOrEqual", 12, generic<hl::LessOrEqualOp>());
  t.on("Greater", 7, generic<hl::GreaterOp>());
  t.on("GreaterOrEqual", 12, generic<hl::GreaterOrEqualOp>());

  // Variadic ops with broadcasting (opset 8 on) become binary chains.
  t.on("Sum", 8, convertVariadic<hl::AddOp>);
  t.on("Max", 8, convertVariadic<hl::MaxOp>);
  t.on("Min", 8, convertVariadic<hl::MinOp>);
  t.on("Mean", 8, convertMean);

  t.on("Clip", 6, convertClip);
  t.on("Where", 9, generic<hl::WhereOp>());
  t.on("Cast", 6, convertCast);
  t.on("CastLike", 15, convertCast);
}

} // namespace strata::importer
