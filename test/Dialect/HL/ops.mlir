// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that every hl op round-trips through the printer and parser.

// CHECK-LABEL: func @constant
func.func @constant() -> tensor<2xf32> {
  // CHECK: %[[C:.*]] = hl.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: hl.conv %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %0 = hl.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @conv_dynamic_no_bias
func.func @conv_dynamic_no_bias(%x: tensor<?x4x?x?xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<?x8x?x?xf32> {
  // CHECK: hl.conv %{{.*}}, %{{.*}} {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>}
  %0 = hl.conv %x, %w {auto_pad = "SAME_UPPER", group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x4x?x?xf32>, tensor<8x2x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// CHECK-LABEL: func @gemm
func.func @gemm(%a: tensor<1x64xf32>, %b: tensor<10x64xf32>, %c: tensor<10xf32>) -> tensor<1x10xf32> {
  // CHECK: hl.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32, transB = 1 : i64}
  %0 = hl.gemm %a, %b, %c {alpha = 0.5 : f32, transB = 1 : i64} : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: hl.matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %0 = hl.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func @add_relu
func.func @add_relu(%a: tensor<1x4x8x8xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[S:.*]] = hl.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %0 = hl.add %a, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: hl.relu %[[S]] : tensor<1x4x8x8xf32>
  %1 = hl.relu %0 : tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) {
  // CHECK: hl.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: hl.global_average_pool %{{.*}} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %1 = hl.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>
}

// CHECK-LABEL: func @max_pool_indices
func.func @max_pool_indices(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xi64> {
  // CHECK: hl.max_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %0:2 = hl.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  return %0#1 : tensor<1x4x4x4xi64>
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<1x4x2x2xf32>, %s: tensor<2xi64>) -> (tensor<1x16xf32>, tensor<4x4xf32>) {
  // The default axis (1) is elided when printed.
  // CHECK: hl.flatten %{{.*}} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %0 = hl.flatten %x {axis = 1 : si64} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  // CHECK: hl.flatten %{{.*}} {axis = 2 : si64} : (tensor<1x4x2x2xf32>) -> tensor<4x4xf32>
  %2 = hl.flatten %x {axis = 2 : si64} : (tensor<1x4x2x2xf32>) -> tensor<4x4xf32>
  // CHECK: hl.reshape %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  %1 = hl.reshape %0, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return %0, %1 : tensor<1x16xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  // CHECK: hl.softmax %{{.*}} {axis = 1 : si64} : tensor<1x10xf32>
  %0 = hl.softmax %x {axis = 1 : si64} : tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// Ops added for the ONNX importer, family by family.

// CHECK-LABEL: func @unary_ops
func.func @unary_ops(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // CHECK: hl.identity %{{.*}} : tensor<2x3xf32>
  %0 = hl.identity %x : tensor<2x3xf32>
  // CHECK: hl.abs %{{.*}} : tensor<4xi32>
  %1 = hl.abs %i : tensor<4xi32>
  // CHECK: hl.neg %{{.*}} : tensor<2x3xf32>
  %2 = hl.neg %x : tensor<2x3xf32>
  // CHECK: hl.sign %{{.*}} : tensor<2x3xf32>
  %3 = hl.sign %x : tensor<2x3xf32>
  // CHECK: hl.not %{{.*}} : tensor<4xi1>
  %4 = hl.not %b : tensor<4xi1>
  // CHECK: hl.exp %{{.*}} : tensor<2x3xf32>
  %5 = hl.exp %x : tensor<2x3xf32>
  // CHECK: hl.log %{{.*}} : tensor<2x3xf32>
  %6 = hl.log %x : tensor<2x3xf32>
  // CHECK: hl.sqrt %{{.*}} : tensor<2x3xf32>
  %7 = hl.sqrt %x : tensor<2x3xf32>
  // CHECK: hl.reciprocal %{{.*}} : tensor<2x3xf32>
  %8 = hl.reciprocal %x : tensor<2x3xf32>
  // CHECK: hl.sigmoid %{{.*}} : tensor<2x3xf32>
  %9 = hl.sigmoid %x : tensor<2x3xf32>
  // CHECK: hl.tanh %{{.*}} : tensor<2x3xf32>
  %10 = hl.tanh %x : tensor<2x3xf32>
  // CHECK: hl.ceil %{{.*}} : tensor<2x3xf32>
  %11 = hl.ceil %x : tensor<2x3xf32>
  // CHECK: hl.floor %{{.*}} : tensor<2x3xf32>
  %12 = hl.floor %x : tensor<2x3xf32>
  // CHECK: hl.round %{{.*}} : tensor<2x3xf32>
  %13 = hl.round %x : tensor<2x3xf32>
  // CHECK: hl.erf %{{.*}} : tensor<2x3xf32>
  %14 = hl.erf %x : tensor<2x3xf32>
  // CHECK: hl.sin %{{.*}} : tensor<2x3xf32>
  %15 = hl.sin %x : tensor<2x3xf32>
  // CHECK: hl.cos %{{.*}} : tensor<2x3xf32>
  %16 = hl.cos %x : tensor<2x3xf32>
  // CHECK: hl.tan %{{.*}} : tensor<2x3xf32>
  %17 = hl.tan %x : tensor<2x3xf32>
  // CHECK: hl.asin %{{.*}} : tensor<2x3xf32>
  %18 = hl.asin %x : tensor<2x3xf32>
  // CHECK: hl.acos %{{.*}} : tensor<2x3xf32>
  %19 = hl.acos %x : tensor<2x3xf32>
  // CHECK: hl.atan %{{.*}} : tensor<2x3xf32>
  %20 = hl.atan %x : tensor<2x3xf32>
  // CHECK: hl.sinh %{{.*}} : tensor<2x3xf32>
  %21 = hl.sinh %x : tensor<2x3xf32>
  // CHECK: hl.cosh %{{.*}} : tensor<2x3xf32>
  %22 = hl.cosh %x : tensor<2x3xf32>
  // CHECK: hl.asinh %{{.*}} : tensor<2x3xf32>
  %23 = hl.asinh %x : tensor<2x3xf32>
  // CHECK: hl.acosh %{{.*}} : tensor<2x3xf32>
  %24 = hl.acosh %x : tensor<2x3xf32>
  // CHECK: hl.atanh %{{.*}} : tensor<2x3xf32>
  %25 = hl.atanh %x : tensor<2x3xf32>
  // CHECK: hl.softsign %{{.*}} : tensor<2x3xf32>
  %26 = hl.softsign %x : tensor<2x3xf32>
  // CHECK: hl.softplus %{{.*}} : tensor<2x3xf32>
  %27 = hl.softplus %x : tensor<2x3xf32>
  // CHECK: hl.hard_swish %{{.*}} : tensor<2x3xf32>
  %28 = hl.hard_swish %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func @unary_attr_ops
func.func @unary_attr_ops(%x: tensor<2x3xf32>) {
  // CHECK: hl.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  %0 = hl.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK: hl.elu %{{.*}} {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
  %1 = hl.elu %x {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK: hl.celu %{{.*}} {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
  %2 = hl.celu %x {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK: hl.thresholded_relu %{{.*}} {alpha = 5.000000e-01 : f32} : tensor<2x3xf32>
  %3 = hl.thresholded_relu %x {alpha = 5.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK: hl.selu %{{.*}} {alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32} : tensor<2x3xf32>
  %4 = hl.selu %x {alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK: hl.hard_sigmoid %{{.*}} {alpha = 5.000000e-01 : f32, beta = 6.000000e-01 : f32} : tensor<2x3xf32>
  %5 = hl.hard_sigmoid %x {alpha = 5.000000e-01 : f32, beta = 6.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK: hl.shrink %{{.*}} {bias = 1.000000e+00 : f32, lambd = 1.500000e+00 : f32} : tensor<2x3xf32>
  %6 = hl.shrink %x {bias = 1.000000e+00 : f32, lambd = 1.500000e+00 : f32} : tensor<2x3xf32>
  // CHECK: hl.is_nan %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %7 = hl.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: hl.is_inf %{{.*}} {detect_negative = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %8 = hl.is_inf %x {detect_negative = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// CHECK-LABEL: func @binary_ops
func.func @binary_ops(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>, %p: tensor<4xi1>, %q: tensor<4xi1>, %u: tensor<4xui8>, %v: tensor<4xui8>, %e: tensor<i64>) {
  // CHECK: hl.sub %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = hl.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = hl.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.div %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = hl.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.max %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = hl.max %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.min %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = hl.min %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.and %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = hl.and %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: hl.or %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = hl.or %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: hl.xor %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %7 = hl.xor %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: hl.mod %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %8 = hl.mod %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: hl.mod %{{.*}}, %{{.*}} {fmod = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %9 = hl.mod %a, %b {fmod = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.bit_shift %{{.*}}, %{{.*}} {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %10 = hl.bit_shift %u, %v {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: hl.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %11 = hl.pow %a, %e : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  // CHECK: hl.prelu %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %12 = hl.prelu %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %13 = hl.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: hl.less %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %14 = hl.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: hl.less_or_equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %15 = hl.less_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: hl.greater %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %16 = hl.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: hl.greater_or_equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %17 = hl.greater_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return
}

// CHECK-LABEL: func @other_elementwise
func.func @other_elementwise(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %c: tensor<4xi1>) {
  // CHECK: hl.clip %{{.*}} min %{{.*}} max %{{.*}} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %0 = hl.clip %x min %lo max %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: hl.clip %{{.*}} max %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = hl.clip %x max %hi : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: hl.clip %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = hl.clip %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: hl.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = hl.where %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: hl.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xi64>
  %4 = hl.cast %x : (tensor<4xf32>) -> tensor<4xi64>
  return
}

// CHECK-LABEL: func @nn_ops
func.func @nn_ops(%x: tensor<1x2x6x6xf32>, %w: tensor<2x4x3x3xf32>, %c: tensor<2xf32>, %l: tensor<1x8x16xf32>, %s: tensor<16xf32>) {
  // CHECK: hl.conv_transpose %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x13x13xf32>
  %0 = hl.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x13x13xf32>
  // CHECK: hl.average_pool %{{.*}} {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x5x5xf32>
  %1 = hl.average_pool %x {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x5x5xf32>
  // CHECK: hl.global_max_pool %{{.*}} : (tensor<1x2x6x6xf32>) -> tensor<1x2x1x1xf32>
  %2 = hl.global_max_pool %x : (tensor<1x2x6x6xf32>) -> tensor<1x2x1x1xf32>
  // CHECK: hl.batch_normalization %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %3 = hl.batch_normalization %x, %c, %c, %c, %c {epsilon = 1.000000e-03 : f32} : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  // CHECK: hl.instance_normalization %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %4 = hl.instance_normalization %x, %c, %c : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  // CHECK: hl.layer_normalization %{{.*}}, %{{.*}}, %{{.*}} {resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x1xf32>, tensor<1x8x1xf32>)
  %5:3 = hl.layer_normalization %l, %s, %s {resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x1xf32>, tensor<1x8x1xf32>)
  // CHECK: hl.layer_normalization %{{.*}}, %{{.*}} {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
  %6 = hl.layer_normalization %l, %s {resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1x8x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
  // CHECK: hl.lrn %{{.*}} {size = 3 : i64} : tensor<1x2x6x6xf32>
  %7 = hl.lrn %x {size = 3 : i64} : tensor<1x2x6x6xf32>
  // CHECK: hl.mean_variance_normalization %{{.*}} : tensor<1x2x6x6xf32>
  %8 = hl.mean_variance_normalization %x : tensor<1x2x6x6xf32>
  // CHECK: hl.log_softmax %{{.*}} {axis = 1 : si64} : tensor<1x8x16xf32>
  %9 = hl.log_softmax %l {axis = 1 : si64} : tensor<1x8x16xf32>
  // CHECK: hl.hardmax %{{.*}} : tensor<1x8x16xf32>
  %10 = hl.hardmax %l : tensor<1x8x16xf32>
  return
}

// CHECK-LABEL: func @recurrent_ops
func.func @recurrent_ops(%x: tensor<5x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>, %gw: tensor<1x12x2xf32>, %gr: tensor<1x12x4xf32>, %lw: tensor<1x16x2xf32>, %lr: tensor<1x16x4xf32>, %lb: tensor<1x32xf32>) {
  // CHECK: hl.rnn %{{.*}}, %{{.*}}, %{{.*}} {hidden_size = 4 : i64, resultSegmentSizes = array<i32: 1, 1>} : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x3x4xf32>, tensor<1x3x4xf32>)
  %0:2 = hl.rnn %x, %w, %r {hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x3x4xf32>, tensor<1x3x4xf32>)
  // CHECK: hl.gru %{{.*}}, %{{.*}}, %{{.*}} {hidden_size = 4 : i64, linear_before_reset = 1 : i64, resultSegmentSizes = array<i32: 0, 1>} : (tensor<5x3x2xf32>, tensor<1x12x2xf32>, tensor<1x12x4xf32>) -> tensor<1x3x4xf32>
  %1 = hl.gru %x, %gw, %gr {hidden_size = 4 : i64, linear_before_reset = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1>} : (tensor<5x3x2xf32>, tensor<1x12x2xf32>, tensor<1x12x4xf32>) -> tensor<1x3x4xf32>
  // CHECK: hl.lstm %{{.*}}, %{{.*}}, %{{.*}} B %{{.*}} {activations = ["Sigmoid", "Tanh", "Tanh"], hidden_size = 4 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<5x3x2xf32>, tensor<1x16x2xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>) -> (tensor<5x1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
  %2:3 = hl.lstm %x, %lw, %lr B %lb {activations = ["Sigmoid", "Tanh", "Tanh"], hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<5x3x2xf32>, tensor<1x16x2xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>) -> (tensor<5x1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
  return
}

// CHECK-LABEL: func @quant_ops
func.func @quant_ops(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %q: tensor<4x3xui8>, %p: tensor<3x2xui8>, %img: tensor<1x1x3x3xui8>, %k: tensor<1x1x2x2xui8>, %ks: tensor<1xf32>, %kz: tensor<1xui8>) {
  // CHECK: hl.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %0 = hl.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  // CHECK: hl.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %1 = hl.dequantize_linear %0, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // CHECK: hl.dynamic_quantize_linear %{{.*}} : (tensor<4xf32>) -> (tensor<4xui8>, tensor<f32>, tensor<ui8>)
  %2:3 = hl.dynamic_quantize_linear %x : (tensor<4xf32>) -> (tensor<4xui8>, tensor<f32>, tensor<ui8>)
  // CHECK: hl.matmul_integer %{{.*}}, %{{.*}} a_zero_point %{{.*}} : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>) -> tensor<4x2xi32>
  %3 = hl.matmul_integer %q, %p a_zero_point %z : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>) -> tensor<4x2xi32>
  // CHECK: hl.conv_integer %{{.*}}, %{{.*}} x_zero_point %{{.*}} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>) -> tensor<1x1x2x2xi32>
  %4 = hl.conv_integer %img, %k x_zero_point %z : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>) -> tensor<1x1x2x2xi32>
  // CHECK: hl.qlinear_matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  %5 = hl.qlinear_matmul %q, %s, %z, %p, %s, %z, %s, %z : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  // CHECK: hl.qlinear_conv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x2x2xui8>, tensor<1xf32>, tensor<1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  %6 = hl.qlinear_conv %img, %s, %z, %k, %ks, %kz, %s, %z : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x2x2xui8>, tensor<1xf32>, tensor<1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  return
}

// CHECK-LABEL: func @reduction_ops
func.func @reduction_ops(%x: tensor<2x3x4xf32>, %a: tensor<1xi64>) {
  // CHECK: hl.reduce_sum %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %0 = hl.reduce_sum %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_mean %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %1 = hl.reduce_mean %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_max %{{.*}}, %{{.*}} {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %2 = hl.reduce_max %x, %a {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  // CHECK: hl.reduce_min %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %3 = hl.reduce_min %x : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: hl.reduce_prod %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %4 = hl.reduce_prod %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_l1 %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %5 = hl.reduce_l1 %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_l2 %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %6 = hl.reduce_l2 %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_log_sum %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %7 = hl.reduce_log_sum %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_log_sum_exp %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %8 = hl.reduce_log_sum_exp %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_sum_square %{{.*}}, %{{.*}} {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %9 = hl.reduce_sum_square %x, %a {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  // CHECK: hl.arg_max %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %10 = hl.arg_max %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: hl.arg_min %{{.*}} {axis = -1 : i64, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %11 = hl.arg_min %x {axis = -1 : i64, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  return
}

// CHECK-LABEL: func @signal_ops
func.func @signal_ops(%x: tensor<1x8x1xf32>, %sig: tensor<1x128x1xf32>, %step: tensor<i64>, %win: tensor<16xf32>, %n: tensor<i64>, %f: tensor<f32>) {
  // CHECK: hl.dft %{{.*}} : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
  %0 = hl.dft %x : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
  // CHECK: hl.stft %{{.*}}, %{{.*}} window %{{.*}} : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %1 = hl.stft %sig, %step window %win : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  // CHECK: hl.hann_window %{{.*}} : (tensor<i64>) -> tensor<10xf32>
  %2 = hl.hann_window %n : (tensor<i64>) -> tensor<10xf32>
  // CHECK: hl.hamming_window %{{.*}} {periodic = 0 : i64} : (tensor<i64>) -> tensor<10xf32>
  %3 = hl.hamming_window %n {periodic = 0 : i64} : (tensor<i64>) -> tensor<10xf32>
  // CHECK: hl.blackman_window %{{.*}} : (tensor<i64>) -> tensor<10xf64>
  %4 = hl.blackman_window %n : (tensor<i64>) -> tensor<10xf64>
  // CHECK: hl.mel_weight_matrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  %5 = hl.mel_weight_matrix %n, %n, %n, %f, %f : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  return
}

// CHECK-LABEL: func @tensor_ops
func.func @tensor_ops(%x: tensor<2x3xf32>, %y: tensor<2x2xf32>, %i: tensor<2xi64>, %s: tensor<2xi64>, %i0: tensor<i64>, %idx: tensor<2x3xi64>, %one: tensor<1xi64>) {
  // CHECK: hl.shape %{{.*}} : (tensor<2x3xf32>) -> tensor<2xi64>
  %0 = hl.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
  // CHECK: hl.shape %{{.*}} {end = 1 : i64, start = -1 : i64} : (tensor<2x3xf32>) -> tensor<0xi64>
  %1 = hl.shape %x {end = 1 : i64, start = -1 : i64} : (tensor<2x3xf32>) -> tensor<0xi64>
  // CHECK: hl.size %{{.*}} : (tensor<2x3xf32>) -> tensor<i64>
  %2 = hl.size %x : (tensor<2x3xf32>) -> tensor<i64>
  // CHECK: hl.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = hl.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: hl.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %4 = hl.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  // CHECK: hl.split %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
  %5:2 = hl.split %x, %s {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
  // CHECK: hl.slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x?xf32>
  %6 = hl.slice %x, %one, %one, %one, %one : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x?xf32>
  // CHECK: hl.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
  %7 = hl.gather %x, %i0 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
  // CHECK: hl.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %8 = hl.gather_elements %x, %idx {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  // CHECK: hl.gather_nd %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  %9 = hl.gather_nd %x, %i : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  // CHECK: hl.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = hl.scatter_elements %x, %idx, %x {axis = 1 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: hl.squeeze %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<2x2xf32>
  %11 = hl.squeeze %y, %one : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<2x2xf32>
  // CHECK: hl.unsqueeze %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  %12 = hl.unsqueeze %x, %one : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  // CHECK: hl.expand %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %13 = hl.expand %x, %i : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK: hl.tile %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  %14 = hl.tile %x, %i : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return
}

// CHECK-LABEL: func @tensor_ops2
func.func @tensor_ops2(%x: tensor<3x2xf32>, %p: tensor<4xi64>, %v: tensor<f32>, %shape: tensor<2xi64>, %k: tensor<i64>, %b: tensor<3xi1>, %n: tensor<1x8x2x3xf32>, %len: tensor<3xi64>, %ax: tensor<i32>, %k1: tensor<1xi64>, %upd: tensor<3xf32>, %nd: tensor<3x1xi64>, %two: tensor<2xf32>) {
  // CHECK: hl.pad %{{.*}}, %{{.*}}, %{{.*}} {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  %0 = hl.pad %x, %p, %v {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  // CHECK: hl.constant_of_shape %{{.*}} {value = dense<1.000000e+00> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  %1 = hl.constant_of_shape %shape {value = dense<1.000000e+00> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK: hl.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %2 = hl.range %v, %v, %v : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  // CHECK: hl.depth_to_space %{{.*}} {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %3 = hl.depth_to_space %n {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK: hl.space_to_depth %{{.*}} {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %4 = hl.space_to_depth %3 {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  // CHECK: hl.trilu %{{.*}}, %{{.*}} {upper = 0 : i64} : (tensor<3x2xf32>, tensor<i64>) -> tensor<3x2xf32>
  %5 = hl.trilu %x, %k {upper = 0 : i64} : (tensor<3x2xf32>, tensor<i64>) -> tensor<3x2xf32>
  // CHECK: hl.one_hot %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x?xf32>
  %6 = hl.one_hot %len, %k, %two : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x?xf32>
  // CHECK: hl.non_zero %{{.*}} : (tensor<3x2xf32>) -> tensor<2x?xi64>
  %7 = hl.non_zero %x : (tensor<3x2xf32>) -> tensor<2x?xi64>
  // CHECK: hl.compress %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3xi1>) -> tensor<?x2xf32>
  %8 = hl.compress %x, %b {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3xi1>) -> tensor<?x2xf32>
  // CHECK: hl.reverse_sequence %{{.*}}, %{{.*}} {batch_axis = 0 : i64, time_axis = 1 : i64} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %9 = hl.reverse_sequence %x, %len {batch_axis = 0 : i64, time_axis = 1 : i64} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  // CHECK: hl.eye_like %{{.*}} {k = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xi32>
  %10 = hl.eye_like %x {k = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xi32>
  // CHECK: hl.top_k %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3x2xf32>, tensor<1xi64>) -> (tensor<1x2xf32>, tensor<1x2xi64>)
  %11:2 = hl.top_k %x, %k1 {axis = 0 : i64} : (tensor<3x2xf32>, tensor<1xi64>) -> (tensor<1x2xf32>, tensor<1x2xi64>)
  // CHECK: hl.cum_sum %{{.*}}, %{{.*}} {exclusive = 1 : i64} : (tensor<3x2xf32>, tensor<i32>) -> tensor<3x2xf32>
  %12 = hl.cum_sum %x, %ax {exclusive = 1 : i64} : (tensor<3x2xf32>, tensor<i32>) -> tensor<3x2xf32>
  // CHECK: hl.einsum %{{.*}}, %{{.*}} {equation = "ij,kj->ik"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  %13 = hl.einsum %x, %x {equation = "ij,kj->ik"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  // CHECK: hl.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<3x1xi64>, tensor<3xf32>) -> tensor<3xf32>
  %14 = hl.scatter_nd %upd, %nd, %upd : (tensor<3xf32>, tensor<3x1xi64>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// CHECK-LABEL: func @resize_ops
func.func @resize_ops(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>, %roi: tensor<8xf32>) {
  // CHECK: hl.resize %{{.*}} scales %{{.*}} {mode = "linear"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  %0 = hl.resize %x scales %s {mode = "linear"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: hl.resize %{{.*}} roi %{{.*}} sizes %{{.*}} {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x2x2xf32>, tensor<8xf32>, tensor<4xi64>) -> tensor<1x1x3x3xf32>
  %1 = hl.resize %x roi %roi sizes %z {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x2x2xf32>, tensor<8xf32>, tensor<4xi64>) -> tensor<1x1x3x3xf32>
  return
}

// CHECK-LABEL: func @vision_ops
func.func @vision_ops(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>, %img: tensor<1x1x10x10xf32>, %rois: tensor<3x4xf32>, %bi: tensor<3xi64>, %grid: tensor<1x6x6x2xf32>, %p: tensor<1x1x2x2xf32>, %pi: tensor<1x1x2x2xi64>, %v: tensor<6xf32>, %mat: tensor<2x3x3xf32>) {
  // CHECK: hl.non_max_suppression %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {center_point_box = 1 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  %0 = hl.non_max_suppression %boxes, %scores, %m, %t, %t {center_point_box = 1 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  // CHECK: hl.roi_align %{{.*}}, %{{.*}}, %{{.*}} {output_height = 5 : i64, output_width = 5 : i64} : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
  %1 = hl.roi_align %img, %rois, %bi {output_height = 5 : i64, output_width = 5 : i64} : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
  // CHECK: hl.grid_sample %{{.*}}, %{{.*}} {mode = "nearest"} : (tensor<1x1x10x10xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
  %2 = hl.grid_sample %img, %grid {mode = "nearest"} : (tensor<1x1x10x10xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: hl.max_unpool %{{.*}}, %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  %3 = hl.max_unpool %p, %pi {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  // CHECK: hl.unique %{{.*}} {sorted = 0 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %4:4 = hl.unique %v {sorted = 0 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  // CHECK: hl.det %{{.*}} : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %5 = hl.det %mat : (tensor<2x3x3xf32>) -> tensor<2xf32>
  return
}

// CHECK-LABEL: func @control_flow
func.func @control_flow(%c: tensor<i1>, %n: tensor<i64>, %x: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<?xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>) {
  // CHECK: hl.if %{{.*}} : (tensor<i1>) -> tensor<?xf32> {
  // CHECK-NEXT: hl.yield %{{.*}} : tensor<2xf32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: hl.yield %{{.*}} : tensor<3x2xf32>
  %0 = hl.if %c : (tensor<i1>) -> tensor<?xf32> {
    hl.yield %x : tensor<2xf32>
  } else {
    hl.yield %xs : tensor<3x2xf32>
  }
  // CHECK: hl.loop max %{{.*}} cond %{{.*}} init(%{{.*}}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2xf32>):
  // CHECK: hl.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  %1:2 = hl.loop max %n cond %c init(%x) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = hl.add %acc, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hl.yield %cond, %next, %next : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  // CHECK: hl.scan %{{.*}}, %{{.*}} {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>):
  %2:2 = hl.scan %x, %xs {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%s: tensor<2xf32>, %e: tensor<2xf32>):
    %sum = hl.add %s, %e : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hl.yield %sum, %sum : tensor<2xf32>, tensor<2xf32>
  }
  return %0, %1#0, %2#1, %2#0 : tensor<?xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>
}
