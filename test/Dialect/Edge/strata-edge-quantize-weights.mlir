// RUN: strata-opt %s -split-input-file --strata-edge-quantize-weights="bits=4 group-size=8" | FileCheck %s
// RUN: strata-opt %s -split-input-file -mlir-print-debuginfo -mlir-print-local-scope --strata-edge-quantize-weights="bits=8 group-size=8 node-bits=keep=0,narrow=4" | FileCheck %s --check-prefix=EIGHT
// RUN: not strata-opt %s -split-input-file --strata-edge-quantize-weights="bits=3" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata-opt %s -split-input-file --strata-edge-quantize-weights="node-bits=x=5" 2>&1 | FileCheck %s --check-prefix=BADNODE
// RUN: not strata-opt %s -split-input-file --strata-edge-quantize-weights="group-size=12" 2>&1 | FileCheck %s --check-prefix=BADGROUP

// BAD: strata-edge-quantize-weights: bits must be 4 or 8, got 3
// BADNODE: node-bits entry 'x=5' is not NAME=BITS with BITS 0, 4 or 8
// BADGROUP: group-size must be a positive multiple of 8, got 12

// Tests the quantized values, worked by hand: column 0 holds 1.0 and -0.5
// (range [-0.5, 1.0]: scale 1.5 / 15 = 0.1, zero point 5, values 15 and
// 0); column 1 holds 0.25 and 0.75 (range [0, 0.75]: scale 0.05, zero
// point 0, values 5 and 15). Each 32-bit word holds a column's values
// for 8 rows, the first in the lowest bits: column 0's word is 15 | 0 << 4
// (bytes 15, 0, 0, 0), column 1's 5 | 15 << 4 = 245; the other 30 words of
// the 32-column tile are padding, 0 with scale 0. The bias row the matmul alone
// feeds becomes the op's bias.

