// RUN: strata-opt %s -split-input-file --strata-edge-fuse="anchors=conv2d,conv_transpose2d,matmul,add,sub,mul,div,maximum,minimum activations=relu,clip,gelu_erf,swish,hardswish fusions=conv-sum,matmul-bias,scale-shift,quantize,int8-global-pool chains=gelu_erf,swish,hardswish,relu,layer_norm" | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-edge-fuse="anchors=conv2d,matmul,add activations=relu,clip fusions=matmul-bias chains=hardswish chain-position=last exclusive-chains=true" | FileCheck %s --check-prefix=CLAMP
// RUN: strata-opt %s -split-input-file --strata-edge-fuse | FileCheck %s --check-prefix=NONE

// Tests that a convolution takes the residual add and the relu after it as
// sum and relu post-ops, reading the residual as a post operand.

// CHECK-LABEL: func @conv_sum_relu
// NONE-LABEL: func @conv_sum_relu
// CLAMP-LABEL: func @conv_sum_relu
func.func @conv_sum_relu(%x: tensor<1x2x4x4xf32>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<0.5> : tensor<2x2x1x1xf32>
  // CHECK: %[[Y:.*]] = edge.conv2d %{{.*}}, %{{.*}} post(%{{.*}}) {{{.*}}post_ops = [#edge.post_op<sum>, #edge.post_op<relu>]{{.*}}}
  // CHECK-NOT: edge.add
  // CHECK-NOT: edge.relu
  // CHECK: return %[[Y]]
  // CLAMP: edge.add
  // CLAMP-SAME: post_ops = [#edge.post_op<relu>]
  // NONE-NOT: post_ops
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = edge.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Tests that a residual computed after the convolution is not ready when it
// runs: the add stays, and takes the relu itself.

// CHECK-LABEL: func @residual_not_ready
func.func @residual_not_ready(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = edge.constant dense<0.5> : tensor<2x2x1x1xf32>
  // CHECK: %[[C:.*]] = edge.conv2d
  // CHECK-NOT: post_ops
  // CHECK: %[[S:.*]] = edge.sigmoid %{{.*}}
  // CHECK: edge.add %[[C]], %[[S]] {post_ops = [#edge.post_op<relu>]}
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = edge.sigmoid %x : tensor<1x2x4x4xf32>
  %1 = edge.add %0, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = edge.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Tests that a second reader of the convolution's result blocks the fusion.

// CHECK-LABEL: func @second_user
func.func @second_user(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = edge.constant dense<0.5> : tensor<2x2x1x1xf32>
  // CHECK: %[[C:.*]] = edge.conv2d
  // CHECK-NOT: post_ops
  // CHECK: %[[R:.*]] = edge.relu %[[C]]
  // CHECK: return %[[R]], %[[C]]
  %0 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.relu %0 : tensor<1x2x4x4xf32>
  return %1, %0 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Tests that a matmul takes a constant row added to it as its bias, and a
// clip after it.

// CHECK-LABEL: func @matmul_bias_clip
// CLAMP-LABEL: func @matmul_bias_clip
func.func @matmul_bias_clip(%x: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %w = edge.constant dense<0.5> : tensor<4x3xf32>
  %b = edge.constant dense<0.25> : tensor<1x3xf32>
  // CHECK: %[[B:.*]] = edge.constant dense<2.500000e-01>
  // CHECK: edge.matmul %{{.*}}, %{{.*}} post(%[[B]]) {post_ops = [#edge.post_op<add>, #edge.post_op<clip, 0.000000e+00, 6.000000e+00>]}
  // CHECK-NOT: edge.clip
  // CLAMP: edge.matmul {{.*}}post_ops = [#edge.post_op<add>, #edge.post_op<clip, 0.000000e+00, 6.000000e+00>]
  %0 = edge.matmul %x, %w : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %1 = edge.add %0, %b : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %2 = edge.clip %1 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x3xf32>
  return %2 : tensor<1x3xf32>
}

// -----

// Tests that a bias that is not one row is not the matmul's: the add stays
// and takes the relu.

// CHECK-LABEL: func @matmul_full_bias
func.func @matmul_full_bias(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = edge.constant dense<0.5> : tensor<4x3xf32>
  %b = edge.constant dense<0.25> : tensor<2x3xf32>
  // CHECK: %[[M:.*]] = edge.matmul %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  // CHECK: edge.add %[[M]], %{{.*}} {post_ops = [#edge.post_op<relu>]}
  %0 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = edge.add %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = edge.relu %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Tests that GELU spelled out becomes one edge.activation where no producer
// takes it, and a post-op of the convolution producing its input.

// CHECK-LABEL: func @gelu
// CLAMP-LABEL: func @gelu
func.func @gelu(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = edge.constant dense<0.5> : tensor<2x2x1x1xf32>
  %sqrt2 = edge.constant dense<1.41421354> : tensor<1x1x1x1xf32>
  %one = edge.constant dense<1.0> : tensor<1x1x1x1xf32>
  %half = edge.constant dense<0.5> : tensor<1x1x1x1xf32>
  // CHECK: %[[A:.*]] = edge.activation %{{.*}} {kind = #edge.post_op<gelu_erf>} : tensor<1x2x4x4xf32>
  // CHECK: %[[C:.*]] = edge.conv2d {{.*}}post_ops = [#edge.post_op<gelu_erf>]
  // CHECK-NOT: edge.erf
  // CHECK: return %[[A]], %[[C]]
  // CLAMP-NOT: edge.activation
  // CLAMP: edge.erf
  %0 = edge.div %x, %sqrt2 : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.erf %0 : tensor<1x2x4x4xf32>
  %2 = edge.add %1, %one : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = edge.mul %x, %2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %4 = edge.mul %3, %half : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = edge.conv2d %4, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %5 = edge.div %c, %sqrt2 : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %6 = edge.erf %5 : tensor<1x2x4x4xf32>
  %7 = edge.add %6, %one : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %8 = edge.mul %c, %7 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %9 = edge.mul %8, %half : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %4, %9 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Tests that hardswish becomes one edge.activation standing where its
// first op stood, or (chain-position=last) where its last one did.

// CHECK-LABEL: func @hardswish
// CLAMP-LABEL: func @hardswish
func.func @hardswish(%x: tensor<1x4xf32>, %y: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %three = edge.constant dense<3.0> : tensor<1x1xf32>
  %six = edge.constant dense<6.0> : tensor<1x1xf32>
  // CHECK: edge.activation %{{.*}} {kind = #edge.post_op<hardswish>}
  // CHECK-NEXT: edge.neg
  // CLAMP: edge.neg
  // CLAMP-NEXT: edge.activation %{{.*}} {kind = #edge.post_op<hardswish>}
  %0 = edge.add %x, %three : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %n = edge.neg %y : tensor<1x4xf32>
  %1 = edge.clip %0 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x4xf32>
  %2 = edge.mul %x, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = edge.div %2, %six : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  return %3, %n : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Tests that LeakyRelu as the hl lowering writes it, max(x, 0) +
// slope * min(x, 0), becomes a relu whose alpha is the slope: a post-op of
// the convolution producing x, or one edge.activation; the slope on either
// side of the product. A minimum against another value than 0 is no
// LeakyRelu, and a target without relu chains keeps the ops.

// CHECK-LABEL: func @leaky_relu
// CLAMP-LABEL: func @leaky_relu
func.func @leaky_relu(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = edge.constant dense<0.5> : tensor<2x2x1x1xf32>
  %zero = edge.constant dense<0.0> : tensor<1x1x1x1xf32>
  %one = edge.constant dense<1.0> : tensor<1x1x1x1xf32>
  %slope = edge.constant dense<0.1> : tensor<1x1x1x1xf32>
  // CHECK: edge.conv2d {{.*}}post_ops = [#edge.post_op<relu, 1.0{{0*}}e-01
  // CHECK: edge.activation %{{.*}} {kind = #edge.post_op<relu, 1.0{{0*}}e-01
  // CHECK: edge.maximum
  // CHECK: edge.minimum
  // CLAMP-NOT: edge.activation
  // CLAMP-COUNT-3: edge.maximum
  %c = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %0 = edge.maximum %c, %zero : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.minimum %c, %zero : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = edge.mul %slope, %1 : (tensor<1x1x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = edge.add %0, %2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %4 = edge.maximum %y, %zero : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %5 = edge.minimum %y, %zero : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %6 = edge.mul %5, %slope : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %7 = edge.add %6, %4 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %8 = edge.maximum %x, %zero : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %9 = edge.minimum %x, %one : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %10 = edge.mul %9, %slope : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %11 = edge.add %8, %10 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %3, %7, %11 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Tests that x * scale + shift with constants of one type becomes a mul
// with an add post-op, then the relu.

// CHECK-LABEL: func @scale_shift
func.func @scale_shift(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = edge.constant dense<2.0> : tensor<1x2x1x1xf32>
  %t = edge.constant dense<1.0> : tensor<1x2x1x1xf32>
  // CHECK: edge.mul %{{.*}}, %{{.*}} post(%{{.*}}) {post_ops = [#edge.post_op<add>, #edge.post_op<relu>]}
  // CHECK-NOT: edge.add
  %0 = edge.mul %x, %s : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = edge.add %0, %t : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = edge.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Tests that a quantization into s8 after a binary op becomes its last
// post-op, the op then writing s8; one into u8 does not.

// CHECK-LABEL: func @binary_quantize
func.func @binary_quantize(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> (tensor<1x4xi8>, tensor<1x4xui8>) {
  %s = edge.constant dense<0.5> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %zu = edge.constant dense<0> : tensor<ui8>
  // CHECK: edge.add %{{.*}}, %{{.*}} {post_ops = [#edge.post_op<relu>, #edge.post_op<quantize, 5.000000e-01, 0.000000e+00>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi8>
  // CHECK: %[[S:.*]] = edge.sub
  // CHECK-NOT: post_ops
  // CHECK: edge.quantize_linear %[[S]]
  %0 = edge.add %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %1 = edge.relu %0 : tensor<1x4xf32>
  %2 = edge.quantize_linear %1, %s, %z {axis = 0 : i64} : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %3 = edge.sub %a, %b : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %4 = edge.quantize_linear %3, %s, %zu {axis = 0 : i64} : (tensor<1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4xui8>
  return %2, %4 : tensor<1x4xi8>, tensor<1x4xui8>
}

// -----

// Tests that dequantize -> global mean -> quantize into s8 becomes one mean
// of the 8-bit values with linear and quantize post-ops.

// CHECK-LABEL: func @int8_global_pool
func.func @int8_global_pool(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x1x1xi8> {
  %s = edge.constant dense<0.5> : tensor<f32>
  %t = edge.constant dense<0.25> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true, post_ops = [#edge.post_op<linear, 5.000000e-01, 0.000000e+00>, #edge.post_op<quantize, 2.500000e-01, 0.000000e+00>]} : (tensor<1x2x4x4xi8>) -> tensor<1x2x1x1xi8>
  // CHECK-NOT: edge.dequantize_linear
  // CHECK-NOT: edge.quantize_linear
  %0 = edge.dequantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %1 = edge.reduce_mean %0 {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %2 = edge.quantize_linear %1, %t, %z {axis = 0 : i64} : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x1x1xi8>
  return %2 : tensor<1x2x1x1xi8>
}

// -----

// Tests that LayerNorm's nine ops become one edge.layer_norm with its gamma
// and beta.

// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %eps = edge.constant dense<1.0e-05> : tensor<1x1xf32>
  %two = edge.constant dense<2.0> : tensor<1x1xf32>
  %g = edge.constant dense<1.5> : tensor<1x4xf32>
  %b = edge.constant dense<0.5> : tensor<1x4xf32>
  // CHECK: edge.layer_norm %{{.*}} gamma(%{{.*}}) beta(%{{.*}}) {epsilon = 9.99999974E-6 : f32}
  // CHECK-NOT: edge.reduce_mean
  // CHECK-NOT: edge.sqrt
  %m = edge.reduce_mean %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %d = edge.sub %x, %m : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq = edge.pow %d, %two : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %v = edge.reduce_mean %sq {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %ve = edge.add %v, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = edge.sqrt %ve : tensor<2x1xf32>
  %y = edge.div %d, %sd : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %yg = edge.mul %y, %g : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %yb = edge.add %yg, %b : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %yb : tensor<2x4xf32>
}

// -----

// Tests chains that read each other: a LayerNorm whose input is a GELU's
// output and a second LayerNorm right after the first (BERT's prediction
// head). Each chain is replaced reading what the previous replacement wrote.

// CHECK-LABEL: func @chains_in_a_row
func.func @chains_in_a_row(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %sqrt2 = edge.constant dense<1.41421354> : tensor<1x1xf32>
  %one = edge.constant dense<1.0> : tensor<1x1xf32>
  %half = edge.constant dense<0.5> : tensor<1x1xf32>
  %eps = edge.constant dense<1.0e-05> : tensor<1x1xf32>
  %two = edge.constant dense<2.0> : tensor<1x1xf32>
  // CHECK: %[[G:.*]] = edge.activation %{{.*}} {kind = #edge.post_op<gelu_erf>} : tensor<2x4xf32>
  // CHECK: %[[L1:.*]] = edge.layer_norm %[[G]] {epsilon
  // CHECK: %[[L2:.*]] = edge.layer_norm %[[L1]] {epsilon
  // CHECK: return %[[L2]]
  %0 = edge.div %x, %sqrt2 : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %1 = edge.erf %0 : tensor<2x4xf32>
  %2 = edge.add %1, %one : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %3 = edge.mul %x, %2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %g = edge.mul %3, %half : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %m = edge.reduce_mean %g {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %d = edge.sub %g, %m : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq = edge.pow %d, %two : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %v = edge.reduce_mean %sq {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %ve = edge.add %v, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = edge.sqrt %ve : tensor<2x1xf32>
  %y = edge.div %d, %sd : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %m2 = edge.reduce_mean %y {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %d2 = edge.sub %y, %m2 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %sq2 = edge.pow %d2, %two : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %v2 = edge.reduce_mean %sq2 {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %ve2 = edge.add %v2, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd2 = edge.sqrt %ve2 : tensor<2x1xf32>
  %y2 = edge.div %d2, %sd2 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %y2 : tensor<2x4xf32>
}
