// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

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
