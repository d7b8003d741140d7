// RUN: strata-opt %s -split-input-file --convert-edge-to-exec | FileCheck %s

// Tests that a value-dependent extent becomes an exec.dim_symbol bounded by
// the op's max_extent (from 0), that the results are allocated with it and
// that the kernel binds it; what reads the result takes its extents from
// the symbol (the shape program computes count + 1 after the kernel).
// CHECK-LABEL: exec.method @main
// CHECK: %[[N:.*]] = exec.dim_symbol "nz.count" bounds 0 to 12
// CHECK: %[[IDX:.*]] = exec.alloc(%[[N]]) : memref<2x?xi64>
// CHECK: exec.kernel "non_zero" ins(%{{.*}} : memref<3x4xi1>) outs(%[[IDX]] : memref<2x?xi64>) binds[%[[N]]]
// CHECK: %[[SUM:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: exec.alloc(%[[SUM]]) : memref<2x?xi64>
// CHECK: exec.kernel "concat"
func.func @main(%x: tensor<3x4xi1>) -> tensor<2x?xi64> {
  %i = edge.non_zero %x {max_extent = 12 : i64} : (tensor<3x4xi1>) -> tensor<2x?xi64> loc("nz")
  %z = edge.constant dense<0> : tensor<2x1xi64>
  %j = edge.concat %i, %z {axis = 1 : i64} : (tensor<2x?xi64>, tensor<2x1xi64>) -> tensor<2x?xi64>
  return %j : tensor<2x?xi64>
}

// -----

// Tests that Unique's three value-dependent results share one symbol and
// its inverse indices stay static; that names stay unique among symbols.
// CHECK-LABEL: exec.method @main
// CHECK: %[[N:.*]] = exec.dim_symbol "u.count" bounds 0 to 6
// CHECK-DAG: %[[Y:.*]] = exec.alloc(%[[N]]) : memref<?xf32>
// CHECK-DAG: %[[I:.*]] = exec.alloc(%[[N]]) : memref<?xi64>
// CHECK-DAG: %[[INV:.*]] = exec.alloc : memref<6xi64>
// CHECK-DAG: %[[C:.*]] = exec.alloc(%[[N]]) : memref<?xi64>
// CHECK: exec.kernel "unique" ins(%{{.*}} : memref<6xf32>) outs(%[[Y]], %[[I]], %[[INV]], %[[C]] : {{.*}}) binds[%[[N]]]
// CHECK: exec.dim_symbol "u.count_1" bounds 0 to 3
func.func @main(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>, tensor<?xf32>) {
  %y, %i, %inv, %c = edge.unique %x {max_extent = 6 : i64, sorted = 1 : i64} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>) loc("u")
  %m = edge.constant dense<true> : tensor<3xi1>
  %s = edge.compress %x, %m {axis = 0 : i64, max_extent = 3 : i64} : (tensor<6xf32>, tensor<3xi1>) -> tensor<?xf32> loc("u")
  return %y, %i, %inv, %c, %s : tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>, tensor<?xf32>
}

// -----

// Tests TopK with a run-time k: the indices' extent along the axis is a
// symbol bounded by the axis' extent, and the values gathered by them take
// the indices' extents.
// CHECK-LABEL: exec.method @main
// CHECK: %[[K:.*]] = exec.dim_symbol "topk.count" bounds 0 to 4
// CHECK: %[[I:.*]] = exec.alloc(%[[K]]) : memref<3x?xi64>
// CHECK: exec.kernel "arg_top_k" ins(%{{.*}}, %{{.*}} : memref<3x4xf32>, memref<1xi64>) outs(%[[I]] : memref<3x?xi64>) binds[%[[K]]]
// CHECK: %[[V:.*]] = exec.alloc(%[[K]]) : memref<3x?xf32>
// CHECK: exec.kernel "gather_elements" {{.*}} outs(%[[V]] : memref<3x?xf32>)
func.func @main(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  %i = edge.arg_top_k %x, %k {axis = 1 : i64, largest = true} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x?xi64> loc("topk")
  %v = edge.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x?xi64>) -> tensor<3x?xf32>
  return %v, %i : tensor<3x?xf32>, tensor<3x?xi64>
}
