// The whole delegation path on a small model: partition, the oneDNN
// preprocess step, lowering to exec (the delegate table), the program
// buffer (delegate, named data segments) and the runtime.
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend | FileCheck %s --check-prefix=EDGE
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend --strata-edge-to-exec | FileCheck %s --check-prefix=EXEC
// RUN: strata-opt %s --mlir-print-debuginfo --strata-partition="backend=onednn" --strata-to-backend="specs=keep_plain_weights=true" --strata-edge-to-exec | strata-translate --emit-program -o %t.strata
// RUN: strata-dump %t.strata | FileCheck %s --check-prefix=DUMP
// RUN: strata-run %t.strata | FileCheck %s --check-prefix=EXECUTE
// RUN: not strata-opt %s --strata-partition="backend=onednn" --strata-to-backend="specs=wingrad=true" 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not strata-opt %s --strata-partition="backend=onednn" --strata-edge-to-exec 2>&1 | FileCheck %s --check-prefix=UNCOMPILED
// RUN: not strata-opt %s --strata-partition="backend=portable" 2>&1 | FileCheck %s --check-prefix=NODELEGATE
// RUN: strata-opt %s --strata-partition="backend=onednn" --strata-to-backend --mlir-print-ir-after=strata-edge-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED

// EDGE: func.func private @onednn_0(tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// EDGE-SAME: edge.compile_specs = {activation_layout = "auto", keep_plain_weights = "false", tune_threads = "1", winograd = "true"}
// EDGE-SAME: edge.debug_handles = {"0" = ["conv", "relu"]}
// EDGE-SAME: edge.delegate = "onednn"
// EDGE-SAME: edge.named_data = {"onednn_0/t1.packed" = dense<{{.*}}> : tensor<{{[0-9]+}}xui8>, "onednn_0/t2" = dense<{{.*}}> : tensor<16xui8>}
// EDGE-SAME: edge.processed = dense<{{.*}}> : tensor<{{[0-9]+}}xui8>
// EDGE-SAME: edge.scratch_bytes = {{[0-9]+}} : i64

// The backend's fusions run as a dynamic pipeline of --strata-to-backend,
// on each partition before its preprocess step, so the usual IR printing
// shows the fused partition that the backend serializes.
// FUSED: IR Dump After EdgeFuse (strata-edge-fuse)
// FUSED-NEXT: func.func private @onednn_0
// FUSED: edge.conv2d {{.*}}post_ops = [#edge.post_op<relu>]
// FUSED-NOT: edge.relu
// FUSED: return

// EXEC: exec.delegate @onednn_0 {backend = "onednn"
// EXEC: exec.method @main
// EXEC: %[[IN:.*]] = exec.input 0
// EXEC: %[[OUT:.*]] = exec.alloc {{.*}} : memref<1x4x6x6xf32>
// EXEC: %[[WORK:.*]] = exec.alloc {{.*}} : memref<{{[0-9]+}}xi8>
// EXEC: exec.delegate_call @onednn_0 ins(%[[IN]] : memref<1x3x8x8xf32>) outs(%[[OUT]], %[[WORK]] : memref<1x4x6x6xf32>, memref<{{[0-9]+}}xi8>)

// DUMP: delegates:
// DUMP-NEXT: #0 @onednn_0 backend onednn specs {activation_layout = "auto", keep_plain_weights = "true", tune_threads = "1", winograd = "true"} blob in segment 0, 1 debug handles
// The delegate's listing: the convolution with its fused relu, the
// implementation prepare chose and the packed weights' layout.
// DUMP-NEXT: oneDNN {{[0-9.]+}}, weights packed for {{.*}}, working memory {{[0-9]+}} bytes
// DUMP-NEXT: op 0 Convolution +1 post-ops: {{.*}} (implementation {{[0-9]+}}), weights {{[A-Za-z0-9]+}}  [conv, relu]
// DUMP-NEXT: named data:
// The plain weights, the packed ones (blocked by output channels for the
// CPU's kernel: the result leaves the delegate through the final copy, as
// oneDNN's only row-major kernel for it is its im2col + sgemm one) and the
// bias. Equal bytes would share a segment (test/Emit/emit-named-data.mlir).
// DUMP-NEXT: onednn_0/t1 segment 1 (432 bytes)
// DUMP-NEXT: onednn_0/t1.packed segment 2 ({{[0-9]+}} bytes)
// DUMP-NEXT: onednn_0/t2 segment 3 (16 bytes)
// DUMP: 0: delegate @onednn_0(%0) -> (%1, %2)  # nodes ["conv", "relu"]

// EXECUTE: load: {{.*}} ms, init: {{.*}} ms
// EXECUTE: output 0: f32[1, 4, 6, 6]

// SPEC: backend 'onednn' has no compile spec 'wingrad' (known: winograd, winograd_budget, winograd_size_budget, winograd_init_layer_bytes, activation_layout, keep_plain_weights, tune_threads, tune, tuning_file)
// UNCOMPILED: is a partition for 'onednn' that its backend has not compiled yet (run --strata-to-backend)
// NODELEGATE: backend 'portable' has no delegate to partition for

func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = edge.constant dense<0.25> : tensor<4x3x3x3xf32> loc("conv.weight")
  %b = edge.constant dense<0.5> : tensor<4xf32> loc("conv.bias")
  %c = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %r = edge.relu %c : tensor<1x4x6x6xf32> loc("relu")
  return %r : tensor<1x4x6x6xf32>
}
