// strata-form-quantized-ops: dequantize -> conv2d/matmul -> epilogue ->
// quantize chains on edge become integer ops, and the int8 kernels compute
// what the float chain computes. The reference is the float chain run by
// the f32 conv2d, mul/add and quantize kernels (a separate code path):
// every output must be identical (atol 0).
// RUN: strata-opt %s --split-input-file --strata-form-quantized-ops | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata-opt %S/Inputs/conv-chain.mlir --strata-edge-to-exec | strata-translate --emit-program -o %t/float.strata
// RUN: strata-opt %S/Inputs/conv-chain.mlir --strata-form-quantized-ops --strata-edge-to-exec | strata-translate --emit-program -o %t/int8.strata
// RUN: strata-dump %t/int8.strata | FileCheck %s --check-prefix=DUMP
// DUMP: operators: #0 quantize_linear #1 quantized_conv2d #2 dequantize_linear{{$}}
// RUN: strata-run %t/float.strata --seed 3 --output-dir %t/ref
// RUN: strata-run %t/int8.strata --seed 3 --expect %t/ref --atol 0 --rtol 0 --rel-l2 0 | FileCheck %s --check-prefix=SAME
// RUN: strata-run %t/float.strata --seed 11 --output-dir %t/ref11
// RUN: strata-run %t/int8.strata --seed 11 --expect %t/ref11 --atol 0 --rtol 0 --rel-l2 0 | FileCheck %s --check-prefix=SAME
// SAME: output 0: PASS
// SiLU and hardswish as exporters spell them out become the epilogue's
// activation. Both results agree with the float chain's to the float
// rounding of its accumulation (measured: the requantized one identical, the
// f32 one max_abs 1.2e-6, rel-L2 2e-7).
// RUN: strata-opt %S/Inputs/conv-activation-chain.mlir --strata-form-quantized-ops | FileCheck %s --check-prefix=ACT
// ACT: edge.quantized_conv2d {{.*}} requantize({{.*}}) {activation = "swish"
// ACT: edge.quantized_conv2d {{.*}} {activation = "hardswish"
// ACT-NOT: edge.sigmoid
// ACT-NOT: edge.clip
// RUN: strata-opt %S/Inputs/conv-activation-chain.mlir --strata-edge-to-exec | strata-translate --emit-program -o %t/act-float.strata
// RUN: strata-opt %S/Inputs/conv-activation-chain.mlir --strata-form-quantized-ops --strata-edge-to-exec | strata-translate --emit-program -o %t/act-int8.strata
// RUN: strata-run %t/act-float.strata --seed 3 --output-dir %t/act-ref
// RUN: strata-run %t/act-int8.strata --seed 3 --expect %t/act-ref --atol 1e-5 --rtol 0 --rel-l2 1e-6 | FileCheck %s --check-prefix=ACTOUT
// ACTOUT: output 0: PASS
// ACTOUT: output 1: PASS

