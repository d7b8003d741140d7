// A two-layer perceptron whose hidden activation is a SmoothQuant site
// (tagged as strata-apply-backend-patterns and calibration leave it),
// for smooth-quant.mlir's float-equivalence check.
func.func @mlp(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %w1 = hl.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b1 = hl.constant dense<[2.0, 1.0, -1.0]> : tensor<3xf32>
  %w2 = hl.constant dense<[[1.0, -0.5], [4.0, 2.0], [3.0, 3.0]]> : tensor<3x2xf32>
  %b2 = hl.constant dense<[0.25, -0.75]> : tensor<2xf32>
  %h = hl.fused "linear_relu"(%x, %w1, %b1) {strata.smooth = {act_absmax = dense<[4.0, 1.0, 0.0]> : tensor<3xf32>}} : (tensor<4x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x2xf32>, %w: tensor<2x3xf32>, %b: tensor<3xf32>):
    %m = hl.matmul %a, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %s = hl.add %m, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    %r = hl.relu %s : tensor<4x3xf32>
    hl.yield %r : tensor<4x3xf32>
  }
  %y = hl.fused "linear"(%h, %w2, %b2) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<4x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>):
    %m = hl.matmul %a, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %s = hl.add %m, %b : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
    hl.yield %s : tensor<4x2xf32>
  }
  return %y : tensor<4x2xf32>
}
