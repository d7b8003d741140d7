// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that conv defaults become explicit edge attributes.
// CHECK-LABEL: func @conv_defaults
func.func @conv_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK: edge.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
  // CHECK-NOT: hl.conv
  %0 = hl.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Tests that SAME_UPPER puts the odd pad at the end (ONNX spec).
// CHECK-LABEL: func @conv_same_upper
func.func @conv_same_upper(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32> {
  // CHECK: edge.conv2d {{.*}} pads = array<i64: 0, 0, 1, 1>
  %0 = hl.conv %x, %w {auto_pad = "SAME_UPPER"} : (tensor<1x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}

// -----

// Tests that SAME_LOWER puts the odd pad at the beginning, with strides.
// CHECK-LABEL: func @conv_same_lower
func.func @conv_same_lower(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  // ceil(5/2) = 3 outputs need (3-1)*2+3-5 = 2 pad: 1 each side.
  // CHECK: edge.conv2d {{.*}} pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>
  %0 = hl.conv %x, %w {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Tests that a 1-d convolution runs as a 2-d one of unit height.
// CHECK-LABEL: func @conv_1d
func.func @conv_1d(%x: tensor<1x2x10xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x5xf32> {
  // CHECK: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<1x2x10xf32>) -> tensor<1x2x1x10xf32>
  // CHECK: %[[W:.*]] = edge.reshape %{{.*}} : (tensor<3x2x3xf32>) -> tensor<3x2x1x3xf32>
  // CHECK: %[[C:.*]] = edge.conv2d %[[X]], %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 2>} : (tensor<1x2x1x10xf32>, tensor<3x2x1x3xf32>) -> tensor<1x3x1x5xf32>
  // CHECK: edge.reshape %[[C]] : (tensor<1x3x1x5xf32>) -> tensor<1x3x5xf32>
  %0 = hl.conv %x, %w {pads = array<i64: 1, 1>, strides = array<i64: 2>} : (tensor<1x2x10xf32>, tensor<3x2x3xf32>) -> tensor<1x3x5xf32>
  return %0 : tensor<1x3x5xf32>
}

// -----

// Tests that gemm becomes transpose + matmul + scaled add of a rank-aligned C.
// CHECK-LABEL: func @gemm
func.func @gemm(%a: tensor<1x64xf32>, %b: tensor<10x64xf32>, %c: tensor<10xf32>) -> tensor<1x10xf32> {
  // CHECK: %[[T:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<10x64xf32>) -> tensor<64x10xf32>
  // CHECK: %[[M:.*]] = edge.matmul %{{.*}}, %[[T]] : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
  // CHECK: %[[ALPHA:.*]] = edge.constant dense<5.000000e-01> : tensor<1x1xf32>
  // CHECK: %[[MS:.*]] = edge.mul %[[M]], %[[ALPHA]]
  // CHECK: %[[C2:.*]] = edge.reshape %{{.*}} : (tensor<10xf32>) -> tensor<1x10xf32>
  // CHECK: %[[BETA:.*]] = edge.constant dense<2.000000e+00> : tensor<1x1xf32>
  // CHECK: %[[CS:.*]] = edge.mul %[[C2]], %[[BETA]]
  // CHECK: edge.add %[[MS]], %[[CS]] : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  %0 = hl.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transB = 1 : i64} : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// -----

// Tests that gemm without C and with unit alpha is a bare matmul.
// CHECK-LABEL: func @gemm_plain
func.func @gemm_plain(%a: tensor<3x4xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // CHECK: %[[T:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %[[M:.*]] = edge.matmul %[[T]], %{{.*}} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  // CHECK-NEXT: return %[[M]]
  %0 = hl.gemm %a, %b {transA = 1 : i64} : (tensor<3x4xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Tests that matmul aligns ranks for batch broadcasting.
// CHECK-LABEL: func @matmul_batch
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<4x5xf32>) -> tensor<1x4x5xf32>
  // CHECK: edge.matmul %{{.*}}, %[[B]] : (tensor<2x3x4xf32>, tensor<1x4x5xf32>) -> tensor<2x3x5xf32>
  %0 = hl.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Tests that 1-d matmul operands are promoted and the result reshaped back.
// CHECK-LABEL: func @matmul_vector
func.func @matmul_vector(%a: tensor<4xf32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  // CHECK: %[[A:.*]] = edge.reshape %{{.*}} : (tensor<4xf32>) -> tensor<1x4xf32>
  // CHECK: %[[M:.*]] = edge.matmul %[[A]], %{{.*}} : (tensor<1x4xf32>, tensor<4x5xf32>) -> tensor<1x5xf32>
  // CHECK: edge.reshape %[[M]] : (tensor<1x5xf32>) -> tensor<5xf32>
  %0 = hl.matmul %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that a 1-d conv_transpose runs as 2-d with a unit height.
// CHECK-LABEL: func @conv_transpose_1d
func.func @conv_transpose_1d(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x5xf32> {
  // CHECK-DAG: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<1x1x3xf32>) -> tensor<1x1x1x3xf32>
  // CHECK-DAG: %[[W:.*]] = edge.reshape %{{.*}} : (tensor<1x2x3xf32>) -> tensor<1x2x1x3xf32>
  // CHECK: %[[Y:.*]] = edge.conv_transpose2d %[[X]], %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
  // CHECK: edge.reshape %[[Y]] : (tensor<1x2x1x5xf32>) -> tensor<1x2x5xf32>
  // CHECK-NOT: hl.conv_transpose
  %0 = hl.conv_transpose %x, %w : (tensor<1x1x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x5xf32>
  return %0 : tensor<1x2x5xf32>
}

// -----

// Tests that SAME_UPPER padding follows from the result extent.
// CHECK-LABEL: func @conv_transpose_same_upper
func.func @conv_transpose_same_upper(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // CHECK: edge.conv_transpose2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>}
  %0 = hl.conv_transpose %x, %w {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}
