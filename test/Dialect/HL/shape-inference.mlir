// RUN: strata-opt %s -split-input-file --strata-hl-refine-shapes | FileCheck %s

// The hl ops' forward shape rules (InferShapedTypeOpInterface), one family
// per split, seen through the refinement pass: each `?` result becomes the
// shape the ONNX operator definition gives for these operands.

// Tests that Reshape takes its constant target: [4, -1] on 2x3x4 (24
// elements) infers 24/4 = 6; [0, -1] copies extent 2 (allowzero = 0) and
// infers 24/2 = 12.
// CHECK-LABEL: func @reshape_constant_target
func.func @reshape_constant_target(%x: tensor<2x3x4xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  // CHECK: hl.reshape %arg0, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  // CHECK: hl.reshape %arg0, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %t = hl.constant dense<[4, -1]> : tensor<2xi64>
  %y = hl.reshape %x, %t : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %z = hl.constant dense<[0, -1]> : tensor<2xi64>
  %w = hl.reshape %x, %z : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y, %w : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Tests the sliding-window rule shared by convolution and pooling:
// conv 10x10, kernel 3, stride 2, pads 1: floor((10 + 2 - 3) / 2) + 1 = 5
// with the weight's 8 output channels; conv with dilation 2 (window 5), no
// pads: 10 - 5 + 1 = 6; max_pool 8x8, kernel 3, stride 2, ceil_mode:
// ceil((8 - 3) / 2) + 1 = 4; average_pool SAME_UPPER 5x5, stride 2:
// ceil(5 / 2) = 3; global_average_pool keeps N and C, spatial 1.
// CHECK-LABEL: func @window_ops
func.func @window_ops(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>,
                      %p: tensor<1x4x8x8xf32>, %q: tensor<1x2x5x5xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>,
        tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  // CHECK: hl.conv {{.*}} -> tensor<1x8x5x5xf32>
  // CHECK: hl.conv {{.*}} -> tensor<1x8x6x6xf32>
  // CHECK: hl.max_pool {{.*}} -> tensor<1x4x4x4xf32>
  // CHECK: hl.average_pool {{.*}} -> tensor<1x2x3x3xf32>
  // CHECK: hl.global_average_pool {{.*}} -> tensor<1x4x1x1xf32>
  %0 = hl.conv %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %1 = hl.conv %x, %w {dilations = array<i64: 2, 2>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %2 = hl.max_pool %p {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<?x?x?x?xf32>
  %3 = hl.average_pool %q {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<?x?x?x?xf32>
  %4 = hl.global_average_pool %p : (tensor<1x4x8x8xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// Tests that Concat adds the extents along the axis (3 + 5 = 8, negative
// axis counted from the back) and keeps the others.
// CHECK-LABEL: func @concat
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  // CHECK: hl.concat {{.*}} -> tensor<2x8xf32>
  // CHECK: hl.concat {{.*}} -> tensor<2x8xf32>
  %0 = hl.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<?x?xf32>
  %1 = hl.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Tests MatMul's numpy rule: batch dimensions [2, 1] and [5] broadcast to
// [2, 5] before 3x4 @ 4x6; a 1-D lhs is promoted to 1x4 and its unit
// dimension dropped again (4 @ 5x4x6 is 5x6); a dynamic operand leaves its
// own extent open (?x4 @ 5x4x6 is 5x?x6).
// CHECK-LABEL: func @matmul_broadcast
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>,
                            %v: tensor<4xf32>, %d: tensor<?x4xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>) {
  // CHECK: hl.matmul {{.*}} -> tensor<2x5x3x6xf32>
  // CHECK: hl.matmul {{.*}} -> tensor<5x6xf32>
  // CHECK: hl.matmul {{.*}} -> tensor<5x?x6xf32>
  %0 = hl.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<?x?x?x?xf32>
  %1 = hl.matmul %v, %b : (tensor<4xf32>, tensor<5x4x6xf32>) -> tensor<?x?xf32>
  %2 = hl.matmul %d, %b : (tensor<?x4xf32>, tensor<5x4x6xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>
}

// -----

// Tests Resize with constant operands: sizes are taken as given (stretch);
// scales give floor(2 * 2.0) = 4 and floor(3 * 1.5) = 4; not_larger on
// axes [2, 3] takes the smaller ratio min(7/2, 7/4) = 1.75 for both axes:
// round(2 * 1.75) = 4, round(4 * 1.75) = 7.
// CHECK-LABEL: func @resize
func.func @resize(%x: tensor<1x1x2x3xf32>, %y: tensor<1x1x2x4xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  // CHECK: hl.resize {{.*}} -> tensor<1x1x6x9xf32>
  // CHECK: hl.resize {{.*}} -> tensor<1x1x4x4xf32>
  // CHECK: hl.resize {{.*}} -> tensor<1x1x4x7xf32>
  %sizes = hl.constant dense<[1, 1, 6, 9]> : tensor<4xi64>
  %0 = hl.resize %x sizes %sizes : (tensor<1x1x2x3xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %scales = hl.constant dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>
  %1 = hl.resize %x scales %scales : (tensor<1x1x2x3xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  %fit = hl.constant dense<[7, 7]> : tensor<2xi64>
  %2 = hl.resize %y sizes %fit {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger"} : (tensor<1x1x2x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// Tests the shared elementwise rules: add broadcasts 3x1x5 with 4x1 to
// 3x4x5; where broadcasts all three operands (1x4, 3x1, scalar) to 3x4;
// a comparison broadcasts to an i1 result; cast keeps its operand's shape.
// CHECK-LABEL: func @elementwise_broadcast
func.func @elementwise_broadcast(%a: tensor<3x1x5xf32>, %b: tensor<4x1xf32>,
                                 %c: tensor<1x4xi1>, %x: tensor<3x1xf32>,
                                 %s: tensor<f32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xi1>, tensor<?x?x?xi32>) {
  // CHECK: hl.add {{.*}} -> tensor<3x4x5xf32>
  // CHECK: hl.where {{.*}} -> tensor<3x4xf32>
  // CHECK: hl.less {{.*}} -> tensor<3x4x5xi1>
  // CHECK: hl.cast {{.*}} -> tensor<3x1x5xi32>
  %0 = hl.add %a, %b : (tensor<3x1x5xf32>, tensor<4x1xf32>) -> tensor<?x?x?xf32>
  %1 = hl.where %c, %x, %s : (tensor<1x4xi1>, tensor<3x1xf32>, tensor<f32>) -> tensor<?x?xf32>
  %2 = hl.less %a, %b : (tensor<3x1x5xf32>, tensor<4x1xf32>) -> tensor<?x?x?xi1>
  %3 = hl.cast %a : (tensor<3x1x5xf32>) -> tensor<?x?x?xi32>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xi1>, tensor<?x?x?xi32>
}

// -----

// Tests the shared reduction rule: axes [1] of 2x3x4 without keepdims
// leave 2x4; axes [-1] with keepdims leave 2x3x1; no axes reduce all.
// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>)
    -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  // CHECK: hl.reduce_sum {{.*}} -> tensor<2x4xf32>
  // CHECK: hl.reduce_max {{.*}} -> tensor<2x3x1xf32>
  // CHECK: hl.reduce_mean {{.*}} -> tensor<1x1x1xf32>
  %a1 = hl.constant dense<1> : tensor<1xi64>
  %0 = hl.reduce_sum %x, %a1 {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  %am = hl.constant dense<-1> : tensor<1xi64>
  %1 = hl.reduce_max %x, %am : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %2 = hl.reduce_mean %x : (tensor<2x3x4xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// Tests partial shapes (bounded dynamic extents, docs/dynamic-shapes.md):
// with a dynamic batch and sequence, the rules keep every static extent and
// the rank. An unranked result of the importer (a Slice with bounds
// computed from the shape, a Reshape to a computed shape) becomes ranked:
// the static axis of a slice is sliced, the reshape has the target's
// length with its constant entries, transpose, gather, concat, broadcasting
// and reductions carry the dynamic extents through.
// CHECK-LABEL: func @partial
// CHECK: hl.slice {{.*}} -> tensor<?x?x64xf32>
// CHECK: hl.reshape {{.*}} -> tensor<?x?x4x16xf32>
// CHECK: hl.transpose {{.*}} -> tensor<?x4x?x16xf32>
// CHECK: hl.gather {{.*}} -> tensor<?x?x8xf32>
// CHECK: hl.concat {{.*}} -> tensor<?x?x72xf32>
// CHECK: hl.add {{.*}} -> tensor<?x?x72xf32>
// CHECK: hl.reduce_mean {{.*}} -> tensor<?x?x1xf32>
func.func @partial(%x: tensor<?x?x192xf32>, %ids: tensor<?x?xi64>, %target: tensor<4xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %start = hl.constant dense<[0]> : tensor<1xi64>
  %end = hl.constant dense<[64]> : tensor<1xi64>
  %axis = hl.constant dense<[-1]> : tensor<1xi64>
  %step = hl.constant dense<[1]> : tensor<1xi64>
  %q = hl.slice %x, %start, %end, %axis, %step : (tensor<?x?x192xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  %four = hl.constant dense<[0, 0, 4, 16]> : tensor<4xi64>
  %r = hl.reshape %q, %four : (tensor<*xf32>, tensor<4xi64>) -> tensor<*xf32>
  %t = hl.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<*xf32>) -> tensor<*xf32>
  %table = hl.constant dense<1.0> : tensor<10x8xf32>
  %e = hl.gather %table, %ids {axis = 0 : i64} : (tensor<10x8xf32>, tensor<?x?xi64>) -> tensor<*xf32>
  %c = hl.concat %q, %e {axis = 2 : i64} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %one = hl.constant dense<1.0> : tensor<72xf32>
  %a = hl.add %c, %one : (tensor<*xf32>, tensor<72xf32>) -> tensor<*xf32>
  %m = hl.reduce_mean %a, %axis : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
  return %t, %m : tensor<*xf32>, tensor<*xf32>
}
