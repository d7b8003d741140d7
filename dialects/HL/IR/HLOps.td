//===- HLOps.td - hl operations --------------------------*- tablegen -*-===//
//
// One op per ONNX operator. Attribute names are ONNX's; an absent optional
// attribute means ONNX's default.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_OPS
#define STRATA_HL_OPS

include "HL/IR/HLBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Shared op classes
//===----------------------------------------------------------------------===//

/// Elementwise op of one operand, result type equal to the operand's.
class HL_UnaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : HL_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let arguments = (ins HL_Tensor:$input);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

/// Elementwise op of two operands with ONNX multidirectional broadcasting.
class HL_BinaryBroadcastOp<string mnemonic, list<Trait> traits = []>
    : HL_Op<mnemonic, !listconcat(traits, [Pure, ResultsBroadcastableShape,
                                            SameOperandsAndResultElementType])> {
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def HL_ConstantOp : HL_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "Constant tensor (ONNX Constant and initializers)";
  let description = [{
    A constant tensor. The importer turns graph initializers and `Constant`
    nodes into this op; large weights are `dense_resource` blobs.

    ```mlir
    %c = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def HL_ConvOp : HL_Op<"conv", [Pure]> {
  let summary = "N-d convolution (ONNX Conv)";
  let description = [{
    ONNX `Conv`: input `[N, C, D1, ...]`, weight `[M, C/group, k1, ...]`,
    optional bias `[M]`. `pads` lists all begin extents then all end extents.

    ```mlir
    %y = hl.conv %x, %w {strides = array<i64: 2, 2>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_Tensor:$weight,
                       Optional<HL_Tensor>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_GemmOp : HL_Op<"gemm", [Pure]> {
  let summary = "General matrix multiply (ONNX Gemm)";
  let description = [{
    `Y = alpha * op(A) * op(B) + beta * C`, where `op` transposes when
    `transA`/`transB` is 1 and `C` broadcasts unidirectionally to `[M, N]`.

    ```mlir
    %y = hl.gemm %a, %b, %c {transB = 1 : i64}
        : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$a, HL_Tensor:$b, Optional<HL_Tensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_MatMulOp : HL_Op<"matmul", [Pure, SameOperandsAndResultElementType]> {
  let summary = "NumPy matrix product (ONNX MatMul)";
  let description = [{
    ONNX `MatMul` with `numpy.matmul` semantics: 1-D operands are promoted and
    the promoted dimension removed; batch dimensions broadcast.

    ```mlir
    %y = hl.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def HL_AddOp : HL_BinaryBroadcastOp<"add", [Commutative]> {
  let summary = "Elementwise addition with broadcasting (ONNX Add)";
  let description = [{
    ```mlir
    %y = hl.add %a, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

def HL_ReluOp : HL_UnaryElementwiseOp<"relu"> {
  let summary = "Rectified linear unit (ONNX Relu)";
  let description = [{
    `max(x, 0)` elementwise.

    ```mlir
    %y = hl.relu %x : tensor<1x4x8x8xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def HL_MaxPoolOp : HL_Op<"max_pool", [Pure]> {
  let summary = "N-d max pooling (ONNX MaxPool)";
  let description = [{
    ONNX `MaxPool`; `kernel_shape` is required. The optional second result
    holds the flattened indices of the selected elements.

    ```mlir
    %y = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_Tensor:$output, Optional<HL_I64Tensor>:$indices);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_GlobalAveragePoolOp : HL_Op<"global_average_pool",
    [Pure, SameOperandsAndResultElementType]> {
  let summary = "Average over all spatial dimensions (ONNX GlobalAveragePool)";
  let description = [{
    `[N, C, D1, ...]` to `[N, C, 1, ...]`.

    ```mlir
    %y = hl.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def HL_FlattenOp : HL_Op<"flatten", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Flatten to a matrix at an axis (ONNX Flatten)";
  let description = [{
    Dimensions before `axis` form the first result dimension, the rest the
    second. `axis` lies in `[-r, r]`.

    ```mlir
    %y = hl.flatten %x {axis = 1 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, DefaultValuedAttr<SI64Attr, "1">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ReshapeOp : HL_Op<"reshape", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Reshape to a shape given as a tensor (ONNX Reshape)";
  let description = [{
    The target shape is a 1-D `i64` operand (opset 5 and later form; older
    attribute forms are normalised to it at import). A `0` copies the input
    extent unless `allowzero` is 1; one `-1` is inferred.

    ```mlir
    %y = hl.reshape %x, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def HL_SoftmaxOp : HL_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Softmax along one axis (ONNX Softmax, opset 13 form)";
  let description = [{
    Normalised exponential along `axis`. Opset 1-12 models (softmax over the
    flattened trailing dimensions) are rewritten to this form at import.

    ```mlir
    %y = hl.softmax %x {axis = -1 : si64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input,
                       DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // STRATA_HL_OPS
