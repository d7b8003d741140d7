// RUN: strata-opt %s -split-input-file -verify-diagnostics

// Tests that conv rejects an unknown auto_pad value.
func.func @conv_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got 'SAME'}}
  %0 = hl.conv %x, %w {auto_pad = "SAME"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// Tests that conv rejects explicit pads together with auto_pad.
func.func @conv_pads_and_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'pads' cannot be given with auto_pad = VALID}}
  %0 = hl.conv %x, %w {auto_pad = "VALID", pads = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv needs a batch and a channel dimension.
func.func @conv_rank(%x: tensor<3x8xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, D1, ...]), got 2}}
  %0 = hl.conv %x, %w : (tensor<3x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Tests that conv's strides have one entry per spatial dimension.
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'strides' has 1 entries, expected 2 (one per spatial dimension)}}
  %0 = hl.conv %x, %w {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// Tests that conv's dilations are positive.
func.func @conv_dilations(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dilations' entries must be positive}}
  %0 = hl.conv %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv's pads have a begin and an end per spatial dimension.
func.func @conv_pads_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'pads' has 2 entries, expected 4 (begin and end per spatial dimension)}}
  %0 = hl.conv %x, %w {pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// Tests that conv's pads are non-negative.
func.func @conv_pads_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'pads' entries must be non-negative}}
  %0 = hl.conv %x, %w {pads = array<i64: -1, 0, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv's group is positive.
func.func @conv_group(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'group' must be positive, got 0}}
  %0 = hl.conv %x, %w {group = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv's weight has the input's rank.
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{weight rank 3 differs from input rank 4}}
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kernel_shape agrees with the weight.
func.func @conv_kernel_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kernel_shape' does not match the weight's spatial shape 3x3}}
  %0 = hl.conv %x, %w {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that output channels divide by group.
func.func @conv_group_outputs(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{output channels 3 are not divisible by group 2}}
  %0 = hl.conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

// Tests that input channels equal weight channels times group.
func.func @conv_channels(%x: tensor<1x5x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{input channels 5 differ from weight channels 3 x group 1}}
  %0 = hl.conv %x, %w : (tensor<1x5x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv's bias has one entry per output channel.
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias must have shape [4], got [3]}}
  %0 = hl.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that gemm's A is a matrix.
func.func @gemm_rank_a(%a: tensor<64xf32>, %b: tensor<64x10xf32>) {
  // expected-error @+1 {{A must have rank 2, got 1}}
  %0 = hl.gemm %a, %b : (tensor<64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
  return
}

// -----

// Tests that gemm's B is a matrix.
func.func @gemm_rank_b(%a: tensor<1x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{B must have rank 2, got 1}}
  %0 = hl.gemm %a, %b : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x10xf32>
  return
}

// -----

// Tests that gemm's transA is 0 or 1.
func.func @gemm_trans_a(%a: tensor<1x64xf32>, %b: tensor<64x10xf32>) {
  // expected-error @+1 {{'transA' must be 0 or 1}}
  %0 = hl.gemm %a, %b {transA = 2 : i64} : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
  return
}

// -----

// Tests that gemm's transB is 0 or 1.
func.func @gemm_trans_b(%a: tensor<1x64xf32>, %b: tensor<64x10xf32>) {
  // expected-error @+1 {{'transB' must be 0 or 1}}
  %0 = hl.gemm %a, %b {transB = -1 : i64} : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
  return
}

// -----

// Tests that gemm's inner dimensions agree after transposition.
func.func @gemm_inner(%a: tensor<1x64xf32>, %b: tensor<64x10xf32>) {
  // expected-error @+1 {{inner dimensions differ: 64 vs 10}}
  %0 = hl.gemm %a, %b {transB = 1 : i64} : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x64xf32>
  return
}

// -----

