// RUN: strata-opt %s -split-input-file --pass-pipeline='builtin.module(exec.program(exec.method(strata-exec-read-transposed)))' | FileCheck %s

// Attention over a cache stored length-first: the keys' and the values'
// transposes go, the matmuls read the cache through rhs_permutation, the
// copies' buffers go with them.

// CHECK-LABEL: exec.program @attention
// CHECK: %[[Q:.*]] = exec.input 0
// CHECK: %[[KV:.*]] = exec.input 1
// CHECK-NOT: "transpose"
// CHECK: exec.kernel "matmul" ins(%[[Q]], %[[KV]] : memref<1x2x1x4xf32>, memref<5x1x2x4xf32>) outs(%{{.*}} : memref<1x2x1x5xf32>) {params = {rhs_permutation = array<i64: 1, 2, 3, 0>}}
// CHECK: exec.kernel "matmul" ins(%{{.*}}, %[[KV]] : memref<1x2x1x5xf32>, memref<5x1x2x4xf32>) outs(%{{.*}} : memref<1x2x1x4xf32>) {params = {rhs_permutation = array<i64: 1, 2, 0, 3>}}
// CHECK-NOT: exec.alloc : memref<1x2x4x5xf32>
// CHECK-NOT: exec.alloc : memref<1x2x5x4xf32>
exec.program @attention {
  exec.method @forward : (memref<1x2x1x4xf32>, memref<5x1x2x4xf32>) -> memref<1x2x1x4xf32> {
    %q = exec.input 0 : memref<1x2x1x4xf32>
    %kv = exec.input 1 : memref<5x1x2x4xf32>
    %kt = exec.alloc : memref<1x2x4x5xf32>
    exec.kernel "transpose" ins(%kv : memref<5x1x2x4xf32>) outs(%kt : memref<1x2x4x5xf32>) {params = {permutation = array<i64: 1, 2, 3, 0>}}
    %s = exec.alloc : memref<1x2x1x5xf32>
    exec.kernel "matmul" ins(%q, %kt : memref<1x2x1x4xf32>, memref<1x2x4x5xf32>) outs(%s : memref<1x2x1x5xf32>)
    %v = exec.alloc : memref<1x2x5x4xf32>
    exec.kernel "transpose" ins(%kv : memref<5x1x2x4xf32>) outs(%v : memref<1x2x5x4xf32>) {params = {permutation = array<i64: 1, 2, 0, 3>}}
    %y = exec.alloc : memref<1x2x1x4xf32>
    exec.kernel "matmul" ins(%s, %v : memref<1x2x1x5xf32>, memref<1x2x5x4xf32>) outs(%y : memref<1x2x1x4xf32>)
    exec.return %y : memref<1x2x1x4xf32>
  }
}

// -----

// Kept: a transposed copy read by two ops, one returned, one read as the
// lhs, and one whose input is written between the transpose and the
// matmul.

// CHECK-LABEL: exec.program @kept
// CHECK: exec.kernel "transpose"
// CHECK: exec.kernel "matmul" ins(%{{.*}}, %[[T1:.*]] : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>){{$}}
// CHECK: exec.kernel "transpose"
// CHECK: exec.kernel "matmul" {{.*}}outs(%{{.*}} : memref<4x4xf32>){{$}}
// CHECK: exec.kernel "transpose"
// CHECK: exec.kernel "add"
// CHECK: exec.kernel "matmul" {{.*}}outs(%{{.*}} : memref<4x4xf32>){{$}}
// CHECK: exec.kernel "transpose"
exec.program @kept {
  exec.method @forward : (memref<4x4xf32>, memref<4x4xf32>) -> (memref<4x4xf32>, memref<4x4xf32>) {
    %a = exec.input 0 : memref<4x4xf32>
    %b = exec.input 1 : memref<4x4xf32>
    %t1 = exec.alloc : memref<4x4xf32>
    exec.kernel "transpose" ins(%b : memref<4x4xf32>) outs(%t1 : memref<4x4xf32>) {params = {permutation = array<i64: 1, 0>}}
    %r1 = exec.alloc : memref<4x4xf32>
    exec.kernel "matmul" ins(%a, %t1 : memref<4x4xf32>, memref<4x4xf32>) outs(%r1 : memref<4x4xf32>)
    %r2 = exec.alloc : memref<4x4xf32>
    exec.kernel "add" ins(%t1, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%r2 : memref<4x4xf32>)
    %t2 = exec.alloc : memref<4x4xf32>
    exec.kernel "transpose" ins(%b : memref<4x4xf32>) outs(%t2 : memref<4x4xf32>) {params = {permutation = array<i64: 1, 0>}}
    %r3 = exec.alloc : memref<4x4xf32>
    exec.kernel "matmul" ins(%t2, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%r3 : memref<4x4xf32>)
    %t3 = exec.alloc : memref<4x4xf32>
    exec.kernel "transpose" ins(%b : memref<4x4xf32>) outs(%t3 : memref<4x4xf32>) {params = {permutation = array<i64: 1, 0>}}
    exec.kernel "add" ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%b : memref<4x4xf32>)
    %r4 = exec.alloc : memref<4x4xf32>
    exec.kernel "matmul" ins(%r3, %t3 : memref<4x4xf32>, memref<4x4xf32>) outs(%r4 : memref<4x4xf32>)
    %t4 = exec.alloc : memref<4x4xf32>
    exec.kernel "transpose" ins(%a : memref<4x4xf32>) outs(%t4 : memref<4x4xf32>) {params = {permutation = array<i64: 1, 0>}}
    exec.return %r4, %t4 : memref<4x4xf32>, memref<4x4xf32>
  }
}
