// RUN: strata-opt %s -split-input-file --canonicalize | FileCheck %s

// Tests that torchvision's detection transform folds: the pads of its
// batching Pad are ceil(ReduceMax([320.]) / 32) * 32 - 320 computed in
// float and cast to int64 (ceil(10.0) * 32 - 320 = 0; with 330, 11*32 - 330
// = 22).
// CHECK-LABEL: func @detection_pads
func.func @detection_pads() -> (tensor<i64>, tensor<i64>) {
  // CHECK-DAG: %[[ZERO:.*]] = hl.constant dense<0> : tensor<i64>
  // CHECK-DAG: %[[PAD:.*]] = hl.constant dense<22> : tensor<i64>
  // CHECK-NOT: hl.reduce_max
  // CHECK-NOT: hl.ceil
  // CHECK: return %[[ZERO]], %[[PAD]]
  %size = hl.constant dense<3.200000e+02> : tensor<1xf32>
  %odd = hl.constant dense<3.300000e+02> : tensor<1xf32>
  %stride = hl.constant dense<3.200000e+01> : tensor<f32>
  %stride_i = hl.constant dense<32> : tensor<i64>
  %m0 = hl.reduce_max %size {keepdims = 0 : i64} : (tensor<1xf32>) -> tensor<f32>
  %m1 = hl.reduce_max %odd {keepdims = 0 : i64} : (tensor<1xf32>) -> tensor<f32>
  %d0 = hl.div %m0, %stride : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %d1 = hl.div %m1, %stride : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c0 = hl.ceil %d0 : tensor<f32>
  %c1 = hl.ceil %d1 : tensor<f32>
  %i0 = hl.cast %c0 : (tensor<f32>) -> tensor<i64>
  %i1 = hl.cast %c1 : (tensor<f32>) -> tensor<i64>
  %s0 = hl.mul %i0, %stride_i : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s1 = hl.mul %i1, %stride_i : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %o0 = hl.cast %m0 : (tensor<f32>) -> tensor<i64>
  %o1 = hl.cast %m1 : (tensor<f32>) -> tensor<i64>
  %p0 = hl.sub %s0, %o0 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %p1 = hl.sub %s1, %o1 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %p0, %p1 : tensor<i64>, tensor<i64>
}

// -----

// Tests the rounding ops' modes: floor(-1.5) = -2, ceil(-1.5) = -1,
// round half to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2).
// CHECK-LABEL: func @rounding
func.func @rounding() -> (tensor<f32>, tensor<f32>, tensor<4xf32>) {
  // CHECK-DAG: hl.constant dense<-2.000000e+00> : tensor<f32>
  // CHECK-DAG: hl.constant dense<-1.000000e+00> : tensor<f32>
  // CHECK-DAG: hl.constant dense<[0.000000e+00, 2.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
  // CHECK-NOT: hl.floor
  // CHECK-NOT: hl.round
  %x = hl.constant dense<-1.500000e+00> : tensor<f32>
  %h = hl.constant dense<[0.5, 1.5, 2.5, -2.5]> : tensor<4xf32>
  %f = hl.floor %x : tensor<f32>
  %c = hl.ceil %x : tensor<f32>
  %r = hl.round %h : tensor<4xf32>
  return %f, %c, %r : tensor<f32>, tensor<f32>, tensor<4xf32>
}

// -----

