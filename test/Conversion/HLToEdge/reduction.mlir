// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that reduce_max with constant negative axes becomes edge.reduce_max.
// CHECK-LABEL: func @reduce_max
func.func @reduce_max(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %axes = hl.constant dense<[-1]> : tensor<1xi64>
  // CHECK: edge.reduce_max %{{.*}} {axes = array<i64: 2>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK-NOT: hl.reduce_max
  %0 = hl.reduce_max %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// Tests that reduce_l2 is sqrt(reduce_sum(x * x)) over every axis by default.
// CHECK-LABEL: func @reduce_l2
func.func @reduce_l2(%x: tensor<2x3xf32>) -> tensor<f32> {
  // CHECK: %[[SQ:.*]] = edge.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[SUM:.*]] = edge.reduce_sum %[[SQ]] {axes = array<i64: 0, 1>, keep_dims = false}
  // CHECK: edge.sqrt %[[SUM]] : tensor<f32>
  %0 = hl.reduce_l2 %x {keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that log_softmax becomes one edge.log_softmax over the normalised
// axis.
// CHECK-LABEL: func @log_softmax
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: edge.log_softmax %{{.*}} {axis = 1 : i64} : tensor<2x3xf32>
  // CHECK-NOT: edge.exp
  %0 = hl.log_softmax %x {axis = -1 : si64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that arg_min keeps select_last_index and normalises the axis.
// CHECK-LABEL: func @arg_min
func.func @arg_min(%x: tensor<2x3xi32>) -> tensor<2xi64> {
  // CHECK: edge.arg_min %{{.*}} {axis = 1 : i64, keep_dims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<2xi64>
  %0 = hl.arg_min %x {axis = -1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<2x3xi32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests that hardmax is the one-hot of arg_max.
// CHECK-LABEL: func @hardmax
func.func @hardmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[A:.*]] = edge.arg_max %{{.*}} {axis = 1 : i64, keep_dims = true, select_last_index = false}
  // CHECK: %[[I:.*]] = edge.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
  // CHECK: %[[E:.*]] = edge.equal %[[A]], %[[I]] : (tensor<2x1xi64>, tensor<1x3xi64>) -> tensor<2x3xi1>
  // CHECK: edge.cast %[[E]] : (tensor<2x3xi1>) -> tensor<2x3xf32>
  %0 = hl.hardmax %x {axis = 1 : si64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that top_k is arg_top_k plus a gather_elements of its indices.
// CHECK-LABEL: func @top_k
func.func @top_k(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  // CHECK: %[[I:.*]] = edge.arg_top_k %[[X:.*]] {axis = 1 : i64, largest = false} : (tensor<3x4xf32>) -> tensor<3x2xi64>
  // CHECK: %[[V:.*]] = edge.gather_elements %[[X]], %[[I]] {axis = 1 : i64}
  // CHECK: return %[[V]], %[[I]]
  %v, %i = hl.top_k %x, %k {axis = -1 : i64, largest = 0 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// Tests that run-time axes with keepdims follow from the result type.
// CHECK-LABEL: func @reduce_sum_runtime_axes
func.func @reduce_sum_runtime_axes(%x: tensor<3x2x2xf32>, %axes: tensor<1xi64>) -> tensor<3x1x2xf32> {
  // CHECK: edge.reduce_sum %{{.*}} {axes = array<i64: 1>, keep_dims = true} : (tensor<3x2x2xf32>) -> tensor<3x1x2xf32>
  // CHECK-NOT: hl.reduce_sum
  %0 = hl.reduce_sum %x, %axes : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x1x2xf32>
  return %0 : tensor<3x1x2xf32>
}
