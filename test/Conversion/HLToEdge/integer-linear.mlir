// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that matmul_integer with a per-row zero point (which the quantized
// ops do not take) widens to i32, subtracts the zero points (a's per row,
// b's per tensor) and multiplies on i32.
// CHECK-LABEL: func @matmul_integer
func.func @matmul_integer(%a: tensor<4x3xui8>, %b: tensor<3x2xui8>, %za: tensor<4xui8>, %zb: tensor<ui8>) -> tensor<4x2xi32> {
  // CHECK: %[[A:.*]] = edge.cast %{{.*}} : (tensor<4x3xui8>) -> tensor<4x3xi32>
  // CHECK: %[[ZA:.*]] = edge.cast %{{.*}} : (tensor<4xui8>) -> tensor<4xi32>
  // CHECK: %[[ZA2:.*]] = edge.reshape %[[ZA]] : (tensor<4xi32>) -> tensor<4x1xi32>
  // CHECK: %[[L:.*]] = edge.sub %[[A]], %[[ZA2]] : (tensor<4x3xi32>, tensor<4x1xi32>) -> tensor<4x3xi32>
  // CHECK: %[[B:.*]] = edge.cast %{{.*}} : (tensor<3x2xui8>) -> tensor<3x2xi32>
  // CHECK: %[[ZB:.*]] = edge.cast %{{.*}} : (tensor<ui8>) -> tensor<i32>
  // CHECK: %[[ZB2:.*]] = edge.reshape %[[ZB]] : (tensor<i32>) -> tensor<1x1xi32>
  // CHECK: %[[R:.*]] = edge.sub %[[B]], %[[ZB2]]
  // CHECK: edge.matmul %[[L]], %[[R]] : (tensor<4x3xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  // CHECK-NOT: hl.matmul_integer
  %0 = hl.matmul_integer %a, %b a_zero_point %za b_zero_point %zb : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<4xui8>, tensor<ui8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Tests that a lone 2-d conv_integer (input zero point one value, weight's
// one per channel) is quantized_conv2d with the i32 sums as its result:
// scales 1, bias 0, the input's zero point 0 where absent.
// CHECK-LABEL: func @conv_integer
func.func @conv_integer(%x: tensor<1x1x3x3xi8>, %w: tensor<2x1x2x2xi8>, %zw: tensor<2xi8>) -> tensor<1x2x2x2xi32> {
  // CHECK-DAG: %[[ZX:.*]] = edge.constant dense<0> : tensor<i8>
  // CHECK-DAG: %[[SX:.*]] = edge.constant dense<1.000000e+00> : tensor<f32>
  // CHECK-DAG: %[[SW:.*]] = edge.constant dense<1.000000e+00> : tensor<2xf32>
  // CHECK-DAG: %[[B:.*]] = edge.constant dense<0.000000e+00> : tensor<2xf32>
  // CHECK: edge.quantized_conv2d %{{.*}}(%[[SX]], %[[ZX]]), %{{.*}}(%[[SW]], %{{.*}}), bias %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : {{.*}} -> tensor<1x2x2x2xi32>
  // CHECK-NOT: hl.conv_integer
  %0 = hl.conv_integer %x, %w w_zero_point %zw : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<2xi8>) -> tensor<1x2x2x2xi32>
  return %0 : tensor<1x2x2x2xi32>
}

// -----

// Tests that a lone matmul_integer with a per-tensor input zero point is
// quantized_matmul with the i32 sums as its result.
// CHECK-LABEL: func @matmul_integer_sums
func.func @matmul_integer_sums(%a: tensor<2x4x3xui8>, %b: tensor<3x2xi8>, %za: tensor<ui8>) -> tensor<2x4x2xi32> {
  // CHECK: edge.quantized_matmul %{{.*}}(%{{.*}}, %{{.*}}), %{{.*}}(%{{.*}}, %{{.*}}), bias %{{.*}} : (tensor<2x4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<f32>, tensor<i8>, tensor<2xf32>) -> tensor<2x4x2xi32>
  // CHECK-NOT: hl.matmul_integer
  %0 = hl.matmul_integer %a, %b a_zero_point %za : (tensor<2x4x3xui8>, tensor<3x2xi8>, tensor<ui8>) -> tensor<2x4x2xi32>
  return %0 : tensor<2x4x2xi32>
}

// -----

// Tests that qlinear_matmul is dequantize, f32 matmul, quantize.
// CHECK-LABEL: func @qlinear_matmul
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %as: tensor<f32>, %az: tensor<ui8>, %b: tensor<4x3xui8>, %bs: tensor<f32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  // CHECK: %[[A:.*]] = edge.dequantize_linear %{{.*}} {axis = 0 : i64} : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  // CHECK: %[[B:.*]] = edge.dequantize_linear %{{.*}} {axis = 0 : i64} : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x3xf32>
  // CHECK: %[[P:.*]] = edge.matmul %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  // CHECK: edge.quantize_linear %[[P]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  // CHECK-NOT: hl.qlinear_matmul
  %0 = hl.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Tests that qlinear_conv dequantizes the weight per output channel and the
// i32 bias by x_scale * w_scale.
// CHECK-LABEL: func @qlinear_conv
func.func @qlinear_conv(%x: tensor<1x1x3x3xui8>, %xs: tensor<f32>, %xz: tensor<ui8>, %w: tensor<2x1x1x1xi8>, %ws: tensor<2xf32>, %wz: tensor<2xi8>, %ys: tensor<f32>, %yz: tensor<ui8>, %bias: tensor<2xi32>) -> tensor<1x2x3x3xui8> {
  // CHECK: %[[X:.*]] = edge.dequantize_linear %{{.*}} {axis = 0 : i64} : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xf32>
  // CHECK: %[[W:.*]] = edge.dequantize_linear %{{.*}} {axis = 0 : i64} : (tensor<2x1x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x1x1xf32>
  // CHECK: %[[XS:.*]] = edge.reshape %{{.*}} : (tensor<f32>) -> tensor<1xf32>
  // CHECK: %[[S:.*]] = edge.mul %{{.*}}, %[[XS]] : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  // CHECK: %[[BF:.*]] = edge.cast %{{.*}} : (tensor<2xi32>) -> tensor<2xf32>
  // CHECK: %[[B:.*]] = edge.mul %[[BF]], %[[S]]
  // CHECK: %[[C:.*]] = edge.conv2d %[[X]], %[[W]], %[[B]]
  // CHECK: edge.quantize_linear %[[C]]
  // CHECK-NOT: hl.qlinear_conv
  %0 = hl.qlinear_conv %x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %bias : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x1x1x1xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x3x3xui8>
  return %0 : tensor<1x2x3x3xui8>
}
