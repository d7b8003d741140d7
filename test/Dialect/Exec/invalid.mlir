// RUN: strata-opt %s -split-input-file -verify-diagnostics

// Tests that a program holds at least one method.
// expected-error @+1 {{'exec.program' op must hold at least one exec.method}}
exec.program @empty {
  exec.constant @w dense<0.5> : tensor<4xf32>
}

// -----

// Tests that a program holds only constants, delegates and methods.
exec.program @stray {
  // expected-error @+1 {{is not allowed in an exec.program}}
  func.func @f() {
    return
  }
  exec.method @forward : () -> () {
    exec.return
  }
}

// -----

// Tests that a delegate names its backend.
exec.program @p {
  // expected-error @+1 {{'backend' must name a backend}}
  exec.delegate @d {backend = ""}
  exec.method @forward : () -> () {
    exec.return
  }
}

// -----

// Tests that compile specs are scalars.
exec.program @p {
  // expected-error @+1 {{compile spec 'tiles' must be a string, integer, float or bool}}
  exec.delegate @d {backend = "onednn", compile_specs = {tiles = [1, 2]}}
  exec.method @forward : () -> () {
    exec.return
  }
}

// -----

// Tests that a method's signature holds ranked memrefs.
exec.program @p {
  // expected-error @+1 {{signature types must be ranked memrefs, got 'tensor<4xf32>'}}
  exec.method @forward : (tensor<4xf32>) -> () {
    exec.return
  }
}

// -----

// Tests that every method input is bound.
exec.program @p {
  // expected-error @+1 {{input 0 is never bound by exec.input}}
  exec.method @forward : (memref<4xf32>) -> () {
    exec.return
  }
}

// -----

// Tests that an input index is in range.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{index 1 is outside the method's 0 inputs}}
    %x = exec.input 1 : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that an input is bound once.
