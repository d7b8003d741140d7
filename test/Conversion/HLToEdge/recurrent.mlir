// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that an RNN with the default activation becomes one edge.rnn: W and R
// transposed to [D, in, H], the absent bias and initial state as zeros.
// CHECK-LABEL: func @rnn
func.func @rnn(%x: tensor<2x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>) {
  // CHECK-DAG: %[[W:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x4x2xf32>) -> tensor<1x2x4xf32>
  // CHECK-DAG: %[[R:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  // CHECK-DAG: %[[B:.*]] = edge.constant dense<0.000000e+00> : tensor<1x8xf32>
  // CHECK-DAG: %[[H0:.*]] = edge.constant dense<0.000000e+00> : tensor<1x3x4xf32>
  // CHECK: %[[Y:.*]], %[[YH:.*]] = edge.rnn %{{.*}}, %[[W]], %[[R]], %[[B]], %[[H0]] {activation = "tanh", direction = "forward"}
  // CHECK: return %[[Y]], %[[YH]]
  // CHECK-NOT: edge.matmul
  %y, %h = hl.rnn %x, %w, %r {hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>)
  return %y, %h : tensor<2x1x3x4xf32>, tensor<1x3x4xf32>
}

// -----

// Tests that a bidirectional layout-1 LSTM becomes one edge.lstm between
// transposes to and from layout 0, and that only Y_h is used.
// CHECK-LABEL: func @lstm_layout1
func.func @lstm_layout1(%x: tensor<2x5x3xf32>, %w: tensor<2x8x3xf32>, %r: tensor<2x8x2xf32>, %b: tensor<2x16xf32>, %h0: tensor<2x2x2xf32>) -> tensor<2x2x2xf32> {
  // CHECK: %[[X:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>} : (tensor<2x5x3xf32>) -> tensor<5x2x3xf32>
  // CHECK: %[[H0:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>} : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  // CHECK: %{{.*}}, %[[YH:.*]], %{{.*}} = edge.lstm %[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %[[H0]], %{{.*}} {direction = "bidirectional"} : (tensor<5x2x3xf32>, tensor<2x3x8xf32>, tensor<2x2x8xf32>, tensor<2x16xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> (tensor<5x2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>)
  // CHECK: %[[OUT:.*]] = edge.transpose %[[YH]] {permutation = array<i64: 1, 0, 2>}
  // CHECK: return %[[OUT]]
  // CHECK-NOT: edge.sigmoid
  %h = hl.lstm %x, %w, %r B %b initial_h %h0 {direction = "bidirectional", hidden_size = 2 : i64, layout = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 0>, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<2x5x3xf32>, tensor<2x8x3xf32>, tensor<2x8x2xf32>, tensor<2x16xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %h : tensor<2x2x2xf32>
}

// -----

// Tests that a reverse GRU keeps linear_before_reset on the fused op.
// CHECK-LABEL: func @gru_reverse
func.func @gru_reverse(%x: tensor<4x1x3xf32>, %w: tensor<1x6x3xf32>, %r: tensor<1x6x2xf32>) -> tensor<4x1x1x2xf32> {
  // CHECK: edge.gru %{{.*}} {direction = "reverse", linear_before_reset = true} : (tensor<4x1x3xf32>, tensor<1x3x6xf32>, tensor<1x2x6xf32>, tensor<1x12xf32>, tensor<1x1x2xf32>) -> (tensor<4x1x1x2xf32>, tensor<1x1x2xf32>)
  %y = hl.gru %x, %w, %r {direction = "reverse", hidden_size = 2 : i64, linear_before_reset = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<4x1x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>) -> tensor<4x1x1x2xf32>
  return %y : tensor<4x1x1x2xf32>
}

// -----

// Tests that an RNN with clip stays unrolled: one input projection (all
// steps), one clip and tanh per step, and a concat of the step outputs.
// CHECK-LABEL: func @rnn_clip
func.func @rnn_clip(%x: tensor<2x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>) {
  // CHECK: %[[WT:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  // CHECK: %[[X:.*]] = edge.reshape %{{.*}} : (tensor<2x3x2xf32>) -> tensor<6x2xf32>
  // CHECK: edge.matmul %[[X]], %[[WT]] : (tensor<6x2xf32>, tensor<2x4xf32>) -> tensor<6x4xf32>
  // CHECK-COUNT-2: edge.tanh
  // CHECK-NOT: edge.tanh
  // CHECK: edge.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<2x1x3x4xf32>
  // CHECK-NOT: edge.rnn
  // CHECK-NOT: hl.rnn
  %y, %h = hl.rnn %x, %w, %r {clip = 3.0 : f32, hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<1x3x4xf32>)
  return %y, %h : tensor<2x1x3x4xf32>, tensor<1x3x4xf32>
}

// -----

// Tests that a one-step LSTM with peepholes stays unrolled: sigmoid on the
// i, f and o gates, tanh on the candidate and the cell.
// CHECK-LABEL: func @lstm_peepholes
func.func @lstm_peepholes(%x: tensor<1x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>, %p: tensor<1x6xf32>) -> tensor<1x2x2xf32> {
  // CHECK-COUNT-3: edge.sigmoid
  // CHECK-NOT: edge.sigmoid
  // CHECK-NOT: edge.lstm
  // CHECK-NOT: hl.lstm
  %h = hl.lstm %x, %w, %r P %p {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 1>, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x6xf32>) -> tensor<1x2x2xf32>
  return %h : tensor<1x2x2xf32>
}

// -----

// Tests that an LSTM whose cell activation is not the default stays
// unrolled.
// CHECK-LABEL: func @lstm_relu_cell
func.func @lstm_relu_cell(%x: tensor<1x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> tensor<1x2x2xf32> {
  // CHECK: edge.relu
  // CHECK-NOT: edge.lstm
  %h = hl.lstm %x, %w, %r {activations = ["Sigmoid", "Tanh", "Relu"], hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>) -> tensor<1x2x2xf32>
  return %h : tensor<1x2x2xf32>
}

// -----

// Tests that sequence_lens stays unrolled and masks finished sequences with
// select (state kept, output zero).
// CHECK-LABEL: func @gru_sequence_lens
func.func @gru_sequence_lens(%x: tensor<1x2x3xf32>, %w: tensor<1x6x3xf32>, %r: tensor<1x6x2xf32>, %l: tensor<2xi32>) -> tensor<1x1x2x2xf32> {
  // CHECK: %[[LIVE:.*]] = edge.less %{{.*}}, %{{.*}} : (tensor<1xi32>, tensor<2xi32>) -> tensor<2xi1>
  // CHECK: %[[MASK:.*]] = edge.reshape %[[LIVE]] : (tensor<2xi1>) -> tensor<2x1xi1>
  // CHECK: edge.select %[[MASK]], %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<2x2xf32>, tensor<1x1xf32>) -> tensor<2x2xf32>
  // CHECK-NOT: edge.gru
  %y = hl.gru %x, %w, %r sequence_lens %l {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>, tensor<2xi32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}
