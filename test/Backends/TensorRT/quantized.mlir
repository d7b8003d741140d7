// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt quantize=true" | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt" | FileCheck %s --check-prefix=FLOAT

// Tests the QDQ points of a conv group: the conv input per tensor and its
// weight per output channel (axis 0); the BN parameters and the output get
// none.
// CHECK-LABEL: func @conv_points
// CHECK: hl.fused "conv_bn_relu"(%arg0, %arg1, %arg2) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]}
// FLOAT-LABEL: func @conv_points
// FLOAT-NOT: qdq_points
func.func @conv_points(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %2 = hl.relu %1 : tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// Tests that the residual input of a fused add is a QDQ point.
// CHECK-LABEL: func @residual_points
// CHECK: hl.fused "conv_add_relu"(%arg0, %arg1, %arg2) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}, {input = 2 : i64, role = "residual"}]}
func.func @residual_points(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %r: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %0 = hl.conv %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = hl.add %0, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = hl.relu %1 : tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// Tests the weight axis of linear layers: 0 for a transB Gemm weight
// [N, K], the last axis for a MatMul weight [K, N].
// CHECK-LABEL: func @linear_points
// CHECK: hl.fused "linear"(%arg0, %{{.*}}) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]}
// CHECK: hl.fused "linear"(%arg0, %{{.*}}) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 1 : i64, input = 1 : i64, role = "weight"}]}
func.func @linear_points(%x: tensor<1x8xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %w = hl.constant dense<0.5> : tensor<4x8xf32>
  %wt = hl.constant dense<0.25> : tensor<8x4xf32>
  %0 = hl.gemm %x, %w {transB = 1 : i64} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %1 = hl.matmul %x, %wt : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Tests that LayerNorm is claimed with no QDQ points (kept in float) and
// that global average pooling is quantized on its input.
// CHECK-LABEL: func @float_and_pool
// CHECK: hl.fused "layer_norm"(%arg0, %arg1) {qdq_points = []}
// CHECK: hl.fused "global_average_pool"(%arg2) {qdq_points = [{input = 0 : i64, role = "activation"}]}
func.func @float_and_pool(%x: tensor<2x16xf32>, %s: tensor<16xf32>, %p: tensor<1x4x8x8xf32>) -> (tensor<2x16xf32>, tensor<1x4x1x1xf32>) {
  %0 = hl.layer_normalization %x, %s {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %1 = hl.global_average_pool %p : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %0, %1 : tensor<2x16xf32>, tensor<1x4x1x1xf32>
}

// -----

// Tests that attention quantizes Q (behind its scale), K and V, but not
// the constant scale.
// CHECK-LABEL: func @attention_points
// CHECK: hl.fused "scaled_dot_product_attention"(%arg0, %{{.*}}, %arg1, %arg2) {qdq_points = [{input = 0 : i64, role = "matmul_operands"}, {input = 2 : i64, role = "matmul_operands"}, {input = 3 : i64, role = "matmul_operands"}]}
func.func @attention_points(%q: tensor<1x3x2xf32>, %k: tensor<1x2x3xf32>, %v: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %scale = hl.constant dense<1.41421354> : tensor<f32>
  %qs = hl.div %q, %scale : (tensor<1x3x2xf32>, tensor<f32>) -> tensor<1x3x2xf32>
  %s = hl.matmul %qs, %k : (tensor<1x3x2xf32>, tensor<1x2x3xf32>) -> tensor<1x3x3xf32>
  %p = hl.softmax %s : tensor<1x3x3xf32>
  %o = hl.matmul %p, %v : (tensor<1x3x3xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %o : tensor<1x3x2xf32>
}
