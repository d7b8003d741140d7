// strata-insert-qdq: pairs at each QDQ point kind, one pair per value,
// scale propagation through scale-keeping ops, fixed ranges and the float
// fallback lists.
// RUN: strata-opt %s --strata-insert-qdq | FileCheck %s
// RUN: strata-opt %s --strata-insert-qdq="activations=asymmetric" | FileCheck %s --check-prefix=ASYM
// RUN: strata-opt %s --strata-insert-qdq="skip-ops=Gemm skip-nodes=conv_b" | FileCheck %s --check-prefix=SKIP
// RUN: strata-opt %s --strata-insert-qdq="min-weight-elements=10" | FileCheck %s --check-prefix=SMALL
// RUN: strata-opt %s --strata-insert-qdq="power-of-two-scales=true" | FileCheck %s --check-prefix=POW2
// RUN: not strata-opt %s --strata-insert-qdq="activations=skewed" 2>&1 | FileCheck %s --check-prefix=BAD

// Weight channel maxima 127 and 63.5: per-channel scales 1 and 0.5.
// CHECK-LABEL: func.func @main
// CHECK: %[[QX:.*]] = "quant.qcast"(%arg0) {strata.observe = 0 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK: %[[DX:.*]] = "quant.dcast"(%[[QX]])
// CHECK: %[[W:[0-9]+]] = hl.constant
// CHECK: %[[QW:.*]] = "quant.qcast"(%[[W]]) : (tensor<2x1x1x1xf32>) -> tensor<2x1x1x1x!quant.uniform<i8<-127:127>:f32:0, {1.000000e+00,5.000000e-01}>>
// CHECK: %[[DW:.*]] = "quant.dcast"(%[[QW]])
// CHECK: %[[A:.*]] = hl.fused "conv"(%[[DX]], %[[DW]])
// The activation and residual inputs of the conv+add group are the same
// value: one pair serves both.
// CHECK: %[[QR:.*]] = "quant.qcast"(%[[A]]) {strata.observe = 1 : i64}
// CHECK: %[[DR:.*]] = "quant.dcast"(%[[QR]])
// CHECK: %[[B:.*]] = hl.fused "conv_add"(%[[DR]], %[[DW2:.*]], %[[DR]])
// Max pooling keeps the scale: its output is observed at its input, so it
// shares %B's id (2).
// CHECK: %[[QB:.*]] = "quant.qcast"(%[[B]]) {strata.observe = 2 : i64}
// CHECK: hl.fused "conv"
// CHECK: %[[P:.*]] = hl.max_pool
// CHECK: %[[QP:.*]] = "quant.qcast"(%[[P]]) {strata.observe = 2 : i64}
// CHECK: hl.fused "conv"(%{{.*}}, %[[DW2]])
// Softmax output: the fixed range [0, 1], scale 1/127, not observed.
// CHECK: %[[S:.*]] = hl.softmax
// CHECK: "quant.qcast"(%[[S]]) {strata.fixed_range} : (tensor<1x8xf32>) -> tensor<1x8x!quant.uniform<i8:f32, 0.0078740157480314959>>
// CHECK: hl.fused "linear"

// ASYM: "quant.qcast"(%arg0) {strata.asymmetric, strata.observe = 0 : i64}
// ASYM: "quant.qcast"({{.*}}) {strata.fixed_range} : (tensor<1x8xf32>) -> tensor<1x8x!quant.uniform<i8:f32, 0.0039215686274509803:-128>>

// SKIP: "quant.qcast"(%arg0)
// SKIP: hl.fused "conv_add"(%{{[0-9]+}}, %{{[a-z0-9_]+}}, %{{[0-9]+}})
// SKIP: hl.softmax
// SKIP-NOT: quant.qcast
// SKIP: hl.fused "linear"

// Every conv weight has fewer than 10 elements: only the linear group
// (a 32-element weight) is quantized.
// SMALL-NOT: strata.observe
// SMALL: hl.fused "conv"(%arg0, %{{[0-9]+}})
// SMALL: hl.softmax
// SMALL: strata.fixed_range
// SMALL: hl.fused "linear"(%{{[0-9]+}}, %{{[0-9]+}})

