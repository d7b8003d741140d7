// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that a program with every exec op round-trips.

// CHECK-LABEL: exec.program @model
exec.program @model {
  // CHECK: exec.constant @w dense<5.000000e-01> : tensor<4xf32>
  exec.constant @w dense<0.5> : tensor<4xf32>
  // CHECK: exec.delegate @onednn_0 {backend = "onednn", compile_specs = {threads = 1 : i64}, processed = dense<[1, 2]> : tensor<2xui8>}
  exec.delegate @onednn_0 {backend = "onednn", compile_specs = {threads = 1 : i64}, processed = dense<[1, 2]> : tensor<2xui8>}
  // CHECK: exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {arena_sizes = array<i64: 256>} {
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {arena_sizes = array<i64: 256>} {
    // CHECK-NEXT: %[[X:.*]] = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
    %x = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
    // CHECK-NEXT: %[[W:.*]] = exec.constant_ref @w : memref<4xf32>
    %w = exec.constant_ref @w : memref<4xf32>
    // CHECK-NEXT: %[[A:.*]] = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xf32>
    %a = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xf32>
    %b = exec.alloc {memory_id = 0 : i64, offset = 128 : i64} : memref<4xf32>
    %c = exec.alloc {memory_id = 0 : i64, offset = 192 : i64} : memref<4xf32>
    // CHECK: exec.kernel "add" ins(%[[X]], %[[W]] : memref<4xf32>, memref<4xf32>) outs(%[[A]] : memref<4xf32>) {params = {alpha = 1.000000e+00 : f32}}
    exec.kernel "add" ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%a : memref<4xf32>) {params = {alpha = 1.0 : f32}}
    // CHECK-NEXT: exec.delegate_call @onednn_0 ins(%[[A]] : memref<4xf32>) outs(%[[B:.*]] : memref<4xf32>)
    exec.delegate_call @onednn_0 ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    // CHECK-NEXT: exec.move %[[B]] to %[[C:.*]] : memref<4xf32>
    exec.move %b to %c : memref<4xf32>
    // CHECK-NEXT: exec.return %[[C]] : memref<4xf32>
    exec.return %c : memref<4xf32>
  }
  // CHECK: exec.method @init : () -> () {
  exec.method @init : () -> () {
    // CHECK-NEXT: exec.return
    exec.return
  }
}