// Tests that gemm's C broadcasts to [M, N].
func.func @gemm_c(%a: tensor<1x64xf32>, %b: tensor<64x10xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{C of shape [3] does not broadcast to [1x10]}}
  %0 = hl.gemm %a, %b, %c : (tensor<1x64xf32>, tensor<64x10xf32>, tensor<3xf32>) -> tensor<1x10xf32>
  return
}

// -----

// Tests that matmul rejects scalars.
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands must have rank >= 1}}
  %0 = hl.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// Tests that matmul's inner dimensions agree.
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{inner dimensions differ: 3 vs 4}}
  %0 = hl.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that matmul's batch dimensions broadcast.
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{batch dimensions do not broadcast}}
  %0 = hl.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// Tests that add's operands broadcast.
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands don't have broadcast-compatible shapes}}
  %0 = hl.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that relu keeps its type.
func.func @relu_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{'hl.relu' op requires the same type for all operands and results}}
  %0 = "hl.relu"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that max_pool needs a non-empty kernel.
func.func @max_pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'kernel_shape' must not be empty}}
  %0 = hl.max_pool %x {kernel_shape = array<i64>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// Tests that max_pool's kernel has one entry per spatial dimension.
func.func @max_pool_kernel_rank(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'kernel_shape' has 1 entries, expected 2 (one per spatial dimension)}}
  %0 = hl.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that max_pool's ceil_mode is 0 or 1.
func.func @max_pool_ceil(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'ceil_mode' must be 0 or 1}}
  %0 = hl.max_pool %x {ceil_mode = 3 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

// Tests that max_pool's storage_order is 0 or 1.
func.func @max_pool_storage(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'storage_order' must be 0 or 1}}
  %0 = hl.max_pool %x {storage_order = 2 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

// Tests that global_average_pool needs spatial dimensions.
func.func @gap_rank(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, D1, ...]), got 2}}
  %0 = hl.global_average_pool %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that global_average_pool's result has unit spatial extents.
func.func @gap_result(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{result shape [1x4x8x1] should be [1x4x1x1]}}
  %0 = hl.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  return
}

// -----

// Tests that flatten produces a matrix.
func.func @flatten_rank(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{result must have rank 2, got 1}}
  %0 = hl.flatten %x : (tensor<1x4x2x2xf32>) -> tensor<16xf32>
  return
}

// -----

// Tests that flatten's axis lies in [-r, r].
func.func @flatten_axis(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{'axis' 5 is outside [-4, 4]}}
  %0 = hl.flatten %x {axis = 5 : si64} : (tensor<1x4x2x2xf32>) -> tensor<16x1xf32>
  return
}

// -----

// Tests that reshape's shape operand is 1-D.
func.func @reshape_shape_rank(%x: tensor<16xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape operand must be 1-D, got rank 2}}
  %0 = hl.reshape %x, %s : (tensor<16xf32>, tensor<1x2xi64>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that reshape's allowzero is 0 or 1.
func.func @reshape_allowzero(%x: tensor<16xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'allowzero' must be 0 or 1}}
  %0 = hl.reshape %x, %s {allowzero = 7 : i64} : (tensor<16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that reshape's result rank equals the shape operand's length.
func.func @reshape_result_rank(%x: tensor<16xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{result rank 2 differs from the shape operand's 3 entries}}
  %0 = hl.reshape %x, %s : (tensor<16xf32>, tensor<3xi64>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that reshape keeps the element count.
func.func @reshape_count(%x: tensor<16xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{result has 15 elements, input has 16}}
  %0 = hl.reshape %x, %s : (tensor<16xf32>, tensor<2xi64>) -> tensor<3x5xf32>
  return
}

// -----

// Tests that softmax's axis lies in the input's range.
func.func @softmax_axis(%x: tensor<1x10xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.softmax %x {axis = 2 : si64} : tensor<1x10xf32>
  return
}

// -----

// Tests that a constant's type is its value's type.
func.func @constant_type() {
  // expected-error @+1 {{failed to verify that all of {value, output} have same type}}
  %0 = "hl.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}