// Tests that float arithmetic folds as one f32 operation, correctly
// rounded: 1 / 3 in f32 is 0x3EAAAAAB (0.333333343); 2^24 + 1 as f32 is
// 2^24 (0x4B800000, to even).
// CHECK-LABEL: func @float_arithmetic
func.func @float_arithmetic() -> (tensor<f32>, tensor<f32>, tensor<2xf32>) {
  // CHECK-DAG: hl.constant dense<0.333333343> : tensor<f32>
  // CHECK-DAG: hl.constant dense<0x4B800000> : tensor<f32>
  // CHECK-DAG: hl.constant dense<[-1.000000e+00, 4.500000e+00]> : tensor<2xf32>
  %one = hl.constant dense<1.0> : tensor<f32>
  %three = hl.constant dense<3.0> : tensor<f32>
  %big = hl.constant dense<16777217> : tensor<i64>
  %v = hl.constant dense<[1.0, -4.5]> : tensor<2xf32>
  %q = hl.div %one, %three : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b = hl.cast %big : (tensor<i64>) -> tensor<f32>
  %n = hl.neg %v : tensor<2xf32>
  %a = hl.abs %n : tensor<2xf32>
  %s = hl.sub %n, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %t = hl.add %s, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %u = hl.mul %t, %one : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %q, %b, %u : tensor<f32>, tensor<f32>, tensor<2xf32>
}

// -----

// Tests min, max and the order-free reductions: max over axis 1 of
// [[1, 5, 2], [7, 0, 3]] is [5, 7]; the product of a shape [2, 3, 4] is
// 24; min(300, 17) = 17; min and max of floats.
// CHECK-LABEL: func @min_max_reductions
func.func @min_max_reductions() -> (tensor<2xi64>, tensor<i64>, tensor<1xi64>, tensor<f32>, tensor<f32>) {
  // CHECK-DAG: hl.constant dense<[5, 7]> : tensor<2xi64>
  // CHECK-DAG: hl.constant dense<24> : tensor<i64>
  // CHECK-DAG: hl.constant dense<17> : tensor<1xi64>
  // CHECK-DAG: hl.constant dense<-3.000000e+00> : tensor<f32>
  // CHECK-DAG: hl.constant dense<2.500000e+00> : tensor<f32>
  // CHECK-NOT: hl.reduce
  // CHECK-NOT: hl.min
  // CHECK-NOT: hl.max
  %m = hl.constant dense<[[1, 5, 2], [7, 0, 3]]> : tensor<2x3xi64>
  %axis = hl.constant dense<1> : tensor<1xi64>
  %shape = hl.constant dense<[2, 3, 4]> : tensor<3xi64>
  %k = hl.constant dense<[300, 17]> : tensor<2xi64>
  %a = hl.constant dense<-3.0> : tensor<f32>
  %b = hl.constant dense<2.5> : tensor<f32>
  %0 = hl.reduce_max %m, %axis {keepdims = 0 : i64} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2xi64>
  %1 = hl.reduce_prod %shape {keepdims = 0 : i64} : (tensor<3xi64>) -> tensor<i64>
  %2 = hl.reduce_min %k {keepdims = 1 : i64} : (tensor<2xi64>) -> tensor<1xi64>
  %3 = hl.min %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %4 = hl.max %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<2xi64>, tensor<i64>, tensor<1xi64>, tensor<f32>, tensor<f32>
}

// -----

// Tests what stays for the kernels: a float sum (its value depends on the
// order of additions), a cast out of the integer range and of NaN (left
// undefined by the kernels), a max of -0 and +0 and of NaN (rules differ
// between backends).
// CHECK-LABEL: func @not_folded
func.func @not_folded() -> (tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) {
  // CHECK: hl.reduce_sum
  // CHECK: hl.cast
  // CHECK: hl.cast
  // CHECK: hl.max
  // CHECK: hl.max
  %v = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %big = hl.constant dense<1.0e+20> : tensor<f32>
  %nan = hl.constant dense<0x7FC00000> : tensor<f32>
  %pz = hl.constant dense<0.0> : tensor<f32>
  %nz = hl.constant dense<-0.0> : tensor<f32>
  %0 = hl.reduce_sum %v {keepdims = 0 : i64} : (tensor<2xf32>) -> tensor<f32>
  %1 = hl.cast %big : (tensor<f32>) -> tensor<i32>
  %2 = hl.cast %nan : (tensor<f32>) -> tensor<i32>
  %3 = hl.max %pz, %nz : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %4 = hl.max %pz, %nan : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>
}
