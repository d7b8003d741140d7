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

// Tests that a Gemm's transposed dynamic lhs transposes with its extent.
// CHECK-LABEL: func.func @gemm_trans_a
// CHECK: edge.transpose %{{.*}} -> tensor<?x4xf32>
// CHECK: edge.matmul {{.*}} -> tensor<?x3xf32>
func.func @gemm_trans_a(%x: tensor<4x?xf32> {hl.dim_params = ["", "batch"]}, %w: tensor<4x3xf32>) -> tensor<?x3xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 8>}} {
  %0 = hl.gemm %x, %w {transA = 1 : i64} : (tensor<4x?xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests a CNN at a dynamic batch: convolution, a zero Pad taken by the
// average pooling, max pooling, Concat, global pooling and Flatten, whose
// extent is the batch's (a reshape's dynamic size).
// CHECK-LABEL: func.func @cnn
// CHECK: edge.conv2d {{.*}} -> tensor<?x4x8x8xf32>
// CHECK: edge.max_pool2d {{.*}} -> tensor<?x4x4x4xf32>
// CHECK: edge.avg_pool2d {{.*}}count_include_pad = true{{.*}} -> tensor<?x4x4x4xf32>
// CHECK: edge.concat {{.*}} -> tensor<?x8x4x4xf32>
// CHECK: edge.reduce_mean {{.*}} -> tensor<?x8x1x1xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[G:.*]], %c0
// CHECK: edge.reshape %[[G]], %[[N]] : (tensor<?x8x1x1xf32>, index) -> tensor<?x8xf32>
func.func @cnn(%x: tensor<?x3x8x8xf32> {hl.dim_params = ["batch", "", "", ""]}, %w: tensor<4x3x3x3xf32>) -> tensor<?x8xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 8>}} {
  %0 = hl.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %1 = hl.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  %pads = hl.constant dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>
  %2 = hl.pad %1, %pads : (tensor<?x4x4x4xf32>, tensor<8xi64>) -> tensor<?x4x6x6xf32>
  %3 = hl.average_pool %2 {kernel_shape = array<i64: 3, 3>} : (tensor<?x4x6x6xf32>) -> tensor<?x4x4x4xf32>
  %4 = hl.concat %1, %3 {axis = 1 : i64} : (tensor<?x4x4x4xf32>, tensor<?x4x4x4xf32>) -> tensor<?x8x4x4xf32>
  %5 = hl.global_average_pool %4 : (tensor<?x8x4x4xf32>) -> tensor<?x8x1x1xf32>
  %6 = hl.flatten %5 {axis = 1 : si64} : (tensor<?x8x1x1xf32>) -> tensor<?x8xf32>
  return %6 : tensor<?x8xf32>
}

// -----

