// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that instance_normalization standardizes over the spatial axes and
// scales per channel.
// CHECK-LABEL: func @instance_norm
func.func @instance_norm(%x: tensor<1x2x3x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[MEAN:.*]] = edge.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true}
  // CHECK: %[[C:.*]] = edge.sub %{{.*}}, %[[MEAN]]
  // CHECK: %[[N:.*]] = edge.div %[[C]], %{{.*}}
  // CHECK: %[[S:.*]] = edge.reshape %{{.*}} : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
  // CHECK: edge.mul %[[N]], %[[S]]
  // CHECK-NOT: hl.instance_normalization
  %0 = hl.instance_normalization %x, %s, %b : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Tests that lrn sums squares over a channel window with an average pool.
// CHECK-LABEL: func @lrn
func.func @lrn(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: %[[SQ:.*]] = edge.mul %{{.*}}, %{{.*}} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>)
  // CHECK: %[[R:.*]] = edge.reshape %[[SQ]] : (tensor<1x4x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: edge.avg_pool2d %[[R]] {ceil_mode = false, count_include_pad = true, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>}
  // CHECK: edge.pow
  // CHECK-NOT: hl.lrn
  %0 = hl.lrn %x {size = 3 : i64} : tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