exec.program @p {
  exec.method @forward : (memref<4xf32>) -> () {
    %x = exec.input 0 : memref<4xf32>
    // expected-error @+1 {{binds input 0 a second time}}
    %y = exec.input 0 : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that an input's type is the signature's.
exec.program @p {
  exec.method @forward : (memref<4xf32>) -> () {
    // expected-error @+1 {{type 'memref<8xf32>' differs from the method's input 0 type 'memref<4xf32>'}}
    %x = exec.input 0 : memref<8xf32>
    exec.return
  }
}

// -----

// Tests that a method names each of its inputs when it names them.
exec.program @p {
  // expected-error @+1 {{'input_names' has 2 names for 1 values}}
  exec.method @forward : (memref<4xf32>) -> () attributes {input_names = ["x", "y"]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that arena sizes are non-negative.
exec.program @p {
  // expected-error @+1 {{'arena_sizes' entries must be non-negative}}
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: -4>} {
    exec.return
  }
}

// -----

// Tests that memory id and offset go together.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{'memory_id' and 'offset' go together}}
    %a = exec.alloc {memory_id = 0 : i64} : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that placements are non-negative.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{placement must be non-negative}}
    %a = exec.alloc {memory_id = 0 : i64, offset = -64 : i64} : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that a placed buffer names an existing arena.
exec.program @p {
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: 64>} {
    // expected-error @+1 {{memory id 1 has no arena (the method has 1)}}
    %a = exec.alloc {memory_id = 1 : i64, offset = 0 : i64} : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that a placed buffer lies inside its arena.
exec.program @p {
  exec.method @forward : () -> () attributes {arena_sizes = array<i64: 64>} {
    // expected-error @+1 {{buffer ends at byte 80, past arena 0 of 64 bytes}}
    %a = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that constant_ref names a constant.
exec.program @p {
  exec.delegate @d {backend = "onednn"}
  exec.method @forward : () -> () {
    // expected-error @+1 {{'d' does not name an exec.constant}}
    %w = exec.constant_ref @d : memref<4xf32>
    exec.return
  }
}

// -----

// Tests that constant_ref's type matches the constant.
exec.program @p {
  exec.constant @w dense<0.5> : tensor<4xf32>
  exec.method @forward : () -> () {
    // expected-error @+1 {{type 'memref<4xi32>' does not match constant of type 'tensor<4xf32>'}}
    %w = exec.constant_ref @w : memref<4xi32>
    exec.return
  }
}

// -----

// Tests that a kernel has a name.
exec.program @p {
  exec.method @forward : () -> () {
    %a = exec.alloc : memref<4xf32>
    // expected-error @+1 {{kernel name must not be empty}}
    exec.kernel "" outs(%a : memref<4xf32>)
    exec.return
  }
}

// -----

// Tests that a kernel writes something.
exec.program @p {
  exec.method @forward : () -> () {
    %a = exec.alloc : memref<4xf32>
    // expected-error @+1 {{must write at least one output buffer}}
    "exec.kernel"(%a) {kernel = "relu", operandSegmentSizes = array<i32: 1, 0, 0>} : (memref<4xf32>) -> ()
    exec.return
  }
}

// -----

// Tests that a kernel never writes a constant.
exec.program @p {
  exec.constant @w dense<0.5> : tensor<4xf32>
  exec.method @forward : () -> () {
    %w = exec.constant_ref @w : memref<4xf32>
    // expected-error @+1 {{writes a constant buffer}}
    exec.kernel "relu" outs(%w : memref<4xf32>)
    exec.return
  }
}

// -----

// Tests that a delegate call writes something.
exec.program @p {
  exec.delegate @d {backend = "onednn"}
  exec.method @forward : () -> () {
    %a = exec.alloc : memref<4xf32>
    // expected-error @+1 {{must write at least one output buffer}}
    "exec.delegate_call"(%a) {delegate = @d, operandSegmentSizes = array<i32: 1, 0, 0>} : (memref<4xf32>) -> ()
    exec.return
  }
}

// -----

// Tests that a delegate call names a delegate.
exec.program @p {
  exec.constant @w dense<0.5> : tensor<4xf32>
  exec.method @forward : () -> () {
    %a = exec.alloc : memref<4xf32>
    // expected-error @+1 {{'w' does not name an exec.delegate}}
    exec.delegate_call @w outs(%a : memref<4xf32>)
    exec.return
  }
}

// -----

// Tests that move copies between buffers of one type.
exec.program @p {
  exec.method @forward : () -> () {
    %a = exec.alloc : memref<4xf32>
    %b = exec.alloc : memref<8xf32>
    // expected-error @+1 {{failed to verify that all of {source, target} have same type}}
    "exec.move"(%a, %b) : (memref<4xf32>, memref<8xf32>) -> ()
    exec.return
  }
}

// -----

// Tests that return gives as many buffers as the method declares.
exec.program @p {
  exec.method @forward : () -> memref<4xf32> {
    // expected-error @+1 {{returns 0 buffers, the method declares 1}}
    exec.return
  }
}

// -----

// Tests that returned buffer types are the declared ones.
exec.program @p {
  exec.method @forward : () -> memref<4xf32> {
    %a = exec.alloc : memref<8xf32>
    // expected-error @+1 {{output 0 has type 'memref<8xf32>', the method declares 'memref<4xf32>'}}
    exec.return %a : memref<8xf32>
  }
}

// -----

// Tests that a dynamic dimension comes with its extent.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{has 0 extents for 1 dynamic dimensions}}
    %a = exec.alloc : memref<?xf32>
    exec.return
  }
}

// -----

// Tests that an input's dynamic extent is a symbol (the caller binds it).
exec.program @p {
  exec.method @forward : (memref<?xf32>) -> () {
    %n = exec.dim_symbol "n" bounds 1 to 4
    %m = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%n]
    // expected-error @+1 {{a dynamic input extent must be an exec.dim_symbol}}
    %x = exec.input 0 (%m) : memref<?xf32>
    exec.return
  }
}

// -----

// Tests that a symbol is declared once per method.
exec.program @p {
  exec.method @forward : () -> () {
    %n = exec.dim_symbol "n" bounds 1 to 4
    // expected-error @+1 {{'n' is declared twice in the method}}
    %m = exec.dim_symbol "n" bounds 1 to 4
    exec.return
  }
}

// -----

// Tests that a symbol's bounds are ordered.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{bounds 4 to 2 are not 0 <= min <= max <= 2^40}}
    %n = exec.dim_symbol "n" bounds 4 to 2
    exec.return
  }
}

// -----

// Tests that memory planning needs a bound for every extent: one computed
// by an op outside exec.dim_symbol and affine.apply/min/max has none.
exec.program @p {
  exec.method @forward : (memref<?xf32>) -> () attributes {arena_sizes = array<i64: 64>} {
    %n = exec.dim_symbol "n" bounds 1 to 4
    %x = exec.input 0 (%n) : memref<?xf32>
    %m = arith.muli %n, %n : index
    // expected-error @+1 {{dynamic dimension 0 has no upper bound}}
    %a = exec.alloc (%m) {memory_id = 0 : i64, offset = 0 : i64} : memref<?xf32>
    exec.return
  }
}

// -----

// Tests that dynamic buffers come with the extents the delegate takes.
exec.program @p {
  exec.delegate @d {backend = "onednn"}
  exec.method @forward : (memref<?xf32>) -> () {
    %n = exec.dim_symbol "n" bounds 1 to 4
    %x = exec.input 0 (%n) : memref<?xf32>
    // expected-error @+1 {{has dynamic dimensions but the call passes no extents}}
    exec.delegate_call @d ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
    exec.return
  }
}

// -----

// Tests that a symbol's lower bound is not negative.
exec.program @p {
  exec.method @forward : () -> () {
    // expected-error @+1 {{bounds -1 to 2 are not 0 <= min <= max <= 2^40}}
    %n = exec.dim_symbol "n" bounds -1 to 2
    exec.return
  }
}

// -----

