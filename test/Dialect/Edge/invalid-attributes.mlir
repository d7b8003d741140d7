// RUN: strata-opt %s -split-input-file -verify-diagnostics

// Tests that the edge dialect verifies its discardable attributes: the
// delegation stage's products and the exact-sums hint, each by kind and by
// the op it stands on.

// expected-error @+1 {{attribute 'edge.delegate' must name a backend}}
func.func private @empty_backend(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = ""}

// -----

func.func @delegate_on_op(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'edge.delegate' stands only on a function}}
  %0 = edge.relu %a {edge.delegate = "onednn"} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'edge.backend' stands on the ops a backend claimed, not on a function}}
func.func @backend_on_function(%a: tensor<2xf32>) -> tensor<2xf32> attributes {edge.backend = "onednn"} {
  return %a : tensor<2xf32>
}

// -----

func.func @backend_not_string(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'edge.backend' must name a backend}}
  %0 = edge.relu %a {edge.backend = 3 : i64} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'edge.processed' stands only on a function delegated with 'edge.delegate'}}
func.func private @processed_without_delegate(tensor<2xf32>) -> tensor<2xf32> attributes {edge.processed = dense<[1, 2]> : tensor<2xi8>}

// -----

// expected-error @+1 {{attribute 'edge.scratch_bytes' must be a non-negative integer}}
func.func private @negative_scratch(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.scratch_bytes = -1 : i64}

// -----

// expected-error @+1 {{attribute 'edge.named_data' must map each key to its bytes}}
func.func private @named_data_not_bytes(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.named_data = {w = "x"}}

// -----

// expected-error @+1 {{attribute 'edge.debug_handles' must map each handle to its node names}}
func.func private @handles_not_names(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.debug_handles = {h0 = [1]}}

// -----

// expected-error @+1 {{attribute 'edge.compile_specs' must map each spec to a string}}
func.func private @specs_not_strings(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.compile_specs = {threads = 4 : i64}}

// -----

func.func @exact_sums_on_relu(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'edge.exact_sums' stands only on an edge.conv2d}}
  %0 = edge.relu %a {edge.exact_sums} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'edge.unknown' is not an edge attribute}}
func.func private @unknown(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.unknown}

// -----

// A complete preprocessed declaration verifies.
func.func private @complete(tensor<2xf32>) -> tensor<2xf32> attributes {edge.delegate = "onednn", edge.processed = dense<[1, 2]> : tensor<2xi8>, edge.named_data = {w = dense<0> : tensor<4xi8>}, edge.scratch_bytes = 64 : i64, edge.debug_handles = {h0 = ["conv"]}, edge.compile_specs = {threads = "4"}}

// -----

func.func @extent_slots_per_result(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{attribute 'edge.extent_slots' must hold one array per result or argument}}
  %0 = edge.relu %a {edge.extent_slots = [array<i64: 0>, array<i64: 0>]} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @extent_bounds_on_op(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'edge.extent_bounds' stands only on a function delegated with 'edge.delegate'}}
  %0 = edge.relu %a {edge.extent_bounds = array<i64: 4>} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a delegate call gives each dynamic result dimension a slot
// among its extents, and a static one none.
func.func private @p(tensor<?x4xf32>, index) -> tensor<?x4xf32> attributes {edge.delegate = "onednn"}
func.func @dynamic_result_without_slot(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{result 0 dimension 0 is dynamic and needs an extent slot below 1, not -1}}
  %0 = edge.delegate_call @p(%a) extents[%n] {result_extents = [array<i64: -1, -1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func private @q(tensor<?x4xf32>, index) -> tensor<?x4xf32> attributes {edge.delegate = "onednn"}
func.func @static_result_with_slot(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{result 0 dimension 1 is static and takes slot -1, not 0}}
  %0 = edge.delegate_call @q(%a) extents[%n] {result_extents = [array<i64: 0, 0>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func private @r(tensor<?x4xf32>) -> tensor<?x4xf32> attributes {edge.delegate = "onednn"}
func.func @extents_not_in_signature(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{types do not match @r}}
  %0 = edge.delegate_call @r(%a) extents[%n] {result_extents = [array<i64: 0, -1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that loop bounds stand on a function, one positive i64 per loop.
// expected-error @+1 {{attribute 'edge.max_trips' must map each loop's node to a positive i64}}
func.func @zero_trips() attributes {edge.max_trips = {loop = 0 : i64}} {
  return
}

// -----

func.func @trips_on_an_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'edge.max_trips' stands only on a function}}
  %0 = edge.relu %a {edge.max_trips = {loop = 4 : i64}} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
