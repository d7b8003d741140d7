// RUN: strata-opt %s -split-input-file -verify-diagnostics

// Tests that edge rejects unranked tensors (a dynamic dimension is allowed
// in the type: its bound comes from the function's symbols).
func.func @unranked(%x: tensor<*xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor}}
  %0 = "edge.add"(%x, %y) : (tensor<*xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that conv2d's weight is OIHW.
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{weight must have rank 4 (OIHW), got 3}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv2d's output channels divide by group.
func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{output channels 3 are not divisible by group 2}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

// Tests that conv2d's input channels match the weight.
func.func @conv_channels(%x: tensor<1x5x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{input channels 5 differ from weight channels 3 x group 1}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x5x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv2d's bias has one entry per output channel.
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias must have shape [4]}}
  %0 = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<2xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv2d's input is NCHW.
func.func @conv_input_rank(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{input must have rank 4 (NCHW), got 3}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that conv2d's window attributes have two spatial entries.
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'strides' has 1 entries, expected 2 (one per spatial dimension)}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that edge has no defaults: every window attribute is explicit.
func.func @conv_missing_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'strides', 'dilations' and 'pads' must be given}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that a window larger than the padded input is rejected.
func.func @conv_window_fit(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{window of extent 3 does not fit spatial dimension 0 of extent 2}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

// Tests that conv2d's result shape is exactly the implied one.
func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// Tests that matmul needs equal ranks (broadcasting is explicit in edge).
func.func @matmul_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{operands and result must share one rank >= 2}}
  %0 = edge.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// Tests that matmul's inner dimensions agree.
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{inner dimensions differ: 3 vs 4}}
  %0 = edge.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that matmul's batch dimensions broadcast.
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{batch dimension 0 does not broadcast}}
  %0 = edge.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

// Tests that matmul's result shape is exactly the implied one.
func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  %0 = edge.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that add needs operands of the result's rank.
func.func @add_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operands don't have matching ranks}}
  %0 = edge.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that add's operand extents equal the result's or are 1.
func.func @add_extent(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{operand extents 3 and 2 at dimension 1 do not broadcast}}
  %0 = edge.add %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that add's result is the broadcast shape.
func.func @add_result(%a: tensor<1x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = edge.add %a, %b : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that max_pool2d's kernel has two entries.
func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'kernel' must have 2 entries}}
  %0 = edge.max_pool2d %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that max_pool2d's result accounts for ceil mode.
func.func @pool_ceil(%x: tensor<1x4x7x7xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x4x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x3x3xf32>'}}
  %0 = edge.max_pool2d %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// Tests that reduce_mean needs axes.
func.func @reduce_empty(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axes' must not be empty}}
  %0 = edge.reduce_mean %x {axes = array<i64>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that reduce_mean's axes are in range.
func.func @reduce_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -1 is outside [0, 2)}}
  %0 = edge.reduce_mean %x {axes = array<i64: -1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that reduce_mean's axes are sorted and unique.
func.func @reduce_sorted(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axes' must be sorted and unique}}
  %0 = edge.reduce_mean %x {axes = array<i64: 1, 0>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

// Tests that reduce_mean's result drops or keeps the reduced axes.
func.func @reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  %0 = edge.reduce_mean %x {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that reshape keeps the element count.
func.func @reshape_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has 15 elements, input has 16}}
  %0 = edge.reshape %x : (tensor<16xf32>) -> tensor<3x5xf32>
  return
}

// -----

// Tests that transpose's permutation has one entry per dimension.
func.func @transpose_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'permutation' has 1 entries, input rank is 2}}
  %0 = edge.transpose %x {permutation = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that transpose's permutation is a permutation.
func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'permutation' is not a permutation of [0, 2)}}
  %0 = edge.transpose %x {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that transpose's result is the permuted shape.
func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = edge.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that softmax's axis is non-negative and in range.
func.func @softmax_axis(%x: tensor<1x10xf32>) {
  // expected-error @+1 {{'axis' -1 is outside [0, 2)}}
  %0 = edge.softmax %x {axis = -1 : i64} : tensor<1x10xf32>
  return
}

// -----

// Tests that log_softmax's axis is in range.
func.func @log_softmax_axis(%x: tensor<1x10xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.log_softmax %x {axis = 2 : i64} : tensor<1x10xf32>
  return
}

// -----

// Tests that sub follows the rank-explicit broadcasting rule.
func.func @sub_extent(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{operand extents 3 and 2 at dimension 1 do not broadcast}}
  %0 = edge.sub %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that mul's result is the broadcast shape.
func.func @mul_result(%a: tensor<1x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = edge.mul %a, %b : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that div follows the rank-explicit broadcasting rule.
func.func @div_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operands don't have matching ranks}}
  %0 = edge.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that float-only unary ops reject integers.
func.func @sigmoid_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = edge.sigmoid %a : tensor<4xi32>
  return
}

// -----

// Tests that clip's bounds are ordered.
func.func @clip_bounds(%a: tensor<4xf32>) {
  // expected-error @+1 {{'min' 6.000000e+00 exceeds 'max' 0.000000e+00}}
  %0 = edge.clip %a {max = 0.0 : f32, min = 6.0 : f32} : tensor<4xf32>
  return
}

// -----

// Tests that avg_pool2d's kernel has two entries.
func.func @avg_pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'kernel' must have 2 entries}}
  %0 = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that avg_pool2d's result is the implied shape.
