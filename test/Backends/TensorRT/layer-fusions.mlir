// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt" | FileCheck %s

// Tests that Conv + BN + ReLU + MaxPool is claimed whole by the stem pattern
// and ConvBNReLU (shorter, overlapping) does not split it.
// CHECK-LABEL: func @stem
func.func @stem(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: %[[F:.*]] = hl.fused "conv_bn_relu_max_pool"(%{{.*}}) {{.*}} {
  // CHECK: hl.conv
  // CHECK: hl.batch_normalization
  // CHECK: hl.relu
  // CHECK: hl.max_pool
  // CHECK: hl.yield
  // CHECK-NEXT: }
  // CHECK-NOT: hl.fused
  // CHECK: return %[[F]]
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = hl.relu %1 : tensor<1x4x6x6xf32>
  %3 = hl.max_pool %2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  return %3 : tensor<1x4x3x3xf32>
}

// -----

// Tests that a residual block's tail is one group whose operands include
// the residual input, and that the downsample branch is a ConvBN group.
// CHECK-LABEL: func @residual
func.func @residual(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %c: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK: %[[D:.*]] = hl.fused "conv_bn"(%{{.*}})
  // CHECK: hl.fused "conv_bn_add_relu"(%{{.*}}, %[[D]])
  // CHECK: hl.conv
  // CHECK: hl.batch_normalization
  // CHECK: hl.add
  // CHECK: hl.relu
  %0 = hl.conv %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = hl.conv %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %3 = hl.batch_normalization %2, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %4 = hl.add %1, %3 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %5 = hl.relu %4 : tensor<1x4x6x6xf32>
  return %5 : tensor<1x4x6x6xf32>
}

// -----

// Tests that Clip(0, 6) is fused as ReLU6 and Clip(0, 4) is not an
// activation (the conv is then a ConvBN group of its own).
// CHECK-LABEL: func @relu6
func.func @relu6(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %lo = hl.constant dense<0.0> : tensor<f32>
  %hi = hl.constant dense<6.0> : tensor<f32>
  %four = hl.constant dense<4.0> : tensor<f32>
  // CHECK: hl.fused "conv_relu6"
  // CHECK: hl.fused "conv"
  // CHECK-NOT: hl.fused
  // CHECK: hl.clip
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.clip %0 min %lo max %hi : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %2 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %3 = hl.clip %2 min %lo max %four : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  return %1, %3 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Tests the other activations ConvBNReLU takes: LeakyRelu, Elu,
// HardSwish, HardSigmoid, SiLU (x * sigmoid(x)) and erf-form GELU.
// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  // CHECK: hl.fused "conv_leaky_relu"
  // CHECK: hl.fused "conv_elu"
  // CHECK: hl.fused "conv_hard_swish"
  // CHECK: hl.fused "conv_hard_sigmoid"
  // CHECK: hl.fused "conv_silu"
  // CHECK: hl.fused "conv_gelu"
  // CHECK: hl.erf
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.leaky_relu %0 : tensor<1x4x6x6xf32>
  %2 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %3 = hl.elu %2 : tensor<1x4x6x6xf32>
  %4 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %5 = hl.hard_swish %4 : tensor<1x4x6x6xf32>
  %6 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %7 = hl.hard_sigmoid %6 : tensor<1x4x6x6xf32>
  %8 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %9 = hl.sigmoid %8 : tensor<1x4x6x6xf32>
  %10 = hl.mul %8, %9 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %sqrt2 = hl.constant dense<1.41421354> : tensor<f32>
  %one = hl.constant dense<1.0> : tensor<f32>
  %half = hl.constant dense<0.5> : tensor<f32>
  %11 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %12 = hl.div %11, %sqrt2 : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %13 = hl.erf %12 : tensor<1x4x6x6xf32>
  %14 = hl.add %13, %one : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %15 = hl.mul %11, %14 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %16 = hl.mul %15, %half : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  return %1, %3, %5, %7, %10, %16 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Tests that a BN whose result has a second user is not absorbed into
// ConvBNReLU (the group would have to expose it): ConvBN takes conv + BN.
// CHECK-LABEL: func @shared_intermediate
func.func @shared_intermediate(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  // CHECK: %[[G:.*]] = hl.fused "conv_bn"
  // CHECK: hl.relu %[[G]]
  // CHECK: return %{{.*}}, %[[G]]
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = hl.relu %1 : tensor<1x4x6x6xf32>
  return %2, %1 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Tests LinearReLU on Gemm and on MatMul + bias, and Linear alone.
// CHECK-LABEL: func @linear
func.func @linear(%x: tensor<1x8xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %w = hl.constant dense<0.5> : tensor<4x8xf32>
  %wt = hl.constant dense<0.25> : tensor<8x4xf32>
  %b = hl.constant dense<1.0> : tensor<4xf32>
  // CHECK: hl.fused "linear_relu"
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: hl.gemm
  // CHECK: hl.fused "linear_relu"
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: hl.matmul
  // CHECK-NEXT: hl.add
  // CHECK-NEXT: hl.relu
  // CHECK: hl.fused "linear"
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: hl.matmul
  // CHECK-NEXT: hl.add
  // CHECK-NEXT: hl.yield
  %0 = hl.gemm %x, %w, %b {transB = 1 : i64} : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = hl.relu %0 : tensor<1x4xf32>
  %2 = hl.matmul %x, %wt : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %3 = hl.add %b, %2 : (tensor<4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %4 = hl.relu %3 : tensor<1x4xf32>
  %5 = hl.matmul %x, %wt : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %6 = hl.add %5, %b : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %1, %4, %6 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Tests that a matmul of two activations is no Linear.
// CHECK-LABEL: func @matmul_of_activations
func.func @matmul_of_activations(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // CHECK-NOT: hl.fused
  %0 = hl.matmul %a, %b : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests LayerNorm on the ReduceMean/Sub/Pow/Sqrt/Div chain with its affine
// tail (nine ops, one group) and on the LayerNormalization op.
// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<2x16xf32>, %s: tensor<16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %axes = hl.constant dense<[-1]> : tensor<1xi64>
  %two = hl.constant dense<2.0> : tensor<f32>
  %eps = hl.constant dense<1.0e-5> : tensor<f32>
  %gamma = hl.constant dense<1.5> : tensor<16xf32>
  %beta = hl.constant dense<0.5> : tensor<16xf32>
  // CHECK: hl.fused "layer_norm"
  // CHECK-COUNT-2: hl.reduce_mean
  // CHECK: hl.yield
  // CHECK: hl.fused "layer_norm"
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: hl.layer_normalization
  %0 = hl.reduce_mean %x, %axes : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %1 = hl.sub %x, %0 : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %2 = hl.pow %1, %two : (tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %3 = hl.reduce_mean %2, %axes : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %4 = hl.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = hl.sqrt %4 : tensor<2x1xf32>
  %6 = hl.div %1, %5 : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %7 = hl.mul %6, %gamma : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %8 = hl.add %7, %beta : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %9 = hl.layer_normalization %x, %s {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return %8, %9 : tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

// Tests that the chain with the square taken by multiplication (no Pow) is
// not taken for a LayerNorm.
// CHECK-LABEL: func @not_layer_norm
func.func @not_layer_norm(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %axes = hl.constant dense<[-1]> : tensor<1xi64>
  %eps = hl.constant dense<1.0e-5> : tensor<f32>
  // CHECK-NOT: hl.fused
  %0 = hl.reduce_mean %x, %axes : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %1 = hl.sub %x, %0 : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %2 = hl.mul %1, %1 : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %3 = hl.reduce_mean %2, %axes : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %4 = hl.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = hl.sqrt %4 : tensor<2x1xf32>
  %6 = hl.div %1, %5 : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  return %6 : tensor<2x16xf32>
}

// -----

// Tests GlobalAveragePool.
// CHECK-LABEL: func @gap
func.func @gap(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32> {
  // CHECK: hl.fused "global_average_pool"
  %0 = hl.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}
