// RUN: strata-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(strata-edge-state-layout{states=past-present}))' | FileCheck %s

// A KV cache as exporters write it: the past concatenated with the new
// rows along its third dimension, read transposed by attention's scores
// and as it is by the weighted sum, and its length read off its shape.
// Stored with the growing axis first: the concat appends to the stored
// prefix, the new rows need no transpose (only extents of 1 move), the
// keys' transpose composes with the stored one, the shape is gathered
// from the stored one, tensor.dim reads the stored dimension.

// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: %[[PAST:.*]]: tensor<?x1x2x4xf32> {hl.dim_params = ["past", "", "", ""], hl.name = "past_key_values.0.key"}
// CHECK-SAME: %[[NEW:.*]]: tensor<1x1x2x4xf32>
// CHECK-SAME: -> (tensor<1x2x1x?xf32>, tensor<1x2x1x4xf32>, tensor<4xi64>, index, tensor<?x1x2x4xf32> {hl.name = "present.0.key"})
// CHECK-SAME: strata.state_permutations = {past_key_values.0.key = array<i64: 2, 0, 1, 3>, present.0.key = array<i64: 2, 0, 1, 3>}
// CHECK: %[[SHAPE:.*]] = edge.shape_of %[[PAST]]
// CHECK: %[[ORDER:.*]] = edge.constant dense<[1, 2, 0, 3]> : tensor<4xi64>
// CHECK: %[[MODEL_SHAPE:.*]] = edge.gather %[[SHAPE]], %[[ORDER]] {axis = 0 : i64}
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[LENGTH:.*]] = tensor.dim %[[PAST]], %[[C0]]
// CHECK-NOT: edge.transpose %[[NEW]]
// CHECK: %[[ALL:.*]] = edge.concat %[[PAST]], %[[NEW]] {axis = 0 : i64} : (tensor<?x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<?x1x2x4xf32>
// CHECK: %[[VALUES:.*]] = edge.transpose %[[ALL]] {permutation = array<i64: 1, 2, 0, 3>} : (tensor<?x1x2x4xf32>) -> tensor<1x2x?x4xf32>
// CHECK: %[[KEYS:.*]] = edge.transpose %[[ALL]] {permutation = array<i64: 1, 2, 3, 0>} : (tensor<?x1x2x4xf32>) -> tensor<1x2x4x?xf32>
// CHECK: %[[SCORES:.*]] = edge.matmul %{{.*}}, %[[KEYS]]
// CHECK: %[[OUT:.*]] = edge.matmul %{{.*}}, %[[VALUES]]
// CHECK: return %[[SCORES]], %[[OUT]], %[[MODEL_SHAPE]], %[[LENGTH]], %[[ALL]]
func.func @kv_cache(%past: tensor<1x2x?x4xf32> {hl.name = "past_key_values.0.key", hl.dim_params = ["", "", "past", ""]},
                    %rows: tensor<1x1x2x4xf32>, %q: tensor<1x2x1x4xf32>, %p: tensor<1x2x1x?xf32>)
    -> (tensor<1x2x1x?xf32>, tensor<1x2x1x4xf32>, tensor<4xi64>, index, tensor<1x2x?x4xf32> {hl.name = "present.0.key"}) {
  %c2 = arith.constant 2 : index
  %shape = edge.shape_of %past : (tensor<1x2x?x4xf32>) -> tensor<4xi64>
  %length = tensor.dim %past, %c2 : tensor<1x2x?x4xf32>
  %new = edge.transpose %rows {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %all = edge.concat %past, %new {axis = 2 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x?x4xf32>
  %keys = edge.transpose %all {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x4xf32>) -> tensor<1x2x4x?xf32>
  %scores = edge.matmul %q, %keys : (tensor<1x2x1x4xf32>, tensor<1x2x4x?xf32>) -> tensor<1x2x1x?xf32>
  %out = edge.matmul %p, %all : (tensor<1x2x1x?xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x1x4xf32>
  return %scores, %out, %shape, %length, %all : tensor<1x2x1x?xf32>, tensor<1x2x1x4xf32>, tensor<4xi64>, index, tensor<1x2x?x4xf32>
}

// -----

// A prefill without past inputs starts the state: its present is stored
// as the methods that read it store it.

// CHECK-LABEL: func.func @prefill
// CHECK-SAME: -> (tensor<?x1x2x4xf32> {hl.name = "present.0.value"})
// CHECK-SAME: strata.state_permutations = {present.0.value = array<i64: 2, 0, 1, 3>}
// CHECK: %[[STORED:.*]] = edge.transpose %arg0 {permutation = array<i64: 2, 0, 1, 3>}
// CHECK: return %[[STORED]]
func.func @prefill(%v: tensor<1x2x?x4xf32>) -> (tensor<1x2x?x4xf32> {hl.name = "present.0.value"}) {
  return %v : tensor<1x2x?x4xf32>
}

// -----

// Kept as they are: a state already growing along its outermost non-unit
// axis, one with two dynamic axes, a recurrent state of static shape.

// CHECK-LABEL: func.func @kept
// CHECK-SAME: %arg0: tensor<1x?x4xf32>
// CHECK-SAME: %arg1: tensor<?x2x?x4xf32>
// CHECK-SAME: %arg2: tensor<1x2x4xf32>
// CHECK-NOT: strata.state_permutations
// CHECK-NOT: edge.transpose
func.func @kept(%a: tensor<1x?x4xf32> {hl.name = "past.a"}, %b: tensor<?x2x?x4xf32> {hl.name = "past.b"},
                %h: tensor<1x2x4xf32> {hl.name = "past.h"})
    -> (tensor<1x?x4xf32> {hl.name = "present.a"}, tensor<?x2x?x4xf32> {hl.name = "present.b"}, tensor<1x2x4xf32> {hl.name = "present.h"}) {
  return %a, %b, %h : tensor<1x?x4xf32>, tensor<?x2x?x4xf32>, tensor<1x2x4xf32>
}
