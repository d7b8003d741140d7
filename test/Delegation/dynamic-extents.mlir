// A partition with dynamic extents (docs/delegation.md, "Dynamic extents").
// Before grouping, the reshape's size (read from the relu's extents) is
// resolved to the arguments' extents, so the reshape joins the matmul's
// partition and its size becomes the call's extent. After the backend's
// preprocess step the call passes one slot per distinct extent of the
// partition's values (N, read from x and ids alike, S, and N * S of the
// reshape), and
// result_extents names each result dimension's slot; edge-to-exec
// allocates the results at those extents and passes them to
// exec.delegate_call, and the program runs at a shape within the bounds.
// RUN: strata-opt %s --strata-partition="backend=onednn" | FileCheck %s --check-prefix=PARTITION
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend | FileCheck %s --check-prefix=EDGE
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend --strata-edge-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend --strata-edge-to-exec | strata-translate --emit-program -o %t.strata
// RUN: strata-run %t.strata --input-shape 0=3x3x8x8 --input-shape 1=3x20x16 | FileCheck %s --check-prefix=RUNS
// RUN: strata-dump %t.strata | FileCheck %s --check-prefix=DUMP

// PARTITION: %[[S:.*]] = tensor.dim %arg1, %c1
// PARTITION: %[[N:.*]] = tensor.dim %arg1, %c0
// PARTITION: %[[ROWS:.*]] = affine.apply #map()[%[[N]], %[[S]]]
// PARTITION: edge.delegate_call @onednn_0(%arg0, %arg1) extents[%[[ROWS]]]
// PARTITION: func.func private @onednn_0(%arg0: tensor<?x3x8x8xf32>, %arg1: tensor<?x?x16xf32>, %arg2: index)
// PARTITION: edge.reshape %{{.*}}, %arg2

// EDGE: edge.delegate_call @onednn_0(%arg0, %arg1) extents[%{{.*}}, %{{.*}}, %{{.*}}] {result_extents = [array<i64: 0, -1, -1, -1>, array<i64: 2, -1>]}
// EDGE: func.func private @onednn_0(tensor<?x3x8x8xf32>, tensor<?x?x16xf32>, index, index, index) -> (tensor<?x3x8x8xf32>, tensor<?x4xf32>)
// EDGE-NOT: edge.extent_slots
// EDGE-NOT: edge.extent_bounds

// EXEC: exec.delegate_call @onednn_0 ins({{.*}}) outs({{.*}}) extents[

// RUNS: output 0: f32[3, 3, 8, 8]
// RUNS-NEXT: output 1: f32[60, 4]

// DUMP: dynamic: 3 extent slots, prepared at [8, 512, 4096]

#map = affine_map<()[s0, s1] -> (s0 * s1)>
module {
  func.func @main(%arg0: tensor<?x3x8x8xf32> {hl.dim_params = ["N", "", "", ""], hl.name = "x"}, %arg1: tensor<?x?x16xf32> {hl.dim_params = ["N", "S", ""], hl.name = "ids"}) -> (tensor<?x3x8x8xf32> {hl.name = "y"}, tensor<?x4xf32> {hl.name = "z"}) attributes {hl.dim_bounds = {N = array<i64: 1, 8>, S = array<i64: 8, 512>}} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = edge.constant dense<0.5> : tensor<1x16x4xf32>
    %1 = edge.max_pool2d %arg0 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
    %2 = edge.relu %1 : tensor<?x3x8x8xf32>
    %3 = edge.matmul %arg1, %0 : (tensor<?x?x16xf32>, tensor<1x16x4xf32>) -> tensor<?x?x4xf32>
    %4 = edge.relu %3 : tensor<?x?x4xf32>
    %n = tensor.dim %4, %c0 : tensor<?x?x4xf32>
    %s = tensor.dim %4, %c1 : tensor<?x?x4xf32>
    %rows = affine.apply #map()[%n, %s]
    %5 = edge.reshape %4, %rows : (tensor<?x?x4xf32>, index) -> tensor<?x4xf32>
    return %2, %5 : tensor<?x3x8x8xf32>, tensor<?x4xf32>
  }
}
