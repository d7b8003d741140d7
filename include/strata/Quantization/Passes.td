//===- Passes.td - QDQ insertion ---------------------------*- tablegen -*-===//
#ifndef STRATA_QUANTIZATION_PASSES
#define STRATA_QUANTIZATION_PASSES

include "mlir/Pass/PassBase.td"

def InsertQDQ : Pass<"strata-insert-qdq", "mlir::func::FuncOp"> {
  let summary = "Insert quantize/dequantize pairs at the QDQ points of quantized groups";
  let description = [{
    For every `hl.fused` group whose quantized pattern recorded
    `qdq_points`, the operand at each point is replaced by
    `quant.dcast(quant.qcast(x))` with MLIR `quant` types:

    - weights (constant operands): symmetric int8 per output channel
      (`!quant.uniform<i8:f32:axis, {...}>`), scales max|w_c| / 127
      computed here from the constant;
    - activations, residual inputs and attention operands: int8 per tensor,
      symmetric (zero point 0, what TensorRT requires) or, with
      `activations=asymmetric`, with a zero point. Their scales come from
      calibration: until then the `quant.qcast` carries
      `strata.observe = <id>` and a placeholder scale of 1.
    - A value reached through scale-keeping ops (max pooling, reshape,
      flatten, transpose, squeeze, unsqueeze, identity) is observed at
      their input: every point behind the same chain shares one id, so
      one scale propagates instead of being requantized.
    - A value produced by softmax or sigmoid has the fixed range [0, 1]:
      its scale is set here (1/127, or 1/255 with zero point -128 when
      asymmetric) and it is not observed.
    - With `power-of-two-scales`, each scale set here is rounded up to the
      next power of two (calibration does the same for the observed ones):
      products of scales are then exact in float, and requantization is a
      shift.

    One value quantized at several points gets one pair. Float fallback:
    a group is left in float when one of its ONNX nodes is in `skip-nodes`,
    one of its ops' ONNX types is in `skip-ops` (e.g. `Gemm`), or its
    weight has fewer than `min-weight-elements` elements.

    ```mlir
    // qdq_points: input 0 an activation, input 1 a weight (axis 0)
    %y = hl.fused "conv_relu" (%x, %w) {qdq_points = [...]} ...
    ```
    becomes
    ```mlir
    %q = quant.qcast %x {strata.observe = 0} : tensor<1x1x8x8xf32> to tensor<1x1x8x8x!quant.uniform<i8:f32, 1.0>>
    %d = quant.dcast %q : ... to tensor<1x1x8x8xf32>
    %qw = quant.qcast %w : ... to tensor<4x1x3x3x!quant.uniform<i8:f32:0, {...}>>
    %dw = quant.dcast %qw : ...
    %y = hl.fused "conv_relu" (%d, %dw) ...
    ```
  }];
  let dependentDialects = ["mlir::quant::QuantizationDialect"];
  let options = [
    Option<"activations", "activations", "std::string", "\"symmetric\"",
           "Activation quantization: symmetric or asymmetric">,
    ListOption<"skipNodes", "skip-nodes", "std::string",
               "ONNX node names whose groups stay in float">,
    ListOption<"skipOps", "skip-ops", "std::string",
               "ONNX op types (Conv, Gemm, MatMul, ...) whose groups stay in float">,
    Option<"minWeightElements", "min-weight-elements", "int64_t", "0",
           "Groups whose weight has fewer elements stay in float">,
    Option<"powerOfTwoScales", "power-of-two-scales", "bool", "false",
           "Round every scale set here (weights, fixed ranges) up to a power of two">,
  ];
}

