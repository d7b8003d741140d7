// RUN: strata-translate --emit-program %s -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s
// RUN: strata-dump %t.strata | FileCheck %s --check-prefix=TEXT
// RUN: not strata-run %t.strata 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: strata-run %t.strata --method init | FileCheck %s --check-prefix=INIT

// Tests that every exec construct round-trips through the program buffer:
// constants in an aligned segment, a delegate blob in its own segment,
// kernel params of every kind, moves, the memory plan and debug handles
// taken from (fused) NameLocs.

// CHECK-LABEL: "name": "model"
// CHECK: "version": 1
// CHECK: "segment_base_offset": 4096
// CHECK-SAME: "segment_alignment": 4096
// CHECK: "segments": [
// CHECK-NEXT: {"offset": 0, "size": 68}
// CHECK-NEXT: {"offset": 4096, "size": 3}
// CHECK: "constants": [
// CHECK-NEXT: {"name": "w", "dtype": "f32", "shape": [4], "segment": 0, "offset": 0, "size": 16}
// CHECK-NEXT: {"name": "b", "dtype": "i8", "shape": [2, 2], "segment": 0, "offset": 64, "size": 4}
// CHECK: "delegates": [
// CHECK-NEXT: {"name": "npu_0", "backend": "npu9000", "compile_specs": {"fast": true, "threads": 2}, "segment": 1, "inline_size": 0}
// CHECK: "operators": ["add", "relu"]
// CHECK: "name": "forward"
// CHECK-NEXT: "arena_sizes": [256]
// CHECK-NEXT: "inputs": [0]
// CHECK-NEXT: "outputs": [5]
// CHECK: {"id": 0, "dtype": "f32", "shape": [4], "memory_id": 0, "offset": 0}
// CHECK-NEXT: {"id": 1, "dtype": "f32", "shape": [4], "constant": 0}
// CHECK-NEXT: {"id": 2, "dtype": "i8", "shape": [2, 2], "constant": 1}
// CHECK-NEXT: {"id": 3, "dtype": "f32", "shape": [4], "memory_id": 0, "offset": 64}
// CHECK: "instructions": [
// CHECK-NEXT: {"kernel": "add", "ins": [0, 1], "outs": [3], "params": {"alpha": 0.5, "axes": [0, -1], "name": "x", "scales": [0.25, 2.0], "transpose": false}, "nodes": ["Add_0", "Mul_1"]}
// CHECK-NEXT: {"delegate": "npu_0", "ins": [3], "outs": [4], "nodes": ["Conv_7"]}
// CHECK-NEXT: {"move": {"source": 4, "target": 5}, "nodes": []}
// CHECK-NEXT: {"kernel": "relu", "ins": [5], "outs": [5], "params": {}, "nodes": ["Relu_3"]}

// CHECK: "name": "init"
// CHECK-NEXT: "arena_sizes": []

// BACKEND: strata-run: not_found: {{.*}}: method 'forward': delegate 'npu_0' needs backend 'npu9000', which is not registered (registered: onednn, xnnpack)
// INIT: method 'init': 0 inputs, 0 outputs, 0 instructions
// INIT-NOT: output 0

// TEXT: program @model (format version 1
// TEXT: #0 @w f32[4] segment 0 offset 0 size 16
// TEXT: #0 @npu_0 backend npu9000 specs {fast = true, threads = 2} blob in segment 1
// TEXT: 0: kernel add(%0, %1) -> (%3) {alpha = 0.5, axes = [0, -1], name = "x", scales = [0.25, 2.0], transpose = false}  # nodes ["Add_0", "Mul_1"]
// TEXT: 2: move %4 -> %5

exec.program @model {
  exec.constant @w dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  exec.constant @b dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  exec.delegate @npu_0 {backend = "npu9000", compile_specs = {threads = 2 : i64, fast = true}, processed = dense<[7, 8, 9]> : tensor<3xui8>}
  exec.method @forward : (memref<4xf32>) -> memref<4xf32> attributes {arena_sizes = array<i64: 256>} {
    %x = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
    %w = exec.constant_ref @w : memref<4xf32>
    %b = exec.constant_ref @b : memref<2x2xi8>
    %a = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xf32>
    %c = exec.alloc {memory_id = 0 : i64, offset = 128 : i64} : memref<4xf32>
    %d = exec.alloc {memory_id = 0 : i64, offset = 192 : i64} : memref<4xf32>
    exec.kernel "add" ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%a : memref<4xf32>) {params = {alpha = 0.5 : f32, axes = array<i64: 0, -1>, name = "x", scales = [0.25 : f32, 2.0 : f32], transpose = false}} loc(fused["Add_0", "Mul_1", "Add_0"])
    exec.delegate_call @npu_0 ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) loc(fused[callsite("Conv_7" at "model.onnx":1:1)])
    exec.move %c to %d : memref<4xf32>
    exec.kernel "relu" ins(%d : memref<4xf32>) outs(%d : memref<4xf32>) loc("Relu_3")
    exec.return %d : memref<4xf32>
  }
  exec.method @init : () -> () attributes {arena_sizes = array<i64>} {
    exec.return
  }
}
