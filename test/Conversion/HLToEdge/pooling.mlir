// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that max_pool's defaults and ceil mode become explicit.
// CHECK-LABEL: func @max_pool
func.func @max_pool(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: edge.max_pool2d %{{.*}} {ceil_mode = true, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  %0 = hl.max_pool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that global average pooling is a mean over the spatial axes.
// CHECK-LABEL: func @global_average_pool
func.func @global_average_pool(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32> {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  %0 = hl.global_average_pool %x : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// Tests that global_max_pool is reduce_max over the spatial axes.
// CHECK-LABEL: func @global_max_pool
func.func @global_max_pool(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32> {
  // CHECK: edge.reduce_max %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>
  %0 = hl.global_max_pool %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// -----

// Tests that max_unpool scatters the values into the flattened unpooled
// tensor ((2 - 1) * 2 + 2 = 4 per spatial axis) and pads it at the end to a
// larger output_shape (5x5).
// CHECK-LABEL: func @max_unpool
func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>, %s: tensor<4xi64>) -> tensor<1x1x5x5xf32> {
  // CHECK: %[[Z:.*]] = edge.constant dense<0.000000e+00> : tensor<16xf32>
  // CHECK: %[[S:.*]] = edge.scatter_elements %[[Z]], %{{.*}}, %{{.*}} {axis = 0 : i64, reduction = "none"} : (tensor<16xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<16xf32>
  // CHECK: %[[U:.*]] = edge.reshape %[[S]] : (tensor<16xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: %[[P:.*]] = edge.constant dense<[0, 0, 0, 0, 0, 0, 1, 1]> : tensor<8xi64>
  // CHECK: edge.pad %[[U]], %[[P]] {mode = "constant"} : (tensor<1x1x4x4xf32>, tensor<8xi64>) -> tensor<1x1x5x5xf32>
  %0 = hl.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}
