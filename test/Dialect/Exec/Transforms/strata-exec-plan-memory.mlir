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

// -----

// Tests that a buffer read inside a loop stays live to the loop's jump
// back: %c is last read by the header's branch and %w by the body's first
// kernel, yet the body's later buffer %t2 must take the bytes of neither
// (the next iteration reads both again). %x, dead after the entry block,
// may be reused.

// CHECK-LABEL: exec.program @loop
exec.program @loop {
  // expected-remark @+1 {{memory plan: arena 320 bytes, lower bound 320 bytes, naive 384 bytes}}
  exec.method @forward : (memref<16xf32>, memref<i1>) -> memref<16xf32> {
    %x = exec.input 0 : memref<16xf32>
    // CHECK: exec.input 1 {memory_id = 0 : i64, offset = [[C:[0-9]+]] : i64}
    %c = exec.input 1 : memref<i1>
    // CHECK-NEXT: exec.alloc {memory_id = 0 : i64, offset = [[W:[0-9]+]] : i64}
    %w = exec.alloc : memref<16xf32>
    // CHECK-NEXT: exec.alloc
    %y = exec.alloc : memref<16xf32>
    // CHECK-NEXT: exec.alloc
    %t1 = exec.alloc : memref<16xf32>
    // CHECK-NOT: offset = [[W]] :
    // CHECK-NOT: offset = [[C]] :
    // CHECK: exec.kernel "relu"
    %t2 = exec.alloc : memref<16xf32>
    exec.kernel "relu" ins(%x : memref<16xf32>) outs(%w : memref<16xf32>)
    exec.move %x to %y : memref<16xf32>
    exec.branch ^bb1
  ^bb1:
    exec.cond_branch %c : memref<i1>, ^bb2, ^bb3
  ^bb2:
    exec.kernel "add" ins(%w, %y : memref<16xf32>, memref<16xf32>) outs(%t1 : memref<16xf32>)
    exec.kernel "relu" ins(%t1 : memref<16xf32>) outs(%t2 : memref<16xf32>)
    exec.move %t2 to %y : memref<16xf32>
    // CHECK: exec.branch ^bb1 {max_trips = 4 : i64}
    exec.branch ^bb1 {max_trips = 4 : i64}
  ^bb3:
    exec.return %y : memref<16xf32>
  }
}