// The whole chain: batch-normalization scale and shift folded into the
// per-channel scale (0.01 * 1.5, 0.02 * 0.5, 0.005 * -1, 0.03 * 2) and the
// bias (0.1 * 1.5 + 0.25, -0.2 * 0.5 - 0.5, 0.3 * -1 + 0.125, 0), the
// residual, the relu and the requantization.
// CHECK-LABEL: func.func @conv_chain
// CHECK-DAG: %[[BIAS:.*]] = edge.constant dense<[4.000000e-01, -6.000000e-01, -0.175000012, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[SCALE:.*]] = edge.constant dense<[1.500000e-02, 0.00999999977, -5.000000e-03, 6.000000e-02]> : tensor<4xf32>
// CHECK-DAG: %[[XQ:.*]] = edge.quantize_linear %arg0
// CHECK-DAG: %[[RQ:.*]] = edge.quantize_linear %arg1
// CHECK: %[[Y:.*]] = edge.quantized_conv2d %[[XQ]](%{{.*}}, %{{.*}}), %{{.*}}(%[[SCALE]], %{{.*}}), bias %[[BIAS]] residual %[[RQ]](%{{.*}}, %{{.*}}) requantize(%{{.*}}, %{{.*}}) {clip_min = 0.000000e+00 : f32
// CHECK-NOT: edge.conv2d
// CHECK-NOT: edge.relu
// CHECK: edge.dequantize_linear %[[Y]]
func.func @conv_chain(%x: tensor<1x3x6x6xf32>, %r: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %xs = edge.constant dense<0.05> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %rs = edge.constant dense<0.04> : tensor<f32>
  %ys = edge.constant dense<0.06> : tensor<f32>
  %wq = edge.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-10, 11, 12], [13, -14, 15], [16, 17, -18]], [[19, 20, 21], [-22, 23, 24], [25, 26, -27]]], [[[127, -127, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4], [5, 5, 5]], [[6, 6, 6], [7, 7, 7], [8, 8, 8]]], [[[-1, -1, -1], [-2, -2, -2], [-3, -3, -3]], [[-4, -4, -4], [-5, -5, -5], [-6, -6, -6]], [[-7, -7, -7], [-8, -8, -8], [-9, -9, -9]]], [[[50, 0, -50], [0, 50, 0], [-50, 0, 50]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[9, 8, 7], [6, 5, 4], [3, 2, 1]]]]> : tensor<4x3x3x3xi8>
  %ws = edge.constant dense<[0.01, 0.02, 0.005, 0.03]> : tensor<4xf32>
  %wz = edge.constant dense<0> : tensor<4xi8>
  %b = edge.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %k = edge.constant dense<[[[[1.5]], [[0.5]], [[-1.0]], [[2.0]]]]> : tensor<1x4x1x1xf32>
  %c = edge.constant dense<[[[[0.25]], [[-0.5]], [[0.125]], [[0.0]]]]> : tensor<1x4x1x1xf32>
  %xq = edge.quantize_linear %x, %xs, %z {axis = 0 : i64} : (tensor<1x3x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x6x6xi8>
  %xd = edge.dequantize_linear %xq, %xs, %z {axis = 0 : i64} : (tensor<1x3x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x6x6xf32>
  %rq = edge.quantize_linear %r, %rs, %z {axis = 0 : i64} : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xi8>
  %rd = edge.dequantize_linear %rq, %rs, %z {axis = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xf32>
  %wd = edge.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x3x3x3xf32>
  %conv = edge.conv2d %xd, %wd, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %m = edge.mul %conv, %k : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = edge.add %m, %c : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %s = edge.add %a, %rd : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %relu = edge.relu %s : tensor<1x4x6x6xf32>
  %yq = edge.quantize_linear %relu, %ys, %z {axis = 0 : i64} : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xi8>
  %y = edge.dequantize_linear %yq, %ys, %z {axis = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// A Gemm-style matmul: the transposed weight is stored as [K, N] int8 with
// its per-row scales now per column; the bias add and relu are fused and,
// with no quantize after, the result stays f32.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[W:.*]] = edge.constant dense<{{\[}}[1, 3, 5], [2, 4, 6]]> : tensor<2x3xi8>
// CHECK: %[[Y:.*]] = edge.quantized_matmul %{{.*}}(%{{.*}}, %{{.*}}), %[[W]](%{{.*}}, %{{.*}}), bias %{{.*}} {clip_min = 0.000000e+00 : f32} : {{.*}} -> tensor<4x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %s = edge.constant dense<0.1> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %wq = edge.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %ws = edge.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %wz = edge.constant dense<0> : tensor<3xi8>
  %b = edge.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %xq = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4x2xf32>, tensor<f32>, tensor<i8>) -> tensor<4x2xi8>
  %xd = edge.dequantize_linear %xq, %s, %z {axis = 0 : i64} : (tensor<4x2xi8>, tensor<f32>, tensor<i8>) -> tensor<4x2xf32>
  %wd = edge.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<3x2xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2xf32>
  %wt = edge.transpose %wd {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %mm = edge.matmul %xd, %wt : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %add = edge.add %mm, %b : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  %y = edge.relu %add : tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Left alone: a weight computed at run time, and an activation quantized
// per channel.
// CHECK-LABEL: func.func @not_quantized
// CHECK-NOT: quantized_conv2d
// CHECK: edge.conv2d
// CHECK: edge.conv2d
func.func @not_quantized(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %s = edge.constant dense<0.1> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %s2 = edge.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %z2 = edge.constant dense<0> : tensor<2xi8>
  %xq = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %xd = edge.dequantize_linear %xq, %s, %z {axis = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %y0 = edge.conv2d %xd, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %cq = edge.quantize_linear %x, %s2, %z2 {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x4x4xi8>
  %cd = edge.dequantize_linear %cq, %s2, %z2 {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x4x4xf32>
  %wq = edge.constant dense<1> : tensor<2x2x1x1xi8>
  %wd = edge.dequantize_linear %wq, %s2, %z2 {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x1x1xf32>
  %y1 = edge.conv2d %cd, %wd {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y0, %y1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A weight dequantization no integer op took (its activation stays float,
// as mixed precision may leave it) folds to the f32 constant it computes,
// (q - zero point) * scale per output channel, so that delegates get a
// constant weight to pack.
// CHECK-LABEL: func.func @float_layer_weight
// CHECK: %[[W:.*]] = edge.constant dense<{{.*}}2.000000e-01{{.*}}-1.000000e-01{{.*}}4.000000e-01{{.*}}0.000000e+00{{.*}}> : tensor<2x2x1x1xf32>
// CHECK-NOT: edge.dequantize_linear
// CHECK: edge.conv2d %arg0, %[[W]]
func.func @float_layer_weight(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = edge.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %z = edge.constant dense<[0, 1]> : tensor<2xi8>
  %wq = edge.constant dense<[[[[2]], [[-1]]], [[[3]], [[1]]]]> : tensor<2x2x1x1xi8>
  %wd = edge.dequantize_linear %wq, %s, %z {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x1x1xf32>
  %y = edge.conv2d %x, %wd {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
