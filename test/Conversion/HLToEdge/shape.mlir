// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that constants, flatten and reshape become edge ops and the shape
// operand of reshape is no longer used.
// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<1x4x2x2xf32>) -> tensor<4x4xf32> {
  // CHECK: %[[F:.*]] = edge.reshape %{{.*}} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  // CHECK: edge.reshape %[[F]] : (tensor<1x16xf32>) -> tensor<4x4xf32>
  %s = hl.constant dense<[4, 4]> : tensor<2xi64>
  %0 = hl.flatten %x : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %1 = hl.reshape %0, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// Tests that softmax's negative axis is normalised.
// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // CHECK: edge.softmax %{{.*}} {axis = 1 : i64} : tensor<2x10xf32>
  %0 = hl.softmax %x : tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}

// -----

// Tests that depth_to_space (DCR) is reshape, transpose and reshape.
// CHECK-LABEL: func @depth_to_space
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  // CHECK: %[[R:.*]] = edge.reshape %{{.*}} : (tensor<1x8x2x3xf32>) -> tensor<1x2x2x2x2x3xf32>
  // CHECK: %[[T:.*]] = edge.transpose %[[R]] {permutation = array<i64: 0, 3, 4, 1, 5, 2>}
  // CHECK: edge.reshape %[[T]] : (tensor<1x2x2x2x3x2xf32>) -> tensor<1x2x4x6xf32>
  %0 = hl.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}
