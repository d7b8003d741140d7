// RUN: strata-translate --emit-program %s -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s
// RUN: strata-run %t.strata | FileCheck %s --check-prefix=EXEC

// Tests that dense_resource constants (how large imported weights are held)
// are emitted byte for byte: 1.0 and 2.0 added to a zero input sum to 3.

// CHECK-LABEL: "name": "resource"
// CHECK: {"name": "w", "dtype": "f32", "shape": [2], "segment": 0, "offset": 0, "size": 8}

// EXEC: output 0: f32[2] sum 3

exec.program @resource {
  exec.constant @w dense_resource<weights> : tensor<2xf32>
  exec.method @forward : () -> memref<2xf32> attributes {arena_sizes = array<i64: 64>} {
    %w = exec.constant_ref @w : memref<2xf32>
    %y = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<2xf32>
    exec.kernel "relu" ins(%w : memref<2xf32>) outs(%y : memref<2xf32>)
    exec.return %y : memref<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}