// CHECK-LABEL: func @by_hand
// EIGHT-LABEL: func @by_hand
func.func @by_hand(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = edge.constant dense<[[1.0, 0.25], [-0.5, 0.75]]> : tensor<2x2xf32>
  %b = edge.constant dense<[[0.5, -1.0]]> : tensor<1x2xf32>
  // CHECK-DAG: %[[B:.*]] = edge.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[Q:.*]] = edge.constant dense<"0x0F000000F5000000{{(00)+}}"> : tensor<1x1x128xui8>
  // CHECK-DAG: %[[S:.*]] = edge.constant dense<{{\[\[\[}}1.000000e-01, 5.000000e-02, 0.000000e+00, {{.*}}]]]> : tensor<1x1x32xf32>
  // CHECK-DAG: %[[Z:.*]] = edge.constant dense<{{\[\[\[}}5, 0, 0, {{.*}}]]]> : tensor<1x1x32xui8>
  // CHECK: %[[Y:.*]] = edge.weight_quantized_matmul %arg0, %[[Q]](%[[S]], %[[Z]]) bias %[[B]] {bits = 4 : i64, group_size = 8 : i64}
  // CHECK-NOT: edge.matmul
  // CHECK-NOT: edge.add
  // CHECK: return %[[Y]]
  // EIGHT: edge.weight_quantized_matmul {{.*}} {bits = 8 : i64, group_size = 8 : i64} : (tensor<3x2xf32>, tensor<1x1x128xui8>, tensor<1x1x32xf32>, tensor<1x1x32xui8>, tensor<2xf32>) -> tensor<3x2xf32>
  %0 = edge.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = edge.add %0, %b : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Tests the layout at 40 columns (two tiles) and 20 rows in groups of 8
// (three groups, the last of four rows), with a dynamic batch, and that an
// add with a second reader of the product stays an add.

// CHECK-LABEL: func @tiles_and_groups
func.func @tiles_and_groups(%x: tensor<?x20xf32>) -> (tensor<?x40xf32>, tensor<?x40xf32>) {
  %w = edge.constant dense<0.5> : tensor<20x40xf32>
  %b = edge.constant dense<1.0> : tensor<1x40xf32>
  // CHECK: %[[Y:.*]] = edge.weight_quantized_matmul %arg0, %{{.*}}(%{{.*}}, %{{.*}}) {bits = 4 : i64, group_size = 8 : i64} : (tensor<?x20xf32>, tensor<2x3x128xui8>, tensor<2x3x32xf32>, tensor<2x3x32xui8>) -> tensor<?x40xf32>
  // CHECK: edge.add %[[Y]]
  %0 = edge.matmul %x, %w : (tensor<?x20xf32>, tensor<20x40xf32>) -> tensor<?x40xf32>
  %1 = edge.add %0, %b : (tensor<?x40xf32>, tensor<1x40xf32>) -> tensor<?x40xf32>
  return %0, %1 : tensor<?x40xf32>, tensor<?x40xf32>
}

// -----

// Tests what stays f32: a product of two activations, an i32 product, a
// batched constant weight, and (EIGHT) the node given 0 bits, while the
// node given 4 bits overrides the default 8.

// CHECK-LABEL: func @unchanged
// EIGHT-LABEL: func @unchanged
func.func @unchanged(%x: tensor<2x4xf32>, %y: tensor<4x3xf32>, %i: tensor<2x4xi32>, %bx: tensor<2x2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %wi = edge.constant dense<1> : tensor<4x3xi32>
  %wb = edge.constant dense<0.5> : tensor<2x4x3xf32>
  %w = edge.constant dense<0.25> : tensor<4x3xf32>
  // CHECK: edge.matmul %arg0, %arg1
  // CHECK: edge.matmul %arg2
  // CHECK: edge.matmul %arg3
  %0 = edge.matmul %x, %y : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = edge.matmul %i, %wi : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
  %2 = edge.matmul %bx, %wb : (tensor<2x2x4xf32>, tensor<2x4x3xf32>) -> tensor<2x2x3xf32>
  // EIGHT: edge.matmul %arg0, %{{.*}} : {{.*}} loc("keep")
  // EIGHT: edge.weight_quantized_matmul {{.*}} {bits = 4 : i64, group_size = 8 : i64} {{.*}} loc("narrow")
  %3 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("keep")
  %4 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("narrow")
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests the widths a search chose (strata.weight_bits on the function):
// "wide" stays f32 and "mid" takes 8 bits over the default; the node-bits
// option overrides the dictionary ("narrow" is 8 there, 4 by the option,
// in EIGHT); a node the dictionary does not name takes the default.

// CHECK-LABEL: func @chosen
// EIGHT-LABEL: func @chosen
func.func @chosen(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {strata.weight_bits = {wide = 0 : i64, mid = 8 : i64, narrow = 8 : i64}} {
  %w = edge.constant dense<0.25> : tensor<4x3xf32>
  // CHECK: edge.matmul %arg0, %{{.*}} : {{.*}}
  // CHECK: edge.weight_quantized_matmul {{.*}} {bits = 8 : i64, group_size = 8 : i64}
  // CHECK: edge.weight_quantized_matmul {{.*}} {bits = 8 : i64, group_size = 8 : i64}
  // CHECK: edge.weight_quantized_matmul {{.*}} {bits = 4 : i64, group_size = 8 : i64}
  // EIGHT: edge.matmul %arg0, %{{.*}} : {{.*}} loc("wide")
  // EIGHT: edge.weight_quantized_matmul {{.*}} {bits = 8 : i64, group_size = 8 : i64} {{.*}} loc("mid")
  // EIGHT: edge.weight_quantized_matmul {{.*}} {bits = 4 : i64, group_size = 8 : i64} {{.*}} loc("narrow")
  // EIGHT: edge.weight_quantized_matmul {{.*}} {bits = 8 : i64, group_size = 8 : i64} {{.*}} loc("other")
  %0 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("wide")
  %1 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("mid")
  %2 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("narrow")
  %3 = edge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("other")
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

