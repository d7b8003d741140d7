//===- HLElementwise.td - hl elementwise operations ------*- tablegen -*-===//
//
// Unary and broadcasting binary ops, comparisons, logic, Clip, Where, Cast.
// Variadic ONNX ops (Sum, Max, Min, Mean) are normalised to chains of the
// binary forms at import.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_ELEMENTWISE
#define STRATA_HL_ELEMENTWISE

include "HL/IR/HLBase.td"

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

def HL_ReluOp : HL_UnaryElementwiseOp<"relu"> {
  let summary = "Rectified linear unit (ONNX Relu)";
  let description = [{
    `max(x, 0)` elementwise.

    ```mlir
    %y = hl.relu %x : tensor<1x4x8x8xf32>
    ```
  }];
}

def HL_IdentityOp : HL_UnaryElementwiseOp<"identity"> {
  let summary = "Copy of the operand (ONNX Identity)";
  let description = [{
    ```mlir
    %y = hl.identity %x : tensor<4xf32>
    ```
  }];
  let hasFolder = 1;
}

def HL_AbsOp : HL_UnaryElementwiseOp<"abs"> {
  let summary = "|x| elementwise (ONNX Abs)";
  let description = [{
    ```mlir
    %y = hl.abs %x : tensor<4xi32>
    ```
  }];
  let hasFolder = 1;
}

def HL_NegOp : HL_UnaryElementwiseOp<"neg"> {
  let summary = "-x elementwise (ONNX Neg)";
  let description = [{
    ```mlir
    %y = hl.neg %x : tensor<4xf32>
    ```
  }];
  // Folds on integer constants (shape arithmetic such as Neg(axis)).
  let hasFolder = 1;
}

def HL_SignOp : HL_UnaryElementwiseOp<"sign"> {
  let summary = "Sign (-1, 0, 1) elementwise (ONNX Sign)";
  let description = [{
    ```mlir
    %y = hl.sign %x : tensor<4xf32>
    ```
  }];
}

def HL_NotOp : HL_UnaryElementwiseOp<"not"> {
  let summary = "Logical negation (ONNX Not)";
  let description = [{
    ```mlir
    %y = hl.not %x : tensor<4xi1>
    ```
  }];
  let arguments = (ins HL_BoolTensor:$input);
  let results = (outs HL_BoolTensor:$output);
  let hasFolder = 1;
}

def HL_ExpOp : HL_UnaryFloatOp<"exp", "Exp", "e^x">;
def HL_LogOp : HL_UnaryFloatOp<"log", "Log", "ln(x)">;
def HL_SqrtOp : HL_UnaryFloatOp<"sqrt", "Sqrt", "sqrt(x)">;
def HL_ReciprocalOp : HL_UnaryFloatOp<"reciprocal", "Reciprocal", "1/x"> {
  let hasFolder = 1;
}
def HL_SigmoidOp : HL_UnaryFloatOp<"sigmoid", "Sigmoid", "1/(1+e^-x)">;
def HL_TanhOp : HL_UnaryFloatOp<"tanh", "Tanh", "tanh(x)">;
def HL_CeilOp : HL_UnaryFloatOp<"ceil", "Ceil", "ceil(x)"> {
  let hasFolder = 1;
}
def HL_FloorOp : HL_UnaryFloatOp<"floor", "Floor", "floor(x)"> {
  let hasFolder = 1;
}
def HL_RoundOp : HL_UnaryFloatOp<"round", "Round", "round half to even"> {
  let hasFolder = 1;
}
def HL_ErfOp : HL_UnaryFloatOp<"erf", "Erf", "erf(x)">;
def HL_SinOp : HL_UnaryFloatOp<"sin", "Sin", "sin(x)">;
def HL_CosOp : HL_UnaryFloatOp<"cos", "Cos", "cos(x)">;
def HL_TanOp : HL_UnaryFloatOp<"tan", "Tan", "tan(x)">;
def HL_AsinOp : HL_UnaryFloatOp<"asin", "Asin", "asin(x)">;
def HL_AcosOp : HL_UnaryFloatOp<"acos", "Acos", "acos(x)">;
def HL_AtanOp : HL_UnaryFloatOp<"atan", "Atan", "atan(x)">;
def HL_SinhOp : HL_UnaryFloatOp<"sinh", "Sinh", "sinh(x)">;
def HL_CoshOp : HL_UnaryFloatOp<"cosh", "Cosh", "cosh(x)">;
def HL_AsinhOp : HL_UnaryFloatOp<"asinh", "Asinh", "asinh(x)">;
def HL_AcoshOp : HL_UnaryFloatOp<"acosh", "Acosh", "acosh(x)">;
def HL_AtanhOp : HL_UnaryFloatOp<"atanh", "Atanh", "atanh(x)">;
def HL_SoftsignOp : HL_UnaryFloatOp<"softsign", "Softsign", "x/(1+|x|)">;
def HL_SoftplusOp : HL_UnaryFloatOp<"softplus", "Softplus", "ln(e^x+1)">;
def HL_HardSwishOp : HL_UnaryFloatOp<"hard_swish", "HardSwish",
                                     "x*max(0, min(1, x/6+1/2))">;

