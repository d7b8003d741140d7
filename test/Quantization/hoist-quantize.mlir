// strata-form-quantized-ops moves a per-tensor quantize above the ops it
// commutes with exactly (max pooling, concat, reshape, transpose), so that
// the convolutions before them requantize into int8 and the pooling and
// concatenation run on int8 values. The reference is the float chain run
// by the f32 conv2d, concat, max_pool2d and quantize kernels: every output
// must be identical (atol 0).
// RUN: strata-opt %s --split-input-file --strata-form-quantized-ops | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata-opt %S/Inputs/pool-concat-chain.mlir --strata-edge-to-exec | strata-translate --emit-program -o %t/float.strata
// RUN: strata-opt %S/Inputs/pool-concat-chain.mlir --strata-form-quantized-ops --strata-edge-to-exec | strata-translate --emit-program -o %t/int8.strata
// RUN: strata-dump %t/int8.strata | FileCheck %s --check-prefix=DUMP
// DUMP: operators: #0 quantize_linear #1 quantized_conv2d #2 concat #3 max_pool2d #4 dequantize_linear{{$}}
// DUMP-DAG: i8[1x6x6x6] arena
// DUMP-DAG: i8[1x6x3x3] arena
// RUN: strata-run %t/float.strata --seed 3 --output-dir %t/ref3
// RUN: strata-run %t/int8.strata --seed 3 --expect %t/ref3 --atol 0 --rtol 0 --rel-l2 0 | FileCheck %s --check-prefix=SAME
// RUN: strata-run %t/float.strata --seed 17 --output-dir %t/ref17
// RUN: strata-run %t/int8.strata --seed 17 --expect %t/ref17 --atol 0 --rtol 0 --rel-l2 0 | FileCheck %s --check-prefix=SAME
// SAME: output 0: PASS

// Through max pooling and concat: one quantize per concat input, with the
// shared scale, and both convolutions requantize into it.
// CHECK-LABEL: func.func @pool_concat
// CHECK: %[[A:.*]] = edge.quantized_conv2d {{.*}} requantize(%[[S:[^,]*]], %[[Z:[^)]*]]) {{.*}} -> tensor<1x2x6x6xi8>
// CHECK: %[[B:.*]] = edge.quantized_conv2d {{.*}} requantize(%[[S]], %[[Z]]) {{.*}} -> tensor<1x4x6x6xi8>
// CHECK: %[[CAT:.*]] = edge.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<1x2x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x6x6x6xi8>
// CHECK: %[[POOL:.*]] = edge.max_pool2d %[[CAT]] {{.*}} : (tensor<1x6x6x6xi8>) -> tensor<1x6x3x3xi8>
// CHECK: edge.dequantize_linear %[[POOL]], %[[S]], %[[Z]]
// CHECK-NOT: edge.quantize_linear
func.func @pool_concat(%xq: tensor<1x2x6x6xi8>) -> tensor<1x6x3x3xf32> {
  %xs = edge.constant dense<0.05> : tensor<f32>
  %ys = edge.constant dense<0.03> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %wa = edge.constant dense<1> : tensor<2x2x3x3xi8>
  %wb = edge.constant dense<2> : tensor<4x2x1x1xi8>
  %was = edge.constant dense<[0.01, 0.02]> : tensor<2xf32>
  %wbs = edge.constant dense<[0.005, 0.01, 0.02, 0.004]> : tensor<4xf32>
  %wza = edge.constant dense<0> : tensor<2xi8>
  %wzb = edge.constant dense<0> : tensor<4xi8>
  %xd = edge.dequantize_linear %xq, %xs, %z {axis = 0 : i64} : (tensor<1x2x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x6x6xf32>
  %wad = edge.dequantize_linear %wa, %was, %wza {axis = 0 : i64} : (tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x3x3xf32>
  %wbd = edge.dequantize_linear %wb, %wbs, %wzb {axis = 0 : i64} : (tensor<4x2x1x1xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x2x1x1xf32>
  %ca = edge.conv2d %xd, %wad {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  %ra = edge.relu %ca : tensor<1x2x6x6xf32>
  %cb = edge.conv2d %xd, %wbd {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32>
  %cat = edge.concat %ra, %cb {axis = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x6x6x6xf32>
  %pool = edge.max_pool2d %cat {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x6x6xf32>) -> tensor<1x6x3x3xf32>
  %yq = edge.quantize_linear %pool, %ys, %z {axis = 0 : i64} : (tensor<1x6x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x6x3x3xi8>
  %y = edge.dequantize_linear %yq, %ys, %z {axis = 0 : i64} : (tensor<1x6x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}

// -----

// Through a reshape and a transpose (data movement), keeping the
// quantized type.
// CHECK-LABEL: func.func @movement
// CHECK: %[[Q:.*]] = edge.quantize_linear %arg0, {{.*}} -> tensor<2x6x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: %[[T:.*]] = edge.transpose %[[Q]] {{.*}} -> tensor<6x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: %[[R:.*]] = edge.reshape %[[T]] {{.*}} -> tensor<3x4x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: return %[[R]]
func.func @movement(%x: tensor<2x6xf32>) -> tensor<3x4x!quant.uniform<i8:f32, 0.25>> {
  %s = edge.constant dense<0.25> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %t = edge.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x6xf32>) -> tensor<6x2xf32>
  %r = edge.reshape %t : (tensor<6x2xf32>) -> tensor<3x4xf32>
  %q = edge.quantize_linear %r, %s, %z {axis = 0 : i64} : (tensor<3x4xf32>, tensor<f32>, tensor<i8>) -> tensor<3x4x!quant.uniform<i8:f32, 0.25>>
  return %q : tensor<3x4x!quant.uniform<i8:f32, 0.25>>
}

// -----

// Left alone: a pooled value that is also read in float, and a
// quantization per channel (the parts of a concat would need one scale
// each along the concatenated axis).
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[P:.*]] = edge.max_pool2d %arg0 {{.*}} -> tensor<1x2x2x2xf32>
// CHECK: edge.quantize_linear %[[P]]
// CHECK: %[[C:.*]] = edge.concat %arg0, %arg0 {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: edge.quantize_linear %[[C]]
func.func @left_alone(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x4x4x4xi8>) {
  %s = edge.constant dense<0.1> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %s4 = edge.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %z4 = edge.constant dense<0> : tensor<4xi8>
  %p = edge.max_pool2d %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %pq = edge.quantize_linear %p, %s, %z {axis = 0 : i64} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %c = edge.concat %x, %x {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %cq = edge.quantize_linear %c, %s4, %z4 {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x4x4xi8>
  return %p, %pq, %cq : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x4x4x4xi8>
}
