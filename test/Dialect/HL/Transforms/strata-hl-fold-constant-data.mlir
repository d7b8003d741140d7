// RUN: strata-opt %s -split-input-file --strata-hl-fold-constant-data | FileCheck %s

// Tests that PyTorch's LSTM gate reorder (slices of a weight, concatenated
// in another order) becomes one constant holding the reordered rows, and
// that a transpose of the result folds in the next round.
// CHECK-LABEL: func @gates
// CHECK-NEXT: %[[C:.*]] = hl.constant dense_resource<[[KEY:.*]]> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]]
// The rows 5 6, 1 3, 2 4 as little-endian f32 (after the blob's alignment).
// CHECK: [[KEY]]: "0x080000000000A0400000C0400000803F000040400000004000008040"
func.func @gates() -> tensor<3x2xf32> {
  %w = hl.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %s0 = hl.constant dense<[0]> : tensor<1xi64>
  %e0 = hl.constant dense<[2]> : tensor<1xi64>
  %s1 = hl.constant dense<[2]> : tensor<1xi64>
  %e1 = hl.constant dense<[3]> : tensor<1xi64>
  %ax = hl.constant dense<[0]> : tensor<1xi64>
  %st = hl.constant dense<[1]> : tensor<1xi64>
  %a = hl.slice %w, %s0, %e0, %ax, %st : (tensor<3x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  %b = hl.slice %w, %s1, %e1, %ax, %st : (tensor<3x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2xf32>
  %t = hl.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = hl.concat %b, %t {axis = 0 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Tests that data movement of a value computed at run time stays.
// CHECK-LABEL: func @runtime
// CHECK: hl.transpose
func.func @runtime(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = hl.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
