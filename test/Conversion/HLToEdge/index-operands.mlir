// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that Pad with pads fed at run time keeps them as an operand and that
// the padding value goes along in constant mode.
// CHECK-LABEL: func @pad_runtime
func.func @pad_runtime(%x: tensor<1x3x4x5xf32>, %p: tensor<8xi64>, %v: tensor<f32>) -> tensor<1x3x7x12xf32> {
  // CHECK: edge.pad %{{.*}}, %{{.*}}, %{{.*}} {mode = "constant"} : (tensor<1x3x4x5xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x7x12xf32>
  // CHECK-NOT: hl.pad
  %0 = hl.pad %x, %p, %v : (tensor<1x3x4x5xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x7x12xf32>
  return %0 : tensor<1x3x7x12xf32>
}

// -----

// Tests that reflect padding drops the value, which ONNX ignores there.
// CHECK-LABEL: func @pad_reflect
func.func @pad_reflect(%x: tensor<3x2xf32>, %v: tensor<f32>) -> tensor<3x4xf32> {
  %p = hl.constant dense<[0, 2, 0, 0]> : tensor<4xi64>
  // CHECK: %[[P:.*]] = edge.constant dense<[0, 2, 0, 0]> : tensor<4xi64>
  // CHECK: edge.pad %{{.*}}, %[[P]] {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %0 = hl.pad %x, %p, %v {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that Slice with run-time bounds becomes dynamic_slice, with i32
// bounds cast to i64.
// CHECK-LABEL: func @slice_runtime
func.func @slice_runtime(%x: tensor<20x10x5xf32>, %s: tensor<2xi32>, %e: tensor<2xi64>, %a: tensor<2xi64>, %t: tensor<2xi64>) -> tensor<3x10x5xf32> {
  // CHECK: %[[S:.*]] = edge.cast %{{.*}} : (tensor<2xi32>) -> tensor<2xi64>
  // CHECK: edge.dynamic_slice %{{.*}}, %[[S]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<20x10x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x10x5xf32>
  %0 = hl.slice %x, %s, %e, %a, %t : (tensor<20x10x5xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x10x5xf32>
  return %0 : tensor<3x10x5xf32>
}

// -----

// Tests that Slice with constant bounds still becomes the static edge.slice.
// CHECK-LABEL: func @slice_constant
func.func @slice_constant(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %s = hl.constant dense<[1]> : tensor<1xi64>
  %e = hl.constant dense<[7]> : tensor<1xi64>
  %a = hl.constant dense<[1]> : tensor<1xi64>
  %t = hl.constant dense<[2]> : tensor<1xi64>
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
  // CHECK-NOT: edge.dynamic_slice
  %0 = hl.slice %x, %s, %e, %a, %t : (tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that CumSum becomes edge.cum_sum with its flags as booleans and the
// axis as an i64 operand.
// CHECK-LABEL: func @cum_sum
func.func @cum_sum(%x: tensor<5xf64>, %a: tensor<i32>) -> tensor<5xf64> {
  // CHECK: %[[A:.*]] = edge.cast %{{.*}} : (tensor<i32>) -> tensor<i64>
  // CHECK: edge.cum_sum %{{.*}}, %[[A]] {exclusive = true, reverse = true} : (tensor<5xf64>, tensor<i64>) -> tensor<5xf64>
  %0 = hl.cum_sum %x, %a {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<5xf64>, tensor<i32>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
