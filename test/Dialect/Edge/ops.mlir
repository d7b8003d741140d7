// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Tests that every edge op round-trips through the printer and parser.

// CHECK-LABEL: func @cnn
func.func @cnn(%x: tensor<1x1x8x8xf32>) -> tensor<1x10xf32> {
  // CHECK: %[[W:.*]] = edge.constant dense<5.000000e-01> : tensor<8x1x3x3xf32>
  %w = edge.constant dense<0.5> : tensor<8x1x3x3xf32>
  %b = edge.constant dense<0.1> : tensor<8xf32>
  // CHECK: %[[C:.*]] = edge.conv2d %{{.*}}, %[[W]], %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %0 = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: %[[R:.*]] = edge.relu %[[C]] : tensor<1x8x8x8xf32>
  %1 = edge.relu %0 : tensor<1x8x8x8xf32>
  // CHECK: %[[P:.*]] = edge.max_pool2d %[[R]] {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %2 = edge.max_pool2d %1 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: %[[F:.*]] = edge.reshape %[[P]] : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %3 = edge.reshape %2 : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %wt = edge.constant dense<0.01> : tensor<10x128xf32>
  // CHECK: %[[T:.*]] = edge.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<10x128xf32>) -> tensor<128x10xf32>
  %4 = edge.transpose %wt {permutation = array<i64: 1, 0>} : (tensor<10x128xf32>) -> tensor<128x10xf32>
  // CHECK: %[[M:.*]] = edge.matmul %[[F]], %[[T]] : (tensor<1x128xf32>, tensor<128x10xf32>) -> tensor<1x10xf32>
  %5 = edge.matmul %3, %4 : (tensor<1x128xf32>, tensor<128x10xf32>) -> tensor<1x10xf32>
  %bias = edge.constant dense<0.0> : tensor<1x10xf32>
  // CHECK: %[[A:.*]] = edge.add %[[M]], %{{.*}} : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  %6 = edge.add %5, %bias : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  // CHECK: edge.softmax %[[A]] {axis = 1 : i64} : tensor<1x10xf32>
  %7 = edge.softmax %6 {axis = 1 : i64} : tensor<1x10xf32>
  return %7 : tensor<1x10xf32>
}

