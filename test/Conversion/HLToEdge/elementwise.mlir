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
