// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that greater swaps its operands into edge.less.
// CHECK-LABEL: func @greater
func.func @greater(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<3xf32>) -> tensor<1x3xf32>
  // CHECK: edge.less %[[B]], %{{.*}} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NOT: hl.greater
  %0 = hl.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// Tests that where becomes select with rank-aligned operands.
// CHECK-LABEL: func @where
func.func @where(%c: tensor<2x3xi1>, %x: tensor<3xi64>, %y: tensor<2x3xi64>) -> tensor<2x3xi64> {
  // CHECK: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<3xi64>) -> tensor<1x3xi64>
  // CHECK: edge.select %{{.*}}, %[[X]], %{{.*}} : (tensor<2x3xi1>, tensor<1x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %0 = hl.where %c, %x, %y : (tensor<2x3xi1>, tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Tests that xor and not map onto the logical ops.
// CHECK-LABEL: func @xor_not
func.func @xor_not(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: %[[X:.*]] = edge.logical_xor %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: edge.logical_not %[[X]] : tensor<4xi1>
  %0 = hl.xor %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = hl.not %0 : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// Tests that is_nan is not(x == x).
// CHECK-LABEL: func @is_nan
func.func @is_nan(%x: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: %[[E:.*]] = edge.equal %[[X:.*]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: edge.logical_not %[[E]]
  %0 = hl.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
