//===- HLNN.td - hl neural-network operations ------------*- tablegen -*-===//
//
// Convolution, matrix products, pooling, normalisation and the softmax
// family.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_NN
#define STRATA_HL_NN

include "HL/IR/HLBase.td"

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def HL_ConvOp : HL_Op<"conv", [Pure, HL_WindowOpInterface, HL_InferShape]> {
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

def HL_ConvTransposeOp : HL_Op<"conv_transpose", [Pure, HL_WindowOpInterface]> {
  let summary = "N-d transposed convolution (ONNX ConvTranspose)";
  let description = [{
    ONNX `ConvTranspose`: input `[N, C, D1, ...]`, weight
    `[C, M/group, k1, ...]`, optional bias `[M]`.

    ```mlir
    %y = hl.conv_transpose %x, %w {strides = array<i64: 2, 2>}
        : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_Tensor:$weight,
                       Optional<HL_Tensor>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_DeformConvOp : HL_Op<"deform_conv", [Pure, HL_WindowOpInterface, AttrSizedOperandSegments]> {
  let summary = "2-d deformable convolution (ONNX DeformConv)";
  let description = [{
    ONNX `DeformConv`: input `[N, C, H, W]`, weight `[M, C/group, kH, kW]`,
    `offset` `[N, offset_group * 2 * kH * kW, oH, oW]` (per tap, the
    vertical then the horizontal shift of its sampling point), optional
    bias `[M]` and `mask` `[N, offset_group * kH * kW, oH, oW]`. Each tap
    samples the input bilinearly at its shifted point (zero outside), times
    its mask, and the samples are convolved with the weight.

    ```mlir
    %y = hl.deform_conv %x, %w, %off
        : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>) -> tensor<1x1x2x2xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input, HL_FloatTensor:$weight,
                       HL_FloatTensor:$offset,
                       Optional<HL_FloatTensor>:$bias,
                       Optional<HL_FloatTensor>:$mask,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       DefaultValuedAttr<I64Attr, "1">:$offset_group,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight `,` $offset (`bias` $bias^)? (`mask` $mask^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def HL_GemmOp : HL_Op<"gemm", [Pure, HL_InferShape]> {
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

def HL_MatMulOp : HL_Op<"matmul", [Pure, SameOperandsAndResultElementType,
    HL_InferShape]> {
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
// Pooling
//===----------------------------------------------------------------------===//

def HL_MaxPoolOp : HL_Op<"max_pool", [Pure, HL_WindowOpInterface,
    HL_InferShape]> {
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
  let extraClassDefinition = HL_PoolShapeRule;
}

def HL_AveragePoolOp : HL_Op<"average_pool", [Pure, HL_WindowOpInterface,
    SameOperandsAndResultElementType, HL_InferShape]> {
  let summary = "N-d average pooling (ONNX AveragePool)";
  let description = [{
    `count_include_pad` says whether padded elements count in the divisor.

    ```mlir
    %y = hl.average_pool %x {kernel_shape = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_PoolShapeRule;
}

def HL_GlobalMaxPoolOp : HL_Op<"global_max_pool",
    [Pure, SameOperandsAndResultElementType, HL_InferShape]> {
  let summary = "Maximum over all spatial dimensions (ONNX GlobalMaxPool)";
  let description = [{
    `[N, C, D1, ...]` to `[N, C, 1, ...]`.

    ```mlir
    %y = hl.global_max_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_GlobalPoolShapeRule;
}

def HL_GlobalAveragePoolOp : HL_Op<"global_average_pool",
    [Pure, SameOperandsAndResultElementType, HL_InferShape]> {
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
  let extraClassDefinition = HL_GlobalPoolShapeRule;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def HL_BatchNormalizationOp : HL_Op<"batch_normalization", [Pure,
    AllTypesMatch<["input", "output"]>, HL_InferShape]> {
  let summary = "Inference-mode batch normalisation (ONNX BatchNormalization)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (dimension
    1). Only the inference form exists here; a training-mode node is rejected
    at import.

    ```mlir
    %y = hl.batch_normalization %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
           tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input, HL_FloatTensor:$scale,
                       HL_FloatTensor:$bias, HL_FloatTensor:$mean,
                       HL_FloatTensor:$var,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_InstanceNormalizationOp : HL_Op<"instance_normalization", [Pure,
    AllTypesMatch<["input", "output"]>, HL_InferShape]> {
  let summary = "Per-instance, per-channel normalisation (ONNX InstanceNormalization)";
  let description = [{
    ```mlir
    %y = hl.instance_normalization %x, %s, %b
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input, HL_FloatTensor:$scale,
                       HL_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_LayerNormalizationOp : HL_Op<"layer_normalization", [Pure,
    AttrSizedResultSegments, AllTypesMatch<["input", "output"]>,
    HL_InferShape]> {
  let summary = "Normalisation over the trailing axes (ONNX LayerNormalization)";
  let description = [{
    Normalises over dimensions `[axis, rank)`; `scale` and optional `bias`
    broadcast to those dimensions. The optional results are the mean and the
    inverse standard deviation.

    ```mlir
    %y = hl.layer_normalization %x, %s, %b {axis = -1 : i64}
        : (tensor<1x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<1x64x256xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input, HL_FloatTensor:$scale,
                       Optional<HL_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs HL_FloatTensor:$output,
                      Optional<HL_FloatTensor>:$mean,
                      Optional<HL_FloatTensor>:$inv_std_dev);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_LRNOp : HL_Op<"lrn", [Pure, SameOperandsAndResultType, HL_InferShape]> {
  let summary = "Local response normalisation across channels (ONNX LRN)";
  let description = [{
    ```mlir
    %y = hl.lrn %x {size = 3 : i64} : tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0001f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75f">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0f">:$bias,
                       I64Attr:$size);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_MeanVarianceNormalizationOp : HL_Op<"mean_variance_normalization",
    [Pure, SameOperandsAndResultType, HL_InferShape]> {
  let summary = "Zero mean, unit variance over axes (ONNX MeanVarianceNormalization)";
  let description = [{
    ```mlir
    %y = hl.mean_variance_normalization %x {axes = array<i64: 0, 2, 3>} : tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr,
                                         "{0, 2, 3}">:$axes);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

/// Softmax-like op along one axis (opset-13 semantics).
class HL_AxisSoftmaxOp<string mnemonic, string onnxName>
    : HL_Op<mnemonic, [Pure, SameOperandsAndResultType, HL_InferShape]> {
  let summary = onnxName # " along one axis (ONNX " # onnxName # ", opset 13 form)";
  let description = [{
    Opset 1-12 models (which coerce the input to 2-D at `axis`) are rewritten
    to this form at import with a reshape on each side.

    ```mlir
    %y = hl.}] # mnemonic # [{ %x {axis = -1 : si64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input,
                       DefaultValuedAttr<SI64Attr, "-1">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_SoftmaxOp : HL_Op<"softmax", [Pure, SameOperandsAndResultType,
    HL_InferShape]> {
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
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_LogSoftmaxOp : HL_AxisSoftmaxOp<"log_softmax", "LogSoftmax">;
def HL_HardmaxOp : HL_AxisSoftmaxOp<"hardmax", "Hardmax">;

#endif // STRATA_HL_NN
