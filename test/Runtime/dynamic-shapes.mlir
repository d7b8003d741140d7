// RUN: strata-opt --strata-exec-plan-memory %s | strata-translate --emit-program -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s
// RUN: strata-run %t.strata --input-shape 0=3x4 --input-shape 1=5x4 | FileCheck %s --check-prefix=EXEC
// RUN: %if python3-numpy %{ /usr/bin/python3 %S/Inputs/dynamic-shapes.py %t.strata %t.dir %}
// RUN: not strata-run %t.strata --input-shape 0=9x4 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not strata-run %t.strata --input-shape 0=2x5 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not strata-run %t.strata --input-shape 1=0x4 2>&1 | FileCheck %s --check-prefix=LOW

// Tests a method with dynamic dimensions end to end below the compiler:
// two symbols bound by the inputs, extents computed from them
// (batch + rows by affine.apply), memory planned at the bounds, the shape
// program in the file, and the runtime executing it at any shape within the
// bounds (the python script checks every output against numpy at the
// bounds and between them) and refusing shapes outside them by name.

// Buffers are planned at their bounds (64-byte aligned): x 8x4 (128 bytes),
// y 6x4 (128), the concat and its relu (8+6)x4 (256 each), the matmul 14x3
// (192), relu(x) 8x4 (128). The arena is the live lower bound, at the relu:
// x + concat + relu = 640.
// CHECK: "arena_sizes": [640]
// CHECK: "dim_symbols": [{"name": "batch", "min": 1, "max": 8}, {"name": "rows", "min": 1, "max": 6}]
// CHECK-NEXT: "shape_program": [{"op": "Symbol", "lhs": 0, "rhs": 0, "value": 0}, {"op": "Symbol", "lhs": 0, "rhs": 0, "value": 1}, {"op": "Add", "lhs": 0, "rhs": 1, "value": 0}]
// CHECK: {"id": 0, "dtype": "f32", "shape": [8, 4], "dim_registers": [0, -1]
// CHECK-NEXT: {"id": 1, "dtype": "f32", "shape": [6, 4], "dim_registers": [1, -1]
// CHECK-NEXT: {"id": 2, "dtype": "f32", "shape": [14, 4], "dim_registers": [2, -1]

// EXEC: input 0: f32[batch: 1..8, 4]
// EXEC-NEXT: input 1: f32[rows: 1..6, 4]
// EXEC: output 0: f32[8, 3] sum
// EXEC-NEXT: output 1: f32[3, 4] sum

// BOUND: input 0 of method 'forward' must be f32[batch: 1..8, 4], got f32[9, 4]: dim 0 ('batch') is 9, outside its bounds 1..8
// FIXED: input 0 of method 'forward' must be f32[batch: 1..8, 4], got f32[2, 5]: dim 1 is fixed
// LOW: input 1 of method 'forward' must be f32[rows: 1..6, 4], got f32[0, 4]: dim 0 ('rows') is 0, outside its bounds 1..6

#sum = affine_map<()[s0, s1] -> (s0 + s1)>
exec.program @dynamic {
  exec.constant @w dense<[[1.0, -2.0, 0.5], [0.25, 1.0, -1.0], [2.0, 0.0, 1.0], [-0.5, 0.75, 3.0]]> : tensor<4x3xf32>
  exec.method @forward : (memref<?x4xf32>, memref<?x4xf32>) -> (memref<?x3xf32>, memref<?x4xf32>) {
    %batch = exec.dim_symbol "batch" bounds 1 to 8
    %rows = exec.dim_symbol "rows" bounds 1 to 6
    %x = exec.input 0 (%batch) : memref<?x4xf32>
    %y = exec.input 1 (%rows) : memref<?x4xf32>
    %n = affine.apply #sum()[%batch, %rows]
    %cat = exec.alloc (%n) : memref<?x4xf32>
    exec.kernel "concat" ins(%x, %y : memref<?x4xf32>, memref<?x4xf32>) outs(%cat : memref<?x4xf32>) {params = {axis = 0 : i64}}
    %act = exec.alloc (%n) : memref<?x4xf32>
    exec.kernel "relu" ins(%cat : memref<?x4xf32>) outs(%act : memref<?x4xf32>)
    %w = exec.constant_ref @w : memref<4x3xf32>
    %out = exec.alloc (%n) : memref<?x3xf32>
    exec.kernel "matmul" ins(%act, %w : memref<?x4xf32>, memref<4x3xf32>) outs(%out : memref<?x3xf32>)
    %first = exec.alloc (%batch) : memref<?x4xf32>
    exec.kernel "relu" ins(%x : memref<?x4xf32>) outs(%first : memref<?x4xf32>)
    exec.return %out, %first : memref<?x3xf32>, memref<?x4xf32>
  }
}
