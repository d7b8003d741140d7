// strata-smooth-quant: SmoothQuant's per-channel migration at the sites a
// smooth pattern tagged. The expected constants are computed by hand from
// s_j = max|X_j|^a / max|W_j|^(1-a) (a = 0.5 unless said).
// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-smooth-quant | FileCheck %s
// RUN: strata-opt %S/Inputs/smooth-mlp.mlir --strata-smooth-quant | FileCheck %s --check-prefix=MLP
// RUN: strata-opt %S/Inputs/smooth-mlp.mlir --strata-smooth-quant=alpha=1 | FileCheck %s --check-prefix=ALPHA1
// RUN: not strata-opt %S/Inputs/smooth-mlp.mlir --strata-smooth-quant=alpha=1.5 2>&1 | FileCheck %s --check-prefix=BADALPHA
// BADALPHA: alpha must be in [0, 1], got 1.5

// Exact in float: the smoothed perceptron computes what the original does
// (the tag is ignored by lowering), on two seeds.
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata-opt %S/Inputs/smooth-mlp.mlir --strata-lower-to-exec | strata-translate --emit-program -o %t/float.strata
// RUN: strata-opt %S/Inputs/smooth-mlp.mlir --strata-smooth-quant --strata-lower-to-exec | strata-translate --emit-program -o %t/smooth.strata
// RUN: strata-run %t/float.strata --seed 5 --output-dir %t/ref5
// RUN: strata-run %t/smooth.strata --seed 5 --expect %t/ref5 --atol 1e-6 --rtol 1e-6 --rel-l2 1e-7 | FileCheck %s --check-prefix=SAME
// RUN: strata-run %t/float.strata --seed 9 --output-dir %t/ref9
// RUN: strata-run %t/smooth.strata --seed 9 --expect %t/ref9 --atol 1e-6 --rtol 1e-6 --rel-l2 1e-7 | FileCheck %s --check-prefix=SAME
// SAME: output 0: PASS

// The perceptron: max|X| = [4, 1, 0], W2's row maxima [1, 4, 3], so
// s = [2, 0.5, 1] (a dead channel keeps 1): W1's columns and b1 divided
// by s, W2's rows multiplied by it; the tag is gone.
// MLP-DAG: hl.constant dense<[1.000000e+00, 2.000000e+00, -1.000000e+00]> : tensor<3xf32>
// MLP-DAG: hl.constant dense<{{\[\[}}5.000000e-01, 4.000000e+00, 3.000000e+00], [2.000000e+00, 1.000000e+01, 6.000000e+00]]> : tensor<2x3xf32>
// MLP-DAG: hl.constant dense<{{\[\[}}2.000000e+00, -1.000000e+00], [2.000000e+00, 1.000000e+00], [3.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>
// MLP-NOT: strata.smooth
// alpha 1: s = max|X| (= [4, 1], the dead channel 1): W2's rows * [4, 1, 1].
// ALPHA1: hl.constant dense<{{\[\[}}2.500000e-01, 2.000000e+00, 3.000000e+00], [1.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// ALPHA1: hl.constant dense<{{\[\[}}4.000000e+00, -2.000000e+00], [4.000000e+00, 2.000000e+00], [3.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>

// -----

// A normalization's scale and shift feed two readers: a Gemm with a
// transposed weight, and (through a reshape that keeps the last axis) a
// MatMul. max|X| = [9, 1]; the input rows' maxima over both weights:
// channel 0 max(|1|, |-4|, |-1|) = 4, channel 1 max(9, 1, 3) = 9; so
// s = [3/2, 1/3]: gamma [2, 0.5] / s, beta [1, -1] / s, the Gemm weight's
// columns and the MatMul weight's rows * s.
// CHECK-LABEL: func.func @norm_two_readers
// CHECK-DAG: hl.constant dense<[1.33333337, 1.500000e+00]> : tensor<2xf32>
// CHECK-DAG: hl.constant dense<[0.666666686, -3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: hl.constant dense<{{\[\[}}1.500000e+00, 3.000000e+00], [-6.000000e+00, 0.333333343]]> : tensor<2x2xf32>
// CHECK-DAG: hl.constant dense<{{\[\[}}-1.500000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK-NOT: strata.smooth
func.func @norm_two_readers(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<1x3x1xf32>) {
  %g = hl.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %be = hl.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %wa = hl.constant dense<[[1.0, 9.0], [-4.0, 1.0]]> : tensor<2x2xf32>
  %wb = hl.constant dense<[[-1.0], [3.0]]> : tensor<2x1xf32>
  %shape = hl.constant dense<[1, 3, 2]> : tensor<3xi64>
  %n = hl.fused "layer_norm"(%x, %g, %be) {strata.smooth = {act_absmax = dense<[9.0, 1.0]> : tensor<2xf32>}} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<3x2xf32>, %ag: tensor<2xf32>, %ab: tensor<2xf32>):
    %m = hl.mul %a, %ag : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    %s = hl.add %m, %ab : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    hl.yield %s : tensor<3x2xf32>
  }
  %ya = hl.fused "linear"(%n, %wa) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<3x2xf32>, %w: tensor<2x2xf32>):
    %y = hl.gemm %a, %w {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    hl.yield %y : tensor<3x2xf32>
  }
  %r = hl.reshape %n, %shape : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<1x3x2xf32>
  %yb = hl.fused "linear"(%r, %wb) : (tensor<1x3x2xf32>, tensor<2x1xf32>) -> tensor<1x3x1xf32> {
  ^bb0(%a: tensor<1x3x2xf32>, %w: tensor<2x1xf32>):
    %y = hl.matmul %a, %w : (tensor<1x3x2xf32>, tensor<2x1xf32>) -> tensor<1x3x1xf32>
    hl.yield %y : tensor<1x3x1xf32>
  }
  return %ya, %yb : tensor<3x2xf32>, tensor<1x3x1xf32>
}

// -----

// A site needs calibration's act_absmax.
func.func @uncalibrated(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = hl.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{SmoothQuant site 'linear_relu' has no act_absmax (calibrate it first)}}
  %h = hl.fused "linear_relu"(%x, %w) {strata.smooth} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x2xf32>, %aw: tensor<2x2xf32>):
    %m = hl.matmul %a, %aw : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %r = hl.relu %m : tensor<1x2xf32>
    hl.yield %r : tensor<1x2xf32>
  }
  %y = hl.fused "linear"(%h, %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x2xf32>, %aw: tensor<2x2xf32>):
    %m = hl.matmul %a, %aw : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    hl.yield %m : tensor<1x2xf32>
  }
  return %y : tensor<1x2xf32>
}

// -----

// A tagged group whose output is also returned is no longer a site: moving
// s would change the returned value.
func.func @not_a_site(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = hl.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'linear_relu' is no longer a SmoothQuant site}}
  %h = hl.fused "linear_relu"(%x, %w) {strata.smooth = {act_absmax = dense<[1.0, 2.0]> : tensor<2xf32>}} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x2xf32>, %aw: tensor<2x2xf32>):
    %m = hl.matmul %a, %aw : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %r = hl.relu %m : tensor<1x2xf32>
    hl.yield %r : tensor<1x2xf32>
  }
  %y = hl.fused "linear"(%h, %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x2xf32>, %aw: tensor<2x2xf32>):
    %m = hl.matmul %a, %aw : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    hl.yield %m : tensor<1x2xf32>
  }
  return %y, %h : tensor<1x2xf32>, tensor<1x2xf32>
}
