// RUN: strata-opt %s --strata-lower-to-edge | FileCheck %s --check-prefix=EDGE
// RUN: strata-opt %s --strata-lower-to-exec="alignment=16 program-name=digits" | FileCheck %s --check-prefix=EXEC
// RUN: strata-opt %s --strata-lower-to-edge | strata-opt --strata-edge-to-exec="alignment=16 program-name=digits" | FileCheck %s --check-prefix=EXEC

// Tests that each pipeline step runs alone and that the whole lowering of a
// small classifier ends in a planned exec program with the transposed Gemm
// weight folded into a constant.

// EDGE-LABEL: func @main
// EDGE-NOT: hl.
// EDGE-NOT: edge.transpose
// EDGE: edge.conv2d
// EDGE: edge.matmul
// EDGE: edge.softmax

// EXEC-LABEL: exec.program @digits
// The folded weight is the transpose: its first row is column 0 (ten 1.0s).
// EXEC-DAG: exec.constant @{{.*}} dense<"0x0000803F0000803F0000803F{{.*}}> : tensor<16x10xf32>
// EXEC: exec.method @main : (memref<1x1x4x4xf32>) -> memref<1x10xf32> attributes {arena_sizes = array<i64: [[ARENA:[0-9]+]]>}
// EXEC: exec.kernel "conv2d"
// EXEC: exec.kernel "relu"
// EXEC: exec.kernel "reshape"
// EXEC: exec.kernel "matmul"
// EXEC: exec.kernel "add"
// EXEC: exec.kernel "softmax"
// EXEC-NOT: exec.kernel "transpose"
// EXEC: exec.return
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x10xf32> {
  %w = hl.constant dense<0.5> : tensor<1x1x3x3xf32>
  %0 = hl.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  %1 = hl.relu %0 : tensor<1x1x4x4xf32>
  %2 = hl.flatten %1 : (tensor<1x1x4x4xf32>) -> tensor<1x16xf32>
  %fw = hl.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]]> : tensor<10x16xf32> loc("fc.weight")
  %fb = hl.constant dense<0.1> : tensor<10xf32>
  %3 = hl.gemm %2, %fw, %fb {transB = 1 : i64} : (tensor<1x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  %4 = hl.softmax %3 : tensor<1x10xf32>
  return %4 : tensor<1x10xf32>
}
