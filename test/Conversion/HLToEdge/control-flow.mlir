// RUN: strata-opt %s -split-input-file --convert-hl-to-edge | FileCheck %s

// Tests that a Scan over 2 rows unrolls: each iteration slices its row,
// runs a clone of the body on the running state, and the per-row outputs
// are concatenated.
// CHECK-LABEL: func @scan_sum
func.func @scan_sum(%init: tensor<2xf32>, %xs: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  // CHECK: %[[R0:.*]] = edge.slice %[[XS:.*]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<2x2xf32>) -> tensor<1x2xf32>
  // CHECK: %[[X0:.*]] = edge.reshape %[[R0]] : (tensor<1x2xf32>) -> tensor<2xf32>
  // CHECK: %[[S1:.*]] = edge.add %{{.*}}, %[[X0]]
  // CHECK: %[[R1:.*]] = edge.slice %[[XS]] {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>}
  // CHECK: %[[X1:.*]] = edge.reshape %[[R1]]
  // CHECK: %[[S2:.*]] = edge.add %[[S1]], %[[X1]]
  // CHECK: %[[Y:.*]] = edge.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  // CHECK: return %[[S2]], %[[Y]]
  // CHECK-NOT: hl.scan
  %0:2 = hl.scan %init, %xs {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    %1 = hl.add %s, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hl.yield %1, %1 : tensor<2xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x2xf32>
}

// -----

// Tests that a reverse scan input is read from its last row first.
// CHECK-LABEL: func @scan_reverse
func.func @scan_reverse(%init: tensor<2xf32>, %xs: tensor<2x2xf32>) -> tensor<2xf32> {
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>}
  // CHECK: edge.slice %{{.*}} {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
  %0 = hl.scan %init, %xs {num_scan_inputs = 1 : i64, scan_input_directions = array<i64: 1>} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32> {
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    %1 = hl.add %s, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hl.yield %1 : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// Tests that nested scans (the Scan-8 batch form) unroll level by level.
// CHECK-LABEL: func @scan_nested
func.func @scan_nested(%a: tensor<1x2xf32>, %b: tensor<1x3x2xf32>) -> (tensor<1x2xf32>, tensor<1x3x2xf32>) {
  // CHECK-COUNT-3: edge.add
  // CHECK-NOT: hl.scan
  %0:2 = hl.scan %a, %b {num_scan_inputs = 2 : i64} : (tensor<1x2xf32>, tensor<1x3x2xf32>) -> (tensor<1x2xf32>, tensor<1x3x2xf32>) {
  ^bb0(%x: tensor<2xf32>, %y: tensor<3x2xf32>):
    %1:2 = hl.scan %x, %y {num_scan_inputs = 1 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
    ^bb0(%s: tensor<2xf32>, %r: tensor<2xf32>):
      %2 = hl.add %s, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      hl.yield %2, %2 : tensor<2xf32>, tensor<2xf32>
    }
    hl.yield %1#0, %1#1 : tensor<2xf32>, tensor<3x2xf32>
  }
  return %0#0, %0#1 : tensor<1x2xf32>, tensor<1x3x2xf32>
}

// -----

// Tests that an if on a run-time condition runs both branches and selects.
// CHECK-LABEL: func @if_runtime
func.func @if_runtime(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: %[[T:.*]] = edge.relu %{{.*}} : tensor<2x3xf32>
  // CHECK-DAG: %[[E:.*]] = edge.neg %{{.*}} : tensor<2x3xf32>
  // CHECK-DAG: %[[M:.*]] = edge.reshape %{{.*}} : (tensor<i1>) -> tensor<1x1xi1>
  // CHECK: edge.select %[[M]], %[[T]], %[[E]] : (tensor<1x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NOT: hl.if
  %0 = hl.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %1 = hl.relu %x : tensor<2x3xf32>
    hl.yield %1 : tensor<2x3xf32>
  } else {
    %1 = hl.neg %x : tensor<2x3xf32>
    hl.yield %1 : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that an if on a constant condition inlines the branch taken only.
// CHECK-LABEL: func @if_constant
func.func @if_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = hl.constant dense<false> : tensor<i1>
  // CHECK: %[[E:.*]] = edge.neg %{{.*}} : tensor<2x3xf32>
  // CHECK-NOT: edge.relu
  // CHECK-NOT: edge.select
  // CHECK: return %[[E]]
  %0 = hl.if %c : (tensor<i1>) -> tensor<2x3xf32> {
    %1 = hl.relu %x : tensor<2x3xf32>
    hl.yield %1 : tensor<2x3xf32>
  } else {
    %1 = hl.neg %x : tensor<2x3xf32>
    hl.yield %1 : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}
