// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that unary math maps one to one, f64 included.
// CHECK-LABEL: func @log
func.func @log(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  // CHECK: edge.log %{{.*}} : tensor<2x3xf64>
  // CHECK-NOT: hl.log
  %0 = hl.log %x : tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// Tests that max aligns ranks and becomes edge.maximum on integers.
// CHECK-LABEL: func @max_int
func.func @max_int(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<3xi32>) -> tensor<1x3xi32>
  // CHECK: edge.maximum %{{.*}}, %[[B]] : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  // CHECK-NOT: hl.max
  %0 = hl.max %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that cast becomes edge.cast.
// CHECK-LABEL: func @cast
func.func @cast(%x: tensor<4xf32>) -> tensor<4xf16> {
  // CHECK: edge.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf16>
  %0 = hl.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Tests that bit_shift aligns ranks and spells the direction in lower case.
// CHECK-LABEL: func @bit_shift
func.func @bit_shift(%a: tensor<2x3xui32>, %b: tensor<3xui32>) -> tensor<2x3xui32> {
  // CHECK: %[[B:.*]] = edge.reshape %{{.*}} : (tensor<3xui32>) -> tensor<1x3xui32>
  // CHECK: edge.bit_shift %{{.*}}, %[[B]] {direction = "right"} : (tensor<2x3xui32>, tensor<1x3xui32>) -> tensor<2x3xui32>
  // CHECK-NOT: hl.bit_shift
  %0 = hl.bit_shift %a, %b {direction = "RIGHT"} : (tensor<2x3xui32>, tensor<3xui32>) -> tensor<2x3xui32>
  return %0 : tensor<2x3xui32>
}

// -----

// Tests that max, min and mod lower on the wide unsigned types.
// CHECK-LABEL: func @unsigned_binary
func.func @unsigned_binary(%a: tensor<4xui64>, %b: tensor<4xui64>) -> (tensor<4xui64>, tensor<4xui64>, tensor<4xui64>) {
  // CHECK: edge.maximum %{{.*}}, %{{.*}} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  // CHECK: edge.minimum %{{.*}}, %{{.*}} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  // CHECK: edge.mod %{{.*}}, %{{.*}} {fmod = false} : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %0 = hl.max %a, %b : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %1 = hl.min %a, %b : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %2 = hl.mod %a, %b : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  return %0, %1, %2 : tensor<4xui64>, tensor<4xui64>, tensor<4xui64>
}

// -----

// Tests that casts to and from bf16 lower to edge.cast.
// CHECK-LABEL: func @cast_bf16
func.func @cast_bf16(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[B:.*]] = edge.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xbf16>
  // CHECK: edge.cast %[[B]] : (tensor<4xbf16>) -> tensor<4xf32>
  // CHECK-NOT: hl.cast
  %0 = hl.cast %x : (tensor<4xf32>) -> tensor<4xbf16>
  %1 = hl.cast %0 : (tensor<4xbf16>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Tests that mod carries fmod.
// CHECK-LABEL: func @mod
func.func @mod(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // CHECK: edge.mod %{{.*}}, %{{.*}} {fmod = false} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %0 = hl.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests that leaky_relu decomposes into maximum, minimum, mul and add.
// CHECK-LABEL: func @leaky_relu
func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: %[[POS:.*]] = edge.maximum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[NEG:.*]] = edge.minimum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[SCALED:.*]] = edge.mul %{{.*}}, %[[NEG]]
  // CHECK: edge.add %[[POS]], %[[SCALED]]
  // CHECK-NOT: hl.leaky_relu
  %0 = hl.leaky_relu %x {alpha = 0.1 : f32} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that hard_sigmoid is clip(alpha * x + beta, 0, 1).
// CHECK-LABEL: func @hard_sigmoid
func.func @hard_sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[MUL:.*]] = edge.mul
  // CHECK: %[[ADD:.*]] = edge.add %[[MUL]]
  // CHECK: edge.clip %[[ADD]] {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32}
  %0 = hl.hard_sigmoid %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that clip with run-time bounds becomes maximum then minimum.
// CHECK-LABEL: func @clip_dynamic_bounds
func.func @clip_dynamic_bounds(%x: tensor<4xi32>, %lo: tensor<i32>, %hi: tensor<i32>) -> tensor<4xi32> {
  // CHECK: %[[LO:.*]] = edge.reshape %{{.*}} : (tensor<i32>) -> tensor<1xi32>
  // CHECK: %[[MAX:.*]] = edge.maximum %{{.*}}, %[[LO]]
  // CHECK: %[[HI:.*]] = edge.reshape %{{.*}} : (tensor<i32>) -> tensor<1xi32>
  // CHECK: edge.minimum %[[MAX]], %[[HI]]
  // CHECK-NOT: edge.clip
  %0 = hl.clip %x min %lo max %hi : (tensor<4xi32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that an integer base with a float exponent computes in f64.
// CHECK-LABEL: func @pow_int_float
func.func @pow_int_float(%a: tensor<3xi64>, %b: tensor<3xf32>) -> tensor<3xi64> {
  // CHECK-DAG: %[[A:.*]] = edge.cast %{{.*}} : (tensor<3xi64>) -> tensor<3xf64>
  // CHECK-DAG: %[[B:.*]] = edge.cast %{{.*}} : (tensor<3xf32>) -> tensor<3xf64>
  // CHECK: %[[P:.*]] = edge.pow %[[A]], %[[B]] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  // CHECK: edge.cast %[[P]] : (tensor<3xf64>) -> tensor<3xi64>
  %0 = hl.pow %a, %b : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Tests that prelu is max(x, 0) + min(x, 0) * slope (binary ops the
// delegates run; the same values as selecting x * slope where x < 0).
// CHECK-LABEL: func @prelu
func.func @prelu(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: %[[POS:.*]] = edge.maximum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[NEG:.*]] = edge.minimum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[S:.*]] = edge.reshape %{{.*}} : (tensor<3xf32>) -> tensor<1x3xf32>
  // CHECK-DAG: %[[M:.*]] = edge.mul %[[NEG]], %[[S]]
  // CHECK: edge.add %[[POS]], %[[M]]
  // CHECK-NOT: edge.select
  %0 = hl.prelu %x, %s : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
