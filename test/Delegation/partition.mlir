// RUN: strata-opt %s --split-input-file --strata-partition="backend=onednn" | FileCheck %s

// A supported island: one partition, its constants cloned into it.
// CHECK-LABEL: func.func @island
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT: %[[Y:.*]] = edge.delegate_call @onednn_0(%[[X]]) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK: func.func private @onednn_0(%[[A:.*]]: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> attributes {edge.delegate = "onednn"}
// CHECK-DAG: %[[W:.*]] = edge.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK: %[[C:.*]] = edge.conv2d %[[A]], %[[W]]
// CHECK: %[[R:.*]] = edge.relu %[[C]]
// CHECK: return %[[R]]
func.func @island(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = edge.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = edge.relu %c : tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// An unsupported op in the middle splits the chain; it stays for the
// portable kernels between the two delegate calls.
// CHECK-LABEL: func.func @split
// CHECK-NEXT: %[[P0:.*]] = edge.delegate_call @onednn_0(%{{.*}})
// CHECK-NEXT: %[[F:.*]] = edge.floor %[[P0]]
// CHECK-NEXT: %[[P1:.*]] = edge.delegate_call @onednn_1(%[[F]])
// CHECK-NEXT: return %[[P1]]
// CHECK: func.func private @onednn_0
// CHECK-NEXT: edge.relu
// CHECK-NEXT: edge.sigmoid
// CHECK: func.func private @onednn_1
// CHECK-NEXT: edge.tanh
func.func @split(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = edge.relu %x : tensor<4xf32>
  %b = edge.sigmoid %a : tensor<4xf32>
  %f = edge.floor %b : tensor<4xf32>
  %t = edge.tanh %f : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// No cycles: %c reads %b (claimed, in @onednn_0) and %u, an unsupported op
// that itself reads @onednn_0. Putting %c in @onednn_0 would make
// @onednn_0 -> floor -> @onednn_0, so %c opens a partition of its own.
// CHECK-LABEL: func.func @no_cycle
// CHECK-NEXT: %[[P0:.*]]:2 = edge.delegate_call @onednn_0(%{{.*}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[U:.*]] = edge.floor %[[P0]]#0
// CHECK-NEXT: %[[P1:.*]] = edge.delegate_call @onednn_1(%[[P0]]#1, %[[U]])
// CHECK-NEXT: return %[[P1]]
// CHECK: func.func private @onednn_0
// CHECK-NEXT: %[[A:.*]] = edge.relu
// CHECK-NEXT: %[[B:.*]] = edge.sigmoid %[[A]]
// CHECK-NEXT: return %[[A]], %[[B]]
// CHECK: func.func private @onednn_1
// CHECK-NEXT: edge.add
func.func @no_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = edge.relu %x : tensor<4xf32>
  %u = edge.floor %a : tensor<4xf32>
  %b = edge.sigmoid %a : tensor<4xf32>
  %c = edge.add %b, %u : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Nothing supported: nothing outlined.
// CHECK-LABEL: func.func @none
// CHECK-NOT: delegate_call
// CHECK-NOT: func.func private
func.func @none(%x: tensor<4xf32>) -> tensor<4xf32> {
  %f = edge.floor %x : tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

// Siblings: %a and %b both read only the argument; %b has no claimed
// producer and joins the latest partition, so %c finds both of its operands
// in one partition (a GELU's two readers of x stay together).
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT: %[[P:.*]] = edge.delegate_call @onednn_0(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[P]]
// CHECK: func.func private @onednn_0
// CHECK: edge.relu
// CHECK: edge.sigmoid
// CHECK: edge.add
// CHECK-NOT: func.func private
func.func @siblings(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = edge.relu %x : tensor<4xf32>
  %b = edge.sigmoid %x : tensor<4xf32>
  %c = edge.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A sibling that reads an unclaimed result of the latest partition opens a
// partition of its own: %b reads %u = floor(@onednn_0), so joining
// @onednn_0 would be a cycle.
// CHECK-LABEL: func.func @sibling_cycle
// CHECK: edge.delegate_call @onednn_0
// CHECK: edge.floor
// CHECK: edge.delegate_call @onednn_1
func.func @sibling_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = edge.relu %x : tensor<4xf32>
  %u = edge.floor %a : tensor<4xf32>
  %b = edge.sigmoid %u : tensor<4xf32>
  return %b : tensor<4xf32>
}
