// RUN: strata-opt %s -split-input-file --strata-lower-to-edge | FileCheck %s

// Tests that a PyTorch export of x.view(x.size(0), -1) (shape -> gather ->
// unsqueeze -> concat -> reshape, with the importer's dynamic types) lowers
// to one static edge.reshape: [2, 3, 4] viewed as [2, 24 / 2 = 12].
// CHECK-LABEL: func @torch_view
// CHECK-SAME: -> tensor<2x12xf32>
func.func @torch_view(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  // CHECK: %[[Y:.*]] = edge.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK-NOT: hl.
  // CHECK: return %[[Y]] : tensor<2x12xf32>
  %s = hl.shape %x : (tensor<2x3x4xf32>) -> tensor<?xi64>
  %i = hl.constant dense<0> : tensor<i64>
  %d = hl.gather %s, %i {axis = 0 : i64} : (tensor<?xi64>, tensor<i64>) -> tensor<*xi64>
  %a = hl.constant dense<0> : tensor<1xi64>
  %u = hl.unsqueeze %d, %a : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %m = hl.constant dense<-1> : tensor<1xi64>
  %t = hl.concat %u, %m {axis = 0 : i64} : (tensor<*xi64>, tensor<1xi64>) -> tensor<?xi64>
  %y = hl.reshape %x, %t : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Tests that the expanded HannWindow body with a run-time size lowers to
// edge with the length the declared output fixes, checked by edge.range.
// CHECK-LABEL: func @hann_body
func.func @hann_body(%n: tensor<i32>) -> tensor<10xf32> {
  // CHECK: edge.range {{.*}} -> tensor<10xf32>
  // CHECK-NOT: hl.
  // CHECK: edge.cos {{.*}} : tensor<10xf32>
  %zero = hl.constant dense<0.0> : tensor<f32>
  %one = hl.constant dense<1.0> : tensor<f32>
  %nf = hl.cast %n : (tensor<i32>) -> tensor<f32>
  %r = hl.range %zero, %nf, %one : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %k = hl.constant dense<0.5> : tensor<f32>
  %m = hl.mul %r, %k : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %c = hl.cos %m : tensor<?xf32>
  %y = hl.cast %c : (tensor<?xf32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}
