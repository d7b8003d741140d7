// RUN: not strata-opt %s --strata-edge-quantize-weights 2>&1 | FileCheck %s

// A width outside 0, 4 and 8 in the chosen widths is refused by node.

// CHECK: strata.weight_bits: node 'x' has width 5 : i64, expected 0, 4 or 8
func.func @bad_chosen(%x: tensor<2x4xf32>) -> tensor<2x3xf32> attributes {strata.weight_bits = {x = 5 : i64}} {
  %w = edge.constant dense<0.25> : tensor<4x3xf32>
  %0 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
