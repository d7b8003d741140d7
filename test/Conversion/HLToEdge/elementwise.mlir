// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that add's lower-rank operand is reshaped to the result's rank.
// CHECK-LABEL: func @add_broadcast
func.func @add_broadcast(%a: tensor<1x4x8x8xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<4x1x1xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: edge.add %{{.*}}, %[[B]] : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // CHECK-NOT: hl.add
  %0 = hl.add %a, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// Tests that an add of equal ranks needs no reshape.
// CHECK-LABEL: func @add_same_rank
func.func @add_same_rank(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: edge.reshape
  // CHECK: edge.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %0 = hl.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that relu maps one to one.
// CHECK-LABEL: func @relu
func.func @relu(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: edge.relu %{{.*}} : tensor<2x3xf32>
  %0 = hl.relu %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that abs and neg of signed integers become 0 - x and
// select(x < 0, 0 - x, x) (edge's abs and neg take floats), and that the
// absolute value of an unsigned integer is itself.
// CHECK-LABEL: func @integer_abs_neg
func.func @integer_abs_neg(%x: tensor<2x3xi64>, %u: tensor<4xui8>) -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<4xui8>) {
  // CHECK: %[[ZERO:.*]] = edge.constant dense<0> : tensor<1x1xi64>
  // CHECK: %[[NEG:.*]] = edge.sub %[[ZERO]], %[[X:.*]] :
  // CHECK: %[[LT:.*]] = edge.less %[[X]], %[[ZERO]]
  // CHECK: %[[ABS:.*]] = edge.select %[[LT]], %[[NEG]], %[[X]]
  // CHECK: edge.sub
  // CHECK-NOT: edge.abs
  // CHECK-NOT: edge.neg
  // CHECK: return %[[ABS]], %{{.*}}, %{{.*}} :
  %0 = hl.abs %x : tensor<2x3xi64>
  %1 = hl.neg %x : tensor<2x3xi64>
  %2 = hl.abs %u : tensor<4xui8>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<4xui8>
}
