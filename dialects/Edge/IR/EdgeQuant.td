//===- EdgeQuant.td - quantize, dequantize, int8 ops -------*- tablegen -*-===//
//
// Affine quantization with explicit quantize/dequantize ops (scale and
// zero point as operands) and the integer convolution and matmul that
// the quantization passes form from dequantize -> op -> quantize chains.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_QUANT
#define STRATA_EDGE_QUANT

include "Edge/IR/EdgeBase.td"

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

def Edge_DynamicQuantizeLinearOp : Edge_Op<"dynamic_quantize_linear",
    [Pure, AllShapesMatch<["input", "output"]>, Edge_KernelOpInterface,
     InferTypeOpAdaptor]> {
  let summary = "ONNX DynamicQuantizeLinear: u8 with a run-time scale and zero point";
  let description = [{
    One kernel for what ONNX defines as a chain: `lo = min(0, min(x))`,
    `hi = max(0, max(x))`, `scale = (hi - lo) / 255` (1 where `hi == lo`, as
    ONNX Runtime computes it), `zero_point = round_half_to_even(clamp(0 -
    lo / scale, 0, 255))`, then `quantize_linear(x, scale, zero_point)` into
    u8, every step in f32, in one kernel call.

    ```mlir
    %q, %s, %z = edge.dynamic_quantize_linear %x
        : (tensor<4xf32>) -> (tensor<4xui8>, tensor<f32>, tensor<ui8>)
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input);
  let results = (outs StaticShapeTensorOf<[UI8]>:$output,
                      StaticShapeTensorOf<[F32]>:$scale,
                      StaticShapeTensorOf<[UI8]>:$zero_point);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_DequantizeLinearOp : Edge_Op<"dequantize_linear",
    [Pure, AllShapesMatch<["input", "output"]>, Edge_KernelOpInterface,
     InferTypeOpAdaptor]> {
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
    real = activation(real)
    ```

    and then either `real` itself (an f32 result) or
    `saturate(round_half_to_even(real / output_scale) + output_zero_point)`
    (an 8-bit result, which needs `output_scale` and `output_zero_point`),
    or, for an `i32` result, `acc` itself (ONNX ConvInteger; the scales and
    bias play no part, and there is no residual, clamp or activation).
    `input_scale` and the zero points of input, residual and output are
    scalars; `weight_scale` and `weight_zero_point` are scalars or `[M]`;
    `bias` is `[M]` f32. `weight_scale` may be negative (a folded
    batch-normalization factor). `activation`, when present, is `swish`
    (`x * sigmoid(x)`, SiLU), `hardswish` (`x * clip(x / 6 + 1 / 2, 0,
    1)`) or `gelu_erf` (`x * 0.5 * (1 + erf(x / sqrt(2)))`), applied in f32
    before the requantization. The geometry attributes
    are `conv2d`'s.

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
                       OptionalAttr<F32Attr>:$clip_max,
                       OptionalAttr<StrAttr>:$activation);
  let results = (outs AnyTypeOf<[Edge_F32Tensor, Edge_QuantStorageTensor,
                                 StaticShapeTensorOf<[I32]>]>:$output);
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
    `lhs [B..., M, K]` (8-bit, per-tensor) times `rhs [K, N]`, shared by
    every batch (a weight), or `rhs [B..., K, N]` with the lhs's batch
    extents (a product of two activations, as attention's); rhs is 8-bit
    with scale and zero point scalars or `[N]`, one per column. With
    `acc[n]` the exact int32 dot product of the zero-point-corrected row and
    column, `real = acc[n] * lhs_scale * rhs_scale[n] + bias[n]`, clamped to
    `[clip_min, clip_max]`, passed through `activation` as for
    `quantized_conv2d`, and the result is `real` (f32) or its
    quantization by `output_scale` / `output_zero_point` (8-bit), or `acc`
    itself (i32: ONNX MatMulInteger), as for `quantized_conv2d`.

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
                       OptionalAttr<F32Attr>:$clip_max,
                       OptionalAttr<StrAttr>:$activation);
  let results = (outs AnyTypeOf<[Edge_F32Tensor, Edge_QuantStorageTensor,
                                 StaticShapeTensorOf<[I32]>]>:$output);
  let assemblyFormat = [{
    $lhs `(` $lhs_scale `,` $lhs_zero_point `)` `,`
    $rhs `(` $rhs_scale `,` $rhs_zero_point `)` `,` `bias` $bias
    (`requantize` `(` $output_scale^ `,` $output_zero_point `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_WeightQuantizedMatMulOp : Edge_Op<"weight_quantized_matmul",
    [Pure, AttrSizedOperandSegments, Edge_KernelOpInterface,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "f32 matrix product by a weight quantized to 4 or 8 bits in groups along K";
  let description = [{
    `lhs [B..., M, K]` (f32) times a constant weight `W [K, N]` stored as
    unsigned `bits`-bit integers `q` with one f32 scale `s` (and one zero
    point `z`, by default `2^(bits-1)`) per column and per group of
    `group_size` consecutive rows of K (the last group may be shorter):
    `W[k, n] = (q[k, n] - z[g, n]) * s[g, n]` with `g = k / group_size`,
    and `output = lhs x W (+ bias)` in f32, `[B..., M, N]`. ONNX Runtime's
    `MatMulNBits` and the group-wise int4/int8 weights of ExecuTorch and
    XNNPACK are this op.

    The columns are stored in tiles of 32 (the last tile padded with zero
    scales), each 32-bit word (little-endian) holding one column's values
    for `32 / bits` consecutive rows of K, the first in the lowest bits, so
    that shifts and masks of 32-bit lanes unpack them:
    - `weight [ceil(N/32), ceil(K/(32/bits)), 128]` (ui8): word `c` of
      block `b` of tile `t` holds rows `b * 32/bits ...` of column
      `32 t + c`; `group_size` is a multiple of `32 / bits`;
    - `scales [ceil(N/32), ceil(K/group_size), 32]` (f32);
    - `zero_points` (optional), the same shape as `scales` (ui8, each
      below `2^bits`);
    - `bias [N]` (optional, f32).

    With `activation_bits = 8` the lhs is quantized dynamically (what
    ExecuTorch calls 8da4w and ONNX Runtime's MatMulNBits accuracy level
    4): each row is cut into the weight's groups of K, each group scaled
    by `a = max|x| / 127` (f32; 0 for an all-zero group) and rounded to
    `p = rint(x / a)` (to nearest, ties to even) in int8, and the product
    is computed in exact int32 sums per group:
    `output[m, n] = sum_g a[m, g] * s[g, n] *
    (sum_{k in g} p[m, k] * q[k, n] - z[g, n] * sum_{k in g} p[m, k])`
    (+ bias). Absent, the lhs stays f32.

    ```mlir
    %y = edge.weight_quantized_matmul %x, %w(%s, %z) {bits = 4 : i64, group_size = 32 : i64}
        : (tensor<1x64xf32>, tensor<1x8x128xui8>, tensor<1x2x32xf32>,
           tensor<1x2x32xui8>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$lhs,
                       StaticShapeTensorOf<[UI8]>:$weight,
                       StaticShapeTensorOf<[F32]>:$scales,
                       Optional<StaticShapeTensorOf<[UI8]>>:$zero_points,
                       Optional<StaticShapeTensorOf<[F32]>>:$bias,
                       I64Attr:$bits,
                       I64Attr:$group_size,
                       OptionalAttr<I64Attr>:$activation_bits);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $weight `(` $scales (`,` $zero_points^)? `)`
    (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The number of output columns a tile of the packed weight holds.
    static constexpr int64_t kTileColumns = 32;
  }];
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_QUANT