/// A unary float op with one `alpha` attribute.
class HL_UnaryAlphaOp<string mnemonic, string onnxName, string formula,
                      string alphaDefault>
    : HL_UnaryFloatOp<mnemonic, onnxName, formula> {
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, alphaDefault>:$alpha);
}

def HL_LeakyReluOp : HL_UnaryAlphaOp<"leaky_relu", "LeakyRelu",
                                     "x >= 0 ? x : alpha*x", "0.01f">;
def HL_EluOp : HL_UnaryAlphaOp<"elu", "Elu",
                               "x >= 0 ? x : alpha*(e^x-1)", "1.0f">;
def HL_CeluOp : HL_UnaryAlphaOp<"celu", "Celu",
                                "max(0,x) + min(0,alpha*(e^(x/alpha)-1))",
                                "1.0f">;
def HL_ThresholdedReluOp : HL_UnaryAlphaOp<"thresholded_relu",
                                           "ThresholdedRelu",
                                           "x > alpha ? x : 0", "1.0f">;

def HL_SeluOp : HL_UnaryFloatOp<"selu", "Selu",
                                "gamma*(x > 0 ? x : alpha*(e^x-1))"> {
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.67326319217681884765625f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.05070102214813232421875f">:$gamma);
}

def HL_HardSigmoidOp : HL_UnaryFloatOp<"hard_sigmoid", "HardSigmoid",
                                       "max(0, min(1, alpha*x+beta))"> {
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5f">:$beta);
}

