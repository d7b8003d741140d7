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

// -----

// Tests that shrink rejects a negative lambd.
func.func @shrink(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lambd' must not be negative}}
  %0 = hl.shrink %x {lambd = -1.0 : f32} : tensor<4xf32>
  return
}

// -----

// Tests that mod needs fmod = 1 on floats.
func.func @mod(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fmod' must be 1 for floating-point operands}}
  %0 = hl.mod %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that mod's fmod is 0 or 1.
func.func @mods(%a: tensor<4xi32>) {
  // expected-error @+1 {{'fmod' must be 0 or 1}}
  %0 = hl.mod %a, %a {fmod = 2 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// Tests that bit_shift's direction is LEFT or RIGHT.
func.func @bit_shifts(%a: tensor<4xui8>) {
  // expected-error @+1 {{'direction' must be LEFT or RIGHT, got 'UP'}}
  %0 = hl.bit_shift %a, %a {direction = "UP"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

// Tests that prelu's slope broadcasts to the input only.
func.func @prelus(%x: tensor<3xf32>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{slope of shape [2x3] does not broadcast to the input shape [3]}}
  %0 = hl.prelu %x, %s : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that clip's bounds have the input's element type.
func.func @clips(%x: tensor<4xf32>, %lo: tensor<f16>) {
  // expected-error @+1 {{bound element type 'f16' differs from the input's 'f32'}}
  %0 = hl.clip %x min %lo : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return
}

// -----

// Tests that clip's bounds are scalars.
func.func @clips(%x: tensor<4xf32>, %lo: tensor<2xf32>) {
  // expected-error @+1 {{bounds must be scalars, got shape [2]}}
  %0 = hl.clip %x min %lo : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that comparisons need one operand element type.
func.func @comparisons(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same element type}}
  %0 = hl.less %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

// Tests that conv_transpose's weight dimension 0 is the input channels.
func.func @conv_transposes(%x: tensor<1x2x4x4xf32>, %w: tensor<3x4x3x3xf32>) {
  // expected-error @+1 {{input channels 2 differ from weight dimension 0 (3)}}
  %0 = hl.conv_transpose %x, %w : (tensor<1x2x4x4xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv_transpose's output_shape has one entry per spatial dimension.
func.func @conv_transposes(%x: tensor<1x2x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'output_padding'/'output_shape' need one entry per spatial dimension (2), got 1}}
  %0 = hl.conv_transpose %x, %w {output_shape = array<i64: 6>} : (tensor<1x2x4x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv_transpose's group is positive.
func.func @conv_transposes(%x: tensor<1x2x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'group' must be positive, got 0}}
  %0 = hl.conv_transpose %x, %w {group = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that average_pool's kernel_shape matches the spatial rank.
func.func @average_pools(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'kernel_shape' has 1 entries, expected 2 (one per spatial dimension)}}
  %0 = hl.average_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

// Tests that average_pool's count_include_pad is 0 or 1.
func.func @average_pools(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'ceil_mode' and 'count_include_pad' must be 0 or 1}}
  %0 = hl.average_pool %x {count_include_pad = 2 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  return
}

// -----

// Tests that global_max_pool needs a spatial dimension.
func.func @global_max_pool(%x: tensor<1x2xf32>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, D1, ...]), got 2}}
  %0 = hl.global_max_pool %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  return
}

// -----

// Tests that batch_normalization's parameters are per channel.
func.func @batch_normalizations(%x: tensor<1x2x4x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{per-channel operands must have shape [2], got [3]}}
  %0 = hl.batch_normalization %x, %c, %c, %c, %c : (tensor<1x2x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that batch_normalization's epsilon is not negative.
func.func @batch_normalizations(%x: tensor<1x2x4x4xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{'epsilon' must not be negative}}
  %0 = hl.batch_normalization %x, %c, %c, %c, %c {epsilon = -1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that instance_normalization needs a channel dimension.
func.func @instance_normalization(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{input must have rank >= 2 ([N, C, ...]), got 1}}
  %0 = hl.instance_normalization %x, %c, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that layer_normalization's scale broadcasts to the normalised shape.
func.func @layer_normalizations(%x: tensor<2x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{scale/bias of shape [4] do not broadcast to the normalised shape [8]}}
  %0 = hl.layer_normalization %x, %s {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that layer_normalization's axis is in range.
func.func @layer_normalizations(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.layer_normalization %x, %s {axis = 2 : i64, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that lrn's size is positive.
func.func @lrns(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'size' must be positive}}
  %0 = hl.lrn %x {size = 0 : i64} : tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that mean_variance_normalization's axes are in range.
func.func @mean_variance_normalizations(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'axes' 4 is outside [-4, 3]}}
  %0 = hl.mean_variance_normalization %x {axes = array<i64: 0, 4>} : tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that log_softmax's axis is in range.
func.func @log_softmaxs(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.log_softmax %x {axis = 2 : si64} : tensor<2x3xf32>
  return
}

// -----

// Tests that hardmax's axis is in range.
func.func @hardmaxs(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' -3 is outside [-2, 1]}}
  %0 = hl.hardmax %x {axis = -3 : si64} : tensor<2x3xf32>
  return
}

// -----

// Tests that quantize_linear's zero point has the result's element type.
func.func @quantize_linears(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{zero point element type 'i8' differs from the quantized element type 'ui8'}}
  %0 = hl.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xui8>
  return
}

// -----

// Tests that dequantize_linear's scale is a scalar or 1-D.
func.func @dequantize_linears(%x: tensor<4xui8>, %s: tensor<2x2xf32>) {
  // expected-error @+1 {{scale must be a scalar or 1-D, got rank 2}}
  %0 = hl.dequantize_linear %x, %s : (tensor<4xui8>, tensor<2x2xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that dequantize_linear's zero point and scale have one shape.
func.func @dequantize_linears(%x: tensor<2x4xui8>, %s: tensor<4xf32>, %z: tensor<2xui8>) {
  // expected-error @+1 {{zero point and scale shapes differ}}
  %0 = hl.dequantize_linear %x, %s, %z : (tensor<2x4xui8>, tensor<4xf32>, tensor<2xui8>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that per-axis dequantize_linear's axis is in range.
func.func @per_axis(%x: tensor<2x4xui8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.dequantize_linear %x, %s {axis = 2 : i64} : (tensor<2x4xui8>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that matmul_integer's zero point has its operand's element type.
func.func @matmul_integers(%a: tensor<4x3xui8>, %b: tensor<3x2xui8>, %z: tensor<i8>) {
  // expected-error @+1 {{'a_zero_point' element type 'i8' differs from its operand's 'ui8'}}
  %0 = hl.matmul_integer %a, %b a_zero_point %z : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<i8>) -> tensor<4x2xi32>
  return
}

// -----

// Tests that matmul_integer's inner dimensions agree.
func.func @matmul_integers(%a: tensor<4x3xui8>, %b: tensor<2x2xui8>) {
  // expected-error @+1 {{inner dimensions differ: 3 vs 2}}
  %0 = hl.matmul_integer %a, %b : (tensor<4x3xui8>, tensor<2x2xui8>) -> tensor<4x2xi32>
  return
}

// -----

// Tests that conv_integer checks its window attributes.
func.func @conv_integer(%x: tensor<1x1x4x4xui8>, %w: tensor<1x1x2x2xui8>) {
  // expected-error @+1 {{'strides' entries must be positive}}
  %0 = hl.conv_integer %x, %w {strides = array<i64: 0, 1>} : (tensor<1x1x4x4xui8>, tensor<1x1x2x2xui8>) -> tensor<1x1x3x3xi32>
  return
}

// -----

// Tests that conv_integer's zero points match their operands.
func.func @conv_integers(%x: tensor<1x1x4x4xui8>, %w: tensor<1x1x2x2xui8>, %z: tensor<i8>) {
  // expected-error @+1 {{'w_zero_point' element type 'i8' differs from its operand's 'ui8'}}
  %0 = hl.conv_integer %x, %w w_zero_point %z : (tensor<1x1x4x4xui8>, tensor<1x1x2x2xui8>, tensor<i8>) -> tensor<1x1x3x3xi32>
  return
}

// -----

// Tests that qlinear_matmul's zero points match their operands.
func.func @qlinear_matmuls(%a: tensor<2x2xui8>, %s: tensor<f32>, %z: tensor<ui8>, %y: tensor<i8>) {
  // expected-error @+1 {{'y_zero_point' element type 'i8' differs from its operand's 'ui8'}}
  %0 = hl.qlinear_matmul %a, %s, %z, %a, %s, %z, %s, %y : (tensor<2x2xui8>, tensor<f32>, tensor<ui8>, tensor<2x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x2xui8>
  return
}

// -----

// Tests that qlinear_conv checks its window attributes.
func.func @qlinear_conv(%x: tensor<1x1x4x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<1x1x2x2xui8>) {
  // expected-error @+1 {{'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got 'BAD'}}
  %0 = hl.qlinear_conv %x, %s, %z, %w, %s, %z, %s, %z {auto_pad = "BAD"} : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xui8>
  return
}

// -----

// Tests that recurrent ops check their direction.
func.func @recurrent(%x: tensor<5x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{'direction' must be forward, reverse or bidirectional, got 'sideways'}}
  %0 = hl.rnn %x, %w, %r {direction = "sideways", resultSegmentSizes = array<i32: 1, 0>} : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that W holds one slice per direction.
func.func @W(%x: tensor<5x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{W has 1 directions, expected 2}}
  %0 = hl.rnn %x, %w, %r {direction = "bidirectional", resultSegmentSizes = array<i32: 1, 0>} : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<5x2x3x4xf32>
  return
}

// -----

// Tests that W's gate dimension is gates x hidden_size.
func.func @Ws(%x: tensor<5x3x2xf32>, %w: tensor<1x8x2xf32>, %r: tensor<1x8x4xf32>) {
  // expected-error @+1 {{W's gate dimension 8 should be 3 x hidden_size}}
  %0 = hl.gru %x, %w, %r {hidden_size = 4 : i64, resultSegmentSizes = array<i32: 1, 0>} : (tensor<5x3x2xf32>, tensor<1x8x2xf32>, tensor<1x8x4xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that lstm lists three activations per direction.
func.func @lstm(%x: tensor<5x3x2xf32>, %w: tensor<1x16x2xf32>, %r: tensor<1x16x4xf32>) {
  // expected-error @+1 {{'activations' has 1 entries, expected 3}}
  %0 = hl.lstm %x, %w, %r {activations = ["Sigmoid"], resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<5x3x2xf32>, tensor<1x16x2xf32>, tensor<1x16x4xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that the bias has the layer's directions and 2 x gates x hidden
// extents (a forward layer given a bidirectional bias).
func.func @lstm_bias(%x: tensor<5x3x2xf32>, %w: tensor<1x16x2xf32>, %r: tensor<1x16x4xf32>, %b: tensor<2x32xf32>) {
  // expected-error @+1 {{B has type 'tensor<2x32xf32>', expected extents [1, 32]}}
  %0 = hl.lstm %x, %w, %r B %b {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<5x3x2xf32>, tensor<1x16x2xf32>, tensor<1x16x4xf32>, tensor<2x32xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that recurrent inputs have rank 3.
func.func @recurrent(%x: tensor<3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{X must have rank 3, got 2}}
  %0 = hl.rnn %x, %w, %r {resultSegmentSizes = array<i32: 1, 0>} : (tensor<3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that reductions take 1-D axes.
func.func @reductions(%x: tensor<2x3xf32>, %a: tensor<1x1xi64>) {
  // expected-error @+1 {{axes must have rank 1, got 2}}
  %0 = hl.reduce_sum %x, %a : (tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that reduction axes are in range.
func.func @reduction(%x: tensor<2x3xf32>) {
  %a = hl.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{'axes' 2 is outside [-2, 1]}}
  %0 = hl.reduce_mean %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that keepdims keeps the rank.
func.func @keepdims(%x: tensor<2x3xf32>, %a: tensor<1xi64>) {
  // expected-error @+1 {{result rank 1 differs from input rank 2 with keepdims = 1}}
  %0 = hl.reduce_max %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that reduction flags are 0 or 1.
func.func @reduction(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'keepdims' and 'noop_with_empty_axes' must be 0 or 1}}
  %0 = hl.reduce_min %x {keepdims = 2 : i64} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

// Tests that arg_max's axis is in range.
func.func @arg_maxs(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.arg_max %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

// Tests that arg_min's flags are 0 or 1.
func.func @arg_mins(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'keepdims' and 'select_last_index' must be 0 or 1}}
  %0 = hl.arg_min %x {select_last_index = 3 : i64} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  return
}

// -----

// Tests that dft's last dimension is 1 or 2.
func.func @dfts(%x: tensor<1x8x3xf32>) {
  // expected-error @+1 {{the last dimension must be 1 (real) or 2 (complex), got 3}}
  %0 = hl.dft %x : (tensor<1x8x3xf32>) -> tensor<1x8x2xf32>
  return
}

// -----

// Tests that dft's axis counts signal dimensions.
func.func @dfts(%x: tensor<1x8x1xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.dft %x {axis = 2 : i64} : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
  return
}

// -----

// Tests that stft's signal has rank 3.
func.func @stfts(%x: tensor<128xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{signal must have rank 3, got 1}}
  %0 = hl.stft %x, %s : (tensor<128xf32>, tensor<i64>) -> tensor<1x15x9x2xf32>
  return
}

// -----

// Tests that non_max_suppression's boxes have 4 coordinates.
func.func @non_max_suppressions(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{boxes must have 4 coordinates, got 5}}
  %0 = hl.non_max_suppression %b, %s, %m, %t : (tensor<1x6x5xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  return
}

// -----

// Tests that roi_align's mode is avg or max.
func.func @roi_aligns(%x: tensor<1x1x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'mode' must be avg or max, got 'min'}}
  %0 = hl.roi_align %x, %r, %i {mode = "min"} : (tensor<1x1x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x1x1xf32>
  return
}

// -----

// Tests that grid_sample's grid ends in 2 coordinates.
func.func @grid_samples(%x: tensor<1x1x8x8xf32>, %g: tensor<1x4x4x3xf32>) {
  // expected-error @+1 {{grid's last dimension must be 2, got 3}}
  %0 = hl.grid_sample %x, %g : (tensor<1x1x8x8xf32>, tensor<1x4x4x3xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that grid_sample's input and grid have one batch extent.
func.func @grid_sample_batches(%x: tensor<1x3x4x4xf32>, %g: tensor<2x5x5x2xf32>) {
  // expected-error @+1 {{input and grid must have one batch extent, got 1 and 2}}
  %0 = hl.grid_sample %x, %g : (tensor<1x3x4x4xf32>, tensor<2x5x5x2xf32>) -> tensor<2x3x5x5xf32>
  return
}

// -----

// Tests that max_unpool's indices have the input's shape.
func.func @max_unpools(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x3xi64>) {
  // expected-error @+1 {{indices must have the input's shape}}
  %0 = hl.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x3xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that unique's axis is in range.
func.func @uniques(%x: tensor<6xf32>) {
  // expected-error @+1 {{'axis' 1 is outside [-1, 0]}}
  %0:4 = hl.unique %x {axis = 1 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return
}

// -----

// Tests that det takes square matrices.
func.func @det(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{matrices must be square, got 2x3}}
  %0 = hl.det %x : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

// Tests that transpose's perm is a permutation.
func.func @transposes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'perm' is not a permutation of [0, 2)}}
  %0 = hl.transpose %x {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that transpose's result shape follows perm.
func.func @transposes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape [2x3] should be [3x2]}}
  %0 = hl.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that concat's operands agree off the axis.
func.func @concats(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{operand extents differ at dimension 0 (not the concatenation axis)}}
  %0 = hl.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that concat's operands have one rank.
func.func @concats(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operands must have one rank, got 2 and 1}}
  %0 = hl.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

// Tests that split's constant split lists one extent per result.
func.func @splits(%x: tensor<4xf32>) {
  %s = hl.constant dense<[1, 1, 2]> : tensor<3xi64>
  // expected-error @+1 {{'split' has 3 entries for 2 results}}
  %0:2 = hl.split %x, %s : (tensor<4xf32>, tensor<3xi64>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// Tests that slice's steps are not zero.
func.func @slices(%x: tensor<8xf32>, %s: tensor<1xi64>) {
  %st = hl.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{'steps' must not contain 0}}
  %0 = hl.slice %x, %s, %s, %s, %st : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that slice's index operands have one length.
func.func @slices(%x: tensor<8xf32>, %s: tensor<1xi64>, %t: tensor<2xi64>) {
  // expected-error @+1 {{starts/ends/axes/steps must have one length}}
  %0 = hl.slice %x, %s, %t, %s, %s : (tensor<8xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that gather's result rank is r + q - 1.
func.func @gathers(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{result rank 1 should be 2}}
  %0 = hl.gather %x, %i : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that gather_elements' operands have one rank.
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{data and indices must have one rank}}
  %0 = hl.gather_elements %x, %i : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that gather_nd's batch_dims is below both ranks.
func.func @gather_nds(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{'batch_dims' must be less than both operand ranks}}
  %0 = hl.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that gather_nd's batch_dims is not negative.
func.func @gather_nd_negative_batch(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{'batch_dims' must not be negative}}
  %0 = hl.gather_nd %x, %i {batch_dims = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that gather_nd's index tuples are not empty.
func.func @gather_nd_empty_tuples(%x: tensor<2x3xf32>, %i: tensor<2x0xi64>) {
  // expected-error @+1 {{index tuples must have at least one entry}}
  %0 = hl.gather_nd %x, %i : (tensor<2x3xf32>, tensor<2x0xi64>) -> tensor<2x2x3xf32>
  return
}

// -----

// Tests that scatter_elements' reduction is known.
func.func @scatter_elements(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'reduction' must be none, add, mul, max or min, got 'avg'}}
  %0 = hl.scatter_elements %x, %i, %x {reduction = "avg"} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that scatter_nd's reduction is known.
func.func @scatter_nds(%x: tensor<8xf32>, %i: tensor<4x1xi64>, %u: tensor<4xf32>) {
  // expected-error @+1 {{'reduction' must be none, add, mul, max or min, got 'avg'}}
  %0 = hl.scatter_nd %x, %i, %u {reduction = "avg"} : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

// Tests that squeeze only removes extent-1 dimensions.
func.func @squeeze(%x: tensor<2x1xf32>) {
  %a = hl.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{cannot squeeze dimension 0 of extent 2}}
  %0 = hl.squeeze %x, %a : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<1xf32>
  return
}

// -----

// Tests that unsqueeze adds one dimension per axis.
func.func @unsqueeze(%x: tensor<3xf32>) {
  %a = hl.constant dense<[0, 1]> : tensor<2xi64>
  // expected-error @+1 {{result rank 2 should be 3}}
  %0 = hl.unsqueeze %x, %a : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x3xf32>
  return
}

// -----

// Tests that expand's shape is 1-D.
func.func @expands(%x: tensor<3xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape must have rank 1, got 2}}
  %0 = hl.expand %x, %s : (tensor<3xf32>, tensor<1x2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that tile's repeats have one entry per dimension.
func.func @tiles(%x: tensor<2x3xf32>, %r: tensor<3xi64>) {
  // expected-error @+1 {{'repeats' has 3 entries, expected 2}}
  %0 = hl.tile %x, %r : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that pad's mode is known.
func.func @pads(%x: tensor<3xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'mode' must be constant, reflect, edge or wrap, got 'mirror'}}
  %0 = hl.pad %x, %p {mode = "mirror"} : (tensor<3xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that pad's pads have two entries per dimension.
func.func @pads(%x: tensor<3xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'pads' has 4 entries, expected 2}}
  %0 = hl.pad %x, %p : (tensor<3xf32>, tensor<4xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that constant_of_shape's value has one element.
func.func @constant_of_shapes(%s: tensor<2xi64>) {
  // expected-error @+1 {{'value' must hold exactly one element}}
  %0 = hl.constant_of_shape %s {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that constant_of_shape's result has the value's element type.
func.func @constant_of_shapes(%s: tensor<2xi64>) {
  // expected-error @+1 {{result element type differs from the value's 'f32'}}
  %0 = hl.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  return
}

// -----

// Tests that range's operands are scalars.
func.func @ranges(%a: tensor<2xf32>) {
  // expected-error @+1 {{start, limit and delta must be scalars}}
  %0 = hl.range %a, %a, %a : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

// Tests that depth_to_space needs channels divisible by blocksize^2.
func.func @depth_to_space(%x: tensor<1x6x2x2xf32>) {
  // expected-error @+1 {{channels 6 are not divisible by blocksize^2}}
  %0 = hl.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that depth_to_space's mode is DCR or CRD.
func.func @depth_to_spaces(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{'mode' must be DCR or CRD, got 'XYZ'}}
  %0 = hl.depth_to_space %x {blocksize = 2 : i64, mode = "XYZ"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that space_to_depth needs divisible spatial extents.
func.func @space_to_depth(%x: tensor<1x1x3x4xf32>) {
  // expected-error @+1 {{spatial extent 3 is not divisible by blocksize}}
  %0 = hl.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32>
  return
}

// -----

// Tests that trilu needs matrices.
func.func @trilu(%x: tensor<4xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got 1}}
  %0 = hl.trilu %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that one_hot's values have two entries.
func.func @one_hots(%i: tensor<3xi64>, %d: tensor<i64>, %v: tensor<3xf32>) {
  // expected-error @+1 {{'values' must have shape [2]}}
  %0 = hl.one_hot %i, %d, %v : (tensor<3xi64>, tensor<i64>, tensor<3xf32>) -> tensor<3x?xf32>
  return
}

// -----

// Tests that reverse_sequence's axes are 0 and 1.
func.func @reverse_sequences(%x: tensor<4x4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{'batch_axis' and 'time_axis' must be 0 and 1 in some order}}
  %0 = hl.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 1 : i64} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that top_k's k holds one element.
func.func @top_ks(%x: tensor<3x4xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{'k' must hold one element}}
  %0:2 = hl.top_k %x, %k : (tensor<3x4xf32>, tensor<2xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return
}

// -----

// Tests that top_k's results have one shape.
func.func @top_ks(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{values and indices must have one shape}}
  %0:2 = hl.top_k %x, %k : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x3xi64>)
  return
}

// -----

// Tests that cum_sum's axis is a scalar.
func.func @cum_sums(%x: tensor<5xf32>, %a: tensor<2xi32>) {
  // expected-error @+1 {{'axis' must be a scalar}}
  %0 = hl.cum_sum %x, %a : (tensor<5xf32>, tensor<2xi32>) -> tensor<5xf32>
  return
}

// -----

// Tests that einsum's equation has one term per operand.
func.func @einsums(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation 'ij,jk->ik' has 2 input terms for 1 operands}}
  %0 = hl.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that resize takes scales or sizes, not both.
func.func @resize(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>) {
  // expected-error @+1 {{only one of scales and sizes may be given}}
  %0 = hl.resize %x scales %s sizes %z : (tensor<1x1x2x2xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that resize's mode is known.
func.func @resizes(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'mode' must be nearest, linear or cubic, got 'area'}}
  %0 = hl.resize %x scales %s {mode = "area"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that resize's scales have one entry per dimension.
func.func @resizes(%x: tensor<1x1x2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scales/sizes have 2 entries, expected 4}}
  %0 = hl.resize %x scales %s : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that shape's result is 1-D.
func.func @shapes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result must have rank 1, got 2}}
  %0 = hl.shape %x : (tensor<2x3xf32>) -> tensor<1x2xi64>
  return
}

// -----

// Tests that each branch of hl.if yields one value per result.
func.func @if_count(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{each branch must yield 1 values, one yields 0}}
  %0 = hl.if %c : (tensor<i1>) -> tensor<2xf32> {
    hl.yield %x : tensor<2xf32>
  } else {
    hl.yield
  }
  return
}

// -----

// Tests that hl.if's branches yield the results' element types.
func.func @if_type(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xi32>) {
  // expected-error @+1 {{a branch yields element type 'i32' for a result of element type 'f32'}}
  %0 = hl.if %c : (tensor<i1>) -> tensor<2xf32> {
    hl.yield %x : tensor<2xf32>
  } else {
    hl.yield %y : tensor<2xi32>
  }
  return
}

// -----

// Tests that hl.loop's body takes the iteration number, the condition and
// the carried values.
func.func @loop_args(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{body must take the iteration number, the condition and 1 carried values, it takes 2 arguments}}
  %0 = hl.loop cond %c init(%x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>):
    hl.yield %cond, %x : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

// Tests that hl.loop has one result per carried value and scan output.
func.func @loop_results(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expected 2 results (carried values and scan outputs), got 1}}
  %0 = hl.loop cond %c init(%x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    hl.yield %cond, %a, %a : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

// Tests that hl.scan scans at least one of its operands.
func.func @scan_inputs(%x: tensor<2xf32>) {
  // expected-error @+1 {{'num_scan_inputs' must be in [1, 1], got 2}}
  %0 = hl.scan %x {num_scan_inputs = 2 : i64} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%e: tensor<2xf32>):
    hl.yield %e : tensor<2xf32>
  }
  return
}

// -----

// Tests that hl.scan has one result per yielded value.
func.func @scan_results(%s: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{expected one result per yielded value (2), got 1}}
  %0 = hl.scan %s, %x {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %e: tensor<2xf32>):
    hl.yield %a, %e : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

// Tests that conv_transpose's weight has the input's rank.
func.func @conv_transposes(%x: tensor<1x2x4x4xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+1 {{weight rank 3 differs from input rank 4}}
  %0 = hl.conv_transpose %x, %w : (tensor<1x2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv_transpose checks its window attributes.
func.func @conv_transpose(%x: tensor<1x2x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'pads' has 2 entries, expected 4}}
  %0 = hl.conv_transpose %x, %w {pads = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that average_pool's kernel_shape is not empty.
func.func @average_pool(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'kernel_shape' must not be empty}}
  %0 = hl.average_pool %x {kernel_shape = array<i64>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that layer_normalization's epsilon is not negative.
func.func @layer_normalizations(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'epsilon' must not be negative}}
  %0 = hl.layer_normalization %x, %s {epsilon = -1.0 : f32, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that lrn needs a spatial dimension.
func.func @lrn(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, D1, ...]), got 2}}
  %0 = hl.lrn %x {size = 3 : i64} : tensor<1x4xf32>
  return
}

// -----

// Tests that matmul_integer's zero points are scalars or 1-D.
func.func @matmul_integers(%a: tensor<4x3xui8>, %b: tensor<3x2xui8>, %z: tensor<1x1xui8>) {
  // expected-error @+1 {{'a_zero_point' must be a scalar or 1-D}}
  %0 = hl.matmul_integer %a, %b a_zero_point %z : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<1x1xui8>) -> tensor<4x2xi32>
  return
}

// -----

// Tests that conv_integer's group is positive.
func.func @conv_integers(%x: tensor<1x1x4x4xui8>, %w: tensor<1x1x2x2xui8>) {
  // expected-error @+1 {{'group' must be positive}}
  %0 = hl.conv_integer %x, %w {group = 0 : i64} : (tensor<1x1x4x4xui8>, tensor<1x1x2x2xui8>) -> tensor<1x1x3x3xi32>
  return
}

// -----

// Tests that recurrent ops' layout is 0 or 1.
func.func @recurrent(%x: tensor<5x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) {
  // expected-error @+1 {{'layout' must be 0 or 1}}
  %0 = hl.rnn %x, %w, %r {layout = 2 : i64, resultSegmentSizes = array<i32: 1, 0>} : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<5x1x3x4xf32>
  return
}

// -----

// Tests that dft's flags are 0 or 1.
func.func @dfts(%x: tensor<1x8x1xf32>) {
  // expected-error @+1 {{'inverse' and 'onesided' must be 0 or 1}}
  %0 = hl.dft %x {inverse = 2 : i64} : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
  return
}

// -----

// Tests that dft needs a signal and a complex dimension.
func.func @dft(%x: tensor<8xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got 1}}
  %0 = hl.dft %x : (tensor<8xf32>) -> tensor<8x2xf32>
  return
}

// -----

// Tests that stft's window is 1-D.
func.func @stfts(%x: tensor<1x128x1xf32>, %s: tensor<i64>, %w: tensor<4x4xf32>) {
  // expected-error @+1 {{window must have rank 1, got 2}}
  %0 = hl.stft %x, %s window %w : (tensor<1x128x1xf32>, tensor<i64>, tensor<4x4xf32>) -> tensor<1x15x9x2xf32>
  return
}

// -----

// Tests that stft's onesided is 0 or 1.
func.func @stfts(%x: tensor<1x128x1xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'onesided' must be 0 or 1}}
  %0 = hl.stft %x, %s {onesided = 2 : i64} : (tensor<1x128x1xf32>, tensor<i64>) -> tensor<1x15x9x2xf32>
  return
}

// -----

// Tests that non_max_suppression's center_point_box is 0 or 1.
func.func @non_max_suppressions(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{'center_point_box' must be 0 or 1}}
  %0 = hl.non_max_suppression %b, %s, %m, %t {center_point_box = 2 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  return
}

// -----

// Tests that non_max_suppression's scores have rank 3.
func.func @non_max_suppressions(%b: tensor<1x6x4xf32>, %s: tensor<6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{scores must have rank 3, got 1}}
  %0 = hl.non_max_suppression %b, %s, %m, %t : (tensor<1x6x4xf32>, tensor<6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  return
}

// -----

// Tests that roi_align's coordinate mode is known.
func.func @roi_aligns(%x: tensor<1x1x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'coordinate_transformation_mode' must be half_pixel or output_half_pixel}}
  %0 = hl.roi_align %x, %r, %i {coordinate_transformation_mode = "asymmetric"} : (tensor<1x1x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x1x1xf32>
  return
}

// -----

// Tests that roi_align's output extents are positive.
func.func @roi_aligns(%x: tensor<1x1x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{output extents must be positive}}
  %0 = hl.roi_align %x, %r, %i {output_height = 0 : i64} : (tensor<1x1x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x1x1xf32>
  return
}

// -----

// Tests that roi_align's rois are 2-D.
func.func @roi_aligns(%x: tensor<1x1x8x8xf32>, %r: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{rois must have rank 2, got 1}}
  %0 = hl.roi_align %x, %r, %i : (tensor<1x1x8x8xf32>, tensor<4xf32>, tensor<3xi64>) -> tensor<3x1x1x1xf32>
  return
}

// -----

// Tests that grid_sample's mode is known.
func.func @grid_samples(%x: tensor<1x1x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'mode' must be bilinear, nearest or bicubic, got 'area'}}
  %0 = hl.grid_sample %x, %g {mode = "area"} : (tensor<1x1x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that grid_sample's padding mode is known.
func.func @grid_samples(%x: tensor<1x1x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'padding_mode' must be zeros, border or reflection}}
  %0 = hl.grid_sample %x, %g {padding_mode = "wrap"} : (tensor<1x1x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that grid_sample's align_corners is 0 or 1.
func.func @grid_samples(%x: tensor<1x1x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'align_corners' must be 0 or 1}}
  %0 = hl.grid_sample %x, %g {align_corners = 2 : i64} : (tensor<1x1x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that grid_sample's input has rank 4.
func.func @grid_samples(%x: tensor<1x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{input must have rank 4, got 3}}
  %0 = hl.grid_sample %x, %g : (tensor<1x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that max_unpool needs a spatial dimension.
func.func @max_unpool(%x: tensor<1x2xf32>, %i: tensor<1x2xi64>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, D1, ...]), got 2}}
  %0 = hl.max_unpool %x, %i {kernel_shape = array<i64: 2>} : (tensor<1x2xf32>, tensor<1x2xi64>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that max_unpool's kernel_shape matches the spatial rank.
func.func @max_unpools(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{'kernel_shape' has 1 entries, expected 2}}
  %0 = hl.max_unpool %x, %i {kernel_shape = array<i64: 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that unique's sorted is 0 or 1.
func.func @uniques(%x: tensor<6xf32>) {
  // expected-error @+1 {{'sorted' must be 0 or 1}}
  %0:4 = hl.unique %x {sorted = 2 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return
}

// -----

// Tests that det needs matrices.
func.func @det(%x: tensor<3xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got 1}}
  %0 = hl.det %x : (tensor<3xf32>) -> tensor<f32>
  return
}

// -----

// Tests that det's result drops the matrix dimensions.
func.func @dets(%x: tensor<2x3x3xf32>) {
  // expected-error @+1 {{result rank 2 should be 1}}
  %0 = hl.det %x : (tensor<2x3x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that transpose's perm has one entry per dimension.
func.func @transposes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'perm' has 1 entries, expected 2}}
  %0 = hl.transpose %x {perm = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that concat's axis is in range.
func.func @concats(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that concat needs an operand.
func.func @concat() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = hl.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

// Tests that split's axis is in range.
func.func @splits(%x: tensor<4xf32>) {
  // expected-error @+1 {{'axis' 1 is outside [-1, 0]}}
  %0:2 = hl.split %x {axis = 1 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// Tests that split's entries are not negative.
func.func @splits(%x: tensor<4xf32>) {
  %s = hl.constant dense<[5, -1]> : tensor<2xi64>
  // expected-error @+1 {{'split' entries must not be negative}}
  %0:2 = hl.split %x, %s : (tensor<4xf32>, tensor<2xi64>) -> (tensor<5xf32>, tensor<?xf32>)
  return
}

// -----

// Tests that split's split operand is 1-D.
func.func @splits(%x: tensor<4xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+1 {{split must have rank 1, got 2}}
  %0:2 = hl.split %x, %s : (tensor<4xf32>, tensor<1x2xi64>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// Tests that slice's axes are in range.
func.func @slices(%x: tensor<8xf32>, %s: tensor<1xi64>) {
  %a = hl.constant dense<1> : tensor<1xi64>
  // expected-error @+1 {{'axes' 1 is outside [-1, 0]}}
  %0 = hl.slice %x, %s, %s, %a, %s : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that slice's index operands are 1-D.
func.func @slices(%x: tensor<8xf32>, %s: tensor<1xi64>, %t: tensor<1x1xi64>) {
  // expected-error @+1 {{starts/ends/axes/steps must have rank 1, got 2}}
  %0 = hl.slice %x, %t, %s, %s, %s : (tensor<8xf32>, tensor<1x1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that gather's data is not a scalar.
func.func @gathers(%x: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{data must have rank >= 1}}
  %0 = hl.gather %x, %i : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

// Tests that gather's axis is in range.
func.func @gathers(%x: tensor<2x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.gather %x, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
  return
}

// -----

// Tests that gather_elements' axis is in range.
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'axis' -3 is outside [-2, 1]}}
  %0 = hl.gather_elements %x, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that scatter_elements' operands have one rank.
func.func @scatter_elements(%x: tensor<2x3xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) {
  // expected-error @+1 {{data and indices must have one rank}}
  %0 = hl.scatter_elements %x, %i, %u : (tensor<2x3xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that squeeze's axes are in range.
func.func @squeezes(%x: tensor<2x1xf32>) {
  %a = hl.constant dense<2> : tensor<1xi64>
  // expected-error @+1 {{'axes' 2 is outside [-2, 1]}}
  %0 = hl.squeeze %x, %a : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that squeeze's axes are 1-D.
func.func @squeezes(%x: tensor<2x1xf32>, %a: tensor<1x1xi64>) {
  // expected-error @+1 {{axes must have rank 1, got 2}}
  %0 = hl.squeeze %x, %a : (tensor<2x1xf32>, tensor<1x1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that unsqueeze's axes index the result.
func.func @unsqueezes(%x: tensor<3xf32>) {
  %a = hl.constant dense<2> : tensor<1xi64>
  // expected-error @+1 {{'axes' 2 is outside [-2, 1]}}
  %0 = hl.unsqueeze %x, %a : (tensor<3xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return
}

// -----

// Tests that pad's constant value is a scalar.
func.func @pads(%x: tensor<3xf32>, %p: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{'constant_value' must be a scalar}}
  %0 = hl.pad %x, %p, %v : (tensor<3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

// Tests that constant_of_shape's shape operand is 1-D.
func.func @constant_of_shapes(%s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape operand must have rank 1, got 2}}
  %0 = hl.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<1x2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that range's result is 1-D.
func.func @ranges(%a: tensor<f32>) {
  // expected-error @+1 {{result must have rank 1, got 2}}
  %0 = hl.range %a, %a, %a : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that trilu's upper is 0 or 1.
func.func @trilus(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{'upper' must be 0 or 1}}
  %0 = hl.trilu %x {upper = 2 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that one_hot's depth is a scalar.
func.func @one_hots(%i: tensor<3xi64>, %d: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{'depth' must be a scalar}}
  %0 = hl.one_hot %i, %d, %v : (tensor<3xi64>, tensor<2xi64>, tensor<2xf32>) -> tensor<3x?xf32>
  return
}

// -----

// Tests that one_hot's axis is in range.
func.func @one_hots(%i: tensor<3xi64>, %d: tensor<i64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0 = hl.one_hot %i, %d, %v {axis = 2 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x?xf32>
  return
}

// -----

// Tests that depth_to_space's blocksize is positive.
func.func @depth_to_spaces(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{'blocksize' must be positive, got 0}}
  %0 = hl.depth_to_space %x {blocksize = 0 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return
}

// -----

// Tests that space_to_depth's input has rank 4.
func.func @space_to_depths(%x: tensor<1x4x4xf32>) {
  // expected-error @+1 {{input must have rank 4, got 3}}
  %0 = hl.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x4x4xf32>) -> tensor<1x4x2x2xf32>
  return
}

// -----

// Tests that reverse_sequence needs a batch and a time axis.
func.func @reverse_sequence(%x: tensor<4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{input must have rank >= 2, got 1}}
  %0 = hl.reverse_sequence %x, %l : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that top_k's flags are 0 or 1.
func.func @top_ks(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'largest' and 'sorted' must be 0 or 1}}
  %0:2 = hl.top_k %x, %k {largest = 2 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  return
}

// -----

// Tests that top_k's axis is in range.
func.func @top_ks(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'axis' 2 is outside [-2, 1]}}
  %0:2 = hl.top_k %x, %k {axis = 2 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  return
}

// -----

// Tests that top_k's k is 1-D.
func.func @top_ks(%x: tensor<3x4xf32>, %k: tensor<i64>) {
  // expected-error @+1 {{k must have rank 1, got 0}}
  %0:2 = hl.top_k %x, %k : (tensor<3x4xf32>, tensor<i64>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  return
}

// -----

// Tests that cum_sum's flags are 0 or 1.
func.func @cum_sums(%x: tensor<5xf32>, %a: tensor<i32>) {
  // expected-error @+1 {{'exclusive' and 'reverse' must be 0 or 1}}
  %0 = hl.cum_sum %x, %a {reverse = 2 : i64} : (tensor<5xf32>, tensor<i32>) -> tensor<5xf32>
  return
}

// -----

// Tests that cum_sum's constant axis is in range.
func.func @cum_sums(%x: tensor<5xf32>) {
  %a = hl.constant dense<1> : tensor<i32>
  // expected-error @+1 {{'axis' 1 is outside [-1, 0]}}
  %0 = hl.cum_sum %x, %a : (tensor<5xf32>, tensor<i32>) -> tensor<5xf32>
  return
}

// -----

// Tests that einsum's equation uses letters only.
func.func @einsums(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{invalid character '1' in equation 'i1->i'}}
  %0 = hl.einsum %a {equation = "i1->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that resize needs scales or sizes.
func.func @resize(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{one of scales and sizes must be given}}
  %0 = hl.resize %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that resize's sizes are 1-D.
func.func @resizes(%x: tensor<1x1x2x2xf32>, %z: tensor<2x2xi64>) {
  // expected-error @+1 {{scales/sizes must have rank 1, got 2}}
  %0 = hl.resize %x sizes %z : (tensor<1x1x2x2xf32>, tensor<2x2xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that hl.loop's body yields the condition and the carried values.
func.func @hl_loops(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{body must yield the condition and 1 carried values}}
  %0 = hl.loop cond %c init(%x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %a: tensor<2xf32>):
    hl.yield %cond : tensor<i1>
  }
  return
}

// -----

// Tests that hl.scan's body takes one argument per operand.
func.func @hl_scans(%s: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{body must take one argument per operand}}
  %0:2 = hl.scan %s, %x {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>):
    hl.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

// Tests that hl.scan's scan_input_axes has one entry per scanned operand.
func.func @hl_scans(%s: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{'scan_input_axes' needs one entry per scan input}}
  %0:2 = hl.scan %s, %x {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 0, 1>} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<2xf32>, %e: tensor<2xf32>):
    hl.yield %a, %e : tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

// Tests that hl.scan's body yields its states first.
func.func @hl_scans(%s: tensor<2xf32>, %t: tensor<2xf32>, %x: tensor<3x2xf32>) {
  // expected-error @+1 {{body must yield the 2 states first}}
  %0 = hl.scan %s, %t, %x {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>, %e: tensor<2xf32>):
    hl.yield %a : tensor<2xf32>
  }
  return
}

// -----

// Tests that resize's scales have one entry per listed axis.
func.func @resize_axes_entries(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{scales/sizes have 4 entries, expected 2}}
  %0 = hl.resize %x scales %s {axes = array<i64: 2, 3>} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that resize's axes are distinct.
func.func @resize_axes_repeated(%x: tensor<1x1x2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'axes' entry -1 is out of range or repeated for rank 4}}
  %0 = hl.resize %x scales %s {axes = array<i64: 3, -1>} : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that resize's keep_aspect_ratio_policy is known.
func.func @resize_policy(%x: tensor<1x1x2x2xf32>, %z: tensor<4xi64>) {
  // expected-error @+1 {{'keep_aspect_ratio_policy' must be stretch, not_larger or not_smaller, got 'fit'}}
  %0 = hl.resize %x sizes %z {keep_aspect_ratio_policy = "fit"} : (tensor<1x1x2x2xf32>, tensor<4xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Tests that a fused group's body takes one argument per operand.
func.func @fused_arg_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{body must take one argument per operand (1), it takes 2}}
  %0 = hl.fused "relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    %r = hl.relu %a : tensor<2xf32>
    hl.yield %r : tensor<2xf32>
  }
  return
}

// -----

// Tests that a fused group yields its result types.
func.func @fused_yield_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{body yields 'tensor<2xf32>' for result 0 of type 'tensor<3xf32>'}}
  %0 = hl.fused "relu"(%x) : (tensor<2xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<2xf32>):
    %r = hl.relu %a : tensor<2xf32>
    hl.yield %r : tensor<2xf32>
  }
  return
}

// -----

// Tests that QDQ points name operands of the group.
func.func @fused_qdq_point(%x: tensor<2xf32>) {
  // expected-error @+1 {{qdq_points entries must be dictionaries with an 'input' index below 1}}
  %0 = hl.fused "relu"(%x) {qdq_points = [{input = 3 : i64}]} : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %r = hl.relu %a : tensor<2xf32>
    hl.yield %r : tensor<2xf32>
  }
  return
}

// -----

// Tests that a fused group is isolated: its body reads operands only.
func.func @fused_isolated(%x: tensor<2xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = hl.fused "relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %r = hl.relu %x : tensor<2xf32>
    hl.yield %r : tensor<2xf32>
  }
  return
}

// -----

// Tests that DeformConv's offset holds offset_group x 2 x kH x kW channels.
func.func @deform_conv_offset_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x3x3xf32>, %o: tensor<1x18x3x3xf32>) {
  // expected-error @+1 {{offset has 18 channels; expected offset_group x 2 x kH x kW = 36}}
  %0 = hl.deform_conv %x, %w, %o {offset_group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>, tensor<1x18x3x3xf32>) -> tensor<1x2x3x3xf32>
  return
}