// Tests that a kernel binds only dim symbols that are extents of its outputs.
exec.program @binds {
  exec.method @main : (memref<4xf32>) -> memref<1x?xi64> {
    %x = exec.input 0 : memref<4xf32>
    %n = exec.dim_symbol "n" bounds 0 to 4
    %m = exec.dim_symbol "m" bounds 0 to 4
    %y = exec.alloc(%n) : memref<1x?xi64>
    // expected-error @+1 {{binds a symbol that is no dynamic extent of its outputs}}
    exec.kernel "non_zero" ins(%x : memref<4xf32>) outs(%y : memref<1x?xi64>) binds[%m]
    exec.return %y : memref<1x?xi64>
  }
}

// -----

// Tests that branches go forward only: a backward branch could loop.
exec.program @backward {
  exec.method @main : (memref<i1>) -> memref<i1> {
    %c = exec.input 0 : memref<i1>
    exec.branch ^bb1
  ^bb1:
    // expected-error @+1 {{must branch to a later block (forward branches only)}}
    exec.cond_branch %c : memref<i1>, ^bb2, ^bb1
  ^bb2:
    exec.return %c : memref<i1>
  }
}

// -----

// Tests that a branch back to an earlier block (a loop) states its bound.
exec.program @unbounded_loop {
  exec.method @main : (memref<i1>) -> memref<i1> {
    %c = exec.input 0 : memref<i1>
    exec.branch ^bb1
  ^bb1:
    exec.cond_branch %c : memref<i1>, ^bb2, ^bb3
  ^bb2:
    // expected-error @+1 {{branches back to an earlier block without 'max_trips' (a loop must state its bound)}}
    exec.branch ^bb1
  ^bb3:
    exec.return %c : memref<i1>
  }
}

// -----

// Tests that a forward branch states no loop bound.
exec.program @forward_bound {
  exec.method @main : (memref<i1>) -> memref<i1> {
    %c = exec.input 0 : memref<i1>
    // expected-error @+1 {{is a forward branch: 'max_trips' is for loops}}
    exec.branch ^bb1 {max_trips = 4 : i64}
  ^bb1:
    exec.return %c : memref<i1>
  }
}

// -----

// Tests that a loop's bound is positive.
exec.program @zero_trips {
  exec.method @main : (memref<i1>) -> memref<i1> {
    %c = exec.input 0 : memref<i1>
    exec.branch ^bb1
  ^bb1:
    exec.cond_branch %c : memref<i1>, ^bb2, ^bb3
  ^bb2:
    // expected-error @+1 {{attribute 'max_trips' failed to satisfy constraint}}
    exec.branch ^bb1 {max_trips = 0 : i64}
  ^bb3:
    exec.return %c : memref<i1>
  }
}

// -----

// Tests that a branch condition is one boolean element.
exec.program @condition {
  exec.method @main : (memref<2xi1>) -> memref<2xi1> {
    %c = exec.input 0 : memref<2xi1>
    // expected-error @+1 {{condition must be one i1 element, got 'memref<2xi1>'}}
    exec.cond_branch %c : memref<2xi1>, ^bb1, ^bb1
  ^bb1:
    exec.return %c : memref<2xi1>
  }
}

// -----

// Tests that only the last block returns: the blocks are the instruction
// list in order.
// expected-error @+2 {{block 0 must end in exec.branch or exec.cond_branch (only the last block returns)}}
exec.program @early_return {
  exec.method @main : (memref<i1>) -> memref<i1> {
    %c = exec.input 0 : memref<i1>
    exec.return %c : memref<i1>
  ^bb1:
    exec.return %c : memref<i1>
  }
}

// -----

// Tests that a state starts within its capacity.
exec.program @p {
  // expected-error @+1 {{initial extent 9 of dimension 1 lies outside 0..8}}
  exec.state @h : memref<1x8xf32> initial [1, 9]
  exec.method @forward : () -> () {
    exec.return
  }
}

// -----

// Tests that a state binding names an exec.state.
exec.program @p {
  // expected-error @+1 {{'state_bindings' entry 0 names no exec.state @missing}}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {state_bindings = [[@missing, 0, 0]]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}

// -----

// Tests that a bound input has the state's element type and rank.
exec.program @p {
  exec.state @h : memref<4xi64> initial [4]
  // expected-error @+1 {{input 0 ('memref<4xf32>') does not fit state @h ('memref<4xi64>')}}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {state_bindings = [[@h, 0, -1]]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}

// -----

// Tests that an output feeds at most one state.
exec.program @p {
  exec.state @a : memref<4xf32> initial [4]
  exec.state @b : memref<4xf32> initial [4]
  // expected-error @+1 {{output 0 is bound to a state twice}}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {state_bindings = [[@a, -1, 0], [@b, -1, 0]]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}

// -----

// Tests that a method binds a state once.
exec.program @p {
  exec.state @h : memref<4xf32> initial [4]
  // expected-error @+1 {{'state_bindings' names state @h twice}}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {state_bindings = [[@h, 0, -1], [@h, -1, 0]]} {
    %x = exec.input 0 : memref<4xf32>
    exec.return %x : memref<4xf32>
  }
}
