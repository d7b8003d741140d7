// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that trilu with a constant k selects with a constant mask.
// CHECK-LABEL: func @triu_constant_k
func.func @triu_constant_k(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %k = hl.constant dense<1> : tensor<i64>
  // CHECK: %[[M:.*]] = edge.constant dense<{{\[\[}}false, true, true], [false, false, true]]> : tensor<2x3xi1>
  // CHECK: %[[Z:.*]] = edge.constant dense<0> : tensor<1x1xi64>
  // CHECK: edge.select %[[M]], %{{.*}}, %[[Z]]
  // CHECK-NOT: hl.trilu
  %0 = hl.trilu %x, %k {upper = 1 : i64} : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Tests that trilu with a run-time k compares k with j - i.
// CHECK-LABEL: func @tril_dynamic_k
func.func @tril_dynamic_k(%x: tensor<2x2xf32>, %k: tensor<i64>) -> tensor<2x2xf32> {
  // CHECK: %[[D:.*]] = edge.constant dense<{{\[\[}}0, 1], [-1, 0]]> : tensor<2x2xi64>
  // CHECK: %[[K:.*]] = edge.reshape %{{.*}} : (tensor<i64>) -> tensor<1x1xi64>
  // CHECK: %[[M:.*]] = edge.less_equal %[[D]], %[[K]]
  // CHECK: edge.select %[[M]]
  %0 = hl.trilu %x, %k {upper = 0 : i64} : (tensor<2x2xf32>, tensor<i64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that split becomes slices at consecutive offsets.
// CHECK-LABEL: func @split
func.func @split(%x: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<2x5xf32>) -> tensor<2x2xf32>
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 0, 2>, steps = array<i64: 1, 1>} : (tensor<2x5xf32>) -> tensor<2x3xf32>
  // CHECK-NOT: hl.split
  %0:2 = hl.split %x {axis = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x3xf32>
}

// -----

// Tests that constant_of_shape becomes a splat constant.
// CHECK-LABEL: func @constant_of_shape
func.func @constant_of_shape(%s: tensor<2xi64>) -> tensor<2x3xi32> {
  // CHECK: edge.constant dense<7> : tensor<2x3xi32>
  %0 = hl.constant_of_shape %s {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that gather_elements normalises its axis.
// CHECK-LABEL: func @gather_elements
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  // CHECK: edge.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %0 = hl.gather_elements %x, %i {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that gather becomes edge.gather with a non-negative axis.
// CHECK-LABEL: func @gather
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<3xi64>) -> tensor<5x3xf32> {
  // CHECK: edge.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<5x3xf32>
  // CHECK-NOT: hl.gather
  %0 = hl.gather %x, %i {axis = -1 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Tests that eye_like becomes a constant with the shifted diagonal.
// CHECK-LABEL: func @eye_like
func.func @eye_like(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // CHECK: edge.constant dense<{{\[\[}}0, 1, 0], [0, 0, 1]]> : tensor<2x3xi32>
  %0 = hl.eye_like %x {k = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that one_hot selects between the sliced on/off values.
// CHECK-LABEL: func @one_hot
func.func @one_hot(%i: tensor<2xi64>, %d: tensor<i64>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: %[[I:.*]] = edge.reshape %{{.*}} : (tensor<2xi64>) -> tensor<2x1xi64>
  // CHECK-DAG: %[[POS:.*]] = edge.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
  // CHECK-DAG: %[[NEG:.*]] = edge.constant dense<{{\[\[}}-3, -2, -1]]> : tensor<1x3xi64>
  // CHECK-DAG: edge.equal %[[I]], %[[POS]]
  // CHECK-DAG: edge.equal %[[I]], %[[NEG]]
  // CHECK: %[[HIT:.*]] = edge.logical_or
  // CHECK: edge.select %[[HIT]]
  // CHECK-NOT: hl.one_hot
  %0 = hl.one_hot %i, %d, %v {axis = -1 : i64} : (tensor<2xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that scatter_elements keeps its reduction and normalises the axis.
// CHECK-LABEL: func @scatter_elements
func.func @scatter_elements(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<2x5xf32> {
  // CHECK: edge.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "max"}
  // CHECK-NOT: hl.scatter_elements
  %0 = hl.scatter_elements %x, %i, %u {axis = -1 : i64, reduction = "max"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that tile concatenates copies along each repeated axis.
// CHECK-LABEL: func @tile
func.func @tile(%x: tensor<2x3xf32>, %r: tensor<2xi64>) -> tensor<4x3xf32> {
  // CHECK: edge.concat %[[X:.*]], %[[X]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NOT: hl.tile
  %0 = hl.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that gather_nd keeps batch_dims.
// CHECK-LABEL: func @gather_nd
func.func @gather_nd(%x: tensor<2x2xf32>, %i: tensor<2x2xi64>) -> tensor<2xf32> {
  // CHECK: edge.gather_nd %{{.*}}, %{{.*}} {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  // CHECK-NOT: hl.gather_nd
  %0 = hl.gather_nd %x, %i : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that range with run-time operands and a static result becomes
// edge.range (which checks the element count when the program runs).
// CHECK-LABEL: func @range_runtime_operands
func.func @range_runtime_operands(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>) -> tensor<2xi32> {
  // CHECK: %[[R:.*]] = edge.range %arg0, %arg1, %arg2 : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2xi32>
  // CHECK: return %[[R]]
  %0 = hl.range %s, %l, %d : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
