// RUN: strata-opt %s -split-input-file --convert-hl-to-edge -verify-diagnostics

// Tests that a dynamic input is refused up front, at the argument, with
// the fix; the ops it makes dynamic are not reported again.
// expected-error @+1 {{argument has dynamic type 'tensor<?x4xf32>'; edge needs static or bounded shapes: fix the model's input shapes or bound them (strata-compile --input-shape NAME=DIMS, e.g. x=batch:1..8x3x224x224)}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = hl.relu %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that a result sized by the data (NonZero's count) lowers, and that
// an op reading it without a dynamic lowering is named.
func.func @data_dependent(%x: tensor<2x3xf32>) -> tensor<2x?xf32> {
  %0 = hl.non_zero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
  %1 = hl.cast %0 : (tensor<2x?xi64>) -> tensor<2x?xf32>
  // expected-error @+1 {{'hl.hardmax' has operands with dynamic dimensions (value-dependent extents): dynamic dimensions reach}}
  %2 = hl.hardmax %1 {axis = 1 : si64} : tensor<2x?xf32>
  return %2 : tensor<2x?xf32>
}

// -----

// Tests that an op whose result shape no rule derives from static operands
// is named, without suggesting --input-shape (which could not help).
func.func @no_shape_rule(%x: tensor<2x3xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{result has dynamic type 'tensor<?x?xf32>' although its operands are static: its shape depends on values known only at run time, or this form of the op has no static shape rule; edge needs static shapes}}
  %0 = hl.reshape %x, %shape : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that a Range whose limit is read at run time asks for a bound.
func.func @range_of_data(%n: tensor<i64>) -> tensor<?xi64> {
  %s = hl.constant dense<0> : tensor<i64>
  %d = hl.constant dense<1> : tensor<i64>
  // expected-error @+1 {{a Range whose length depends on the data (its limit is read at run time) needs a bound: strata-compile --max-extent NODE=N}}
  %0 = hl.range %s, %n, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Tests that max_pool's indices result is refused rather than dropped.
func.func @indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  // expected-error @+1 {{failed to legalize operation 'hl.max_pool' that was explicitly marked illegal}}
  %0:2 = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#1 : tensor<1x1x2x2xi64>
}

// -----

// Tests that unsupported activations leave the layer unconverted.
func.func @rnn_unsupported_activation(%x: tensor<1x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'hl.rnn'}}
  %h = hl.rnn %x, %w, %r {activations = ["Softsign"], hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1>} : (tensor<1x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<1x3x4xf32>
  return %h : tensor<1x3x4xf32>
}

// -----

// Tests that windows over three spatial dimensions (a video network's 3-d
// convolutions and poolings) are refused up front, at the first one, with
// the reason and how many more there are.
func.func @video(%x: tensor<1x3x4x8x8xf32>, %w: tensor<2x3x3x3x3xf32>) -> tensor<1x2x1x3x3xf32> {
  // expected-error @+1 {{a window over 3 spatial dimensions (input 'tensor<1x3x4x8x8xf32>') is not supported: edge has 1-d and 2-d convolutions and poolings (3-d ones, as in video networks, are not implemented); 1 more such op(s) follow}}
  %0 = hl.conv %x, %w : (tensor<1x3x4x8x8xf32>, tensor<2x3x3x3x3xf32>) -> tensor<1x2x2x6x6xf32>
  %1 = hl.max_pool %0 {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x2x6x6xf32>) -> tensor<1x2x1x3x3xf32>
  return %1 : tensor<1x2x1x3x3xf32>
}

// -----

// Tests that ops no pattern converts are refused up front, all of them in
// one message with their counts, at the first; an op that has patterns
// (relu) is not listed.
func.func @no_lowering(%n: tensor<i64>, %len: tensor<i64>, %rate: tensor<i64>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<9x8xf32> {
  // expected-error @+1 {{'hl.mel_weight_matrix' has no lowering to edge: Strata does not support this op yet (docs/conformance.md lists what it supports); ops without a lowering in this model: hl.mel_weight_matrix (2)}}
  %0 = hl.mel_weight_matrix %n, %len, %rate, %lo, %hi : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  %1 = hl.relu %0 : tensor<9x8xf32>
  %2 = hl.mel_weight_matrix %n, %len, %rate, %lo, %hi : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  %3 = hl.add %1, %2 : (tensor<9x8xf32>, tensor<9x8xf32>) -> tensor<9x8xf32>
  return %3 : tensor<9x8xf32>
}
