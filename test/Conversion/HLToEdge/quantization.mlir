// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that a per-tensor quantize_linear keeps its operands and gets axis 0.
// CHECK-LABEL: func @quantize_per_tensor
func.func @quantize_per_tensor(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  // CHECK: edge.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  // CHECK-NOT: hl.quantize_linear
  %0 = hl.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Tests that a missing zero point becomes a zero constant of the result type.
// CHECK-LABEL: func @quantize_default_zero_point
func.func @quantize_default_zero_point(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xui8> {
  // CHECK: %[[Z:.*]] = edge.constant dense<0> : tensor<ui8>
  // CHECK: edge.quantize_linear %{{.*}}, %{{.*}}, %[[Z]] {axis = 0 : i64}
  %0 = hl.quantize_linear %x, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Tests that a negative per-axis axis is normalised.
// CHECK-LABEL: func @dequantize_per_axis
func.func @dequantize_per_axis(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xf32> {
  // CHECK: edge.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  // CHECK-NOT: hl.dequantize_linear
  %0 = hl.dequantize_linear %q, %s, %z {axis = -1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that a one-element 1-D scale is a per-tensor one.
// CHECK-LABEL: func @dequantize_one_element_scale
func.func @dequantize_one_element_scale(%q: tensor<2x3xi8>, %s: tensor<1xf32>, %z: tensor<1xi8>) -> tensor<2x3xf32> {
  // CHECK: %[[S:.*]] = edge.reshape %{{.*}} : (tensor<1xf32>) -> tensor<f32>
  // CHECK: %[[Z:.*]] = edge.reshape %{{.*}} : (tensor<1xi8>) -> tensor<i8>
  // CHECK: edge.dequantize_linear %{{.*}}, %[[S]], %[[Z]] {axis = 0 : i64}
  %0 = hl.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<2x3xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that dynamic_quantize_linear becomes the one edge op whose kernel
// computes scale and zero point from the range (extended to 0) and
// quantizes with them.
// CHECK-LABEL: func @dynamic_quantize
func.func @dynamic_quantize(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  // CHECK: %[[Y:.*]], %[[S:.*]], %[[Z:.*]] = edge.dynamic_quantize_linear %{{.*}} : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  // CHECK-NEXT: return %[[Y]], %[[S]], %[[Z]]
  %y, %s, %z = hl.dynamic_quantize_linear %x : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  return %y, %s, %z : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}
