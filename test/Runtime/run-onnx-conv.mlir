// REQUIRES: onnx-testdata
// RUN: strata-opt --strata-exec-plan-memory %s | strata-translate --emit-program -o %t.strata
// RUN: strata-run %t.strata --inputs %onnx_node/test_conv_with_strides_padding/test_data_set_0 --expect %onnx_node/test_conv_with_strides_padding/test_data_set_0 | FileCheck %s
// RUN: strata-run %t.strata --input %onnx_node/test_conv_with_strides_padding/test_data_set_0/input_0.pb --input %onnx_node/test_conv_with_strides_padding/test_data_set_0/input_1.pb --expect %onnx_node/test_conv_with_strides_padding/test_data_set_0 --output-dir %t.out | FileCheck %s
// RUN: strata-run %t.strata --inputs %onnx_node/test_conv_with_strides_padding/test_data_set_0 --expect %t.out | FileCheck %s
// RUN: strata-run %t.strata --input %t.out/output_0.npy --input %onnx_node/test_conv_with_strides_padding/test_data_set_0/input_1.pb 2>&1 | FileCheck %s --check-prefix=SHAPE || true
// RUN: not strata-run %t.strata --input %t.out/output_0.npy --input %onnx_node/test_conv_with_strides_padding/test_data_set_0/input_1.pb

// Tests that strata-run feeds ONNX TensorProto inputs (by folder or one by
// one), compares with the reference outputs of the ONNX node test, writes
// output_N.npy/.pb that read back, and refuses an input of the wrong shape.

// CHECK: output 0: PASS f32[1, 1, 4, 3] max_abs
// CHECK: PASS

// SHAPE: strata-run: invalid_argument: {{.*}}output_0.npy: input 0 of method 'forward' must be f32[1, 1, 7, 5], got f32[1, 1, 4, 3]

exec.program @conv {
  exec.method @forward : (memref<1x1x7x5xf32>, memref<1x1x3x3xf32>) -> memref<1x1x4x3xf32> {
    %x = exec.input 0 : memref<1x1x7x5xf32>
    %w = exec.input 1 : memref<1x1x3x3xf32>
    %y = exec.alloc : memref<1x1x4x3xf32>
    exec.kernel "conv2d" ins(%x, %w : memref<1x1x7x5xf32>, memref<1x1x3x3xf32>) outs(%y : memref<1x1x4x3xf32>) {params = {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64}} loc("conv_node")
    exec.return %y : memref<1x1x4x3xf32>
  }
}
