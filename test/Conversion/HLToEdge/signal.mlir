// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that a real 2-point DFT along axis 1 is a matmul by the DFT matrix:
// X[0] = x0 + x1, X[1] = x0 - x1 (imaginary parts zero), interleaved re/im.
// CHECK-LABEL: func @dft_real
func.func @dft_real(%x: tensor<3x2x1xf32>) -> tensor<3x2x2xf32> {
  // CHECK: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<3x2x1xf32>) -> tensor<3x2xf32>
  // CHECK: %[[M:.*]] = edge.constant dense<{{\[\[}}1.000000e+00, {{.*}}0.000000e+00, 1.000000e+00, {{.*}}0.000000e+00], [1.000000e+00, {{.*}}0.000000e+00, -1.000000e+00, {{.*}}]]> : tensor<2x4xf32>
  // CHECK: %[[Y:.*]] = edge.matmul %[[X]], %[[M]] : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // CHECK: edge.reshape %[[Y]] : (tensor<3x4xf32>) -> tensor<3x2x2xf32>
  // CHECK-NOT: hl.dft
  %0 = hl.dft %x : (tensor<3x2x1xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// Tests that a DFT along an inner axis moves that axis last and back, and
// that onesided keeps n / 2 + 1 frequencies.
// CHECK-LABEL: func @dft_axis_onesided
func.func @dft_axis_onesided(%x: tensor<1x4x5x1xf32>) -> tensor<1x3x5x2xf32> {
  // CHECK: edge.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x5x1xf32>) -> tensor<1x5x4x1xf32>
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<5x4xf32>, tensor<4x6xf32>) -> tensor<5x6xf32>
  // CHECK: edge.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x5x3x2xf32>) -> tensor<1x3x5x2xf32>
  %0 = hl.dft %x {axis = 1 : i64, onesided = 1 : i64} : (tensor<1x4x5x1xf32>) -> tensor<1x3x5x2xf32>
  return %0 : tensor<1x3x5x2xf32>
}
