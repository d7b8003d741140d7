// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt quantize=true report-out=%t.json" | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-apply-backend-patterns="backend=tensorrt" | FileCheck %s --check-prefix=FLOAT

// The smooth phase tags SmoothQuant sites: groups whose output only linear
// groups read. A three-layer perceptron has two (the first hidden layer
// read by the second, the second by the third); the last layer, returned,
// is none.
// CHECK-LABEL: func @mlp
// CHECK: hl.fused "linear_relu"(%arg0, {{.*}}) {qdq_points = {{.*}}, strata.smooth}
// CHECK: hl.fused "linear_relu"({{.*}}) {qdq_points = {{.*}}, strata.smooth}
// CHECK: hl.fused "linear"({{.*}}role = "weight"}]} :
// FLOAT-LABEL: func @mlp
// FLOAT-NOT: strata.smooth
func.func @mlp(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %w1 = hl.constant dense<0.5> : tensor<4x8xf32>
  %w2 = hl.constant dense<0.25> : tensor<4x4xf32>
  %w3 = hl.constant dense<0.125> : tensor<2x4xf32>
  %b = hl.constant dense<0.1> : tensor<4xf32>
  %0 = hl.gemm %x, %w1, %b {transB = 1 : i64} : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = hl.relu %0 : tensor<1x4xf32>
  %2 = hl.gemm %1, %w2, %b {transB = 1 : i64} : (tensor<1x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %3 = hl.relu %2 : tensor<1x4xf32>
  %4 = hl.gemm %3, %w3 {transB = 1 : i64} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  return %4 : tensor<1x2xf32>
}

// -----

// Not sites: a hidden layer also read by an add (a residual: s would change
// it), and one read by a MatMul whose weight is not a constant.
// CHECK-LABEL: func @not_sites
// CHECK-NOT: strata.smooth
func.func @not_sites(%x: tensor<1x4xf32>, %v: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %w = hl.constant dense<0.5> : tensor<4x4xf32>
  %0 = hl.gemm %x, %w {transB = 1 : i64} : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %1 = hl.relu %0 : tensor<1x4xf32>
  %2 = hl.gemm %1, %w {transB = 1 : i64} : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %3 = hl.add %2, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %4 = hl.gemm %x, %w {transB = 1 : i64} : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %5 = hl.relu %4 : tensor<1x4xf32>
  %6 = hl.matmul %5, %v : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  return %3, %6 : tensor<1x4xf32>, tensor<1x4xf32>
}
