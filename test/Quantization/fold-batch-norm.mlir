// strata-fold-batch-norm: an inference batch normalization after a conv
// with constant operands folds into the conv. Expected values by hand:
// f = scale / sqrt(var + epsilon) = [2 / 4, -1 / 4] = [0.5, -0.25];
// W' = W * f = [[1, 3] * 0.5, [2, -4] * -0.25] = [[0.5, 1.5], [-0.5, 1]];
// b' = (b - mean) * f + bias = (1 - 1) * 0.5 + 0.6 = 0.6 and
// (4 - 2) * -0.25 - 1 = -1.5.
// RUN: strata-opt %s --strata-fold-batch-norm | FileCheck %s

// CHECK-LABEL: func.func @folds
// CHECK-DAG: %[[W:.*]] = hl.constant dense<{{\[}}{{\[}}{{\[}}[5.000000e-01, 1.500000e+00]]], {{\[}}{{\[}}[-5.000000e-01, 1.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = hl.constant dense<[6.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = hl.conv %arg0, %[[W]], %[[B]] {kernel_shape = array<i64: 1, 2>}
// CHECK-NOT: hl.batch_normalization
// CHECK: return %[[Y]]
func.func @folds(%x: tensor<1x1x3x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = hl.constant dense<[[[[1.0, 3.0]]], [[[2.0, -4.0]]]]> : tensor<2x1x1x2xf32>
  %b = hl.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %s = hl.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %bb = hl.constant dense<[0.6, -1.0]> : tensor<2xf32>
  %m = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = hl.constant dense<[15.0, 15.0]> : tensor<2xf32>
  %c = hl.conv %x, %w, %b {kernel_shape = array<i64: 1, 2>} : (tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y = hl.batch_normalization %c, %s, %bb, %m, %v {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// The conv's result is also returned: folding would change that value.
// CHECK-LABEL: func.func @shared_conv
// CHECK: hl.batch_normalization
func.func @shared_conv(%x: tensor<1x1x3x4xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = hl.constant dense<1.0> : tensor<2x1x1x2xf32>
  %s = hl.constant dense<1.0> : tensor<2xf32>
  %z = hl.constant dense<0.0> : tensor<2xf32>
  %c = hl.conv %x, %w : (tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32>
  %y = hl.batch_normalization %c, %s, %z, %z, %s : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %c, %y : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// A weight computed at run time cannot fold.
// CHECK-LABEL: func.func @runtime_weight
// CHECK: hl.batch_normalization
func.func @runtime_weight(%x: tensor<1x1x3x4xf32>, %w: tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32> {
  %s = hl.constant dense<1.0> : tensor<2xf32>
  %z = hl.constant dense<0.0> : tensor<2xf32>
  %c = hl.conv %x, %w : (tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32>
  %y = hl.batch_normalization %c, %s, %z, %z, %s : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
