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

// -----

// Tests that a periodic Hann window of a run-time size is its cosine sum
// over edge.range(0, size, 1): 0.5 - 0.5 cos(n * 2pi / size), with the size
// cast to f32 and no second cosine term (a2 = 0).
// CHECK-LABEL: func @hann_runtime_size
func.func @hann_runtime_size(%n: tensor<i64>) -> tensor<10xf32> {
  // CHECK: %[[N1:.*]] = edge.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
  // CHECK: %[[NF:.*]] = edge.cast %[[N1]] : (tensor<1xi64>) -> tensor<1xf32>
  // CHECK: %[[R:.*]] = edge.range %{{.*}}, %[[NF]], %{{.*}} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<10xf32>
  // CHECK: %[[STEP:.*]] = edge.div %{{.*}}, %[[NF]] : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  // CHECK: %[[PHASE:.*]] = edge.mul %[[R]], %[[STEP]]
  // CHECK: %[[COS:.*]] = edge.cos %[[PHASE]]
  // CHECK: %[[T:.*]] = edge.mul %[[COS]], %{{.*}}
  // CHECK: %[[W:.*]] = edge.sub %{{.*}}, %[[T]] : (tensor<1xf32>, tensor<10xf32>) -> tensor<10xf32>
  // CHECK-NOT: edge.cos
  // CHECK: return %[[W]]
  %0 = hl.hann_window %n : (tensor<i64>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Tests that a symmetric Blackman window divides by size - 1 and adds the
// 0.08 cos(2 * phase) term.
// CHECK-LABEL: func @blackman_symmetric
func.func @blackman_symmetric(%n: tensor<i32>) -> tensor<8xf32> {
  // CHECK: %[[NF:.*]] = edge.cast %{{.*}} : (tensor<1xi32>) -> tensor<1xf32>
  // CHECK: edge.range
  // CHECK: %[[D:.*]] = edge.sub %[[NF]], %{{.*}} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  // CHECK: edge.div %{{.*}}, %[[D]]
  // CHECK: edge.cos
  // CHECK: edge.cos
  // CHECK: %[[W:.*]] = edge.add
  // CHECK: return %[[W]]
  %0 = hl.blackman_window %n {periodic = 0 : i64} : (tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that an f64 window computes in f64 throughout.
// CHECK-LABEL: func @hamming_f64
func.func @hamming_f64(%n: tensor<i64>) -> tensor<4xf64> {
  // CHECK: edge.range {{.*}} -> tensor<4xf64>
  // CHECK-NOT: edge.cast {{.*}} -> tensor<4xf64>
  // CHECK: %[[W:.*]] = edge.sub {{.*}} -> tensor<4xf64>
  // CHECK: return %[[W]]
  %0 = hl.hamming_window %n : (tensor<i64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Tests that an f16 window computes in f32 and casts at the end.
// CHECK-LABEL: func @hann_f16
func.func @hann_f16(%n: tensor<i64>) -> tensor<4xf16> {
  // CHECK: %[[W:.*]] = edge.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf16>
  // CHECK: return %[[W]]
  %0 = hl.hann_window %n : (tensor<i64>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
