// RUN: strata-translate --emit-program %s -split-input-file -verify-diagnostics -o /dev/null

// Tests that an unplanned buffer is refused.
exec.program @unplanned {
  exec.method @forward : () -> () {
    // expected-error @+1 {{buffer is not placed; run --strata-exec-plan-memory before emission}}
    %a = exec.alloc : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that a kernel parameter of an unsupported kind is refused.
exec.program @badparam {
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: 64>} {
    %a = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
    // expected-error @+1 {{parameter 'p' has unsupported attribute}}
    exec.kernel "relu" ins(%a : memref<4xf32>) outs(%a : memref<4xf32>) {params = {p = {nested = 1 : i64}}}
    exec.return
  }
}

// -----

// Tests that a strided buffer layout is refused.
exec.program @strided {
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: 256>} {
    // expected-error @+1 {{has a non-identity layout}}
    %a = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32, strided<[2]>>
    exec.return
  }
}

// -----

// Tests that an element type the format has no storage for is refused.
exec.program @complex {
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: 256>} {
    // expected-error @+1 {{unsupported element type 'complex<f32>'}}
    %a = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<4xcomplex<f32>>
    exec.return
  }
}
