// RUN: strata-opt --strata-exec-plan-memory %s | strata-translate --emit-program -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s
// RUN: strata-run %t.strata | FileCheck %s --check-prefix=EXEC

// Tests that a method placed by --strata-exec-plan-memory emits with the
// planned offsets and arena size (the first and third buffers share bytes)
// and that the runtime executes it.

// CHECK-LABEL: "name": "chain"
// CHECK: "name": "forward"
// CHECK-NEXT: "arena_sizes": [192]
// CHECK-NEXT: "inputs": [0]
// CHECK-NEXT: "outputs": [3]
// CHECK: {"id": 0, "dtype": "f32", "shape": [16], "memory_id": 0, "offset": [[IN:[0-9]+]]}
// CHECK-NEXT: {"id": 1, "dtype": "f32", "shape": [16], "memory_id": 0, "offset": [[A:[0-9]+]]}
// CHECK-NEXT: {"id": 2, "dtype": "f32", "shape": [16], "memory_id": 0, "offset": [[B:[0-9]+]]}
// CHECK-NEXT: {"id": 3, "dtype": "f32", "shape": [16], "memory_id": 0, "offset": [[A]]}
// CHECK: {"kernel": "relu", "ins": [0], "outs": [1]
// CHECK-NEXT: {"kernel": "relu", "ins": [1], "outs": [2]
// CHECK-NEXT: {"kernel": "add", "ins": [2, 0], "outs": [3]

// EXEC: inputs: random (seed 0)
// EXEC-NEXT: output 0: f32[16] sum

exec.program @chain {
  exec.method @forward : (memref<16xf32>) -> memref<16xf32> {
    %x = exec.input 0 : memref<16xf32>
    %a = exec.alloc : memref<16xf32>
    %b = exec.alloc : memref<16xf32>
    %c = exec.alloc : memref<16xf32>
    exec.kernel "relu" ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
    exec.kernel "relu" ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
    exec.kernel "add" ins(%b, %x : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>)
    exec.return %c : memref<16xf32>
  }
}
