// RUN: strata-opt %s -split-input-file --strata-exec-plan-memory="report=true" -verify-diagnostics | FileCheck %s

// Tests that a chain reuses memory: the first and third buffer share an
// offset once the first is dead, and the input stays live to the end.

// CHECK-LABEL: exec.program @chain
exec.program @chain {
  // CHECK: exec.method @forward {{.*}} attributes {arena_sizes = array<i64: 192>}
  // expected-remark @+1 {{memory plan: arena 192 bytes, lower bound 192 bytes, naive 256 bytes}}
  exec.method @forward : (memref<16xf32>) -> memref<16xf32> {
    // CHECK: exec.input 0 {memory_id = 0 : i64, offset = [[IN:[0-9]+]] : i64}
    %x = exec.input 0 : memref<16xf32>
    // CHECK: exec.alloc {memory_id = 0 : i64, offset = [[A:[0-9]+]] : i64}
    %a = exec.alloc : memref<16xf32>
    // CHECK: exec.alloc {memory_id = 0 : i64, offset = [[B:[0-9]+]] : i64}
    %b = exec.alloc : memref<16xf32>
    // CHECK: exec.alloc {memory_id = 0 : i64, offset = [[A]] : i64}
    %c = exec.alloc : memref<16xf32>
    exec.kernel "relu" ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
    exec.kernel "relu" ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
    exec.kernel "add" ins(%b, %x : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>)
    exec.return %c : memref<16xf32>
  }
}

// -----

// Tests that offsets follow the alignment option, that buffers live at the
// same time never share bytes, and that a dead input's bytes are reused.

// CHECK-LABEL: exec.program @aligned
exec.program @aligned {
  // CHECK: arena_sizes = array<i64: 192>
  // expected-remark @+1 {{memory plan: arena 192 bytes, lower bound 192 bytes, naive 256 bytes}}
  exec.method @forward : (memref<3xf32>, memref<3xf32>) -> memref<3xf32> {
    // CHECK: exec.input 0 {memory_id = 0 : i64, offset = [[X:0]] : i64}
    // CHECK: exec.input 1 {memory_id = 0 : i64, offset = 64 : i64}
    // CHECK: exec.alloc {memory_id = 0 : i64, offset = 128 : i64}
    // CHECK: exec.alloc {memory_id = 0 : i64, offset = [[X]] : i64}
    %x = exec.input 0 : memref<3xf32>
    %y = exec.input 1 : memref<3xf32>
    %a = exec.alloc : memref<3xf32>
    %b = exec.alloc : memref<3xf32>
    exec.kernel "add" ins(%x, %y : memref<3xf32>, memref<3xf32>) outs(%a : memref<3xf32>)
    exec.kernel "add" ins(%a, %y : memref<3xf32>, memref<3xf32>) outs(%b : memref<3xf32>)
    exec.kernel "add" ins(%a, %b : memref<3xf32>, memref<3xf32>) outs(%b : memref<3xf32>)
    exec.return %b : memref<3xf32>
  }
}

// -----

// Tests that a placed buffer is refused: planning runs once.
exec.program @placed {
  exec.method @forward : () -> () {
    // expected-error @+1 {{is already placed; memory planning runs once}}
    %a = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
    exec.return
  }
}
