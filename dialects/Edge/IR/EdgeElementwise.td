//===- EdgeElementwise.td - elementwise arithmetic ---------*- tablegen -*-===//
//
// Binary arithmetic with rank-explicit broadcasting, unary float functions
// (those with folders, then the f32/f64 math kernels), clip, minimum and
// maximum, and element type casts.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_ELEMENTWISE
#define STRATA_EDGE_ELEMENTWISE

include "Edge/IR/EdgeBase.td"

def Edge_AddOp : Edge_FusibleBinaryOp<"add", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let summary = "Elementwise addition";
  let description = [{
    ```mlir
    %y = edge.add %a, %b : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
    ```
  }];
}

def Edge_SubOp : Edge_FusibleBinaryOp<"sub"> {
  let hasFolder = 1;
  let summary = "Elementwise subtraction";
  let description = [{
    ```mlir
    %y = edge.sub %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_MulOp : Edge_FusibleBinaryOp<"mul", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let summary = "Elementwise multiplication";
  let description = [{
    ```mlir
    %y = edge.mul %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_DivOp : Edge_FusibleBinaryOp<"div"> {
  let hasFolder = 1;
  let summary = "Elementwise division";
  let description = [{
    ```mlir
    %y = edge.div %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_PowOp : Edge_BinaryElementwiseOp<"pow"> {
  let summary = "Elementwise power";
  let description = [{
    Both operands share the result's element type; integer powers are
    computed in double and truncated.

    ```mlir
    %y = edge.pow %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_ReluOp : Edge_UnaryElementwiseOp<"relu"> {
  let summary = "Rectified linear unit";
  let description = [{
    ```mlir
    %y = edge.relu %x : tensor<1x10xf32>
    ```
  }];
}

class Edge_FloatUnaryOp<string mnemonic, string formula>
    : Edge_UnaryElementwiseOp<mnemonic> {
  let hasFolder = 1;
  let summary = "Elementwise " # formula;
  let description = !strconcat("`", formula, "` elementwise.\n\n```mlir\n%y = edge.",
                               mnemonic, " %x : tensor<1x4xf32>\n```");
  let arguments = (ins Edge_FloatTensor:$input);
  let results = (outs Edge_FloatTensor:$output);
}

def Edge_SigmoidOp : Edge_FloatUnaryOp<"sigmoid", "1 / (1 + exp(-x))">;

def Edge_TanhOp : Edge_FloatUnaryOp<"tanh", "tanh(x)">;

def Edge_ExpOp : Edge_FloatUnaryOp<"exp", "exp(x)"> {
  let arguments = (ins Edge_AnyFloatTensor:$input);
  let results = (outs Edge_AnyFloatTensor:$output);
}

def Edge_SqrtOp : Edge_FloatUnaryOp<"sqrt", "sqrt(x)">;

def Edge_NegOp : Edge_FloatUnaryOp<"neg", "-x">;

def Edge_AbsOp : Edge_FloatUnaryOp<"abs", "|x|">;

def Edge_ClipOp : Edge_Op<"clip", [Pure, SameOperandsAndResultType,
                                   Edge_KernelOpInterface,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Clamp to [min, max]";
  let description = [{
    ReLU6 is `clip` with `min = 0`, `max = 6`.

    ```mlir
    %y = edge.clip %x {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, F32Attr:$min, F32Attr:$max);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise math (f32 and f64 kernels)
//===----------------------------------------------------------------------===//

/// A unary float op without a folder; f32 and f64 kernels.
class Edge_FloatMathOp<string mnemonic, string formula>
    : Edge_UnaryElementwiseOp<mnemonic> {
  let summary = "Elementwise " # formula;
  let description = !strconcat("`", formula, "` elementwise.\n\n```mlir\n%y = edge.",
                               mnemonic, " %x : tensor<1x4xf32>\n```");
  let arguments = (ins Edge_AnyFloatTensor:$input);
  let results = (outs Edge_AnyFloatTensor:$output);
}

def Edge_LogOp : Edge_FloatMathOp<"log", "ln(x)">;

def Edge_SinOp : Edge_FloatMathOp<"sin", "sin(x)">;

def Edge_CosOp : Edge_FloatMathOp<"cos", "cos(x)">;

def Edge_TanOp : Edge_FloatMathOp<"tan", "tan(x)">;

def Edge_AsinOp : Edge_FloatMathOp<"asin", "asin(x)">;

def Edge_AcosOp : Edge_FloatMathOp<"acos", "acos(x)">;

def Edge_AtanOp : Edge_FloatMathOp<"atan", "atan(x)">;

def Edge_SinhOp : Edge_FloatMathOp<"sinh", "sinh(x)">;

def Edge_CoshOp : Edge_FloatMathOp<"cosh", "cosh(x)">;

def Edge_AsinhOp : Edge_FloatMathOp<"asinh", "asinh(x)">;

def Edge_AcoshOp : Edge_FloatMathOp<"acosh", "acosh(x)">;

def Edge_AtanhOp : Edge_FloatMathOp<"atanh", "atanh(x)">;

def Edge_FloorOp : Edge_FloatMathOp<"floor", "floor(x)">;

def Edge_CeilOp : Edge_FloatMathOp<"ceil", "ceil(x)">;

def Edge_RoundOp : Edge_FloatMathOp<"round", "round half to even(x)">;

def Edge_ErfOp : Edge_FloatMathOp<"erf", "erf(x)">;

def Edge_SignOp : Edge_FloatMathOp<"sign", "sign(x) (-1, 0 or 1)">;

def Edge_MaximumOp : Edge_FusibleBinaryOp<"maximum", [Commutative]> {
  let summary = "Elementwise maximum (NaN propagates)";
  let description = [{
    Broadcasting as `add`. Float and integer element types.

    ```mlir
    %y = edge.maximum %a, %b : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
    ```
  }];
}

def Edge_MinimumOp : Edge_FusibleBinaryOp<"minimum", [Commutative]> {
  let summary = "Elementwise minimum (NaN propagates)";
  let description = [{
    Broadcasting as `add`. Float and integer element types.

    ```mlir
    %y = edge.minimum %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_CastOp : Edge_Op<"cast", [Pure, SameOperandsAndResultShape,
                                   Edge_KernelOpInterface,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result's element type: floats to integers
    truncate toward zero, anything to `i1` tests for non-zero, float to
    narrower float rounds to nearest even.

    Folds an integer constant cast to f32 (QLinearConv's int32 bias, before
    its scaling folds too).

    ```mlir
    %y = edge.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // STRATA_EDGE_ELEMENTWISE
