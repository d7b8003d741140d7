// RUN: strata-opt %s -split-input-file --strata-exec-bind-state="pairs=h=h_next" -verify-diagnostics | FileCheck %s

// Tests that an input/output pair becomes a state: its capacity the larger
// bound, its start the input's static shape.

// CHECK-LABEL: exec.program @rnn
// CHECK: exec.state @h : memref<1x8xf32> initial [1, 8]
// CHECK: exec.method @forward {{.*}}state_bindings = {{\[}}[@h, 1, 1]]
exec.program @rnn {
  exec.method @forward : (memref<1x8xf32>, memref<1x8xf32>) -> (memref<1x8xf32>, memref<1x8xf32>)
      attributes {input_names = ["x", "h"], output_names = ["y", "h_next"]} {
    %x = exec.input 0 : memref<1x8xf32>
    %h = exec.input 1 : memref<1x8xf32>
    %y = exec.alloc : memref<1x8xf32>
    exec.kernel "add" ins(%x, %h : memref<1x8xf32>, memref<1x8xf32>) outs(%y : memref<1x8xf32>)
    exec.return %y, %y : memref<1x8xf32>, memref<1x8xf32>
  }
}

// -----

// Tests that a growing cache starts at its symbol's lower bound and holds
// the output's bound (past up to 6 rows, present up to 7), and that two
// methods carrying it share one state.

// CHECK-LABEL: exec.program @cache
// CHECK: exec.state @h : memref<7x2xf32> initial [0, 2]
// CHECK-NOT: exec.state
// CHECK: exec.method @prefill {{.*}}state_bindings = {{\[}}[@h, 0, 0]]
// CHECK: exec.method @decode {{.*}}state_bindings = {{\[}}[@h, 0, 0]]
exec.program @cache {
  exec.method @prefill : (memref<?x2xf32>, memref<1x2xf32>) -> memref<?x2xf32>
      attributes {input_names = ["h", "k"], output_names = ["h_next"]} {
    %p = exec.dim_symbol "past" bounds 0 to 6
    %h = exec.input 0 (%p) : memref<?x2xf32>
    %k = exec.input 1 : memref<1x2xf32>
    %n = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%p]
    %cat = exec.alloc (%n) : memref<?x2xf32>
    exec.kernel "concat" ins(%h, %k : memref<?x2xf32>, memref<1x2xf32>) outs(%cat : memref<?x2xf32>) {axis = 0 : i64}
    exec.return %cat : memref<?x2xf32>
  }
  exec.method @decode : (memref<?x2xf32>, memref<1x2xf32>) -> memref<?x2xf32>
      attributes {input_names = ["h", "k"], output_names = ["h_next"]} {
    %p = exec.dim_symbol "past" bounds 0 to 6
    %h = exec.input 0 (%p) : memref<?x2xf32>
    %k = exec.input 1 : memref<1x2xf32>
    %n = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%p]
    %cat = exec.alloc (%n) : memref<?x2xf32>
    exec.kernel "concat" ins(%h, %k : memref<?x2xf32>, memref<1x2xf32>) outs(%cat : memref<?x2xf32>) {axis = 0 : i64}
    exec.return %cat : memref<?x2xf32>
  }
}

// -----

// Tests that a pair whose input no method has is refused, naming what the
// methods have.

// expected-error @+1 {{state 'h=h_next': no method has an input named 'h' (method forward: inputs x, outputs y)}}
exec.program @other {
  exec.method @forward : (memref<4xf32>) -> memref<4xf32>
      attributes {input_names = ["x"], output_names = ["y"]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}

// -----

// Tests that an input without its output is refused.

exec.program @half {
  // expected-error @+1 {{method forward has input 'h' but no output 'h_next'}}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32>
      attributes {input_names = ["h"], output_names = ["y"]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}

// -----

// Tests that a method with the output but not the input (a prefill exported
// without past inputs) starts the state: it takes the output after each
// call, and the capacity covers its bound too.

// CHECK-LABEL: exec.program @starts
// CHECK: exec.state @h : memref<9x2xf32> initial [0, 2]
// CHECK: exec.method @prefill {{.*}}state_bindings = {{\[}}[@h, -1, 0]]
// CHECK: exec.method @decode {{.*}}state_bindings = {{\[}}[@h, 0, 0]]
exec.program @starts {
  exec.method @prefill : (memref<9x2xf32>) -> memref<9x2xf32>
      attributes {input_names = ["k"], output_names = ["h_next"]} {
    %k = exec.input 0 : memref<9x2xf32>
    exec.return %k : memref<9x2xf32>
  }
  exec.method @decode : (memref<?x2xf32>, memref<1x2xf32>) -> memref<?x2xf32>
      attributes {input_names = ["h", "k"], output_names = ["h_next"]} {
    %p = exec.dim_symbol "past" bounds 0 to 6
    %h = exec.input 0 (%p) : memref<?x2xf32>
    %k = exec.input 1 : memref<1x2xf32>
    %n = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%p]
    %cat = exec.alloc (%n) : memref<?x2xf32>
    exec.kernel "concat" ins(%h, %k : memref<?x2xf32>, memref<1x2xf32>) outs(%cat : memref<?x2xf32>) {axis = 0 : i64}
    exec.return %cat : memref<?x2xf32>
  }
}
