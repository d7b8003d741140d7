// RUN: not strata-opt %s --convert-hl-to-edge 2>&1 | FileCheck %s

// Tests that a transposed convolution whose attributes do not give its
// declared output (pads wider than the full extent) is refused as a failed
// lowering, with the op named, and never reaches the edge op's
// type-inferring builder, which could only abort.

// CHECK: error: failed to legalize operation 'hl.conv_transpose'
func.func @pads_wider_than_the_output(%x: tensor<1x2x4x4xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = hl.conv_transpose %x, %w {pads = array<i64: 9, 9, 9, 9>} : (tensor<1x2x4x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
