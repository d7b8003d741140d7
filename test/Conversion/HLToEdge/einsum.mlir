// RUN: strata-opt %s -split-input-file --convert-hl-to-edge --verify-diagnostics | FileCheck %s

// Tests that a one-operand permutation is a transpose.
// CHECK-LABEL: func @einsum_transpose
func.func @einsum_transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NOT: hl.einsum
  %0 = hl.einsum %x {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests that labels missing from the output are summed.
// CHECK-LABEL: func @einsum_sum
func.func @einsum_sum(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: edge.reduce_sum %{{.*}} {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %0 = hl.einsum %x {equation = "ij->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that shared output labels become matmul batch dimensions (spaces
// in the equation are ignored).
// CHECK-LABEL: func @einsum_batch_matmul
func.func @einsum_batch_matmul(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK-NOT: edge.transpose
  %0 = hl.einsum %a, %b {equation = "bij, bjk -> bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Tests that an implicit-output inner product contracts the shared label.
// CHECK-LABEL: func @einsum_inner_prod
func.func @einsum_inner_prod(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<f32> {
  // CHECK: %[[A:.*]] = edge.reshape %{{.*}} : (tensor<5xf32>) -> tensor<1x5xf32>
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<5xf32>) -> tensor<5x1xf32>
  // CHECK: %[[P:.*]] = edge.matmul %[[A]], %[[B]] : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32>
  // CHECK: edge.reshape %[[P]] : (tensor<1x1xf32>) -> tensor<f32>
  %0 = hl.einsum %a, %b {equation = "i,i"} : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that a repeated label takes the diagonal: identity mask, select,
// sum over the second copy; the ellipsis dimension stays in front.
// CHECK-LABEL: func @einsum_batch_diagonal
func.func @einsum_batch_diagonal(%x: tensor<3x2x2xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[M:.*]] = edge.constant dense<{{\[\[\[}}true, false], [false, true]]]> : tensor<1x2x2xi1>
  // CHECK: %[[Z:.*]] = edge.constant dense<0.000000e+00> : tensor<1x1x1xf32>
  // CHECK: %[[S:.*]] = edge.select %[[M]], %{{.*}}, %[[Z]]
  // CHECK: edge.reduce_sum %[[S]] {axes = array<i64: 2>, keep_dims = false} : (tensor<3x2x2xf32>) -> tensor<3x2xf32>
  %0 = hl.einsum %x {equation = "...ii ->...i"} : (tensor<3x2x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests that three operands contract left to right.
// CHECK-LABEL: func @einsum_chain
func.func @einsum_chain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // CHECK: %[[AB:.*]] = edge.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: edge.matmul %[[AB]], %{{.*}} : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  %0 = hl.einsum %a, %b, %c {equation = "ij,jk,kl->il"} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that ellipsis dimensions broadcast as matmul batch dimensions.
// CHECK-LABEL: func @einsum_ellipsis_broadcast
func.func @einsum_ellipsis_broadcast(%a: tensor<1x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<1x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  %0 = hl.einsum %a, %b {equation = "...ij,...jk"} : (tensor<1x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// Tests that an equation that does not fit its operands fails, naming it.
func.func @einsum_bad_rank(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{equation 'ijk->i' is not supported: term 'ijk' does not fit an operand of rank 2}}
  // expected-error @+1 {{failed to legalize operation 'hl.einsum'}}
  %0 = hl.einsum %x {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a label with two extents fails, naming the equation.
func.func @einsum_extent_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{equation 'ij,jk->ik' is not supported: label 'j' has extents 3 and 4}}
  // expected-error @+1 {{failed to legalize operation 'hl.einsum'}}
  %0 = hl.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
