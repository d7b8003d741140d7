// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that every hl op round-trips through the printer and parser.

// CHECK-LABEL: func @constant
func.func @constant() -> tensor<2xf32> {
  // CHECK: %[[C:.*]] = hl.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: hl.conv %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %0 = hl.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @conv_dynamic_no_bias
func.func @conv_dynamic_no_bias(%x: tensor<?x4x?x?xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<?x8x?x?xf32> {
  // CHECK: hl.conv %{{.*}}, %{{.*}} {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>}
  %0 = hl.conv %x, %w {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x4x?x?xf32>, tensor<8x2x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// CHECK-LABEL: func @gemm
func.func @gemm(%a: tensor<1x64xf32>, %b: tensor<10x64xf32>, %c: tensor<10xf32>) -> tensor<1x10xf32> {
  // CHECK: hl.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, transB = 1 : i64}
  %0 = hl.gemm %a, %b, %c {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: hl.matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %0 = hl.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func @add_relu
func.func @add_relu(%a: tensor<1x4x8x8xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[S:.*]] = hl.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %0 = hl.add %a, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: hl.relu %[[S]] : tensor<1x4x8x8xf32>
  %1 = hl.relu %0 : tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) {
  // CHECK: hl.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: hl.global_average_pool %{{.*}} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %1 = hl.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>
}

// CHECK-LABEL: func @max_pool_indices
func.func @max_pool_indices(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xi64> {
  // CHECK: hl.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %0:2 = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  return %0#1 : tensor<1x4x4x4xi64>
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<1x4x2x2xf32>, %s: tensor<2xi64>) -> (tensor<1x16xf32>, tensor<4x4xf32>) {
  // The default axis (1) is elided when printed.
  // CHECK: hl.flatten %{{.*}} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %0 = hl.flatten %x {axis = 1 : si64} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  // CHECK: hl.flatten %{{.*}} {axis = 2 : si64} : (tensor<1x4x2x2xf32>) -> tensor<4x4xf32>
  %2 = hl.flatten %x {axis = 2 : si64} : (tensor<1x4x2x2xf32>) -> tensor<4x4xf32>
  // CHECK: hl.reshape %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  %1 = hl.reshape %0, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %0, %1 : tensor<1x16xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  // CHECK: hl.softmax %{{.*}} {axis = 1 : si64} : tensor<1x10xf32>
  %0 = hl.softmax %x {axis = 1 : si64} : tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}
