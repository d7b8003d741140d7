// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-lower-to-edge | FileCheck %s --check-prefix=FOLD

// Tests that batch normalization becomes x * a + b with a and b computed
// from the statistics, and that canonicalization folds a and b to constants.
// CHECK-LABEL: func @batch_norm
// CHECK: %[[EPS:.*]] = edge.constant dense<1.000000e-03> : tensor<1xf32>
// CHECK: %[[VAR:.*]] = edge.add %{{.*}}, %[[EPS]] : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
// CHECK: %[[DEV:.*]] = edge.sqrt %[[VAR]] : tensor<2xf32>
// CHECK: %[[A:.*]] = edge.div %{{.*}}, %[[DEV]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK: %[[MA:.*]] = edge.mul %{{.*}}, %[[A]]
// CHECK: %[[B:.*]] = edge.sub %{{.*}}, %[[MA]]
// CHECK: %[[A4:.*]] = edge.reshape %[[A]] : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
// CHECK: %[[Y:.*]] = edge.mul %{{.*}}, %[[A4]] : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK: %[[B4:.*]] = edge.reshape %[[B]] : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
// CHECK: edge.add %[[Y]], %[[B4]] : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NOT: hl.batch_normalization
// scale = [2, 4], bias = [1, 1], mean = [0, 1], var = [3.999, 0.999], eps = 1e-3:
// a = [2/2, 4/1] = [1, 4], b = [1 - 0, 1 - 4] = [1, -3].
// FOLD-LABEL: func @batch_norm
// FOLD-DAG: edge.constant dense<{{\[}}[{{\[}}[1.000000e+00]], {{\[}}[4.000000e+00]]]]> : tensor<1x2x1x1xf32>
// FOLD-DAG: edge.constant dense<{{\[}}[{{\[}}[1.000000e+00]], {{\[}}[-3.000000e+00]]]]> : tensor<1x2x1x1xf32>
// FOLD-NOT: edge.sqrt
func.func @batch_norm(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %scale = hl.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %bias = hl.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %mean = hl.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %var = hl.constant dense<[3.999, 0.999]> : tensor<2xf32>
  %0 = hl.batch_normalization %x, %scale, %bias, %mean, %var {epsilon = 1.0e-3 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Tests that batch normalization after a convolution folds into the
// convolution's weight and bias, leaving a lone conv2d.
// FOLD-LABEL: func @conv_batch_norm
// FOLD: %[[C:.*]] = edge.conv2d
// FOLD-NOT: edge.mul
// FOLD-NOT: edge.add
// FOLD: return %[[C]]
func.func @conv_batch_norm(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = hl.constant dense<1.0> : tensor<2x1x1x1xf32>
  %scale = hl.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %bias = hl.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %mean = hl.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %var = hl.constant dense<[3.999, 0.999]> : tensor<2xf32>
  %0 = hl.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = hl.batch_normalization %0, %scale, %bias, %mean, %var {epsilon = 1.0e-3 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Tests that layer normalization becomes mean/variance arithmetic over the
// trailing axes.
// CHECK-LABEL: func @layer_norm
// CHECK: %[[M:.*]] = edge.reduce_mean %[[X:.*]] {axes = array<i64: 1>, keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
// CHECK: %[[C:.*]] = edge.sub %[[X]], %[[M]] : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[S:.*]] = edge.mul %[[C]], %[[C]]
// CHECK: %[[V:.*]] = edge.reduce_mean %[[S]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[E:.*]] = edge.constant dense<9.99999974E-6> : tensor<1x1xf32>
// CHECK: %[[VE:.*]] = edge.add %[[V]], %[[E]]
// CHECK: %[[D:.*]] = edge.sqrt %[[VE]]
// CHECK: %[[N:.*]] = edge.div %[[C]], %[[D]] : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[G:.*]] = edge.reshape %{{.*}} : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: %[[Y:.*]] = edge.mul %[[N]], %[[G]]
// CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: edge.add %[[Y]], %[[B]]
func.func @layer_norm(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = hl.layer_normalization %x, %g, %b {axis = -1 : i64, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that instance_normalization standardizes each channel's values as
// one row of [N * C, spatial] over its last axis (the LayerNorm chain the
// delegates run as one step) and scales per channel.
// CHECK-LABEL: func @instance_norm
func.func @instance_norm(%x: tensor<1x2x3x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[ROWS:.*]] = edge.reshape %{{.*}} : (tensor<1x2x3x3xf32>) -> tensor<2x9xf32>
  // CHECK: %[[MEAN:.*]] = edge.reduce_mean %[[ROWS]] {axes = array<i64: 1>, keep_dims = true}
  // CHECK: %[[C:.*]] = edge.sub %[[ROWS]], %[[MEAN]]
  // CHECK: %[[D:.*]] = edge.div %[[C]], %{{.*}}
  // CHECK: %[[N:.*]] = edge.reshape %[[D]] : (tensor<2x9xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: %[[S:.*]] = edge.reshape %{{.*}} : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
  // CHECK: edge.mul %[[N]], %[[S]]
  // CHECK-NOT: hl.instance_normalization
  %0 = hl.instance_normalization %x, %s, %b : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Tests that lrn sums squares over a channel window with an average pool.
// CHECK-LABEL: func @lrn
func.func @lrn(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: %[[SQ:.*]] = edge.mul %{{.*}}, %{{.*}} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>)
  // CHECK: %[[R:.*]] = edge.reshape %[[SQ]] : (tensor<1x4x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: edge.avg_pool2d %[[R]] {ceil_mode = false, count_include_pad = true, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>}
  // CHECK: edge.pow
  // CHECK-NOT: hl.lrn
  %0 = hl.lrn %x {size = 3 : i64} : tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