def HL_ShrinkOp : HL_UnaryElementwiseOp<"shrink"> {
  let summary = "Soft/hard shrinkage (ONNX Shrink)";
  let description = [{
    `x < -lambd ? x+bias : (x > lambd ? x-bias : 0)`.

    ```mlir
    %y = hl.shrink %x {lambd = 1.5 : f32} : tensor<5xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0f">:$bias,
                       DefaultValuedAttr<F32Attr, "0.5f">:$lambd);
  let hasVerifier = 1;
}

/// A float classification op with a boolean result.
class HL_FloatTestOp<string mnemonic> : HL_Op<mnemonic,
    [Pure, SameOperandsAndResultShape, HL_InferShape]> {
  let results = (outs HL_BoolTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_IsNaNOp : HL_FloatTestOp<"is_nan"> {
  let summary = "Whether each element is NaN (ONNX IsNaN)";
  let description = [{
    ```mlir
    %y = hl.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input);
}

def HL_IsInfOp : HL_FloatTestOp<"is_inf"> {
  let summary = "Whether each element is an infinity (ONNX IsInf)";
  let description = [{
    `detect_negative`/`detect_positive` select which infinities count.

    ```mlir
    %y = hl.is_inf %x {detect_negative = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$detect_negative,
                       DefaultValuedAttr<I64Attr, "1">:$detect_positive);
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

def HL_AddOp : HL_BinaryBroadcastOp<"add", [Commutative]> {
  let summary = "Elementwise addition with broadcasting (ONNX Add)";
  let description = [{
    ```mlir
    %y = hl.add %a, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let hasFolder = 1;
}

// Add, Sub, Mul and Div fold on integer constants (shape arithmetic).
def HL_SubOp : HL_BinaryOp<"sub", "Sub", "a - b"> { let hasFolder = 1; }
def HL_MulOp : HL_BinaryOp<"mul", "Mul", "a * b", [Commutative]> {
  let hasFolder = 1;
}
def HL_DivOp : HL_BinaryOp<"div", "Div", "a / b (truncating for integers)"> {
  let hasFolder = 1;
}
def HL_MaxOp : HL_BinaryOp<"max", "Max", "max(a, b)", [Commutative]> {
  let hasFolder = 1;
}
def HL_MinOp : HL_BinaryOp<"min", "Min", "min(a, b)", [Commutative]> {
  let hasFolder = 1;
}
def HL_AndOp : HL_BinaryOp<"and", "And", "a and b", [Commutative]> {
  let hasFolder = 1;
}
def HL_OrOp : HL_BinaryOp<"or", "Or", "a or b", [Commutative]> {
  let hasFolder = 1;
}
def HL_XorOp : HL_BinaryOp<"xor", "Xor", "a xor b", [Commutative]> {
  let hasFolder = 1;
}

def HL_ModOp : HL_BinaryOp<"mod", "Mod", "a mod b"> {
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs,
                       DefaultValuedAttr<I64Attr, "0">:$fmod);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_BitShiftOp : HL_BinaryOp<"bit_shift", "BitShift", "a << b or a >> b"> {
  let arguments = (ins HL_IntTensor:$lhs, HL_IntTensor:$rhs,
                       StrAttr:$direction);
  let hasVerifier = 1;
}

/// A bitwise op on integers (ONNX Bitwise*, opset 18).
class HL_BitwiseOp<string mnemonic, string onnxName, string formula>
    : HL_BinaryOp<mnemonic, onnxName, formula, [Commutative]> {
  let description = "ONNX `" # onnxName # "`: " # formula # [{ on the bits
    of signed or unsigned integers, with NumPy multidirectional broadcasting.

    ```mlir
    %y = hl.}] # mnemonic # [{ %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins HL_IntTensor:$lhs, HL_IntTensor:$rhs);
  let results = (outs HL_IntTensor:$output);
  let hasFolder = 1;
}

def HL_BitwiseAndOp : HL_BitwiseOp<"bitwise_and", "BitwiseAnd", "a & b">;
def HL_BitwiseOrOp : HL_BitwiseOp<"bitwise_or", "BitwiseOr", "a | b">;
def HL_BitwiseXorOp : HL_BitwiseOp<"bitwise_xor", "BitwiseXor", "a ^ b">;

def HL_BitwiseNotOp : HL_UnaryElementwiseOp<"bitwise_not"> {
  let summary = "~x on the bits of an integer (ONNX BitwiseNot)";
  let description = [{
    ```mlir
    %y = hl.bitwise_not %x : tensor<4xui8>
    ```
  }];
  let arguments = (ins HL_IntTensor:$input);
  let results = (outs HL_IntTensor:$output);
  let hasFolder = 1;
}

def HL_PowOp : HL_Op<"pow", [Pure, ResultsBroadcastableShape,
                             AllElementTypesMatch<["lhs", "output"]>,
    HL_InferShape]> {
  let summary = "a^b elementwise with broadcasting (ONNX Pow)";
  let description = [{
    The exponent may have another numeric element type than the base; the
    result has the base's.

    ```mlir
    %y = hl.pow %a, %b : (tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = HL_BroadcastShapeRule;
}

def HL_PReluOp : HL_Op<"prelu", [Pure, ResultsBroadcastableShape,
                                 SameOperandsAndResultElementType,
    HL_InferShape]> {
  let summary = "Parametric ReLU, slope broadcast to the input (ONNX PRelu)";
  let description = [{
    `x >= 0 ? x : slope*x`; `slope` broadcasts unidirectionally to `x`.

    ```mlir
    %y = hl.prelu %x, %s : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_Tensor:$slope);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_BroadcastShapeRule;
}

def HL_EqualOp : HL_CompareOp<"equal", "Equal", "a == b", [Commutative]> {
  let hasFolder = 1;
}
def HL_LessOp : HL_CompareOp<"less", "Less", "a < b"> { let hasFolder = 1; }
def HL_LessOrEqualOp : HL_CompareOp<"less_or_equal", "LessOrEqual", "a <= b"> {
  let hasFolder = 1;
}
def HL_GreaterOp : HL_CompareOp<"greater", "Greater", "a > b"> {
  let hasFolder = 1;
}
def HL_GreaterOrEqualOp : HL_CompareOp<"greater_or_equal", "GreaterOrEqual",
                                       "a >= b"> {
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Other elementwise
//===----------------------------------------------------------------------===//

def HL_ClipOp : HL_Op<"clip", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "output"]>, HL_InferShape]> {
  let summary = "Clamp to [min, max] (ONNX Clip, opset 11 form)";
  let description = [{
    Bounds are optional scalar operands of the input's element type; opset
    6 attribute bounds are turned into constants at import.

    ```mlir
    %y = hl.clip %x min %lo max %hi
        : (tensor<1x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, Optional<HL_Tensor>:$min,
                       Optional<HL_Tensor>:$max);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_WhereOp : HL_Op<"where", [Pure, ResultsBroadcastableShape,
    AllElementTypesMatch<["x", "y", "output"]>, HL_InferShape]> {
  let summary = "Select by condition with broadcasting (ONNX Where)";
  let description = [{
    ```mlir
    %y = hl.where %c, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins HL_BoolTensor:$condition, HL_Tensor:$x, HL_Tensor:$y);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = HL_BroadcastShapeRule;
}

def HL_CastOp : HL_Op<"cast", [Pure, SameOperandsAndResultShape,
    HL_InferShape]> {
  let summary = "Element type conversion (ONNX Cast and CastLike)";
  let description = [{
    The target type is the result's element type (`CastLike` is normalised to
    this form at import).

    ```mlir
    %y = hl.cast %x : (tensor<4xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins HL_Tensor:$input);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

#endif // STRATA_HL_ELEMENTWISE