def FoldBatchNorm : Pass<"strata-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold inference batch normalizations into the convolutions before them";
  let description = [{
    A `hl.batch_normalization` whose input is a single-use `hl.conv` with
    a constant weight (and a constant bias, or none), and whose scale,
    bias, mean and variance are constants, folds into the convolution:
    with `f_c = scale_c / sqrt(var_c + epsilon)`, the weight's output
    channel c is multiplied by `f_c` and the bias becomes
    `(b_c - mean_c) * f_c + bias_c`. The model computes the same function
    (to float rounding).

    Run before quantization when the weight that gets quantized must be
    the one executed (power-of-two scales): integer runtimes and the
    exported QDQ file then hold one weight and one bias per channel.

    ```mlir
    %c = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %y = hl.batch_normalization %c, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : ...
    ```
    becomes
    ```mlir
    %y = hl.conv %x, %w2, %b2 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
}

def SmoothQuant : Pass<"strata-smooth-quant", "mlir::func::FuncOp"> {
  let summary = "Migrate per-channel scale from activations into the weights that read them (SmoothQuant)";
  let description = [{
    At every `hl.fused` group a backend's smooth pattern tagged
    `strata.smooth = {act_absmax = dense<...>}` (the measured max|X_j| of
    each channel j of the group's output, from calibration), computes

        s_j = max|X_j|^alpha / max|W_j|^(1 - alpha)

    over the input rows j of every linear group reading the output (W_j:
    the weights' row j, across all of them), then divides the producer's
    output channels by s (a linear layer's weight columns and bias, through
    a ReLU; or a normalization's scale and shift) and multiplies the
    readers' weight rows by s. The model computes the same function in
    float; the activation's outlier channels shrink before quantization.
    Every factor is computed from the unsmoothed weights first, then all
    are applied. A channel whose activation or weights are all zero keeps
    s = 1; s is clamped to [1e-5, 1e5].

    ```mlir
    %h = hl.fused "linear_relu"(%x, %w1, %b1) {strata.smooth = {act_absmax = dense<[8.0, 0.5]> : tensor<2xf32>}} ...
    %y = hl.fused "linear"(%h, %w2, %b2) ...
    ```
    becomes the same groups with `%w1`'s columns and `%b1` divided by s
    and `%w2`'s rows multiplied by s.
  }];
  let options = [
    Option<"alpha", "alpha", "double", "0.5",
           "Migration strength: 0 leaves activations alone, 1 moves all of their range into the weights">,
  ];
}

def FormQuantizedOps : Pass<"strata-form-quantized-ops", "mlir::func::FuncOp"> {
  let summary = "Rewrite dequantize -> conv2d/matmul -> ... -> quantize chains on edge into integer ops";
  let description = [{
    Turns the float form that QDQ insertion leaves on edge into int8
    execution. An `edge.conv2d` whose input is a per-tensor dequantized
    8-bit value and whose weight is a dequantized 8-bit constant becomes
    `edge.quantized_conv2d`, taking over the single-use float ops after it:

    - `mul` / `add` by constants that are per output channel or scalar (a
      batch normalization): folded into the per-channel scale and the bias;
    - one `add` of a per-tensor dequantized value of the result's shape (a
      residual input): the op's `residual` operands;
    - one `relu` or `clip`: `clip_min` / `clip_max`;
    - a per-tensor 8-bit `quantize_linear`: the requantization, so that the
      op writes 8-bit values. Without one the op writes f32.

    `edge.matmul` with a dequantized activation and a dequantized constant
    weight (2-d, possibly transposed and reshaped with leading 1s, scales
    per tensor or per column) becomes `edge.quantized_matmul` the same way
    (without residual). Scales, zero points and weights must be constants;
    everything else is left alone and runs in float.

    First, a per-tensor `quantize_linear` whose input is a single-use
    `max_pool2d`, `concat`, `reshape` or `transpose` moves above it (one
    quantize per concat input, with the shared scale): quantization
    commutes with these exactly, and the chains before them then end in a
    quantize, so their ops write 8-bit values and the pooling or
    concatenation runs on them.

    ```mlir
    %x = edge.dequantize_linear %xq, %xs, %xz ...
    %w = edge.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} ...
    %c = edge.conv2d %x, %w, %b ...
    %r = edge.relu %c ...
    %q = edge.quantize_linear %r, %ys, %yz ...
    ```
    becomes
    ```mlir
    %q = edge.quantized_conv2d %xq(%xs, %xz), %wq(%ws, %wz), bias %b
        requantize(%ys, %yz) {clip_min = 0.0 : f32, ...} ...
    ```
  }];
  let dependentDialects = ["strata::edge::EdgeDialect"];
}

#endif // STRATA_QUANTIZATION_PASSES
