// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that hl.fused round-trips with its kind, operands, QDQ points and
// body.
// CHECK-LABEL: func @fused
func.func @fused(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK: %[[F:.*]] = hl.fused "conv_relu"(%arg0, %arg1) {qdq_points = [{input = 0 : i64, role = "activation"}]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x3x8x8xf32>, %[[B:.*]]: tensor<4x3x3x3xf32>):
  // CHECK-NEXT: %[[C:.*]] = hl.conv %[[A]], %[[B]]
  // CHECK-NEXT: %[[R:.*]] = hl.relu %[[C]]
  // CHECK-NEXT: hl.yield %[[R]] : tensor<1x4x6x6xf32>
  // CHECK: return %[[F]]
  %0 = hl.fused "conv_relu"(%x, %w) {qdq_points = [{input = 0 : i64, role = "activation"}]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x3x3xf32>):
    %c = hl.conv %a, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %r = hl.relu %c : tensor<1x4x6x6xf32>
    hl.yield %r : tensor<1x4x6x6xf32>
  }
  return %0 : tensor<1x4x6x6xf32>
}
