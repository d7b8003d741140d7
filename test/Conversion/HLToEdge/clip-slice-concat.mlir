// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that Clip with constant bounds (ReLU6) becomes edge.clip.
// CHECK-LABEL: func @relu6
func.func @relu6(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // CHECK: edge.clip %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x4xf32>
  %lo = hl.constant dense<0.0> : tensor<f32>
  %hi = hl.constant dense<6.0> : tensor<f32>
  %0 = hl.clip %x min %lo max %hi : (tensor<1x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that ONNX slice bounds are clamped and negative ones resolved.
// CHECK-LABEL: func @slice
func.func @slice(%x: tensor<4x10xf32>) -> tensor<4x3xf32> {
  // Axis 1: start -9 -> 1, step 3 -> elements 1, 4, 7.
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 0, 1>, steps = array<i64: 1, 3>} : (tensor<4x10xf32>) -> tensor<4x3xf32>
  %starts = hl.constant dense<[-9]> : tensor<1xi64>
  %ends = hl.constant dense<[100]> : tensor<1xi64>
  %axes = hl.constant dense<[1]> : tensor<1xi64>
  %steps = hl.constant dense<[3]> : tensor<1xi64>
  %0 = hl.slice %x, %starts, %ends, %axes, %steps : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests a reversing slice: start clamps to the last element.
// CHECK-LABEL: func @slice_reverse
func.func @slice_reverse(%x: tensor<5xf32>) -> tensor<5xf32> {
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 4>, steps = array<i64: -1>} : (tensor<5xf32>) -> tensor<5xf32>
  %starts = hl.constant dense<[100]> : tensor<1xi64>
  %ends = hl.constant dense<[-100]> : tensor<1xi64>
  %axes = hl.constant dense<[0]> : tensor<1xi64>
  %steps = hl.constant dense<[-1]> : tensor<1xi64>
  %0 = hl.slice %x, %starts, %ends, %axes, %steps : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that concat's negative axis is normalised.
// CHECK-LABEL: func @concat
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {
  // CHECK: edge.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %0 = hl.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests transpose with its default (reversed) permutation, and squeeze /
// unsqueeze as reshapes.
// CHECK-LABEL: func @transpose_squeeze
func.func @transpose_squeeze(%x: tensor<1x2x3xf32>) -> tensor<3x2x1x1xf32> {
  // CHECK: %[[T:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 2, 1, 0>} : (tensor<1x2x3xf32>) -> tensor<3x2x1xf32>
  // CHECK: %[[S:.*]] = edge.reshape %[[T]] : (tensor<3x2x1xf32>) -> tensor<3x2xf32>
  // CHECK: edge.reshape %[[S]] : (tensor<3x2xf32>) -> tensor<3x2x1x1xf32>
  %0 = hl.transpose %x : (tensor<1x2x3xf32>) -> tensor<3x2x1xf32>
  %axes = hl.constant dense<[2]> : tensor<1xi64>
  %1 = hl.squeeze %0, %axes : (tensor<3x2x1xf32>, tensor<1xi64>) -> tensor<3x2xf32>
  %axes2 = hl.constant dense<[2, 3]> : tensor<2xi64>
  %2 = hl.unsqueeze %1, %axes2 : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x2x1x1xf32>
  return %2 : tensor<3x2x1x1xf32>
}

// -----

// Tests average pooling with its defaults made explicit.
// CHECK-LABEL: func @average_pool
func.func @average_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: edge.avg_pool2d %{{.*}} {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
  %0 = hl.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