// Tests ONNX Reshape's 0 (copy) and -1 (remainder) over dynamic extents:
// [batch, seq, 8] -> [0, 0, 2, 4] copies both; [batch, seq, 2, 4] ->
// [-1, 8] is batch * seq, without a division by a run-time value.
// CHECK-LABEL: func.func @reshape
// CHECK-DAG: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG: %[[S:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[R:.*]] = edge.reshape %arg0, %[[B]], %[[S]] : (tensor<?x?x8xf32>, index, index) -> tensor<?x?x2x4xf32>
// CHECK: %[[B2:.*]] = tensor.dim %[[R]], %c0
// CHECK: %[[S2:.*]] = tensor.dim %[[R]], %c1
// CHECK: %[[P:.*]] = affine.apply #{{.*}}()[%[[B2]], %[[S2]]]
// CHECK: edge.reshape %[[R]], %[[P]] : (tensor<?x?x2x4xf32>, index) -> tensor<?x8xf32>
func.func @reshape(%x: tensor<?x?x8xf32> {hl.dim_params = ["batch", "seq", ""]}) -> tensor<?x8xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 4>, seq = array<i64: 1, 16>}} {
  %s = hl.constant dense<[0, 0, 2, 4]> : tensor<4xi64>
  %0 = hl.reshape %x, %s : (tensor<?x?x8xf32>, tensor<4xi64>) -> tensor<?x?x2x4xf32>
  %t = hl.constant dense<[-1, 8]> : tensor<2xi64>
  %1 = hl.reshape %0, %t : (tensor<?x?x2x4xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Tests that a window over a dynamic spatial extent is named with the
// bounds: windows take a dynamic batch only.
func.func @spatial(%x: tensor<1x3x?x8xf32> {hl.dim_params = ["", "", "h", ""]}, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> attributes {hl.dim_bounds = {h = array<i64: 3, 8>}} {
  // expected-error @+1 {{'hl.conv' has operands with dynamic dimensions (h: 3..8)}}
  %0 = hl.conv %x, %w : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// Tests that a reshape whose shape is computed at run time is named.
func.func @computed_shape(%x: tensor<?x8xf32> {hl.dim_params = ["batch", ""]}, %s: tensor<2xi64>) -> tensor<?x?xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 4>}} {
  // expected-error @+2 {{a reshape to 'tensor<?x?xf32>' whose dynamic extents its shape operand does not give as constants}}
  // expected-error @+1 {{failed to legalize}}
  %0 = hl.reshape %x, %s : (tensor<?x8xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests the ops of mobile and transformer blocks at a dynamic batch:
// BatchNormalization, Clip, HardSwish, an embedding Gather with dynamic
// indices, ReduceMean, Where and Cast.
// CHECK-LABEL: func.func @blocks
// CHECK: edge.clip {{.*}} : tensor<?x2x4x4xf32>
// CHECK: edge.gather {{.*}} : (tensor<10x4xf32>, tensor<?x3xi64>) -> tensor<?x3x4xf32>
// CHECK: edge.reduce_mean {{.*}} -> tensor<?x3x1xf32>
// CHECK: edge.select {{.*}} -> tensor<?x3x4xf32>
func.func @blocks(%x: tensor<?x2x4x4xf32> {hl.dim_params = ["batch", "", "", ""]}, %ids: tensor<?x3xi64> {hl.dim_params = ["batch", ""]}) -> (tensor<?x2x4x4xf32>, tensor<?x3x4xf32>) attributes {hl.dim_bounds = {batch = array<i64: 1, 8>}} {
  %s = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = hl.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = hl.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %v = hl.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = hl.batch_normalization %x, %s, %b, %m, %v : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  %lo = hl.constant dense<0.0> : tensor<f32>
  %hi = hl.constant dense<6.0> : tensor<f32>
  %1 = hl.clip %0 min %lo max %hi : (tensor<?x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<?x2x4x4xf32>
  %2 = hl.hard_swish %1 : tensor<?x2x4x4xf32>
  %table = hl.constant dense<1.0> : tensor<10x4xf32>
  %3 = hl.gather %table, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<?x3xi64>) -> tensor<?x3x4xf32>
  %axes = hl.constant dense<[-1]> : tensor<1xi64>
  %4 = hl.reduce_mean %3, %axes : (tensor<?x3x4xf32>, tensor<1xi64>) -> tensor<?x3x1xf32>
  %5 = hl.sub %3, %4 : (tensor<?x3x4xf32>, tensor<?x3x1xf32>) -> tensor<?x3x4xf32>
  %zero = hl.constant dense<0.0> : tensor<f32>
  %6 = hl.less %5, %zero : (tensor<?x3x4xf32>, tensor<f32>) -> tensor<?x3x4xi1>
  %7 = hl.where %6, %zero, %5 : (tensor<?x3x4xi1>, tensor<f32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %2, %7 : tensor<?x2x4x4xf32>, tensor<?x3x4xf32>
}

// -----

// Tests that a fixed reshape of a dynamic input (an exporter that baked
// the batch into the model) is refused: it holds at one batch only.
func.func @baked_batch(%x: tensor<?x8x2xf32> {hl.dim_params = ["batch", ""]}) -> tensor<1x16xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 4>}} {
  %s = hl.constant dense<[1, 16]> : tensor<2xi64>
  // expected-error @+2 {{reshapes an input with dynamic extents, 'tensor<?x8x2xf32>', to the fixed shape 'tensor<1x16xf32>', which holds at one input shape only}}
  // expected-error @+1 {{failed to legalize}}
  %0 = hl.reshape %x, %s : (tensor<?x8x2xf32>, tensor<2xi64>) -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

// Tests Resize at a dynamic batch: constant scales that leave the batch as
// it is lower to edge.resize with the batch open (its kernel reads the
// batch per call).
// CHECK-LABEL: func.func @resize_batch
// CHECK: edge.resize {{.*}} scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>{{.*}} : (tensor<?x2x3x4xf32>) -> tensor<?x2x6x8xf32>
func.func @resize_batch(%x: tensor<?x2x3x4xf32> {hl.dim_params = ["batch", "", "", ""]}) -> tensor<?x2x6x8xf32> attributes {hl.dim_bounds = {batch = array<i64: 1, 4>}} {
  %s = hl.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = hl.resize %x scales %s {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<?x2x3x4xf32>, tensor<4xf32>) -> tensor<?x2x6x8xf32>
  return %0 : tensor<?x2x6x8xf32>
}

// -----

// Tests that a Resize that would resample a dynamic extent is refused,
// naming the op and the bounds.
func.func @resize_dynamic_axis(%x: tensor<1x2x?x4xf32> {hl.dim_params = ["", "", "h", ""]}) -> tensor<1x2x?x8xf32> attributes {hl.dim_bounds = {h = array<i64: 2, 6>}} {
  %s = hl.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // expected-error@+1 {{'hl.resize' has operands with dynamic dimensions (h: 2..6)}}
  %0 = hl.resize %x scales %s {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x2x?x4xf32>, tensor<4xf32>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}
