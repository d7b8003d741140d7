// RUN: strata-opt %s -split-input-file --convert-edge-to-exec | FileCheck %s

// Tests that arguments become inputs, each op an alloc plus a kernel call
// with its attributes as params, and constants program-level symbols named
// after their location.
// CHECK-LABEL: exec.program @program
// CHECK: exec.constant @fc.bias dense<1.000000e+00> : tensor<1x4xf32>
// CHECK: exec.method @main : (memref<1x4xf32>) -> memref<1x4xf32> {
// CHECK-NEXT: %[[X:.*]] = exec.input 0 : memref<1x4xf32>
// CHECK-NEXT: %[[B:.*]] = exec.constant_ref @fc.bias : memref<1x4xf32>
// CHECK-NEXT: %[[A:.*]] = exec.alloc : memref<1x4xf32>
// CHECK-NEXT: exec.kernel "add" ins(%[[X]], %[[B]] : memref<1x4xf32>, memref<1x4xf32>) outs(%[[A]] : memref<1x4xf32>)
// CHECK-NEXT: %[[S:.*]] = exec.alloc : memref<1x4xf32>
// CHECK-NEXT: exec.kernel "softmax" ins(%[[A]] : memref<1x4xf32>) outs(%[[S]] : memref<1x4xf32>) {params = {axis = 1 : i64}}
// CHECK-NEXT: exec.return %[[S]] : memref<1x4xf32>
// CHECK-NOT: unrealized_conversion_cast
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %b = edge.constant dense<1.0> : tensor<1x4xf32> loc("fc.bias")
  %0 = edge.add %x, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %1 = edge.softmax %0 {axis = 1 : i64} : tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}

// -----

// Tests that a returned input, a returned constant and a value returned
// twice each get a buffer of their own.
// CHECK-LABEL: exec.program @program
// CHECK: exec.method @passthrough
// CHECK-DAG: %[[X:.*]] = exec.input 0
// CHECK-DAG: %[[C:.*]] = exec.constant_ref @constant
// CHECK: %[[R:.*]] = exec.alloc : memref<2xf32>
// CHECK: exec.kernel "relu" ins(%[[X]] : memref<2xf32>) outs(%[[R]] : memref<2xf32>)
// CHECK: %[[O0:.*]] = exec.alloc : memref<2xf32>
// CHECK-NEXT: exec.move %[[X]] to %[[O0]]
// CHECK-NEXT: %[[O1:.*]] = exec.alloc : memref<2xf32>
// CHECK-NEXT: exec.move %[[C]] to %[[O1]]
// CHECK-NEXT: %[[O3:.*]] = exec.alloc : memref<2xf32>
// CHECK-NEXT: exec.move %[[R]] to %[[O3]]
// CHECK-NEXT: exec.return %[[O0]], %[[O1]], %[[R]], %[[O3]]
func.func @passthrough(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = edge.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = edge.relu %x : tensor<2xf32>
  return %x, %c, %r, %r : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests that every function becomes a method of one program.
// CHECK-LABEL: exec.program @program
// CHECK: exec.method @first
// CHECK: exec.method @second
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = edge.relu %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = edge.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that !quant.uniform values become buffers of their storage type
// (signed i8 as i8, unsigned as ui8); scales stay kernel operands.
// CHECK-LABEL: exec.program @program
// CHECK: exec.method @quantized : (memref<4xf32>) -> memref<4xf32> {
// CHECK: %[[Q:.*]] = exec.alloc : memref<4xi8>
// CHECK: exec.kernel "quantize_linear" ins({{.*}}) outs(%[[Q]] : memref<4xi8>) {params = {axis = 0 : i64}}
// CHECK: %[[U:.*]] = exec.alloc : memref<4xui8>
// CHECK: exec.kernel "quantize_linear" ins({{.*}}) outs(%[[U]] : memref<4xui8>)
// CHECK: exec.kernel "dequantize_linear" ins(%[[Q]], {{.*}} : memref<4xi8>, memref<f32>, memref<i8>)
// CHECK-NOT: quant.uniform
func.func @quantized(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = edge.constant dense<5.000000e-01> : tensor<f32>
  %z = edge.constant dense<3> : tensor<i8>
  %zu = edge.constant dense<3> : tensor<ui8>
  %q = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  %u = edge.quantize_linear %x, %s, %zu {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x!quant.uniform<u8:f32, 0.5:3>>
  %y = edge.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
