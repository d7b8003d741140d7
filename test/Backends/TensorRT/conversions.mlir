// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt patterns=FlattenGemmToConv,RemoveIdentityPooling" | FileCheck %s

// Tests that Flatten + Gemm(transB) becomes a convolution over the whole
// 2x2 map with the weight reshaped row for row (alpha folded in) and the
// bias scaled by beta, then Flatten.
// CHECK-LABEL: func @flatten_gemm
func.func @flatten_gemm(%x: tensor<1x2x2x2xf32>) -> tensor<1x2xf32> {
  // CHECK-DAG: %[[W:.*]] = hl.constant dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00], [6.000000e+00, 8.000000e+00]], {{\[\[}}1.000000e+01, 1.200000e+01], [1.400000e+01, 1.600000e+01]]], {{\[\[\[}}1.800000e+01, 2.000000e+01], [2.200000e+01, 2.400000e+01]], {{\[\[}}2.600000e+01, 2.800000e+01], [3.000000e+01, 3.200000e+01]]]]> : tensor<2x2x2x2xf32>
  // CHECK-DAG: %[[B:.*]] = hl.constant dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
  // CHECK: %[[C:.*]] = hl.conv %arg0, %[[W]], %[[B]] {kernel_shape = array<i64: 2, 2>} : {{.*}} -> tensor<1x2x1x1xf32>
  // CHECK: %[[F:.*]] = hl.flatten %[[C]] : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  // CHECK-NOT: hl.gemm
  // CHECK: return %[[F]]
  %w = hl.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]]> : tensor<2x8xf32>
  %b = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = hl.flatten %x {axis = 1 : si64} : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %1 = hl.gemm %0, %w, %b {alpha = 2.0 : f32, beta = 3.0 : f32, transB = 1 : i64} : (tensor<1x8xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// Tests that without transB the [K, M] weight is transposed into the conv
// weight.
// CHECK-LABEL: func @flatten_gemm_no_trans
func.func @flatten_gemm_no_trans(%x: tensor<1x2x1x1xf32>) -> tensor<1x3xf32> {
  // CHECK: hl.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}5.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}6.000000e+00]]]]> : tensor<3x2x1x1xf32>
  // CHECK: hl.conv {{.*}} {kernel_shape = array<i64: 1, 1>}
  %w = hl.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = hl.flatten %x {axis = 1 : si64} : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  %1 = hl.gemm %0, %w : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return %1 : tensor<1x3xf32>
}

// -----

// Tests that Gemm with a run-time weight, or transA, or without a Flatten
// before it, is left alone.
// CHECK-LABEL: func @gemm_not_converted
func.func @gemm_not_converted(%x: tensor<1x2x1x1xf32>, %w: tensor<3x2xf32>, %a: tensor<2x1xf32>, %f: tensor<1x2xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %c = hl.constant dense<1.0> : tensor<3x2xf32>
  // CHECK-COUNT-3: hl.gemm
  // CHECK-NOT: hl.conv
  %0 = hl.flatten %x {axis = 1 : si64} : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  %1 = hl.gemm %0, %w {transB = 1 : i64} : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<1x3xf32>
  %2 = hl.gemm %a, %c {transA = 1 : i64, transB = 1 : i64} : (tensor<2x1xf32>, tensor<3x2xf32>) -> tensor<1x3xf32>
  %3 = hl.gemm %f, %c {transB = 1 : i64} : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<1x3xf32>
  return %1, %2, %3 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Tests that 1x1 unit-stride pooling and global pooling of a 1x1 map are
// removed, and real pooling is kept.
// CHECK-LABEL: func @identity_pooling
func.func @identity_pooling(%x: tensor<1x4x1x1xf32>, %y: tensor<1x4x8x8xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) {
  // CHECK-NOT: hl.global_average_pool
  // CHECK-NOT: hl.average_pool
  // CHECK: hl.max_pool %arg1 {{.*}} -> tensor<1x4x4x4xf32>
  // CHECK: return %arg0, %arg1
  %0 = hl.global_average_pool %x : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %1 = hl.average_pool %y {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = hl.max_pool %1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1, %2 : tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>
}

// -----

// Tests that a 1x1 pool with stride 2 is not an identity.
// CHECK-LABEL: func @strided_pool_kept
func.func @strided_pool_kept(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: hl.max_pool
  %0 = hl.max_pool %x {kernel_shape = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}