func.func @avg_pool_result(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x4x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x3x3xf32>'}}
  %0 = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// Tests that concat needs an input.
func.func @concat_empty() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = edge.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

// Tests that concat's axis is in range.
func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that concat's inputs share a rank.
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input 1 has rank 3, expected 2}}
  %0 = edge.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that concat's inputs agree off the axis.
func.func @concat_extent(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input 1 differs from input 0 at dimension 0}}
  %0 = edge.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that concat's result sums the axis extents.
func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x7xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  %0 = edge.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that a reduction's axes are non-empty.
func.func @reduce_no_axes(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'axes' must not be empty}}
  %0 = edge.reduce_sum %x {axes = array<i64>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a reduction's axes lie inside the input's rank.
func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axis 2 is outside [0, 2)}}
  %0 = edge.reduce_max %x {axes = array<i64: 2>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a reduction's axes are sorted and unique.
func.func @reduce_axes_sorted(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'axes' must be sorted and unique}}
  %0 = edge.reduce_min %x {axes = array<i64: 1, 0>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

// Tests that a reduction's result shape is the implied one.
func.func @reduce_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  %0 = edge.reduce_prod %x {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that arg_max's axis lies inside the input's rank.
func.func @arg_max_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.arg_max %x {axis = 2 : i64, keep_dims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

// Tests that arg_min does not reduce an empty axis.
func.func @arg_min_empty(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{axis 1 is empty}}
  %0 = edge.arg_min %x {axis = 1 : i64, keep_dims = true, select_last_index = false} : (tensor<2x0xf32>) -> tensor<2x1xi64>
  return
}

// -----

// Tests that arg_max's result shape is the implied one.
func.func @arg_max_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2x1xi64>'}}
  %0 = edge.arg_max %x {axis = 1 : i64, keep_dims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

// Tests that maximum follows rank-explicit broadcasting.
func.func @maximum_broadcast(%a: tensor<2x3xi32>, %b: tensor<2x2xi32>) {
  // expected-error @+1 {{operand extents 3 and 2 at dimension 1 do not broadcast}}
  %0 = edge.maximum %a, %b : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  return
}

// -----

// Tests that a comparison's result has the broadcast shape.
func.func @equal_result(%a: tensor<2x1xf32>, %b: tensor<1x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x1xi1>' are incompatible with return type(s) of operation 'tensor<2x3xi1>'}}
  %0 = edge.equal %a, %b : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x3xi1>
  return
}

// -----

// Tests that select broadcasts all three operands.
func.func @select_broadcast(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand extents 2 and 4 at dimension 0 do not broadcast}}
  %0 = edge.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<4x1xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a float mod needs fmod.
func.func @mod_float(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{float remainders need 'fmod'}}
  %0 = edge.mod %a, %b {fmod = false} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that gather_elements' axis lies inside the input's rank.
func.func @gather_elements_axis(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.gather_elements %x, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that gather_elements' indices have the input's rank.
func.func @gather_elements_rank(%x: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{indices have rank 1, input has 2}}
  %0 = edge.gather_elements %x, %i {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that gather_elements' result has the indices' shape.
func.func @gather_elements_result(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = edge.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that gather's axis lies inside the input's rank.
func.func @gather_axis(%x: tensor<5x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.gather %x, %i {axis = 2 : i64} : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that gather's result splices the indices' shape in at the axis.
func.func @gather_result(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  %0 = edge.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that conv_transpose2d's operands are 4-d.
func.func @conv_transpose_rank(%x: tensor<1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error @+1 {{input and weight must have rank 4 (NCHW, IOHW)}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that conv_transpose2d's input channels match the weight's.
func.func @conv_transpose_channels(%x: tensor<1x2x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error @+1 {{input channels 2 must equal the weight's 1 and divide by group 1}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that conv_transpose2d has one stride, dilation and output padding per spatial dimension.
func.func @conv_transpose_attrs(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error @+1 {{needs 2 strides, dilations and output paddings and 4 pads}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that conv_transpose2d's strides are positive.
func.func @conv_transpose_stride(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error @+1 {{strides and dilations must be positive, paddings non-negative}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that conv_transpose2d's bias has one entry per output channel.
func.func @conv_transpose_bias(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias must have shape [2]}}
  %0 = edge.conv_transpose2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>, tensor<3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that conv_transpose2d's pads cannot crop more than the full output.
func.func @conv_transpose_crop(%x: tensor<1x1x1x1xf32>, %w: tensor<1x2x1x1xf32>) {
  // expected-error @+1 {{pads exceed spatial dimension 0}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return
}

// -----

// Tests that conv_transpose2d's result shape is the implied one.
func.func @conv_transpose_result(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x2x7x7xf32>' are incompatible with return type(s) of operation 'tensor<1x2x5x5xf32>'}}
  %0 = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

// Tests that scatter_elements' axis lies inside the input's rank.
func.func @scatter_axis(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.scatter_elements %x, %i, %u {axis = 2 : i64, reduction = "none"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that scatter_elements' indices have the input's rank.
func.func @scatter_rank(%x: tensor<2x5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{indices have rank 1, input has 2}}
  %0 = edge.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<2x5xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that scatter_elements' updates have the indices' shape.
func.func @scatter_updates(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{updates and indices differ in shape}}
  %0 = edge.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that scatter_elements' reduction is a known one.
func.func @scatter_reduction(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{unknown reduction 'mean'}}
  %0 = edge.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "mean"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that arg_top_k's axis lies inside the input's rank.
func.func @arg_top_k_axis(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.arg_top_k %x {axis = 2 : i64, largest = true} : (tensor<3x4xf32>) -> tensor<3x2xi64>
  return
}

// -----

// Tests that arg_top_k takes at most the axis' extent.
func.func @arg_top_k_k(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{result must have the input's rank and at most 4 entries along the axis}}
  %0 = edge.arg_top_k %x {axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> tensor<3x5xi64>
  return
}

// -----

// Tests that arg_top_k keeps the other extents.
func.func @arg_top_k_result(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{result shape [2x2] should be [3x2]}}
  %0 = edge.arg_top_k %x {axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> tensor<2x2xi64>
  return
}

// -----

// Tests that gather_nd's batch dimensions lie below both ranks.
func.func @gather_nd_batch(%x: tensor<2x2xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'batch_dims' 1 must be below both ranks and indices need rank >= 1}}
  %0 = edge.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Tests that gather_nd's index tuples fit the input's rank.
func.func @gather_nd_tuple(%x: tensor<2x2xf32>, %i: tensor<1x3xi64>) {
  // expected-error @+1 {{index tuples of length 3 do not fit the input's rank 2}}
  %0 = edge.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<1x3xi64>) -> tensor<1xf32>
  return
}

// -----

// Tests that gather_nd's batch dimensions agree.
func.func @gather_nd_batch_extent(%x: tensor<2x2xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{batch dimensions of input and indices differ}}
  %0 = edge.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x2xf32>, tensor<3x1xi64>) -> tensor<3xf32>
  return
}

// -----

// Tests that gather_nd's result shape is the implied one.
func.func @gather_nd_result(%x: tensor<2x2xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = edge.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that pad names the modes it knows.
func.func @pad_mode(%x: tensor<3x2xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{'mode' is "mirror"; expected constant, reflect, edge or wrap}}
  %0 = edge.pad %x, %p {mode = "mirror"} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that pads hold a begin and an end per dimension.
func.func @pad_length(%x: tensor<3x2xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'pads' should have shape [4] (begins then ends), got [2]}}
  %0 = edge.pad %x, %p {mode = "edge"} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that constant pads must produce the result shape.
func.func @pad_constant_pads(%x: tensor<3x2xf32>) {
  %p = edge.constant dense<[0, 1, 0, 0]> : tensor<4xi64>
  // expected-error @+1 {{result shape [3x4] should be [3x3] for the constant pads}}
  %0 = edge.pad %x, %p {mode = "edge"} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that only constant mode takes a padding value.
func.func @pad_value_mode(%x: tensor<3x2xf32>, %p: tensor<4xi64>, %v: tensor<f32>) {
  // expected-error @+1 {{a padding value needs mode "constant"}}
  %0 = edge.pad %x, %p, %v {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that dynamic_slice bounds have one length.
func.func @dynamic_slice_bounds(%x: tensor<4x4xf32>, %a: tensor<1xi64>, %b: tensor<2xi64>) {
  // expected-error @+1 {{'starts', 'ends', 'axes' and 'steps' should be 1-D tensors of one length}}
  %0 = edge.dynamic_slice %x, %a, %b, %a, %a : (tensor<4x4xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that dynamic_slice keeps the rank.
func.func @dynamic_slice_rank(%x: tensor<4x4xf32>, %a: tensor<1xi64>) {
  // expected-error @+1 {{result rank 1 differs from the input rank 2}}
  %0 = edge.dynamic_slice %x, %a, %a, %a, %a : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that a constant cum_sum axis lies inside the rank.
func.func @cum_sum_axis(%x: tensor<2x3xf32>) {
  %a = edge.constant dense<2> : tensor<i64>
  // expected-error @+1 {{'axis' 2 is outside [-2, 2)}}
  %0 = edge.cum_sum %x, %a {exclusive = false, reverse = false} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that pad keeps the rank.
func.func @pad_rank(%x: tensor<3x2xf32>, %p: tensor<4xi64>) {
  // expected-error @+1 {{result rank 1 differs from the input rank 2}}
  %0 = edge.pad %x, %p {mode = "edge"} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<6xf32>
  return
}

// -----

// Tests that the padding value is one element.
func.func @pad_value_size(%x: tensor<3x2xf32>, %p: tensor<4xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{'value' should hold one element}}
  %0 = edge.pad %x, %p, %v {mode = "constant"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that dynamic_slice lists at most one bound per input axis.
func.func @dynamic_slice_count(%x: tensor<4xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{slices 2 axes of a rank-1 input}}
  %0 = edge.dynamic_slice %x, %a, %a, %a, %a : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// Tests that the cum_sum axis is one element.
func.func @cum_sum_axis_size(%x: tensor<2x3xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'axis' should hold one element}}
  %0 = edge.cum_sum %x, %a {exclusive = false, reverse = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that cum_sum needs an axis to run along.
func.func @cum_sum_scalar(%x: tensor<f32>, %a: tensor<i64>) {
  // expected-error @+1 {{needs an input of rank 1 or more}}
  %0 = edge.cum_sum %x, %a {exclusive = false, reverse = false} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

// Tests that range's operands hold one element.
func.func @range_operands(%s: tensor<2xf32>) {
  // expected-error @+1 {{start, limit and delta must hold one element, got 'tensor<2xf32>'}}
  %0 = edge.range %s, %s, %s : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that range's result is 1-d.
func.func @range_result(%s: tensor<i64>) {
  // expected-error @+1 {{result must be 1-d, got 'tensor<2x2xi64>'}}
  %0 = edge.range %s, %s, %s : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2x2xi64>
  return
}

// -----

// Tests that range's operands and result share one element type.
func.func @range_types(%s: tensor<i64>) {
  // expected-error @+1 {{failed to verify that all of {start, output} have same element type}}
  %0 = edge.range %s, %s, %s : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2xf32>
  return
}

// -----

// Tests that bit_shift's direction is left or right (lower case).
func.func @bit_shift_direction(%a: tensor<3xui8>) {
  // expected-error @+1 {{direction must be "left" or "right", got "LEFT"}}
  %0 = edge.bit_shift %a, %a {direction = "LEFT"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return
}

// -----

// Tests that bit_shift rejects signless integers.
func.func @bit_shift_signless(%a: tensor<3xi8>) {
  // expected-error @+1 {{must be statically shaped tensor of 8-bit unsigned integer or 16-bit unsigned integer}}
  %0 = edge.bit_shift %a, %a {direction = "left"} : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

// Tests that bit_shift operands broadcast to the result.
func.func @bit_shift_broadcast(%a: tensor<2x3xui32>, %b: tensor<2x2xui32>) {
  // expected-error @+1 {{}}
  %0 = edge.bit_shift %a, %b {direction = "left"} : (tensor<2x3xui32>, tensor<2x2xui32>) -> tensor<2x3xui32>
  return
}

// -----

// Tests that quantize_linear's zero point has the result's storage type.
func.func @quantize_zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{zero point element type 'i8' differs from the storage type 'ui8'}}
  %0 = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xui8>
  return
}

// -----

// Tests that scale and zero point share one shape.
func.func @quantize_param_shapes(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<ui8>) {
  // expected-error @+1 {{scale shape [3] and zero point shape [] differ}}
  %0 = edge.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<ui8>) -> tensor<2x3xui8>
  return
}

// -----

// Tests that a per-axis scale has the extent of the input at axis.
func.func @quantize_axis_extent(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>) {
  // expected-error @+1 {{per-axis scale has 3 elements but axis 0 has extent 2}}
  %0 = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  return
}

// -----

// Tests that the per-axis axis lies inside the input's rank.
func.func @dequantize_axis_range(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) {
  // expected-error @+1 {{'axis' 2 is outside [0, 2)}}
  %0 = edge.dequantize_linear %q, %s, %z {axis = 2 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that per-tensor quantization has the canonical axis 0.
func.func @dequantize_per_tensor_axis(%q: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{per-tensor quantization takes 'axis' 0, got 1}}
  %0 = edge.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that scale and zero point are at most 1-D.
func.func @dequantize_param_rank(%q: tensor<2x3xi8>, %s: tensor<2x3xf32>, %z: tensor<2x3xi8>) {
  // expected-error @+1 {{scale and zero point must be scalars or 1-D, got rank 2}}
  %0 = edge.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<2x3xi8>, tensor<2x3xf32>, tensor<2x3xi8>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that the float side is f32.
func.func @dequantize_f16(%q: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{float values and scale must be f32}}
  %0 = edge.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf16>
  return
}

// -----

// Tests that a !quant.uniform result agrees with constant scales.
func.func @quantize_type_scale(%x: tensor<4xf32>) {
  %s = edge.constant dense<5.000000e-01> : tensor<f32>
  %z = edge.constant dense<3> : tensor<i8>
  // expected-error @+1 {{constant scale 5.000000e-01 at 0 differs from the quantized type's 2.500000e-01}}
  %0 = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4x!quant.uniform<i8:f32, 0.25:3>>
  return
}

// -----

// Tests that a !quant.uniform result agrees with constant zero points.
func.func @quantize_type_zero_point(%x: tensor<4xf32>) {
  %s = edge.constant dense<2.500000e-01> : tensor<f32>
  %z = edge.constant dense<2> : tensor<i8>
  // expected-error @+1 {{constant zero point 2 at 0 differs from the quantized type's 3}}
  %0 = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4x!quant.uniform<i8:f32, 0.25:3>>
  return
}

// -----

// Tests that a per-axis !quant.uniform type names the op's axis.
func.func @dequantize_type_axis(%q: tensor<3x3x!quant.uniform<u8:f32:0, {0.5, 0.5, 0.5}>>, %s: tensor<3xf32>, %z: tensor<3xui8>) {
  // expected-error @+1 {{per-axis quantized type '!quant.uniform<u8:f32:0, {5.000000e-01,5.000000e-01,5.000000e-01}>' disagrees with 'axis' 1}}
  %0 = edge.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<3x3x!quant.uniform<u8:f32:0, {0.5, 0.5, 0.5}>>, tensor<3xf32>, tensor<3xui8>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that matmul operands share the result's element type (no implicit
// widening of integer operands).
func.func @matmul_mixed_types(%a: tensor<2x3xi8>, %b: tensor<3x2xi32>) {
  // expected-error @+1 {{operand element type 'i8' differs from the result's 'i32'}}
  %0 = edge.matmul %a, %b : (tensor<2x3xi8>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return
}

// -----

// Tests that conv2d operands share the result's element type.
func.func @conv2d_mixed_types(%x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{operand element type 'f32' differs from the result's 'i32'}}
  %0 = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>, tensor<1xf32>) -> tensor<1x1x2x2xi32>
  return
}

// -----

// Tests that resize's coordinate transformation is known.
func.func @resize_transform(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{'coordinate_transformation_mode' must be one of half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize, got 'corner'}}
  %0 = edge.resize %x {antialias = false, coordinate_transformation_mode = "corner", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 2.0, 2.0>} : (tensor<2x2xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that resize antialiases only linear and cubic filters.
func.func @resize_antialias_nearest(%x: tensor<4xf32>) {
  // expected-error @+1 {{'antialias' needs linear or cubic mode}}
  %0 = edge.resize %x {antialias = true, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "nearest", nearest_mode = "round_prefer_floor", scales = array<f64: 0.5>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that resize's scales give the result shape.
func.func @resize_scales_shape(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{result extent 4 of axis 1 does not match scale 3.000000e+00 times input extent 2}}
  %0 = edge.resize %x {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 2.0, 3.0>} : (tensor<2x2xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that resize takes its scales from an attribute or an operand, not both.
func.func @resize_two_scales(%x: tensor<2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{needs exactly one of the 'scales' attribute and the 'scales' operand}}
  %0 = edge.resize %x scales %s {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 2.0, 2.0>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that tf_crop_and_resize needs a full-rank roi.
func.func @resize_roi(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{'roi' has 2 entries, expected 4}}
  %0 = edge.resize %x {antialias = false, coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", roi = array<f64: 0.0, 1.0>, scales = array<f64: 2.0, 2.0>} : (tensor<2x2xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that grid_sample names its padding modes.
func.func @grid_sample_padding(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{'padding_mode' must be one of}}
  %0 = edge.grid_sample %x, %g {align_corners = false, mode = "bilinear", padding_mode = "wrap"} : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  return
}

// -----

// Tests that grid_sample's result is [N, C, H_out, W_out].
func.func @grid_sample_shape(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x5x2xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x2x3x5xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3x3xf32>'}}
  %0 = edge.grid_sample %x, %g {align_corners = true, mode = "nearest", padding_mode = "zeros"} : (tensor<1x2x4x4xf32>, tensor<1x3x5x2xf32>) -> tensor<1x2x3x3xf32>
  return
}

// -----

// Tests that scatter_nd's updates hold one input slice per index tuple.
func.func @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{updates must have shape [2x3]}}
  %0 = edge.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that the bitwise ops take integers only.
func.func @bitwise_float(%a: tensor<3xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of 8-bit signless integer}}
  %0 = edge.bitwise_and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that the bitwise ops broadcast by the edge contract.
func.func @bitwise_broadcast(%a: tensor<2x3xi32>, %b: tensor<2x2xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand extents 3 and 2 at dimension 1 do not broadcast}}
  %0 = edge.bitwise_xor %a, %b : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  return
}

// -----

// Tests that deform_conv2d's offsets hold two values per tap and output pixel.
func.func @deform_conv_offset(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x2x2xf32>, %b: tensor<3xf32>, %o: tensor<1x4x3x3xf32>) {
  // expected-error @+1 {{offset must have shape [1x8x3x3]}}
  %0 = edge.deform_conv2d %x, %w, %b, %o {dilations = array<i64: 1, 1>, group = 1 : i64, offset_group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

// Tests that a post-op chain reads as many post operands as it has sum and
// add steps.
func.func @post_operand_missing(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  // expected-error @+1 {{post-op 0 reads a post operand that is missing}}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, post_ops = [#edge.post_op<sum>], strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that a sum post operand has the result's shape.
func.func @post_sum_shape(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x1x1xf32>) {
  // expected-error @+1 {{'sum' post operand must have the result's shape}}
  %0 = edge.conv2d %x, %w post(%r) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, post_ops = [#edge.post_op<sum>], strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that each op takes only its own post-op kinds.
func.func @post_kind(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{takes no 'gelu_erf' post-op}}
  %0 = edge.max_pool2d %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, post_ops = [#edge.post_op<gelu_erf>], strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----

// Tests that a quantize step comes last.
func.func @post_quantize_last(%a: tensor<1x4xf32>) {
  // expected-error @+1 {{'quantize' must be the last post-op and the result 8-bit}}
  %0 = edge.add %a, %a {post_ops = [#edge.post_op<quantize, 0.5, 0.0>, #edge.post_op<relu>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that a binary op without a quantize step keeps its element type.
func.func @post_element_type(%a: tensor<1x4xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = edge.add %a, %a {post_ops = [#edge.post_op<relu>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi8>
  return
}

// -----

// Tests that clip bounds are ordered.
func.func @post_clip(%a: tensor<1x4xf32>) {
  // expected-error @+1 {{clip post-op bounds are not ordered}}
  %0 = edge.add %a, %a {post_ops = [#edge.post_op<clip, 6.0, 0.0>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that edge.activation takes the activations only.
func.func @activation_kind(%a: tensor<1x4xf32>) {
  // expected-error @+1 {{kind must be gelu_erf, swish, hardswish or relu}}
  %0 = edge.activation %a {kind = #edge.post_op<sum>} : tensor<1x4xf32>
  return
}

// -----

// Tests that select's result type is inferred from its three operands.
func.func @select_result(%c: tensor<2x1xi1>, %a: tensor<1x3xf32>, %b: tensor<1x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  %0 = edge.select %c, %a, %b : (tensor<2x1xi1>, tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that deform_conv2d's result type is inferred from its window.
func.func @deform_conv_result(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x2x2xf32>, %b: tensor<3xf32>, %o: tensor<1x8x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x3x3x3xf32>' are incompatible with return type(s) of operation 'tensor<1x3x4x4xf32>'}}
  %0 = edge.deform_conv2d %x, %w, %b, %o {dilations = array<i64: 1, 1>, group = 1 : i64, offset_group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>, tensor<1x8x3x3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// Tests that an inferred element type is checked too: arg_min is i64.
func.func @arg_min_element(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = edge.arg_min %x {axis = 1 : i64, keep_dims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

// Tests that only a chain ending in quantize makes an 8-bit result of a
// fusible op compatible with its inferred (unfused) type.
func.func @add_eight_bit_without_quantize(%a: tensor<1x4xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = edge.add %a, %a : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi8>
  return
}

// -----

// Tests that an 8-bit result of the inferred shape still has to match it.
func.func @add_eight_bit_shape(%a: tensor<1x4xf32>, %s: tensor<1x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x4xf32>' are incompatible with return type(s) of operation 'tensor<1x2xi8>'}}
  %0 = edge.add %a, %a {post_ops = [#edge.post_op<quantize, 0.5, 0.0>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x2xi8>
  return
}

// -----

// Tests that a recurrent layer's direction is one of the three ONNX names.
func.func @rnn_direction(%x: tensor<5x1x3xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x1x4xf32>) {
  // expected-error @+1 {{direction must be forward, reverse or bidirectional, got 'backward'}}
  %y, %yh = edge.rnn %x, %w, %r, %b, %h {activation = "tanh", direction = "backward"} : (tensor<5x1x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

// -----

// Tests that edge.rnn runs tanh or relu only.
func.func @rnn_activation(%x: tensor<5x1x3xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x1x4xf32>) {
  // expected-error @+1 {{activation must be tanh or relu, got 'sigmoid'}}
  %y, %yh = edge.rnn %x, %w, %r, %b, %h {activation = "sigmoid", direction = "forward"} : (tensor<5x1x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

// -----

// Tests that a bidirectional GRU needs weights of both directions.
func.func @gru_directions(%x: tensor<5x1x3xf32>, %w: tensor<1x3x12xf32>, %r: tensor<1x4x12xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x4xf32>) {
  // expected-error @+1 {{R must have shape [2,4,12]}}
  %y, %yh = edge.gru %x, %w, %r, %b, %h {direction = "bidirectional", linear_before_reset = false} : (tensor<5x1x3xf32>, tensor<1x3x12xf32>, tensor<1x4x12xf32>, tensor<1x24xf32>, tensor<1x1x4xf32>) -> (tensor<5x2x1x4xf32>, tensor<2x1x4xf32>)
  return
}

// -----

// Tests that an LSTM's W has four gates of the hidden size.
func.func @lstm_gates(%x: tensor<5x1x3xf32>, %w: tensor<1x3x12xf32>, %r: tensor<1x4x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x1x4xf32>) {
  // expected-error @+1 {{W must have shape [1,3,16]}}
  %y, %yh, %yc = edge.lstm %x, %w, %r, %b, %h, %h {direction = "forward"} : (tensor<5x1x3xf32>, tensor<1x3x12xf32>, tensor<1x4x16xf32>, tensor<1x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

// -----

// Tests that an LSTM's initial cell state has the batch of X.
func.func @lstm_initial_c(%x: tensor<5x2x3xf32>, %w: tensor<1x3x16xf32>, %r: tensor<1x4x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x4xf32>, %c: tensor<1x1x4xf32>) {
  // expected-error @+1 {{initial_c must have shape [1,2,4]}}
  %y, %yh, %yc = edge.lstm %x, %w, %r, %b, %h, %c {direction = "forward"} : (tensor<5x2x3xf32>, tensor<1x3x16xf32>, tensor<1x4x16xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that the result shapes follow from the operands.
func.func @gru_result(%x: tensor<5x1x3xf32>, %w: tensor<1x3x12xf32>, %r: tensor<1x4x12xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<5x1x1x4xf32>', 'tensor<1x1x4xf32>' are incompatible with return type(s) of operation 'tensor<5x1x4xf32>', 'tensor<1x1x4xf32>'}}
  %y, %yh = edge.gru %x, %w, %r, %b, %h {direction = "forward", linear_before_reset = true} : (tensor<5x1x3xf32>, tensor<1x3x12xf32>, tensor<1x4x12xf32>, tensor<1x24xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x4xf32>, tensor<1x1x4xf32>)
  return
}

// -----

// Tests that reverse_sequence takes one length per batch entry.
func.func @reverse_sequence_lengths(%x: tensor<5x3x2xf32>, %l: tensor<5xi64>) {
  // expected-error @+1 {{'sequence_lens' must have one entry per batch entry (3)}}
  %0 = edge.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<5x3x2xf32>, tensor<5xi64>) -> tensor<5x3x2xf32>
  return
}

// -----

// Tests that reverse_sequence's axes are 0 and 1.
func.func @reverse_sequence_axes(%x: tensor<5x3x2xf32>, %l: tensor<3xi64>) {
  // expected-error @+1 {{'batch_axis' and 'time_axis' must be 0 and 1, got 2 and 0}}
  %0 = edge.reverse_sequence %x, %l {batch_axis = 2 : i64, time_axis = 0 : i64} : (tensor<5x3x2xf32>, tensor<3xi64>) -> tensor<5x3x2xf32>
  return
}

// -----

// Tests that roi_align's mode is avg or max.
func.func @roi_align_mode(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'mode' must be one of avg, max, got 'min'}}
  %0 = edge.roi_align %x, %r, %i {half_pixel = true, mode = "min", output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.0 : f32} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return
}

// -----

// Tests that roi_align's result is [R, C, output_height, output_width].
func.func @roi_align_shape(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<3x2x2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2x2x2xf32>'}}
  %0 = edge.roi_align %x, %r, %i {half_pixel = false, mode = "avg", output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return
}

// -----

// Tests that det takes square matrices.
func.func @det_square(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{needs square matrices [*, M, M]}}
  %0 = edge.det %x : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that a onesided stft takes a real signal.
func.func @stft_onesided(%x: tensor<1x64x2xf32>, %s: tensor<1xi64>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'onesided' needs a real signal}}
  %0 = edge.stft %x, %s, %l {onesided = true} : (tensor<1x64x2xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x7x9x2xf32>
  return
}

// -----

// Tests that a given value-dependent bound is not negative.
func.func @non_zero_bound(%x: tensor<3x4xi1>) -> tensor<2x?xi64> {
  // expected-error @+1 {{'max_extent' -1 is negative}}
  %0 = edge.non_zero %x {max_extent = -1 : i64} : (tensor<3x4xi1>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// Tests that only the value-dependent extent is dynamic.
func.func @non_zero_static(%x: tensor<3x4xi1>) -> tensor<2x5xi64> {
  // expected-error @+1 {{result 0 must have shape [2, ?] (? at the value-dependent extent), got [2, 5]}}
  %0 = edge.non_zero %x {max_extent = 12 : i64} : (tensor<3x4xi1>) -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// Tests that NonMaxSuppression's scores match its boxes.
func.func @nms_scores(%b: tensor<1x6x4xf32>, %s: tensor<1x1x5xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{takes boxes [batch, boxes, 4] and scores [batch, classes, boxes]}}
  %0 = edge.non_max_suppression %b, %s, %m, %t {center_point_box = 0 : i64, max_extent = 6 : i64} : (tensor<1x6x4xf32>, tensor<1x1x5xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// Tests that a run-time k makes the axis extent value-dependent.
func.func @top_k_static(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> tensor<3x2xi64> {
  // expected-error @+1 {{with a run-time k the result's extent along the axis is value-dependent (?)}}
  %0 = edge.arg_top_k %x, %k {axis = 1 : i64, largest = true} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}
