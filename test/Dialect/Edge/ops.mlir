// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that every edge op round-trips through the printer and parser.

// CHECK-LABEL: func @cnn
func.func @cnn(%x: tensor<1x1x8x8xf32>) -> tensor<1x10xf32> {
  // CHECK: %[[W:.*]] = edge.constant dense<5.000000e-01> : tensor<8x1x3x3xf32>
  %w = edge.constant dense<0.5> : tensor<8x1x3x3xf32>
  %b = edge.constant dense<0.1> : tensor<8xf32>
  // CHECK: %[[C:.*]] = edge.conv2d %{{.*}}, %[[W]], %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %0 = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: %[[R:.*]] = edge.relu %[[C]] : tensor<1x8x8x8xf32>
  %1 = edge.relu %0 : tensor<1x8x8x8xf32>
  // CHECK: %[[P:.*]] = edge.max_pool2d %[[R]] {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %2 = edge.max_pool2d %1 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: %[[F:.*]] = edge.reshape %[[P]] : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %3 = edge.reshape %2 : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %wt = edge.constant dense<0.01> : tensor<10x128xf32>
  // CHECK: %[[T:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<10x128xf32>) -> tensor<128x10xf32>
  %4 = edge.transpose %wt {permutation = array<i64: 1, 0>} : (tensor<10x128xf32>) -> tensor<128x10xf32>
  // CHECK: %[[M:.*]] = edge.matmul %[[F]], %[[T]] : (tensor<1x128xf32>, tensor<128x10xf32>) -> tensor<1x10xf32>
  %5 = edge.matmul %3, %4 : (tensor<1x128xf32>, tensor<128x10xf32>) -> tensor<1x10xf32>
  %bias = edge.constant dense<0.0> : tensor<1x10xf32>
  // CHECK: %[[A:.*]] = edge.add %[[M]], %{{.*}} : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  %6 = edge.add %5, %bias : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  // CHECK: edge.softmax %[[A]] {axis = 1 : i64} : tensor<1x10xf32>
  %7 = edge.softmax %6 {axis = 1 : i64} : tensor<1x10xf32>
  return %7 : tensor<1x10xf32>
}

// CHECK-LABEL: func @reduce_mean_broadcast_add
func.func @reduce_mean_broadcast_add(%x: tensor<1x4x8x8xf32>, %b: tensor<1x4x1x1xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>) {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %0 = edge.reduce_mean %x {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: edge.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = edge.add %x, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1 : tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @batched_matmul
func.func @batched_matmul(%a: tensor<4x64x16xf32>, %b: tensor<1x16x64xf32>) -> tensor<4x64x64xf32> {
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<4x64x16xf32>, tensor<1x16x64xf32>) -> tensor<4x64x64xf32>
  %0 = edge.matmul %a, %b : (tensor<4x64x16xf32>, tensor<1x16x64xf32>) -> tensor<4x64x64xf32>
  return %0 : tensor<4x64x64xf32>
}

// CHECK-LABEL: func @reduce_mean_drop
func.func @reduce_mean_drop(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %0 = edge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<1x4xf32>, %b: tensor<1x1xf32>) -> tensor<1x4xf32> {
  // CHECK: %[[S:.*]] = edge.sub %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %0 = edge.sub %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[M:.*]] = edge.mul %[[S]], %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %1 = edge.mul %0, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[D:.*]] = edge.div %[[M]], %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %2 = edge.div %1, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[G:.*]] = edge.sigmoid %[[D]] : tensor<1x4xf32>
  %3 = edge.sigmoid %2 : tensor<1x4xf32>
  // CHECK: %[[T:.*]] = edge.tanh %[[G]] : tensor<1x4xf32>
  %4 = edge.tanh %3 : tensor<1x4xf32>
  // CHECK: %[[E:.*]] = edge.exp %[[T]] : tensor<1x4xf32>
  %5 = edge.exp %4 : tensor<1x4xf32>
  // CHECK: %[[Q:.*]] = edge.sqrt %[[E]] : tensor<1x4xf32>
  %6 = edge.sqrt %5 : tensor<1x4xf32>
  // CHECK: %[[N:.*]] = edge.neg %[[Q]] : tensor<1x4xf32>
  %7 = edge.neg %6 : tensor<1x4xf32>
  // CHECK: %[[A:.*]] = edge.abs %[[N]] : tensor<1x4xf32>
  %8 = edge.abs %7 : tensor<1x4xf32>
  // CHECK: edge.clip %[[A]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x4xf32>
  %9 = edge.clip %8 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x4xf32>
  return %9 : tensor<1x4xf32>
}

// CHECK-LABEL: func @avg_pool_concat
func.func @avg_pool_concat(%x: tensor<1x4x8x8xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32> {
  // CHECK: %[[P:.*]] = edge.avg_pool2d %{{.*}} {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: edge.concat %[[P]], %{{.*}} {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  %1 = edge.concat %0, %y {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %1 : tensor<1x6x4x4xf32>
}
