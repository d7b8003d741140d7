// RUN: strata-opt %s --strata-apply-backend-patterns="backend=tensorrt plan-out=%t.plan.json report-out=%t.report.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=PLAN < %t.plan.json
// RUN: FileCheck %s --check-prefix=REPORT < %t.report.json
// RUN: strata-opt %s --strata-apply-backend-patterns="backend=tensorrt plan-in=%S/Inputs/stem-plan.json report-out=%t.edited.json" | FileCheck %s --check-prefix=EDITED
// RUN: FileCheck %s --check-prefix=EDITED-REPORT < %t.edited.json
// RUN: not strata-opt %s --strata-apply-backend-patterns="backend=tensorrt plan-in=%S/Inputs/unknown-node-plan.json" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt %s --strata-apply-backend-patterns="backend=nosuch" 2>&1 | FileCheck %s --check-prefix=BACKEND

// Tests that the plan lists every match keyed by ONNX node name (the
// root's location name) and pattern, that the stem claims its four ops so
// the shorter ConvBNReLU and ConvBN matches there are skipped with the
// reason, that the report counts them, and that a plan with the stem
// switched off and ConvBNReLU switched on applies exactly that.

// CHECK-LABEL: func @stem
// CHECK: hl.fused "conv_bn_relu_max_pool"

// PLAN:      "matches": {
// PLAN-NEXT:   "bn0": {
// PLAN-NEXT:     "ConvBN": {
// PLAN-NEXT:       "apply": false,
// PLAN-NEXT:       "nodes": [
// PLAN-NEXT:         "conv0",
// PLAN-NEXT:         "bn0"
// PLAN-NEXT:       ],
// PLAN-NEXT:       "phase": "fusion",
// PLAN-NEXT:       "reason": "overlaps StemConvBNReLUMaxPool at 'pool0'"
// PLAN:        "pool0": {
// PLAN-NEXT:     "StemConvBNReLUMaxPool": {
// PLAN-NEXT:       "apply": true,
// PLAN:        "relu0": {
// PLAN-NEXT:     "ConvBNReLU": {
// PLAN-NEXT:       "apply": false,
// PLAN:            "reason": "overlaps StemConvBNReLUMaxPool at 'pool0'"
// PLAN:      "patterns": [
// PLAN:          "name": "FlattenGemmToConv",
// PLAN-NEXT:     "phase": "conversion",
// PLAN-NEXT:     "priority": 2

// REPORT:      "applied_count": 1,
// REPORT:          "applied": 1,
// REPORT-NEXT:     "name": "StemConvBNReLUMaxPool",
// REPORT-NEXT:     "phase": "fusion",
// REPORT-NEXT:     "skipped": 0
// REPORT:          "name": "ConvBNReLU",
// REPORT-NEXT:     "phase": "fusion",
// REPORT-NEXT:     "skipped": 1
// REPORT:          "name": "ConvBN",
// REPORT-NEXT:     "phase": "fusion",
// REPORT-NEXT:     "skipped": 1
// REPORT:      "skipped_count": 2,
// REPORT:      "skips": [
// REPORT:          "node": "relu0",
// REPORT-NEXT:     "pattern": "ConvBNReLU",
// REPORT-NEXT:     "reason": "overlaps StemConvBNReLUMaxPool at 'pool0'"

// EDITED-LABEL: func @stem
// EDITED: %[[G:.*]] = hl.fused "conv_bn_relu"
// EDITED: hl.max_pool %[[G]]

// EDITED-REPORT: "applied_count": 1,
// EDITED-REPORT:     "node": "pool0",
// EDITED-REPORT-NEXT: "pattern": "StemConvBNReLUMaxPool",
// EDITED-REPORT-NEXT: "reason": "switched off in the plan"

// UNKNOWN: error: plan '{{.*}}unknown-node-plan.json': the model has no match of pattern 'ConvBNReLU' at node 'nosuch' (a plan applies to the model, input shapes and backend it was made for)
// BACKEND: error: unknown backend 'nosuch' (known: portable, tensorrt, onednn, xnnpack)

func.func @stem(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  %0 = hl.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv0")
  %1 = hl.batch_normalization %0, %c, %c, %c, %c : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("bn0")
  %2 = hl.relu %1 : tensor<1x4x6x6xf32> loc("relu0")
  %3 = hl.max_pool %2 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> loc("pool0")
  return %3 : tensor<1x4x3x3xf32>
}
