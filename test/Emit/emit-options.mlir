// RUN: strata-translate --emit-program --segment-alignment=64 --constant-alignment=16 --delegate-blobs-inline %s -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s

// Tests that the segment and constant alignments are configurable and that
// delegate blobs can live inline in the flatbuffer.

// CHECK-LABEL: "name": "small"
// CHECK: "segment_alignment": 64
// CHECK: "segments": [
// CHECK-NEXT: {"offset": 0, "size": 20}
// CHECK-NEXT: ],
// CHECK: {"name": "a", "dtype": "f32", "shape": [1], "segment": 0, "offset": 0, "size": 4}
// CHECK-NEXT: {"name": "b", "dtype": "f32", "shape": [1], "segment": 0, "offset": 16, "size": 4}
// CHECK: {"name": "d", "backend": "xnnpack", "compile_specs": {}, "segment": -1, "inline_size": 2}

exec.program @small {
  exec.constant @a dense<1.0> : tensor<1xf32>
  exec.constant @b dense<2.0> : tensor<1xf32>
  exec.delegate @d {backend = "xnnpack", processed = dense<[1, 2]> : tensor<2xui8>}
  exec.method @forward : () -> () attributes {arena_sizes = array<i64>} {
    exec.return
  }
}
