//===- EdgeOps.td - edge operations ----------------------*- tablegen -*-===//
#ifndef STRATA_EDGE_OPS
#define STRATA_EDGE_OPS

include "Edge/IR/EdgeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "Edge/IR/EdgeInterfaces.td"

//===----------------------------------------------------------------------===//
// Shared op classes
//===----------------------------------------------------------------------===//

class Edge_UnaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                             Edge_KernelOpInterface])> {
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

/// Binary elementwise op with rank-explicit broadcasting: operands have the
/// result's rank, each extent equal to the result's or 1.
class Edge_BinaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure,
                                             SameOperandsAndResultElementType,
                                             SameOperandsAndResultRank,
                                             Edge_KernelOpInterface])> {
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def Edge_ConstantOp : Edge_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "Constant tensor";
  let description = [{
    ```mlir
    %c = edge.constant dense<0.5> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Edge_Conv2DOp : Edge_Op<"conv2d", [Pure, Edge_KernelOpInterface]> {
  let summary = "2-d convolution, NCHW input, OIHW weight";
  let description = [{
    Input `[N, C, H, W]`, weight `[M, C/group, KH, KW]`, optional bias `[M]`.
    `pads` is `[top, left, bottom, right]`. The result shape must equal the
    one the attributes imply.

    ```mlir
    %y = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_Tensor:$weight,
                       Optional<Edge_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       I64Attr:$group);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_MatMulOp : Edge_Op<"matmul", [Pure, Edge_KernelOpInterface]> {
  let summary = "Batched matrix product with rank-explicit batch broadcasting";
  let description = [{
    `lhs [B..., M, K] x rhs [B..., K, N] -> [B..., M, N]`. Both operands have
    the result's rank (at least 2); each batch extent equals the result's or
    is 1.

    ```mlir
    %y = edge.matmul %a, %b : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_AddOp : Edge_BinaryElementwiseOp<"add", [Commutative]> {
  let hasCanonicalizer = 1;
  let summary = "Elementwise addition";
  let description = [{
    ```mlir
    %y = edge.add %a, %b : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
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

def Edge_MaxPool2DOp : Edge_Op<"max_pool2d",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType]> {
  let summary = "2-d max pooling, NCHW";
  let description = [{
    `pads` is `[top, left, bottom, right]`; padded elements never win.

    ```mlir
    %y = edge.max_pool2d %x {ceil_mode = false, dilations = array<i64: 1, 1>,
                             kernel = array<i64: 2, 2>,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       BoolAttr:$ceil_mode);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ReduceMeanOp : Edge_Op<"reduce_mean",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType]> {
  let summary = "Mean over a set of axes";
  let description = [{
    `axes` is sorted, unique and non-negative. With `keep_dims` the reduced
    extents become 1, otherwise they are dropped. Global average pooling is
    `reduce_mean` over the spatial axes with `keep_dims`.

    ```mlir
    %y = edge.reduce_mean %x {axes = array<i64: 2, 3>, keep_dims = true}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ReshapeOp : Edge_Op<"reshape",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType]> {
  let summary = "Reshape to the static result type (row-major order kept)";
  let description = [{
    ```mlir
    %y = edge.reshape %x : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Edge_TransposeOp : Edge_Op<"transpose",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType]> {
  let summary = "Permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. Transposes of
    constants fold at compile time (weights of Gemm with `transB`, say).

    ```mlir
    %y = edge.transpose %x {permutation = array<i64: 1, 0>}
        : (tensor<10x64xf32>) -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Edge_SoftmaxOp : Edge_Op<"softmax", [Pure, Edge_KernelOpInterface, SameOperandsAndResultType]> {
  let summary = "Softmax along one non-negative axis";
  let description = [{
    ```mlir
    %y = edge.softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Edge_SubOp : Edge_BinaryElementwiseOp<"sub"> {
  let summary = "Elementwise subtraction";
  let description = [{
    ```mlir
    %y = edge.sub %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_MulOp : Edge_BinaryElementwiseOp<"mul", [Commutative]> {
  let hasCanonicalizer = 1;
  let summary = "Elementwise multiplication";
  let description = [{
    ```mlir
    %y = edge.mul %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_DivOp : Edge_BinaryElementwiseOp<"div"> {
  let summary = "Elementwise division";
  let description = [{
    ```mlir
    %y = edge.div %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
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
                                   Edge_KernelOpInterface]> {
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

def Edge_AvgPool2DOp : Edge_Op<"avg_pool2d",
    [Pure, SameOperandsAndResultElementType, Edge_KernelOpInterface]> {
  let summary = "2-d average pooling, NCHW";
  let description = [{
    Attributes as `max_pool2d`; with `count_include_pad` the divisor counts
    padded elements, otherwise only those inside the input.

    ```mlir
    %y = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false,
                             dilations = array<i64: 1, 1>,
                             kernel = array<i64: 2, 2>,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ConcatOp : Edge_Op<"concat", [Pure, SameOperandsAndResultElementType,
                                       Edge_KernelOpInterface]> {
  let summary = "Concatenate along a non-negative axis";
  let description = [{
    ```mlir
    %y = edge.concat %a, %b {axis = 1 : i64}
        : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Edge_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
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

def Edge_SliceOp : Edge_Op<"slice", [Pure, SameOperandsAndResultElementType,
                                     Edge_KernelOpInterface]> {
  let summary = "Strided slice with explicit starts and steps";
  let description = [{
    Result element `i` along dimension `d` is input element
    `starts[d] + i * steps[d]`; the result shape gives the counts. Steps are
    non-zero and may be negative; every index read lies inside the input.

    ```mlir
    %y = edge.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
        : (tensor<4x8xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$steps);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
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

/// Binary elementwise op over any element type, without a folder.
class Edge_BinaryAnyTypeOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure,
                                             SameOperandsAndResultElementType,
                                             SameOperandsAndResultRank,
                                             Edge_KernelOpInterface])> {
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_MaximumOp : Edge_BinaryAnyTypeOp<"maximum", [Commutative]> {
  let summary = "Elementwise maximum (NaN propagates)";
  let description = [{
    Broadcasting as `add`. Float and integer element types.

    ```mlir
    %y = edge.maximum %a, %b : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
    ```
  }];
}

def Edge_MinimumOp : Edge_BinaryAnyTypeOp<"minimum", [Commutative]> {
  let summary = "Elementwise minimum (NaN propagates)";
  let description = [{
    Broadcasting as `add`. Float and integer element types.

    ```mlir
    %y = edge.minimum %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    ```
  }];
}

def Edge_CastOp : Edge_Op<"cast", [Pure, SameOperandsAndResultShape,
                                   Edge_KernelOpInterface]> {
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result's element type: floats to integers
    truncate toward zero, anything to `i1` tests for non-zero, float to
    narrower float rounds to nearest even.

    ```mlir
    %y = edge.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reduction over sorted, unique, non-negative `axes`; shares reduce_mean's
/// verifier.
class Edge_ReduceOp<string mnemonic, string what>
    : Edge_Op<mnemonic, [Pure, Edge_KernelOpInterface,
                         SameOperandsAndResultElementType]> {
  let summary = what # " over a set of axes";
  let description = !strconcat(
      "`axes` is sorted, unique and non-negative. With `keep_dims` the ",
      "reduced extents become 1, otherwise they are dropped.\n\n```mlir\n",
      "%y = edge.", mnemonic, " %x {axes = array<i64: 1>, keep_dims = true}\n",
      "    : (tensor<2x3xf32>) -> tensor<2x1xf32>\n```");
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ReduceSumOp : Edge_ReduceOp<"reduce_sum", "Sum">;
def Edge_ReduceMaxOp : Edge_ReduceOp<"reduce_max", "Maximum">;
def Edge_ReduceMinOp : Edge_ReduceOp<"reduce_min", "Minimum">;
def Edge_ReduceProdOp : Edge_ReduceOp<"reduce_prod", "Product">;

/// Index of the extreme element along one axis.
class Edge_ArgReduceOp<string mnemonic, string what>
    : Edge_Op<mnemonic, [Pure, Edge_KernelOpInterface]> {
  let summary = "Index (i64) of the " # what # " along one axis";
  let description = !strconcat(
      "`axis` is non-negative; with `keep_dims` the axis becomes 1, otherwise ",
      "it is dropped. Ties pick the first index, or the last with ",
      "`select_last_index`.\n\n```mlir\n",
      "%i = edge.", mnemonic, " %x {axis = 1 : i64, keep_dims = true, ",
      "select_last_index = false}\n",
      "    : (tensor<2x3xf32>) -> tensor<2x1xi64>\n```");
  let arguments = (ins Edge_Tensor:$input, I64Attr:$axis, BoolAttr:$keep_dims,
                       BoolAttr:$select_last_index);
  let results = (outs Edge_IndexTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ArgMaxOp : Edge_ArgReduceOp<"arg_max", "maximum">;
def Edge_ArgMinOp : Edge_ArgReduceOp<"arg_min", "minimum">;

//===----------------------------------------------------------------------===//
// Comparisons, logic and select
//===----------------------------------------------------------------------===//

/// Comparison with rank-explicit broadcasting; the result is i1. `greater`
/// and `greater_equal` are `less` and `less_equal` with swapped operands.
class Edge_CompareOp<string mnemonic, string formula>
    : Edge_Op<mnemonic, [Pure, SameOperandsElementType, SameOperandsAndResultRank,
                         Edge_KernelOpInterface]> {
  let summary = "Elementwise comparison `" # formula # "`";
  let description = !strconcat(
      "Broadcasting as `add`; operands share one element type.\n\n```mlir\n",
      "%y = edge.", mnemonic, " %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) ",
      "-> tensor<2x3xi1>\n```");
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_BoolTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_EqualOp : Edge_CompareOp<"equal", "a == b">;
def Edge_LessOp : Edge_CompareOp<"less", "a < b">;
def Edge_LessEqualOp : Edge_CompareOp<"less_equal", "a <= b">;

/// Logical op on i1 with rank-explicit broadcasting.
class Edge_LogicalOp<string mnemonic, string formula>
    : Edge_BinaryAnyTypeOp<mnemonic, [Commutative]> {
  let summary = "Elementwise logical `" # formula # "` of i1 tensors";
  let description = !strconcat(
      "Broadcasting as `add`.\n\n```mlir\n%y = edge.", mnemonic,
      " %a, %b : (tensor<2x3xi1>, tensor<1x3xi1>) -> tensor<2x3xi1>\n```");
  let arguments = (ins Edge_BoolTensor:$lhs, Edge_BoolTensor:$rhs);
  let results = (outs Edge_BoolTensor:$output);
}

def Edge_LogicalAndOp : Edge_LogicalOp<"logical_and", "a and b">;
def Edge_LogicalOrOp : Edge_LogicalOp<"logical_or", "a or b">;
def Edge_LogicalXorOp : Edge_LogicalOp<"logical_xor", "a xor b">;

def Edge_LogicalNotOp : Edge_UnaryElementwiseOp<"logical_not"> {
  let summary = "Elementwise logical negation of an i1 tensor";
  let description = [{
    ```mlir
    %y = edge.logical_not %x : tensor<2x3xi1>
    ```
  }];
  let arguments = (ins Edge_BoolTensor:$input);
  let results = (outs Edge_BoolTensor:$output);
}

def Edge_SelectOp : Edge_Op<"select", [Pure, SameOperandsAndResultRank,
                                       AllElementTypesMatch<["on_true", "on_false", "output"]>,
                                       Edge_KernelOpInterface]> {
  let summary = "Elementwise choice: condition ? on_true : on_false";
  let description = [{
    All three operands have the result's rank; each extent equals the
    result's or is 1.

    ```mlir
    %y = edge.select %c, %a, %b
        : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Edge_BoolTensor:$condition, Edge_Tensor:$on_true,
                       Edge_Tensor:$on_false);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ModOp : Edge_BinaryAnyTypeOp<"mod"> {
  let summary = "Elementwise remainder";
  let description = [{
    With `fmod` the remainder takes the dividend's sign (C `fmod`);
    without it, the divisor's (Python `%`, integers only). Broadcasting as
    `add`.

    ```mlir
    %y = edge.mod %a, %b {fmod = false}
        : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs, BoolAttr:$fmod);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Edge_BitShiftOp : Edge_Op<"bit_shift", [Pure,
    SameOperandsAndResultElementType, SameOperandsAndResultRank,
    Edge_KernelOpInterface]> {
  let summary = "Elementwise logical shift of unsigned integers";
  let description = [{
    `lhs << rhs` (`direction = "left"`) or `lhs >> rhs` (`"right"`) on
    unsigned integers; a shift by the bit width or more gives 0 (numpy's
    rule, which the ONNX reference follows). Broadcasting as `add`.

    ```mlir
    %y = edge.bit_shift %a, %b {direction = "left"}
        : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$lhs,
                       StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$rhs,
                       StrAttr:$direction);
  let results = (outs StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def Edge_GatherElementsOp : Edge_Op<"gather_elements",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Gather along one axis with a full index tensor";
  let description = [{
    `output[i...]` is `input[i...]` with the `axis` coordinate replaced by
    `indices[i...]` (negative indices count from the end). Input, indices
    and result share one rank; the result has the indices' shape.

    ```mlir
    %y = edge.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       StaticShapeTensorOf<[I32, I64]>:$indices,
                       I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_GatherOp : Edge_Op<"gather",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Gather slices along one axis";
  let description = [{
    The result shape is `input[:axis] ++ indices ++ input[axis+1:]`; each
    index (negative ones count from the end) picks one slice of the input
    along `axis`.

    ```mlir
    %y = edge.gather %x, %i {axis = 0 : i64}
        : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       StaticShapeTensorOf<[I32, I64]>:$indices,
                       I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ConvTranspose2DOp : Edge_Op<"conv_transpose2d",
    [Pure, Edge_KernelOpInterface]> {
  let summary = "2-d transposed convolution, NCHW input, IOHW weight";
  let description = [{
    Input `[N, C, H, W]`, weight `[C, M/group, KH, KW]`, optional bias `[M]`.
    Each output extent is `(in - 1) * stride + (k - 1) * dilation + 1 -
    pad_begin - pad_end + output_padding`; `pads` is
    `[top, left, bottom, right]` (cropped from the full output) and
    `output_padding` `[bottom, right]` (zeros added at the end).

    ```mlir
    %y = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>,
                                       group = 1 : i64,
                                       output_padding = array<i64: 0, 0>,
                                       pads = array<i64: 0, 0, 0, 0>,
                                       strides = array<i64: 2, 2>}
        : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
                       Optional<Edge_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$output_padding,
                       I64Attr:$group);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ScatterElementsOp : Edge_Op<"scatter_elements",
    [Pure, AllTypesMatch<["input", "output"]>,
     AllElementTypesMatch<["input", "updates"]>, Edge_KernelOpInterface]> {
  let summary = "Scatter updates along one axis into a copy of the input";
  let description = [{
    The result is the input with, for every position `i...` of `indices`
    (negative ones count from the end), the element at `i...` with the
    `axis` coordinate replaced by `indices[i...]` set to (`none`) or
    combined with (`add`, `mul`, `max`, `min`) `updates[i...]`, in row-major
    order. Input, indices and updates share one rank; indices and updates
    one shape.

    ```mlir
    %y = edge.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"}
        : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       StaticShapeTensorOf<[I32, I64]>:$indices,
                       Edge_Tensor:$updates, I64Attr:$axis,
                       StrAttr:$reduction);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ArgTopKOp : Edge_Op<"arg_top_k", [Pure, Edge_KernelOpInterface]> {
  let summary = "Indices (i64) of the k largest or smallest elements along an axis";
  let description = [{
    The result has the input's shape with extent `k` along `axis`; its
    entries are sorted by value (descending with `largest`, else ascending),
    equal values by index. The values themselves are a `gather_elements`
    of these indices (ONNX TopK is the pair).

    ```mlir
    %i = edge.arg_top_k %x {axis = 1 : i64, largest = true}
        : (tensor<3x4xf32>) -> tensor<3x2xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, I64Attr:$axis, BoolAttr:$largest);
  let results = (outs Edge_IndexTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_GatherNDOp : Edge_Op<"gather_nd",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Gather slices addressed by index tuples";
  let description = [{
    The last extent `K` of `indices` is the tuple length; the first
    `batch_dims` dimensions of input and indices are shared batch dimensions.
    The result shape is `indices[:-1] ++ input[batch_dims + K:]` (negative
    indices count from the end).

    ```mlir
    %y = edge.gather_nd %x, %i {batch_dims = 0 : i64}
        : (tensor<2x2xi32>, tensor<2x2xi64>) -> tensor<2xi32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$indices,
                       I64Attr:$batch_dims);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement with run-time index operands
//
// The result shape is static, but the indices that produce it (pads, slice
// bounds, a scan axis) are operands: a constant when the model fixes them,
// otherwise values computed or fed at run time. The verifier checks what
// constants decide; the kernel checks the rest before touching memory and
// fails the call when the run-time values disagree with the compiled shape.
//===----------------------------------------------------------------------===//

def Edge_PadOp : Edge_Op<"pad",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Pad (or crop) with a constant, reflection, edge or wrap values";
  let description = [{
    `pads` holds `2 * rank` i64 values: the begin extents of every dimension,
    then the end extents (ONNX order); negative values crop. Result extent
    `d` is `input[d] + pads[d] + pads[rank + d]`. `mode` is `constant`
    (padding with the one-element `value`, zero when absent), `reflect`
    (mirror without repeating the border; needs extent >= 2 where padded),
    `edge` (repeat the border) or `wrap` (periodic).

    ```mlir
    %y = edge.pad %x, %pads {mode = "reflect"}
        : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$pads,
                       Optional<Edge_Tensor>:$value, StrAttr:$mode);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_DynamicSliceOp : Edge_Op<"dynamic_slice",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Strided slice with ONNX Slice semantics on run-time bounds";
  let description = [{
    `starts`, `ends`, `axes` and `steps` are 1-D i64 tensors of one length,
    read at run time with ONNX Slice semantics: negative values count from
    the end, bounds are clamped, unlisted axes are taken whole. The element
    counts they produce must equal the static result shape. With constant
    bounds the lowering emits `edge.slice` instead.

    ```mlir
    %y = edge.dynamic_slice %x, %starts, %ends, %axes, %steps
        : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>,
           tensor<1xi64>) -> tensor<3x10xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$starts,
                       Edge_IndexTensor:$ends, Edge_IndexTensor:$axes,
                       Edge_IndexTensor:$steps);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_CumSumOp : Edge_Op<"cum_sum",
    [Pure, AllTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Cumulative sum along an axis given as a one-element operand";
  let description = [{
    `axis` is a one-element i64 tensor (negative counts from the end). With
    `exclusive` element `i` sums the elements before `i`, otherwise up to and
    including it; with `reverse` the sums run from the end of the axis.

    ```mlir
    %y = edge.cum_sum %x, %axis {exclusive = false, reverse = true}
        : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$axis,
                       BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_RangeOp : Edge_Op<"range", [Pure, Edge_KernelOpInterface,
    AllTypesMatch<["start", "limit", "delta"]>,
    AllElementTypesMatch<["start", "output"]>]> {
  let summary = "Arithmetic sequence of a compiled length, checked at run time";
  let description = [{
    `output[i] = start + i * delta`. The operands are one-element run-time
    values; the result's static extent is the length the program was
    compiled for, and the kernel fails the call when
    `max(ceil((limit - start) / delta), 0)` differs from it (or `delta` is
    0). ONNX Range with operands that are not constants lowers to it.

    ```mlir
    %y = edge.range %start, %limit, %delta
        : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$start, Edge_Tensor:$limit,
                       Edge_Tensor:$delta);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Integer storage of quantized values: the plain integer types, or MLIR's
/// `!quant.uniform` types whose storage type is one of them.
def Edge_QuantStorageTensor : StaticShapeTensorOf<[I8, UI8, I16,
                                                   quant_QuantizedType]>;
/// Zero points: the plain storage types.
def Edge_ZeroPointTensor : StaticShapeTensorOf<[I8, UI8, I16]>;

def Edge_QuantizeLinearOp : Edge_Op<"quantize_linear",
    [Pure, AllShapesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Affine quantization of f32 to 8- or 16-bit integers";
  let description = [{
    `saturate(round_half_to_even(input / scale) + zero_point)` into the
    range of the result's storage type (`i8`, `ui8` or `i16`). Per tensor
    when `scale` and `zero_point` are scalars (`axis` is then 0), per axis
    when they are 1-D with the input's extent at `axis`. Scale and zero
    point are operands, so they may be computed at run time
    (DynamicQuantizeLinear); the zero point always has the storage type.

    The result may carry a `!quant.uniform` type (per tensor or per axis)
    instead of its plain storage type: its storage type, axis and number of
    scales must then agree with the operands, and constant operands with
    the type's scales and zero points. That is the form quantization passes
    produce; kernels see only the storage.

    ```mlir
    %q = edge.quantize_linear %x, %s, %z {axis = 0 : i64}
        : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$scale,
                       Edge_ZeroPointTensor:$zero_point, I64Attr:$axis);
  let results = (outs Edge_QuantStorageTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_DequantizeLinearOp : Edge_Op<"dequantize_linear",
    [Pure, AllShapesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Affine dequantization of 8- or 16-bit integers to f32";
  let description = [{
    `(input - zero_point) * scale`, per tensor or per axis as
    `quantize_linear`; the input may carry a `!quant.uniform` type that
    agrees with the operands.

    ```mlir
    %x = edge.dequantize_linear %q, %s, %z {axis = 1 : i64}
        : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Edge_QuantStorageTensor:$input, Edge_FloatTensor:$scale,
                       Edge_ZeroPointTensor:$zero_point, I64Attr:$axis);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

/// Integer convolution and matmul with their float epilogue fused: what
/// `strata-form-quantized-ops` makes of a dequantize -> conv2d/matmul ->
/// (per-channel scale and shift, dequantized residual add, relu/clip) ->
/// quantize chain, and what int8 kernels execute.
def Edge_QuantizedConv2DOp : Edge_Op<"quantized_conv2d",
    [Pure, AttrSizedOperandSegments, Edge_KernelOpInterface]> {
  let summary = "Integer 2-d convolution with int32 accumulation and a fused epilogue";
  let description = [{
    Input `[N, C, H, W]` and weight `[M, C/group, KH, KW]` hold 8-bit
    integers (`i8` or `ui8`; the input may carry a `!quant.uniform` type).
    With `acc[m]` the exact int32 sum of
    `(input - input_zero_point) * (weight - weight_zero_point[m])` over the
    window (padding contributes 0), the result is

    ```
    real = acc[m] * input_scale * weight_scale[m] + bias[m]
           (+ (residual - residual_zero_point) * residual_scale)
    real = clamp(real, clip_min, clip_max)
    ```

    and then either `real` itself (an f32 result) or
    `saturate(round_half_to_even(real / output_scale) + output_zero_point)`
    (an 8-bit result, which needs `output_scale` and `output_zero_point`).
    `input_scale` and the zero points of input, residual and output are
    scalars; `weight_scale` and `weight_zero_point` are scalars or `[M]`;
    `bias` is `[M]` f32. `weight_scale` may be negative (a folded
    batch-normalization factor). The geometry attributes are `conv2d`'s.

    ```mlir
    %y = edge.quantized_conv2d %x(%xs, %xz), %w(%ws, %wz), bias %b
        requantize(%ys, %yz)
        {dilations = array<i64: 1, 1>, group = 1 : i64,
         pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>,
         clip_min = 0.0 : f32}
        : (tensor<1x3x8x8xi8>, tensor<f32>, tensor<i8>, tensor<4x3x3x3xi8>,
           tensor<4xf32>, tensor<4xi8>, tensor<4xf32>, tensor<f32>,
           tensor<i8>) -> tensor<1x4x8x8xi8>
    ```
  }];
  let arguments = (ins Edge_QuantStorageTensor:$input,
                       Edge_F32Tensor:$input_scale,
                       Edge_ZeroPointTensor:$input_zero_point,
                       Edge_QuantStorageTensor:$weight,
                       Edge_F32Tensor:$weight_scale,
                       Edge_ZeroPointTensor:$weight_zero_point,
                       Edge_F32Tensor:$bias,
                       Optional<Edge_F32Tensor>:$output_scale,
                       Optional<Edge_ZeroPointTensor>:$output_zero_point,
                       Optional<Edge_QuantStorageTensor>:$residual,
                       Optional<Edge_F32Tensor>:$residual_scale,
                       Optional<Edge_ZeroPointTensor>:$residual_zero_point,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       I64Attr:$group,
                       OptionalAttr<F32Attr>:$clip_min,
                       OptionalAttr<F32Attr>:$clip_max);
  let results = (outs AnyTypeOf<[Edge_F32Tensor, Edge_QuantStorageTensor]>:$output);
  let assemblyFormat = [{
    $input `(` $input_scale `,` $input_zero_point `)` `,`
    $weight `(` $weight_scale `,` $weight_zero_point `)` `,` `bias` $bias
    (`residual` $residual^ `(` $residual_scale `,` $residual_zero_point `)`)?
    (`requantize` `(` $output_scale^ `,` $output_zero_point `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_QuantizedMatMulOp : Edge_Op<"quantized_matmul",
    [Pure, AttrSizedOperandSegments, Edge_KernelOpInterface]> {
  let summary = "Integer matrix product with int32 accumulation and a fused epilogue";
  let description = [{
    `lhs [B..., M, K]` (8-bit, per-tensor) times the 2-d `rhs [K, N]`
    (8-bit, scale and zero point scalars or `[N]`, one per column). With
    `acc[n]` the exact int32 dot product of the zero-point-corrected row and
    column, `real = acc[n] * lhs_scale * rhs_scale[n] + bias[n]`, clamped to
    `[clip_min, clip_max]`, and the result is `real` (f32) or its
    quantization by `output_scale` / `output_zero_point` (8-bit), as for
    `quantized_conv2d`.

    ```mlir
    %y = edge.quantized_matmul %a(%as, %az), %b(%bs, %bz), bias %bias
        : (tensor<1x64xi8>, tensor<f32>, tensor<i8>, tensor<64x10xi8>,
           tensor<10xf32>, tensor<10xi8>, tensor<10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Edge_QuantStorageTensor:$lhs,
                       Edge_F32Tensor:$lhs_scale,
                       Edge_ZeroPointTensor:$lhs_zero_point,
                       Edge_QuantStorageTensor:$rhs,
                       Edge_F32Tensor:$rhs_scale,
                       Edge_ZeroPointTensor:$rhs_zero_point,
                       Edge_F32Tensor:$bias,
                       Optional<Edge_F32Tensor>:$output_scale,
                       Optional<Edge_ZeroPointTensor>:$output_zero_point,
                       OptionalAttr<F32Attr>:$clip_min,
                       OptionalAttr<F32Attr>:$clip_max);
  let results = (outs AnyTypeOf<[Edge_F32Tensor, Edge_QuantStorageTensor]>:$output);
  let assemblyFormat = [{
    $lhs `(` $lhs_scale `,` $lhs_zero_point `)` `,`
    $rhs `(` $rhs_scale `,` $rhs_zero_point `)` `,` `bias` $bias
    (`requantize` `(` $output_scale^ `,` $output_zero_point `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_ResizeOp : Edge_Op<"resize", [Pure, AttrSizedOperandSegments,
    AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "N-d separable interpolation (ONNX Resize semantics)";
  let description = [{
    Every axis is resampled by its own 1-d filter (nearest, linear or cubic
    with coefficient `cubic_coeff_a`); `antialias` stretches the linear and
    cubic filters by 1/scale when downsampling. Output coordinate `x` of an
    axis maps to an input coordinate by `coordinate_transformation_mode`,
    using the axis' scale (`scales`, one per dimension). The scales are the
    `scales` attribute when the lowering knows them, or else the run-time
    f32 operand `scales` (then the kernel checks them against the static
    result shape). `tf_crop_and_resize` reads the region of interest
    (starts..., ends..., normalised) from the `roi` attribute or operand;
    outside it the result is `extrapolation_value`.

    ```mlir
    %y = edge.resize %x {mode = "linear",
        coordinate_transformation_mode = "half_pixel",
        nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.5e-01 : f32,
        exclude_outside = false, extrapolation_value = 0.0 : f32,
        antialias = false, scales = array<f64: 1.0, 1.0, 2.0, 2.0>}
        : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input,
                       Optional<Edge_F32Tensor>:$dynamic_roi,
                       Optional<Edge_F32Tensor>:$dynamic_scales,
                       StrAttr:$mode,
                       StrAttr:$coordinate_transformation_mode,
                       StrAttr:$nearest_mode,
                       F32Attr:$cubic_coeff_a,
                       BoolAttr:$exclude_outside,
                       F32Attr:$extrapolation_value,
                       BoolAttr:$antialias,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       OptionalAttr<DenseF64ArrayAttr>:$roi);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = [{
    $input (`roi` $dynamic_roi^)? (`scales` $dynamic_scales^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Delegation
//===----------------------------------------------------------------------===//

def Edge_DelegateCallOp : Edge_Op<"delegate_call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a partition a backend claimed";
  let description = [{
    `callee` names a function marked `strata.delegate = "<backend>"`: the
    partition outlined from the caller (with its body, before the backend's
    preprocess step ran) or its compiled form (a declaration carrying
    `strata.processed` and the other products of preprocess, after).

    ```mlir
    %y = edge.delegate_call @onednn_0(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Edge_Tensor>:$inputs);
  let results = (outs Variadic<Edge_Tensor>:$outputs);
  let assemblyFormat = [{
    $callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
}

#endif // STRATA_EDGE_OPS
