// RUN: strata-opt %s --strata-partition="backend=onednn cost=builtin" | FileCheck %s
// RUN: strata-opt %s --strata-partition="backend=onednn cost=none" | FileCheck %s --check-prefix=NONE
// RUN: not strata-opt %s --strata-partition="backend=onednn cost=%t.missing" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo '{"format": "strata-partition-cost", "version": 2}' > %t.v2.json
// RUN: not strata-opt %s --strata-partition="backend=onednn cost=%t.v2.json" 2>&1 | FileCheck %s --check-prefix=VERSION

// With the delegate's calibration, a 3x3 convolution of 16 channels on
// 56x56 (6.7 M multiply-adds) is delegated, while a relu of four elements
// is not worth a delegate call and the conversion of its input and output:
// it stays on the portable kernels.
// CHECK-LABEL: func.func @big
// CHECK-NEXT: edge.delegate_call @onednn_0(%{{.*}})
// CHECK: func.func private @onednn_0
// CHECK-NEXT: edge.constant
// CHECK-NEXT: edge.conv2d
// CHECK-LABEL: func.func @tiny
// CHECK-NEXT: %[[F:.*]] = edge.floor
// CHECK-NEXT: %[[R:.*]] = edge.relu %[[F]]
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func private @onednn_1

// Without a cost model, every group is delegated.
// NONE-LABEL: func.func @big
// NONE-NEXT: edge.delegate_call @onednn_0
// NONE: func.func private @onednn_0
// NONE-LABEL: func.func @tiny
// NONE-NEXT: edge.floor
// NONE-NEXT: edge.delegate_call @onednn_1
// NONE: func.func private @onednn_1
// NONE-NEXT: edge.relu

// MISSING: cannot read partition cost calibration '{{.*}}.missing'
// VERSION: partition cost calibration '{{.*}}.v2.json': version is not 1
func.func @big(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x54x54xf32> {
  %w = edge.constant dense<0.5> : tensor<16x16x3x3xf32>
  %c = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x56x56xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x54x54xf32>
  return %c : tensor<1x16x54x54xf32>
}

func.func @tiny(%s: tensor<4xf32>) -> tensor<4xf32> {
  %f = edge.floor %s : tensor<4xf32>
  %r = edge.relu %f : tensor<4xf32>
  return %r : tensor<4xf32>
}
