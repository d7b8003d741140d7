//===- HLQuant.td - hl linear quantisation and integer ops -*- tablegen -*-===//
//
// ONNX's explicit quantisation operators and the integer-arithmetic
// convolution and matrix products they feed.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_QUANT
#define STRATA_HL_QUANT

include "HL/IR/HLBase.td"

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def HL_QuantizeLinearOp : HL_Op<"quantize_linear", [Pure]> {
  let summary = "Float to 8-bit integer quantisation (ONNX QuantizeLinear)";
  let description = [{
    `saturate(round(x / scale) + zero_point)`; per-tensor when `scale` is a
    scalar, per-axis along `axis` when 1-D. Without a zero point the result
    is `ui8`.

    ```mlir
    %q = hl.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_FloatTensor:$scale,
                       Optional<HL_IntTensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs HL_IntTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_DequantizeLinearOp : HL_Op<"dequantize_linear", [Pure]> {
  let summary = "Integer to float dequantisation (ONNX DequantizeLinear)";
  let description = [{
    `(x - zero_point) * scale`, per tensor or per axis.

    ```mlir
    %x = hl.dequantize_linear %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins HL_IntTensor:$input, HL_FloatTensor:$scale,
                       Optional<HL_IntTensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_DynamicQuantizeLinearOp : HL_Op<"dynamic_quantize_linear", [Pure,
    AllShapesMatch<["input", "output"]>]> {
  let summary = "Quantise to ui8 with a computed scale and zero point (ONNX DynamicQuantizeLinear)";
  let description = [{
    ```mlir
    %y, %s, %z = hl.dynamic_quantize_linear %x
        : (tensor<4xf32>) -> (tensor<4xui8>, tensor<f32>, tensor<ui8>)
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input);
  let results = (outs TensorOf<[UI8]>:$output, 0DTensorOf<[F32]>:$scale,
                      0DTensorOf<[UI8]>:$zero_point);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def HL_MatMulIntegerOp : HL_Op<"matmul_integer", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "Integer matrix product with zero points (ONNX MatMulInteger)";
  let description = [{
    `(a - a_zero_point) x (b - b_zero_point)` with `matmul` semantics and an
    i32 result.

    ```mlir
    %y = hl.matmul_integer %a, %b a_zero_point %za
        : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>) -> tensor<4x2xi32>
    ```
  }];
  let arguments = (ins HL_IntTensor:$a, HL_IntTensor:$b,
                       Optional<HL_IntTensor>:$a_zero_point,
                       Optional<HL_IntTensor>:$b_zero_point);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = [{
    $a `,` $b (`a_zero_point` $a_zero_point^)?
    (`b_zero_point` $b_zero_point^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def HL_ConvIntegerOp : HL_Op<"conv_integer", [Pure, HL_WindowOpInterface, AttrSizedOperandSegments]> {
  let summary = "Integer convolution with zero points (ONNX ConvInteger)";
  let description = [{
    ```mlir
    %y = hl.conv_integer %x, %w x_zero_point %z
        : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>) -> tensor<1x1x2x2xi32>
    ```
  }];
  let arguments = (ins HL_IntTensor:$input, HL_IntTensor:$weight,
                       Optional<HL_IntTensor>:$x_zero_point,
                       Optional<HL_IntTensor>:$w_zero_point,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = [{
    $input `,` $weight (`x_zero_point` $x_zero_point^)?
    (`w_zero_point` $w_zero_point^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def HL_QLinearMatMulOp : HL_Op<"qlinear_matmul", [Pure]> {
  let summary = "Quantised matrix product (ONNX QLinearMatMul)";
  let description = [{
    Operands: `a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
    y_zero_point`; the result has the output zero point's element type.

    ```mlir
    %y = hl.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz
        : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>,
           tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
    ```
  }];
  let arguments = (ins HL_IntTensor:$a, HL_FloatTensor:$a_scale,
                       HL_IntTensor:$a_zero_point, HL_IntTensor:$b,
                       HL_FloatTensor:$b_scale, HL_IntTensor:$b_zero_point,
                       HL_FloatTensor:$y_scale, HL_IntTensor:$y_zero_point);
  let results = (outs HL_IntTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_QLinearConvOp : HL_Op<"qlinear_conv", [Pure, HL_WindowOpInterface]> {
  let summary = "Quantised convolution (ONNX QLinearConv)";
  let description = [{
    Operands: `x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
    y_zero_point` and an optional i32 bias.

    ```mlir
    %y = hl.qlinear_conv %x, %xs, %xz, %w, %ws, %wz, %ys, %yz
        : (tensor<1x1x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x1x1xui8>,
           tensor<1xf32>, tensor<1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x7x7xui8>
    ```
  }];
  let arguments = (ins HL_IntTensor:$input, HL_FloatTensor:$x_scale,
                       HL_IntTensor:$x_zero_point, HL_IntTensor:$weight,
                       HL_FloatTensor:$w_scale, HL_IntTensor:$w_zero_point,
                       HL_FloatTensor:$y_scale, HL_IntTensor:$y_zero_point,
                       Optional<TensorOf<[I32]>>:$bias,
                       DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_IntTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_MatMulNBitsOp : HL_Op<"matmul_nbits", [Pure, AttrSizedOperandSegments,
    HL_InferShape]> {
  let summary = "Product by a block-quantized weight (ONNX Runtime's "
                "com.microsoft MatMulNBits)";
  let description = [{
    `a [..., K]` times the weight `W [K, N]` that `b` stores as unsigned
    `bits`-bit integers in blocks of `block_size` rows of K, one block per
    column `n` and block index `i` at `b[n, i, :]`, the values of a block
    packed low bits first (with 4 bits, value `2j` in the low nibble of
    byte `j`): `W[k, n] = (q - zero_point) * scale` with the scale
    `scales[n * blocks + i]` (`[N * blocks]` or `[N, blocks]`) and the zero
    point from `zero_points`, packed like `b` per column (`[N * ceil(blocks
    * bits / 8)]`, u8) or given as floats of the scales' shape; without
    them, `2^(bits - 1)`. `bias [N]` is added. The result is `[..., N]`.
    `accuracy_level` 4 (ONNX Runtime's int8 compute) quantizes `a` to
    int8 per row and block, as edge.weight_quantized_matmul's
    `activation_bits = 8` defines it; absent or other levels compute in
    f32 (at least the precision the level asks for).

    ```mlir
    %y = hl.matmul_nbits %a, %b, %s {K = 64 : i64, N = 10 : i64, bits = 4 : i64, block_size = 32 : i64}
        : (tensor<1x64xf32>, tensor<10x2x16xui8>, tensor<20xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$a, TensorOf<[UI8]>:$b,
                       HL_FloatTensor:$scales,
                       Optional<HL_Tensor>:$zero_points,
                       Optional<HL_FloatTensor>:$bias,
                       I64Attr:$K, I64Attr:$N, I64Attr:$bits,
                       I64Attr:$block_size,
                       OptionalAttr<I64Attr>:$accuracy_level);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = [{
    $a `,` $b `,` $scales (`zero_points` $zero_points^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_HL_QUANT
