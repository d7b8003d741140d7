// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that a fused group with no fused edge form lowers by inlining its
// body: the ops are legalized in place with the group's operands.
// CHECK-LABEL: func @fused_inlined
func.func @fused_inlined(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK-NOT: hl.
  // CHECK: %[[C:.*]] = edge.conv2d %arg0, %arg1
  // CHECK: %[[R:.*]] = edge.relu %[[C]]
  // CHECK: return %[[R]]
  %0 = hl.fused "conv_relu"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x3x3xf32>):
    %c = hl.conv %a, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %r = hl.relu %c : tensor<1x4x6x6xf32>
    hl.yield %r : tensor<1x4x6x6xf32>
  }
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Tests a group with two results and a nested group.
// CHECK-LABEL: func @fused_nested
func.func @fused_nested(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NOT: hl.
  // CHECK: %[[A:.*]] = edge.relu %arg0
  // CHECK: %[[B:.*]] = edge.neg %[[A]]
  // CHECK: return %[[A]], %[[B]]
  %0:2 = hl.fused "outer"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = hl.fused "inner"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %s = hl.relu %b : tensor<4xf32>
      hl.yield %s : tensor<4xf32>
    }
    %n = hl.neg %r : tensor<4xf32>
    hl.yield %r, %n : tensor<4xf32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}
