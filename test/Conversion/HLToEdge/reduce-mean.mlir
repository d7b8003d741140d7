// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that constant axes are normalised, sorted and deduplicated.
// CHECK-LABEL: func @axes
func.func @axes(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %axes = hl.constant dense<[-1, 1, 2]> : tensor<3xi64>
  %0 = hl.reduce_mean %x, %axes : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Tests that no axes means every axis, and keepdims = 0 drops them.
// CHECK-LABEL: func @all_axes
func.func @all_axes(%x: tensor<2x3xf32>) -> tensor<f32> {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 0, 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
  %0 = hl.reduce_mean %x {keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that noop_with_empty_axes forwards the input.
// CHECK-LABEL: func @noop
func.func @noop(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: edge.reduce_mean
  // CHECK: return %{{.*}} : tensor<2x3xf32>
  %0 = hl.reduce_mean %x {noop_with_empty_axes = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
