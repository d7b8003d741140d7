//===- EdgeOps.td - edge operations ----------------------*- tablegen -*-===//
#ifndef STRATA_EDGE_OPS
#define STRATA_EDGE_OPS

include "Edge/IR/EdgeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
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
def Edge_ExpOp : Edge_FloatUnaryOp<"exp", "exp(x)">;
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
    ```mlir
    %y = edge.pow %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$lhs, Edge_FloatTensor:$rhs);
  let results = (outs Edge_FloatTensor:$output);
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

#endif // STRATA_EDGE_OPS
