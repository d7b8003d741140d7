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
