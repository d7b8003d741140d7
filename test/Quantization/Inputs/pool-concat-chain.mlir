// Two quantized conv chains pooled and concatenated before the next
// quantization (a SqueezeNet fire module; see ../hoist-quantize.mlir).
// The scales are irregular so that no value lands on a rounding tie,
// where the float and the integer accumulation orders may round apart.
func.func @main(%x: tensor<1x2x6x6xf32>) -> tensor<1x6x3x3xf32> {
  %xs = edge.constant dense<0.0517> : tensor<f32>
  %ys = edge.constant dense<0.0311> : tensor<f32>
  %z = edge.constant dense<0> : tensor<i8>
  %wa = edge.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-10, 11, 12], [13, -14, 15], [16, 17, -18]]], [[[127, -127, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4], [5, 5, 5]]]]> : tensor<2x2x3x3xi8>
  %wb = edge.constant dense<[[[[20]], [[-30]]], [[[-40]], [[50]]], [[[60]], [[70]]], [[[-80]], [[-90]]]]> : tensor<4x2x1x1xi8>
  %was = edge.constant dense<[0.0107, 0.0213]> : tensor<2xf32>
  %wbs = edge.constant dense<[0.0051, 0.0103, 0.0197, 0.0043]> : tensor<4xf32>
  %wza = edge.constant dense<0> : tensor<2xi8>
  %wzb = edge.constant dense<0> : tensor<4xi8>
  %ba = edge.constant dense<[0.1093, -0.2117]> : tensor<2xf32>
  %bb = edge.constant dense<[0.3071, 0.0013, -0.1129, 0.2003]> : tensor<4xf32>
  %xq = edge.quantize_linear %x, %xs, %z {axis = 0 : i64} : (tensor<1x2x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x6x6xi8>
  %xd = edge.dequantize_linear %xq, %xs, %z {axis = 0 : i64} : (tensor<1x2x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x6x6xf32>
  %wad = edge.dequantize_linear %wa, %was, %wza {axis = 0 : i64} : (tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x3x3xf32>
  %wbd = edge.dequantize_linear %wb, %wbs, %wzb {axis = 0 : i64} : (tensor<4x2x1x1xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x2x1x1xf32>
  %ca = edge.conv2d %xd, %wad, %ba {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %ra = edge.relu %ca : tensor<1x2x6x6xf32>
  %cb = edge.conv2d %xd, %wbd, %bb {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %cat = edge.concat %ra, %cb {axis = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x6x6x6xf32>
  %pool = edge.max_pool2d %cat {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x6x6xf32>) -> tensor<1x6x3x3xf32>
  %yq = edge.quantize_linear %pool, %ys, %z {axis = 0 : i64} : (tensor<1x6x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x6x3x3xi8>
  %y = edge.dequantize_linear %yq, %ys, %z {axis = 0 : i64} : (tensor<1x6x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}
