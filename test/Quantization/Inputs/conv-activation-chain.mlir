// Quantized conv chains ending in SiLU and hardswish as exporters spell
// them out (see ../form-quantized-ops.mlir): the first requantized, the
// second with an f32 result.
func.func @main(%x: tensor<1x3x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %xs = edge.constant dense<0.05> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %ys = edge.constant dense<0.03> : tensor<f32>
  %wq = edge.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-10, 11, 12], [13, -14, 15], [16, 17, -18]], [[19, 20, 21], [-22, 23, 24], [25, 26, -27]]], [[[127, -127, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4], [5, 5, 5]], [[6, 6, 6], [7, 7, 7], [8, 8, 8]]], [[[-1, -1, -1], [-2, -2, -2], [-3, -3, -3]], [[-4, -4, -4], [-5, -5, -5], [-6, -6, -6]], [[-7, -7, -7], [-8, -8, -8], [-9, -9, -9]]], [[[50, 0, -50], [0, 50, 0], [-50, 0, 50]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[9, 8, 7], [6, 5, 4], [3, 2, 1]]]]> : tensor<4x3x3x3xi8>
  %ws = edge.constant dense<[0.01, 0.02, 0.005, 0.03]> : tensor<4xf32>
  %wz = edge.constant dense<0> : tensor<4xi8>
  %b = edge.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %k = edge.constant dense<[[[[1.5]], [[0.5]], [[-1.0]], [[2.0]]]]> : tensor<1x4x1x1xf32>
  %c = edge.constant dense<[[[[0.25]], [[-0.5]], [[0.125]], [[0.0]]]]> : tensor<1x4x1x1xf32>
  %sixth = edge.constant dense<0.166666672> : tensor<1x1x1x1xf32>
  %half = edge.constant dense<0.5> : tensor<1x1x1x1xf32>
  %xq = edge.quantize_linear %x, %xs, %z {axis = 0 : i64} : (tensor<1x3x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x6x6xi8>
  %xd = edge.dequantize_linear %xq, %xs, %z {axis = 0 : i64} : (tensor<1x3x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x6x6xf32>
  %wd = edge.dequantize_linear %wq, %ws, %wz {axis = 0 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x3x3x3xf32>
  %conv = edge.conv2d %xd, %wd, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %m = edge.mul %conv, %k : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = edge.add %m, %c : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %sig = edge.sigmoid %a : tensor<1x4x6x6xf32>
  %silu = edge.mul %a, %sig : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %yq = edge.quantize_linear %silu, %ys, %z {axis = 0 : i64} : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xi8>
  %y = edge.dequantize_linear %yq, %ys, %z {axis = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xf32>
  %conv2 = edge.conv2d %xd, %wd, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %t = edge.mul %conv2, %sixth : (tensor<1x4x6x6xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x6x6xf32>
  %u = edge.add %t, %half : (tensor<1x4x6x6xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x6x6xf32>
  %v = edge.clip %u {min = 0.0 : f32, max = 1.0 : f32} : tensor<1x4x6x6xf32>
  %hs = edge.mul %conv2, %v : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y, %hs : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}
