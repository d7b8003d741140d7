// RUN: strata-opt %s -split-input-file --strata-hl-promote-half | FileCheck %s

// Tests that an f16 function computes in f32 inside, with casts at its
// argument and its result, and that its f16 constants are widened.
// CHECK-LABEL: func @half
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>) -> tensor<4xf16>
// CHECK-SAME: hl.promoted_half = [3, 2]
// CHECK: %[[XF:.*]] = hl.cast %[[X]] : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: %[[C:.*]] = hl.constant dense<[1.000000e+00, 5.000000e-01, 2.500000e-01, -2.000000e+00]> : tensor<4xf32>
// CHECK: %[[M:.*]] = hl.mul %[[XF]], %[[C]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[S:.*]] = hl.sigmoid %[[M]] : tensor<4xf32>
// CHECK: %[[Y:.*]] = hl.cast %[[S]] : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: return %[[Y]] : tensor<4xf16>
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %c = hl.constant dense<[1.0, 0.5, 0.25, -2.0]> : tensor<4xf16>
  %m = hl.mul %x, %c : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %s = hl.sigmoid %m : tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

// Tests that an f32 function is left alone.
// CHECK-LABEL: func @single
// CHECK-NOT: hl.promoted_half
// CHECK-NOT: hl.cast
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = hl.sigmoid %x : tensor<4xf32>
  return %s : tensor<4xf32>
}