// Power-of-two scales, rounded up: 127 / 127 = 1 and 63.5 / 127 = 0.5 are
// powers of two already; 1 / 127 = 0.00787 becomes 2^-6; the softmax's
// fixed 1/127 too.
// POW2: "quant.qcast"(%{{.*}}) : (tensor<2x1x1x1xf32>) -> tensor<2x1x1x1x!quant.uniform<i8<-127:127>:f32:0, {1.000000e+00,5.000000e-01}>>
// POW2: "quant.qcast"(%{{.*}}) : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1x!quant.uniform<i8<-127:127>:f32:0, {1.562500e-02,1.562500e-02}>>
// POW2: "quant.qcast"({{.*}}) {strata.fixed_range} : (tensor<1x8xf32>) -> tensor<1x8x!quant.uniform<i8:f32, 1.562500e-02>>

// BAD: activations must be symmetric or asymmetric, got 'skewed'

func.func @main(%x: tensor<1x1x4x4xf32>, %m: tensor<1x8xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>, tensor<1x4xf32>) {
  %w = hl.constant dense<[[[[127.0]]], [[[-63.5]]]]> : tensor<2x1x1x1xf32>
  %w2 = hl.constant dense<1.0> : tensor<2x2x1x1xf32>
  %lw = hl.constant dense<1.0> : tensor<4x8xf32>
  %a = hl.fused "conv"(%x, %w) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%i: tensor<1x1x4x4xf32>, %k: tensor<2x1x1x1xf32>):
    %c = hl.conv %i, %k {kernel_shape = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv_a")
    hl.yield %c : tensor<1x2x4x4xf32>
  }
  %b = hl.fused "conv_add"(%a, %w2, %a) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}, {input = 2 : i64, role = "residual"}]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%i: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>):
    %c = hl.conv %i, %k {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv_b")
    %s = hl.add %c, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    hl.yield %s : tensor<1x2x4x4xf32>
  }
  %e = hl.fused "conv"(%b, %w2) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%i: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>):
    %c = hl.conv %i, %k {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    hl.yield %c : tensor<1x2x4x4xf32>
  }
  %p = hl.max_pool %b {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %f = hl.fused "conv"(%p, %w2) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%i: tensor<1x2x2x2xf32>, %k: tensor<2x2x1x1xf32>):
    %c = hl.conv %i, %k {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
    hl.yield %c : tensor<1x2x2x2xf32>
  }
  %sm = hl.softmax %m : tensor<1x8xf32>
  %l = hl.fused "linear"(%sm, %lw) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<1x8xf32>, %k: tensor<4x8xf32>):
    %g = hl.gemm %i, %k {transB = 1 : i64} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
    hl.yield %g : tensor<1x4xf32>
  }
  func.return %f, %e, %l : tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>, tensor<1x4xf32>
}

// A group inside a run-time branch runs on some inputs only: calibration
// observes the function body's values, so it stays in float.
// CHECK-LABEL: func.func @in_branch
// CHECK-NOT: quant.qcast
// CHECK: hl.fused "linear"
// CHECK-NOT: quant.qcast
// CHECK: return
func.func @in_branch(%c: tensor<i1>, %x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %lw = hl.constant dense<1.0> : tensor<4x8xf32>
  %r = hl.if %c : (tensor<i1>) -> tensor<1x4xf32> {
    %l = hl.fused "linear"(%x, %lw) {qdq_points = [{input = 0 : i64, role = "activation"}, {axis = 0 : i64, input = 1 : i64, role = "weight"}]} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32> {
    ^bb0(%i: tensor<1x8xf32>, %k: tensor<4x8xf32>):
      %g = hl.gemm %i, %k {transB = 1 : i64} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
      hl.yield %g : tensor<1x4xf32>
    }
    hl.yield %l : tensor<1x4xf32>
  } else {
    %z = hl.constant dense<0.0> : tensor<1x4xf32>
    hl.yield %z : tensor<1x4xf32>
  }
  func.return %r : tensor<1x4xf32>
}
