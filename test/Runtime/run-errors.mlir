// RUN: strata-opt --strata-exec-plan-memory --mlir-print-debuginfo %s | strata-translate --emit-program -o %t.strata
// RUN: not strata-run %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: head -c 200 %t.strata > %t.truncated
// RUN: not strata-run %t.truncated 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: not strata-dump %t.truncated 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: printf 'not a program at all, just text that is long enough for a header.....' > %t.text
// RUN: not strata-run %t.text 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: not strata-run %t.strata --method nope 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not strata-run %t.strata --input %t.missing.pb 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not strata-run %t.strata --inputs %t.nodir 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not strata-run %t.strata --bogus 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: strata-run %t.strata --profile --bench 5 --seed 3 | FileCheck %s --check-prefix=PROFILE

// Tests that strata-run reports a missing or damaged program, an unknown
// method, a missing input file or folder and an unknown flag with a message
// naming the file or field and a non-zero exit; and that --profile lists each
// instruction with its ONNX node names and --bench prints percentiles.

// MISSING: strata-run: io_error: {{.*}}.missing: cannot open: No such file or directory
// TRUNCATED: invalid_program: {{.*}}: header.flatbuffer_offset/size {{.*}} lie outside the 200-byte file (truncated?)
// MAGIC: invalid_program: {{.*}}.text: header.magic is not STRATAPB (not a .strata file)
// METHOD: not_found: {{.*}}: no method 'nope' (methods: forward)
// INPUT: io_error: {{.*}}.missing.pb: cannot open
// NODIR: io_error: {{.*}}.nodir: cannot open folder
// USAGE: strata-run: unknown option '--bogus'
// PROFILE: inputs: random (seed 3)
// PROFILE: profile: 2 instructions
// PROFILE-NEXT: 0 kernel relu {{.*}} ms {{.*}} Relu_0
// PROFILE-NEXT: 1 kernel softmax {{.*}} ms {{.*}} Softmax_1, Fused_2
// PROFILE: bench: 5 runs after 1 warm-up: median {{.*}} ms, p10 {{.*}} ms, p90 {{.*}} ms

exec.program @small {
  exec.method @forward : (memref<2x8xf32>) -> memref<2x8xf32> {
    %x = exec.input 0 : memref<2x8xf32>
    %a = exec.alloc : memref<2x8xf32>
    %b = exec.alloc : memref<2x8xf32>
    exec.kernel "relu" ins(%x : memref<2x8xf32>) outs(%a : memref<2x8xf32>) loc("Relu_0")
    exec.kernel "softmax" ins(%a : memref<2x8xf32>) outs(%b : memref<2x8xf32>) {params = {axis = 1 : i64}} loc(fused["Softmax_1", "Fused_2"])
    exec.return %b : memref<2x8xf32>
  }
}
