// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that an RNN over 2 steps becomes one input projection (all steps),
// one recurrent matmul and tanh per step, and a concat of the step outputs.
// CHECK-LABEL: func @rnn
func.func @rnn(%x: tensor<2x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>) {
  // CHECK: %[[WT:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  // CHECK: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<2x3x2xf32>) -> tensor<6x2xf32>
  // CHECK: edge.matmul %[[X]], %[[WT]] : (tensor<6x2xf32>, tensor<2x4xf32>) -> tensor<6x4xf32>
  // CHECK-COUNT-2: edge.tanh
  // CHECK-NOT: edge.tanh
  // CHECK: edge.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<2x1x3x4xf32>
  // CHECK-NOT: hl.rnn
  %y, %h = hl.rnn %x, %w, %r {hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>)
  return %y, %h : tensor<2x1x3x4xf32>, tensor<1x3x4xf32>
}

// -----

// Tests that a one-step LSTM applies sigmoid to the i, f and o gates and
// tanh to the candidate and the cell, and that only the requested result
// (Y_h) is produced.
// CHECK-LABEL: func @lstm
func.func @lstm(%x: tensor<1x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> tensor<1x2x2xf32> {
  // CHECK-COUNT-3: edge.sigmoid
  // CHECK-NOT: edge.sigmoid
  // CHECK-NOT: hl.lstm
  %h = hl.lstm %x, %w, %r {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>) -> tensor<1x2x2xf32>
  return %h : tensor<1x2x2xf32>
}

// -----

// Tests that sequence_lens masks finished sequences with select (state kept,
// output zero).
// CHECK-LABEL: func @gru_sequence_lens
func.func @gru_sequence_lens(%x: tensor<1x2x3xf32>, %w: tensor<1x6x3xf32>, %r: tensor<1x6x2xf32>, %l: tensor<2xi32>) -> tensor<1x1x2x2xf32> {
  // CHECK: %[[LIVE:.*]] = edge.less %{{.*}}, %{{.*}} : (tensor<1xi32>, tensor<2xi32>) -> tensor<2xi1>
  // CHECK: %[[MASK:.*]] = edge.reshape %[[LIVE]] : (tensor<2xi1>) -> tensor<2x1xi1>
  // CHECK: edge.select %[[MASK]], %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<2x2xf32>, tensor<1x1xf32>) -> tensor<2x2xf32>
  %y = hl.gru %x, %w, %r sequence_lens %l {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>, tensor<2xi32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}
