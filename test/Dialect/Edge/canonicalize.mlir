// RUN: strata-opt %s -split-input-file --canonicalize | FileCheck %s

// Tests that a transpose of a dense constant folds to the permuted data.
// CHECK-LABEL: func @transpose_dense
func.func @transpose_dense() -> tensor<3x2xf32> {
  // CHECK: %[[C:.*]] = edge.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  // CHECK-NOT: edge.transpose
  // CHECK: return %[[C]]
  %0 = edge.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %1 = edge.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Tests a rank-3 permutation of a dense constant.
// CHECK-LABEL: func @transpose_rank3
func.func @transpose_rank3() -> tensor<2x1x2xi32> {
  // [[[0,1]],[[2,3]]] is 2x1x2 already; permuting (1,0,2) of 1x2x2 input:
  // input[0] = [[0,1],[2,3]] -> output[i][0][k] = input[0][i][k].
  // CHECK: edge.constant dense<{{\[}}{{\[}}[0, 1]], {{\[}}[2, 3]]]> : tensor<2x1x2xi32>
  %0 = edge.constant dense<[[[0, 1], [2, 3]]]> : tensor<1x2x2xi32>
  %1 = edge.transpose %0 {permutation = array<i64: 1, 0, 2>} : (tensor<1x2x2xi32>) -> tensor<2x1x2xi32>
  return %1 : tensor<2x1x2xi32>
}

// -----

// Tests that a transpose of a resource blob folds into a new blob.
// CHECK-LABEL: func @transpose_resource
func.func @transpose_resource() -> tensor<2x2xi32> {
  // CHECK: %[[C:.*]] = edge.constant dense_resource<transposed> : tensor<2x2xi32>
  // CHECK: return %[[C]]
  %0 = edge.constant dense_resource<blob> : tensor<2x2xi32>
  %1 = edge.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<2x2xi32>) -> tensor<2x2xi32>
  return %1 : tensor<2x2xi32>
}
// The blob holds [[1, 2], [3, 4]]; its transpose is [[1, 3], [2, 4]].
// CHECK: transposed: "0x0400000001000000030000000200000004000000"
{-#
  dialect_resources: {
    builtin: {
      blob: "0x0400000001000000020000000300000004000000"
    }
  }
#-}

// -----

// Tests that a reshape of a resource blob shares the blob.
// CHECK-LABEL: func @reshape_resource
func.func @reshape_resource() -> tensor<4xi32> {
  // CHECK: edge.constant dense_resource<blob> : tensor<4xi32>
  %0 = edge.constant dense_resource<blob> : tensor<2x2xi32>
  %1 = edge.reshape %0 : (tensor<2x2xi32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x0400000001000000020000000300000004000000"
    }
  }
#-}

// -----

// Tests that an identity transpose and an identity reshape disappear.
// CHECK-LABEL: func @identities
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: edge.transpose
  // CHECK-NOT: edge.reshape
  // CHECK: return %{{.*}} : tensor<2x3xf32>
  %0 = edge.transpose %x {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = edge.reshape %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Tests that a cast of an integer constant to f32 folds, signed and
// unsigned by the type, and that other casts stay.
// CHECK-LABEL: func @cast_integer_constant
// CHECK-DAG: edge.constant dense<[-500, 7, 2147483647]> : tensor<3xi32>
// CHECK-DAG: %[[S:.*]] = edge.constant dense<[-5.000000e+02, 7.000000e+00, 2.14748365E+9]> : tensor<3xf32>
// CHECK-DAG: %[[U:.*]] = edge.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf32>
// CHECK: %[[I:.*]] = edge.cast %{{.*}} : (tensor<3xi32>) -> tensor<3xi64>
// CHECK: return %[[S]], %[[U]], %[[I]]
func.func @cast_integer_constant() -> (tensor<3xf32>, tensor<2xf32>, tensor<3xi64>) {
  %a = edge.constant dense<[-500, 7, 2147483647]> : tensor<3xi32>
  %u = edge.constant dense<[255, 1]> : tensor<2xui8>
  %f = edge.cast %a : (tensor<3xi32>) -> tensor<3xf32>
  %g = edge.cast %u : (tensor<2xui8>) -> tensor<2xf32>
  %i = edge.cast %a : (tensor<3xi32>) -> tensor<3xi64>
  return %f, %g, %i : tensor<3xf32>, tensor<2xf32>, tensor<3xi64>
}

// -----

// Tests that a multiplication or division by a broadcast 1 is its other
// operand (either side of a mul; integers too), and that what is not an
// identity stays: a 1 that broadcasts the other operand to a larger shape,
// a 1 under a fused post-op, 1 divided by x and a product by 2.
// CHECK-LABEL: func @multiply_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[V:.*]]: tensor<1x3xf32>, %[[I:.*]]: tensor<2x3xi32>)
// CHECK-NOT: edge.mul %[[X]]
// CHECK: %[[B:.*]] = edge.mul %[[V]], %{{.*}} : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[P:.*]] = edge.mul %[[V]], %{{.*}} {post_ops
// CHECK: %[[R:.*]] = edge.div %{{.*}}, %[[X]]
// CHECK: %[[T:.*]] = edge.mul %[[X]], %{{.*}} : (tensor<?x3xf32>, tensor<1x1xf32>)
// CHECK-NOT: edge.mul %[[I]]
// CHECK: return %[[X]], %[[X]], %[[X]], %[[B]], %[[P]], %[[R]], %[[T]], %[[I]]
func.func @multiply_by_one(%x: tensor<?x3xf32>, %v: tensor<1x3xf32>, %i: tensor<2x3xi32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<2x3xi32>) {
  %one = edge.constant dense<1.0> : tensor<1x1xf32>
  %ones = edge.constant dense<1.0> : tensor<4x3xf32>
  %two = edge.constant dense<2.0> : tensor<1x1xf32>
  %ione = edge.constant dense<1> : tensor<1x1xi32>
  %0 = edge.mul %x, %one : (tensor<?x3xf32>, tensor<1x1xf32>) -> tensor<?x3xf32>
  %1 = edge.mul %one, %x : (tensor<1x1xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %2 = edge.div %x, %one : (tensor<?x3xf32>, tensor<1x1xf32>) -> tensor<?x3xf32>
  %3 = edge.mul %v, %ones : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = edge.mul %v, %one {post_ops = [#edge.post_op<relu>]} : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
  %5 = edge.div %one, %x : (tensor<1x1xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %6 = edge.mul %x, %two : (tensor<?x3xf32>, tensor<1x1xf32>) -> tensor<?x3xf32>
  %7 = edge.mul %i, %ione : (tensor<2x3xi32>, tensor<1x1xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<2x3xi32>
}

// -----

// Tests that a unit-step slice of a unit-step slice reads the first input
// once, at the sum of the starts, with the outer slice's extents (those it
// read from the inner slice become the inner one's size operands): a causal
// mask sliced row- then column-wise. A strided inner slice stays.
// CHECK-LABEL: func @compose_slices
// CHECK-SAME: (%[[M:.*]]: tensor<8x8xf32>, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[S:.*]] = edge.slice %[[M]], %[[N]], %[[K]] {starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>, index, index) -> tensor<?x?xf32>
// CHECK: %[[A:.*]] = edge.slice %[[M]] {starts = array<i64: 0, 0>, steps = array<i64: 2, 1>}
// CHECK: %[[B:.*]] = edge.slice %[[A]]
// CHECK: return %[[S]], %[[B]]
func.func @compose_slices(%m: tensor<8x8xf32>, %n: index, %k: index) -> (tensor<?x?xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %rows = edge.slice %m, %n {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>, index) -> tensor<?x8xf32>
  %dim = tensor.dim %rows, %c0 : tensor<?x8xf32>
  %both = edge.slice %rows, %dim, %k {starts = array<i64: 0, 2>, steps = array<i64: 1, 1>} : (tensor<?x8xf32>, index, index) -> tensor<?x?xf32>
  %even = edge.slice %m {starts = array<i64: 0, 0>, steps = array<i64: 2, 1>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %part = edge.slice %even {starts = array<i64: 1, 4>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<2x4xf32>
  return %both, %part : tensor<?x?xf32>, tensor<2x4xf32>
}
