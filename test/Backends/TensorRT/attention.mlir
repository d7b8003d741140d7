// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt" | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt patterns=SplitPackedInProjection" | FileCheck %s --check-prefix=SPLIT

// Tests that a packed Q/K/V in-projection (x @ W[4, 6] + b, sliced in three)
// is split into one projection per slice with W[:, s:e] and b[s:e], that
// each projection with its head split is an MHAInProjection group, and
// that the attention (scaled Q, Q@K^T, Softmax, @V) is one group.
// SPLIT-LABEL: func @attention
// SPLIT-DAG: hl.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [6.000000e+00, 7.000000e+00], [1.200000e+01, 1.300000e+01], [1.800000e+01, 1.900000e+01]]> : tensor<4x2xf32>
// SPLIT-DAG: hl.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// SPLIT-DAG: hl.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00], [1.000000e+01, 1.100000e+01], [1.600000e+01, 1.700000e+01], [2.200000e+01, 2.300000e+01]]> : tensor<4x2xf32>
// SPLIT-COUNT-3: hl.matmul %arg0, %{{.*}} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// SPLIT-NOT: hl.slice
// CHECK-LABEL: func @attention
// CHECK-COUNT-3: hl.fused "mha_in_projection"
// CHECK: hl.fused "scaled_dot_product_attention"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: hl.div
// CHECK-NEXT: hl.matmul
// CHECK-NEXT: hl.softmax
// CHECK-NEXT: hl.matmul
// CHECK-NEXT: hl.yield
func.func @attention(%x: tensor<3x4xf32>) -> tensor<1x3x2xf32> {
  %w = hl.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<4x6xf32>
  %b = hl.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %axis = hl.constant dense<[-1]> : tensor<1xi64>
  %step = hl.constant dense<[1]> : tensor<1xi64>
  %s0 = hl.constant dense<[0]> : tensor<1xi64>
  %s2 = hl.constant dense<[2]> : tensor<1xi64>
  %s4 = hl.constant dense<[4]> : tensor<1xi64>
  %s6 = hl.constant dense<[6]> : tensor<1xi64>
  %heads = hl.constant dense<[3, 1, 2]> : tensor<3xi64>
  %scale = hl.constant dense<1.41421354> : tensor<f32>
  %0 = hl.matmul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %1 = hl.add %b, %0 : (tensor<6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %q = hl.slice %1, %s0, %s2, %axis, %step : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %k = hl.slice %1, %s2, %s4, %axis, %step : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %v = hl.slice %1, %s4, %s6, %axis, %step : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %qr = hl.reshape %q, %heads : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x1x2xf32>
  %qt = hl.transpose %qr {perm = array<i64: 1, 0, 2>} : (tensor<3x1x2xf32>) -> tensor<1x3x2xf32>
  %kr = hl.reshape %k, %heads : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x1x2xf32>
  %kt = hl.transpose %kr {perm = array<i64: 1, 2, 0>} : (tensor<3x1x2xf32>) -> tensor<1x2x3xf32>
  %vr = hl.reshape %v, %heads : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x1x2xf32>
  %vt = hl.transpose %vr {perm = array<i64: 1, 0, 2>} : (tensor<3x1x2xf32>) -> tensor<1x3x2xf32>
  %qs = hl.div %qt, %scale : (tensor<1x3x2xf32>, tensor<f32>) -> tensor<1x3x2xf32>
  %s = hl.matmul %qs, %kt : (tensor<1x3x2xf32>, tensor<1x2x3xf32>) -> tensor<1x3x3xf32>
  %p = hl.softmax %s : tensor<1x3x3xf32>
  %o = hl.matmul %p, %vt : (tensor<1x3x3xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %o : tensor<1x3x2xf32>
}

// -----

// Tests that a projection with a single slice, or slices of another axis,
// is not split.
// SPLIT-LABEL: func @not_packed
// SPLIT-NOT: tensor<4x2xf32>
// SPLIT: hl.slice
func.func @not_packed(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<1x6xf32>) {
  %w = hl.constant dense<1.0> : tensor<4x6xf32>
  %b = hl.constant dense<1.0> : tensor<6xf32>
  %axis = hl.constant dense<[-1]> : tensor<1xi64>
  %axis0 = hl.constant dense<[0]> : tensor<1xi64>
  %step = hl.constant dense<[1]> : tensor<1xi64>
  %s0 = hl.constant dense<[0]> : tensor<1xi64>
  %s1 = hl.constant dense<[1]> : tensor<1xi64>
  %s2 = hl.constant dense<[2]> : tensor<1xi64>
  %0 = hl.matmul %x, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %1 = hl.add %0, %b : (tensor<3x6xf32>, tensor<6xf32>) -> tensor<3x6xf32>
  %q = hl.slice %1, %s0, %s2, %axis, %step : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  %r = hl.slice %1, %s0, %s1, %axis0, %step : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x6xf32>
  return %q, %r : tensor<3x2xf32>, tensor<1x6xf32>
}

// -----

// Tests that softmax(s) @ v is no attention when the scores are not a
// product Q @ K (s is an argument here), and that a
// transpose without a projection and head split before it is no
// MHAInProjection.
// CHECK-LABEL: func @not_attention
// CHECK-NOT: hl.fused
func.func @not_attention(%s: tensor<1x3x3xf32>, %x: tensor<3x1x2xf32>, %v: tensor<1x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>) {
  %p = hl.softmax %s : tensor<1x3x3xf32>
  %o = hl.matmul %p, %v : (tensor<1x3x3xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %t = hl.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<3x1x2xf32>) -> tensor<1x3x2xf32>
  return %o, %t : tensor<1x3x2xf32>, tensor<1x3x2xf32>
}
