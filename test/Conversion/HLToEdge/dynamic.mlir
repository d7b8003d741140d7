// RUN: strata-opt %s -split-input-file --convert-hl-to-edge -verify-diagnostics | FileCheck %s

// Tests that bounded dynamic dimensions (a function argument naming a
// symbol bounded in hl.dim_bounds) lower to edge ops with '?' where the
// ops reify their result shapes: elementwise ops, a broadcast static bias,
// a transposed-weight Gemm (the weight is static), Softmax.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: tensor<?x4xf32> {hl.dim_params = ["batch", ""]}
// CHECK: %[[T:.*]] = edge.transpose %{{.*}} {{.*}} -> tensor<4x3xf32>
// CHECK: %[[M:.*]] = edge.matmul %{{.*}}, %[[T]] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
// CHECK: edge.add %[[M]], %{{.*}} : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
// CHECK: edge.relu %{{.*}} : tensor<?x3xf32>
// CHECK: edge.softmax %{{.*}} {axis = 1 : i64} : tensor<?x3xf32>
func.func @mlp(%x: tensor<?x4xf32> {hl.dim_params = ["batch", ""]}, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 8>}} {
  %0 = hl.gemm %x, %w {transB = 1 : i64} : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
  %1 = hl.add %0, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %2 = hl.relu %1 : tensor<?x3xf32>
  %3 = hl.softmax %2 {axis = -1 : si64} : tensor<?x3xf32>
  return %3 : tensor<?x3xf32>
}

// -----

// Tests that a lowering which builds an op without a run-time shape rule
// from a dynamic operand (Gemm's transposed lhs) is named after the
// conversion.
func.func @gemm_trans_a(%x: tensor<4x?xf32> {hl.dim_params = ["", "batch"]}, %w: tensor<4x3xf32>) -> tensor<?x3xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 8>}} {
  // expected-error @+1 {{'edge.transpose' with dynamic dimensions has no run-time shape rule yet}}
  %0 = hl.gemm %x, %w {transA = 1 : i64} : (tensor<4x?xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
