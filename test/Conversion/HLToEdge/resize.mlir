// RUN: strata-opt %s -split-input-file --convert-hl-to-edge -verify-diagnostics | FileCheck %s

// Tests that constant scales become the scales attribute.
// CHECK-LABEL: func @constant_scales
func.func @constant_scales(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  // CHECK: edge.resize %{{.*}} {antialias = false, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "nearest", nearest_mode = "floor", scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32>
  // CHECK-NOT: hl.resize
  %s = hl.constant dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %0 = hl.resize %x scales %s {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Tests that run-time scales stay an operand.
// CHECK-LABEL: func @runtime_scales
// CHECK-SAME: %[[X:.*]]: tensor<1x1x2x4xf32>, %[[S:.*]]: tensor<4xf32>
func.func @runtime_scales(%x: tensor<1x1x2x4xf32>, %s: tensor<4xf32>) -> tensor<1x1x1x2xf32> {
  // CHECK: edge.resize %[[X]] scales %[[S]] {{{.*}}mode = "linear"{{.*}}} : (tensor<1x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x1x2xf32>
  // CHECK-NOT: array<f64
  %0 = hl.resize %x scales %s {mode = "linear"} : (tensor<1x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}

// -----

// Tests that sizes (even at run time) become result / input extents, and
// that a run-time roi of tf_crop_and_resize stays an operand.
// CHECK-LABEL: func @sizes_and_roi
// CHECK-SAME: %[[X:.*]]: tensor<1x1x4x4xf32>, %[[R:.*]]: tensor<8xf32>
func.func @sizes_and_roi(%x: tensor<1x1x4x4xf32>, %r: tensor<8xf32>, %z: tensor<4xi64>) -> tensor<1x1x3x2xf32> {
  // CHECK: edge.resize %[[X]] roi %[[R]] {{{.*}}scales = array<f64: 1.000000e+00, 1.000000e+00, 7.500000e-01, 5.000000e-01>} : (tensor<1x1x4x4xf32>, tensor<8xf32>) -> tensor<1x1x3x2xf32>
  %0 = hl.resize %x roi %r sizes %z {coordinate_transformation_mode = "tf_crop_and_resize", mode = "linear"} : (tensor<1x1x4x4xf32>, tensor<8xf32>, tensor<4xi64>) -> tensor<1x1x3x2xf32>
  return %0 : tensor<1x1x3x2xf32>
}

// -----

// Tests that axes scatter constant scales and roi to full rank (unlisted
// axes scale by 1 over the whole extent).
// CHECK-LABEL: func @axes
func.func @axes(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x2xf32> {
  // CHECK: edge.resize %{{.*}} {antialias = true, {{.*}}roi = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e-01, 1.000000e+00, 1.000000e+00, 1.000000e+00, 9.000000e-01>, scales = array<f64: 1.000000e+00, 1.000000e+00, 1.000000e+00, 5.000000e-01>}
  %r = hl.constant dense<[0.1, 0.9]> : tensor<2xf64>
  %s = hl.constant dense<[0.5]> : tensor<1xf32>
  %0 = hl.resize %x roi %r scales %s {antialias = 1 : i64, axes = array<i64: -1>, coordinate_transformation_mode = "tf_crop_and_resize", mode = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xf64>, tensor<1xf32>) -> tensor<1x1x4x2xf32>
  return %0 : tensor<1x1x4x2xf32>
}

// -----

// Tests that keep_aspect_ratio_policy = not_larger uses the smallest
// sizes / input ratio on every listed axis: min(3/4, 6/4) = 0.75.
// CHECK-LABEL: func @not_larger
func.func @not_larger(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  // CHECK: edge.resize %{{.*}} {{{.*}}scales = array<f64: 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>}
  %z = hl.constant dense<[3, 6]> : tensor<2xi64>
  %0 = hl.resize %x sizes %z {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger", mode = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Tests that run-time sizes with keep_aspect_ratio_policy are not lowered.
func.func @policy_runtime_sizes(%x: tensor<1x1x4x4xf32>, %z: tensor<2xi64>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'hl.resize'}}
  %0 = hl.resize %x sizes %z {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller", mode = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