// CHECK-LABEL: func @reduce_mean_broadcast_add
func.func @reduce_mean_broadcast_add(%x: tensor<1x4x8x8xf32>, %b: tensor<1x4x1x1xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>) {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %0 = edge.reduce_mean %x {axes = array<i64: 2, 3>, keep_dims = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: edge.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = edge.add %x, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1 : tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @batched_matmul
func.func @batched_matmul(%a: tensor<4x64x16xf32>, %b: tensor<1x16x64xf32>) -> tensor<4x64x64xf32> {
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<4x64x16xf32>, tensor<1x16x64xf32>) -> tensor<4x64x64xf32>
  %0 = edge.matmul %a, %b : (tensor<4x64x16xf32>, tensor<1x16x64xf32>) -> tensor<4x64x64xf32>
  return %0 : tensor<4x64x64xf32>
}

// CHECK-LABEL: func @reduce_mean_drop
func.func @reduce_mean_drop(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // CHECK: edge.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %0 = edge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<1x4xf32>, %b: tensor<1x1xf32>) -> tensor<1x4xf32> {
  // CHECK: %[[S:.*]] = edge.sub %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %0 = edge.sub %a, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[M:.*]] = edge.mul %[[S]], %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %1 = edge.mul %0, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[D:.*]] = edge.div %[[M]], %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %2 = edge.div %1, %b : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  // CHECK: %[[G:.*]] = edge.sigmoid %[[D]] : tensor<1x4xf32>
  %3 = edge.sigmoid %2 : tensor<1x4xf32>
  // CHECK: %[[T:.*]] = edge.tanh %[[G]] : tensor<1x4xf32>
  %4 = edge.tanh %3 : tensor<1x4xf32>
  // CHECK: %[[E:.*]] = edge.exp %[[T]] : tensor<1x4xf32>
  %5 = edge.exp %4 : tensor<1x4xf32>
  // CHECK: %[[Q:.*]] = edge.sqrt %[[E]] : tensor<1x4xf32>
  %6 = edge.sqrt %5 : tensor<1x4xf32>
  // CHECK: %[[N:.*]] = edge.neg %[[Q]] : tensor<1x4xf32>
  %7 = edge.neg %6 : tensor<1x4xf32>
  // CHECK: %[[A:.*]] = edge.abs %[[N]] : tensor<1x4xf32>
  %8 = edge.abs %7 : tensor<1x4xf32>
  // CHECK: edge.clip %[[A]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x4xf32>
  %9 = edge.clip %8 {max = 6.0 : f32, min = 0.0 : f32} : tensor<1x4xf32>
  return %9 : tensor<1x4xf32>
}

// CHECK-LABEL: func @avg_pool_concat
func.func @avg_pool_concat(%x: tensor<1x4x8x8xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32> {
  // CHECK: %[[P:.*]] = edge.avg_pool2d %{{.*}} {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: edge.concat %[[P]], %{{.*}} {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  %1 = edge.concat %0, %y {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %1 : tensor<1x6x4x4xf32>
}

// Tests that the math, min/max, cast and mod ops round-trip.
// CHECK-LABEL: func @math
func.func @math(%x: tensor<2x3xf64>, %a: tensor<2x3xi32>, %b: tensor<1x3xi32>) -> (tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi64>, tensor<2x3xi32>) {
  // CHECK: %[[L:.*]] = edge.log %{{.*}} : tensor<2x3xf64>
  %0 = edge.log %x : tensor<2x3xf64>
  // CHECK: edge.erf %[[L]] : tensor<2x3xf64>
  %1 = edge.erf %0 : tensor<2x3xf64>
  // CHECK: %[[M:.*]] = edge.maximum %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %2 = edge.maximum %a, %b : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  // CHECK: edge.minimum %[[M]], %{{.*}} : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %3 = edge.minimum %2, %b : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  // CHECK: edge.cast %[[M]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
  %4 = edge.cast %2 : (tensor<2x3xi32>) -> tensor<2x3xi64>
  // CHECK: edge.mod %{{.*}}, %{{.*}} {fmod = false} : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %5 = edge.mod %a, %b {fmod = false} : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  return %1, %3, %4, %5 : tensor<2x3xf64>, tensor<2x3xi32>, tensor<2x3xi64>, tensor<2x3xi32>
}

// Tests that the reductions and arg-reductions round-trip.
// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<4xf32>, tensor<2x3xi64>) {
  // CHECK: edge.reduce_sum %{{.*}} {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = edge.reduce_sum %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: edge.reduce_max %{{.*}} {axes = array<i64: 0, 1>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<4xf32>
  %1 = edge.reduce_max %x {axes = array<i64: 0, 1>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<4xf32>
  // CHECK: edge.reduce_min
  %2 = edge.reduce_min %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: edge.reduce_prod
  %3 = edge.reduce_prod %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: edge.arg_max %{{.*}} {axis = 2 : i64, keep_dims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %4 = edge.arg_max %x {axis = 2 : i64, keep_dims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  // CHECK: edge.arg_min
  %5 = edge.arg_min %x {axis = 2 : i64, keep_dims = false, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  return %0, %1, %4 : tensor<2x1x4xf32>, tensor<4xf32>, tensor<2x3xi64>
}

// Tests that comparisons, logic, select and gather_elements round-trip.
// CHECK-LABEL: func @logic
func.func @logic(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %i: tensor<2x2xi64>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  // CHECK: %[[E:.*]] = edge.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %0 = edge.equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[L:.*]] = edge.less %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %1 = edge.less %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: edge.less_equal
  %2 = edge.less_equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  // CHECK: %[[O:.*]] = edge.logical_or %[[E]], %[[L]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %3 = edge.logical_or %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: edge.logical_and
  %4 = edge.logical_and %3, %2 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: edge.logical_xor
  %5 = edge.logical_xor %4, %2 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: %[[N:.*]] = edge.logical_not %{{.*}} : tensor<2x3xi1>
  %6 = edge.logical_not %5 : tensor<2x3xi1>
  // CHECK: edge.select %[[N]], %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %7 = edge.select %6, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK: edge.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %8 = edge.gather_elements %a, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %7, %8 : tensor<2x3xf32>, tensor<2x2xf32>
}

// Tests that gather and conv_transpose2d round-trip.
// CHECK-LABEL: func @gather_and_conv_transpose
func.func @gather_and_conv_transpose(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>, %img: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> (tensor<2x3x4xf32>, tensor<1x2x7x7xf32>) {
  // CHECK: edge.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %0 = edge.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  // CHECK: edge.conv_transpose2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  %1 = edge.conv_transpose2d %img, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<1x2x7x7xf32>
}

// Tests that scatter_elements round-trips.
// CHECK-LABEL: func @scatter_elements
func.func @scatter_elements(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<2x5xf32> {
  // CHECK: edge.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %0 = edge.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// Tests that arg_top_k round-trips.
// CHECK-LABEL: func @arg_top_k
func.func @arg_top_k(%x: tensor<3x4xf32>) -> tensor<3x2xi64> {
  // CHECK: edge.arg_top_k %{{.*}} {axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> tensor<3x2xi64>
  %0 = edge.arg_top_k %x {axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// Tests that gather_nd round-trips.
// CHECK-LABEL: func @gather_nd
func.func @gather_nd(%x: tensor<2x2x3xi32>, %i: tensor<2x1xi64>) -> tensor<2x3xi32> {
  // CHECK: edge.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x2x3xi32>, tensor<2x1xi64>) -> tensor<2x3xi32>
  %0 = edge.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x2x3xi32>, tensor<2x1xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// Tests that pad with run-time pads and a padding value round-trips.
// CHECK-LABEL: func @pad
func.func @pad(%x: tensor<3x2xf32>, %p: tensor<4xi64>, %v: tensor<f32>) -> tensor<3x4xf32> {
  // CHECK: edge.pad %{{.*}}, %{{.*}}, %{{.*}} {mode = "constant"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  %0 = edge.pad %x, %p, %v {mode = "constant"} : (tensor<3x2xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// Tests that dynamic_slice round-trips.
// CHECK-LABEL: func @dynamic_slice
func.func @dynamic_slice(%x: tensor<20x10xf32>, %b: tensor<1xi64>) -> tensor<3x10xf32> {
  // CHECK: edge.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  %0 = edge.dynamic_slice %x, %b, %b, %b, %b : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}

// Tests that cum_sum round-trips.
// CHECK-LABEL: func @cum_sum
func.func @cum_sum(%x: tensor<2x3xf64>, %a: tensor<i64>) -> tensor<2x3xf64> {
  // CHECK: edge.cum_sum %{{.*}}, %{{.*}} {exclusive = true, reverse = false} : (tensor<2x3xf64>, tensor<i64>) -> tensor<2x3xf64>
  %0 = edge.cum_sum %x, %a {exclusive = true, reverse = false} : (tensor<2x3xf64>, tensor<i64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// Tests that range round-trips.
// CHECK-LABEL: func @range
func.func @range(%s: tensor<f32>, %l: tensor<f32>, %d: tensor<f32>) -> tensor<2xf32> {
  // CHECK: edge.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  %0 = edge.range %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Tests that bit_shift round-trips on the unsigned types, with broadcasting.
// CHECK-LABEL: func @bit_shift
func.func @bit_shift(%a: tensor<2x3xui16>, %b: tensor<1x3xui16>, %c: tensor<4xui64>) -> (tensor<2x3xui16>, tensor<4xui64>) {
  // CHECK: edge.bit_shift %{{.*}}, %{{.*}} {direction = "left"} : (tensor<2x3xui16>, tensor<1x3xui16>) -> tensor<2x3xui16>
  %0 = edge.bit_shift %a, %b {direction = "left"} : (tensor<2x3xui16>, tensor<1x3xui16>) -> tensor<2x3xui16>
  // CHECK: edge.bit_shift %{{.*}}, %{{.*}} {direction = "right"} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %1 = edge.bit_shift %c, %c {direction = "right"} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  return %0, %1 : tensor<2x3xui16>, tensor<4xui64>
}

// Tests that casts to and from bf16 and the wide unsigned types round-trip.
// CHECK-LABEL: func @cast_new_types
func.func @cast_new_types(%x: tensor<3xf32>, %u: tensor<3xui32>) -> (tensor<3xbf16>, tensor<3xui64>) {
  // CHECK: edge.cast %{{.*}} : (tensor<3xf32>) -> tensor<3xbf16>
  %0 = edge.cast %x : (tensor<3xf32>) -> tensor<3xbf16>
  // CHECK: edge.cast %{{.*}} : (tensor<3xui32>) -> tensor<3xui64>
  %1 = edge.cast %u : (tensor<3xui32>) -> tensor<3xui64>
  return %0, %1 : tensor<3xbf16>, tensor<3xui64>
}

// Tests that per-tensor quantize_linear and dequantize_linear round-trip.
// CHECK-LABEL: func @quantize_per_tensor
func.func @quantize_per_tensor(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  // CHECK: %[[Q:.*]] = edge.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  // CHECK: edge.dequantize_linear %[[Q]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %q = edge.quantize_linear %x, %s, %z {axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %y = edge.dequantize_linear %q, %s, %z {axis = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// Tests that per-axis quantize_linear round-trips with i16 storage.
// CHECK-LABEL: func @quantize_per_axis
func.func @quantize_per_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi16>) -> tensor<2x3xi16> {
  // CHECK: edge.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi16>) -> tensor<2x3xi16>
  %q = edge.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi16>) -> tensor<2x3xi16>
  return %q : tensor<2x3xi16>
}

// Tests that the quantized side may carry a !quant.uniform type matching
// constant scale and zero point.
// CHECK-LABEL: func @quantize_to_quant_type
func.func @quantize_to_quant_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = edge.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
  %z = edge.constant dense<[0, -3, 7]> : tensor<3xi8>
  // CHECK: edge.quantize_linear {{.*}} -> tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01:-3,1.000000e+00:7}>>
  %q = edge.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25:-3, 1.0:7}>>
  // CHECK: edge.dequantize_linear {{.*}} : (tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01:-3,1.000000e+00:7}>>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  %y = edge.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25:-3, 1.0:7}>>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// Tests that matmul and conv2d take i32 operands (integer accumulation).
// CHECK-LABEL: func @integer_linear
func.func @integer_linear(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>, %x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>) -> (tensor<2x2xi32>, tensor<1x1x2x2xi32>) {
  // CHECK: edge.matmul %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %0 = edge.matmul %a, %b : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  // CHECK: edge.conv2d %{{.*}}, %{{.*}} {{.*}} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  %1 = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<1x1x2x2xi32>
}

// Tests that resize round-trips with static scales and with run-time
// scales and roi.
// CHECK-LABEL: func @resize
func.func @resize(%x: tensor<1x1x2x2xf32>, %r: tensor<8xf32>, %s: tensor<4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) {
  // CHECK: edge.resize %{{.*}} {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %0 = edge.resize %x {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: edge.resize %{{.*}} roi %{{.*}} scales %{{.*}} {{{.*}}coordinate_transformation_mode = "tf_crop_and_resize"{{.*}}} : (tensor<1x1x2x2xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x1x3x3xf32>
  %1 = edge.resize %x roi %r scales %s {antialias = false, coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<1x1x2x2xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x1x3x3xf32>
  return %0, %1 : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>
}

// Tests that the fused forms of a delegated partition round-trip: post-op
// chains with their post operands, edge.activation and edge.layer_norm.
// CHECK-LABEL: func @fused_forms
func.func @fused_forms(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>, %a: tensor<1x4xf32>, %m: tensor<4x3xf32>, %b: tensor<1x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x3xf32>, tensor<1x4xi8>, tensor<1x4xf32>, tensor<1x4xf32>) {
  // CHECK: edge.conv2d %{{.*}}, %{{.*}} post(%{{.*}}) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, post_ops = [#edge.post_op<sum>, #edge.post_op<clip, 0.000000e+00, 6.000000e+00>], strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %0 = edge.conv2d %x, %w post(%r) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, post_ops = [#edge.post_op<sum>, #edge.post_op<clip, 0.0, 6.0>], strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: edge.matmul %{{.*}}, %{{.*}} post(%{{.*}}) {post_ops = [#edge.post_op<add>, #edge.post_op<gelu_erf>]} : (tensor<1x4xf32>, tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %1 = edge.matmul %a, %m post(%b) {post_ops = [#edge.post_op<add>, #edge.post_op<gelu_erf>]} : (tensor<1x4xf32>, tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  // CHECK: edge.add %{{.*}}, %{{.*}} {post_ops = [#edge.post_op<relu>, #edge.post_op<quantize, 5.000000e-01, 0.000000e+00>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi8>
  %2 = edge.add %a, %a {post_ops = [#edge.post_op<relu>, #edge.post_op<quantize, 0.5, 0.0>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xi8>
  // CHECK: edge.activation %{{.*}} {kind = #edge.post_op<swish>} : tensor<1x4xf32>
  %3 = edge.activation %a {kind = #edge.post_op<swish>} : tensor<1x4xf32>
  // CHECK: edge.layer_norm %{{.*}} beta(%{{.*}}) {epsilon = 9.99999974E-6 : f32} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %beta = edge.constant dense<0.5> : tensor<4xf32>
  %4 = edge.layer_norm %a beta(%beta) {epsilon = 1.0e-05 : f32} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0, %1, %2, %3, %4 : tensor<1x2x4x4xf32>, tensor<1x3xf32>, tensor<1x4xi8>, tensor<1x4xf32>, tensor<1x4xf32>
}

// CHECK-LABEL: func @recurrent
func.func @recurrent(%x: tensor<5x1x3xf32>, %h: tensor<2x1x4xf32>, %rw: tensor<2x3x4xf32>, %rr: tensor<2x4x4xf32>, %rb: tensor<2x8xf32>, %gw: tensor<1x3x12xf32>, %gr: tensor<1x4x12xf32>, %gb: tensor<1x24xf32>, %g0: tensor<1x1x4xf32>, %lw: tensor<1x3x16xf32>, %lr: tensor<1x4x16xf32>, %lb: tensor<1x32xf32>) -> (tensor<5x2x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>) {
  // CHECK: edge.rnn %{{.*}} {activation = "relu", direction = "bidirectional"} : (tensor<5x1x3xf32>, tensor<2x3x4xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>, tensor<2x1x4xf32>) -> (tensor<5x2x1x4xf32>, tensor<2x1x4xf32>)
  %y, %yh = edge.rnn %x, %rw, %rr, %rb, %h {activation = "relu", direction = "bidirectional"} : (tensor<5x1x3xf32>, tensor<2x3x4xf32>, tensor<2x4x4xf32>, tensor<2x8xf32>, tensor<2x1x4xf32>) -> (tensor<5x2x1x4xf32>, tensor<2x1x4xf32>)
  // CHECK: edge.gru %{{.*}} {direction = "reverse", linear_before_reset = false}
  %gy, %gh = edge.gru %x, %gw, %gr, %gb, %g0 {direction = "reverse", linear_before_reset = false} : (tensor<5x1x3xf32>, tensor<1x3x12xf32>, tensor<1x4x12xf32>, tensor<1x24xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
  // CHECK: edge.lstm %{{.*}} {direction = "forward"} : (tensor<5x1x3xf32>, tensor<1x3x16xf32>, tensor<1x4x16xf32>, tensor<1x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  %ly, %lh, %lc = edge.lstm %x, %lw, %lr, %lb, %g0, %g0 {direction = "forward"} : (tensor<5x1x3xf32>, tensor<1x3x16xf32>, tensor<1x4x16xf32>, tensor<1x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  return %y, %gh, %lc : tensor<5x2x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
}
