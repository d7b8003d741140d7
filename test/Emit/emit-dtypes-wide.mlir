// RUN: strata-translate --emit-program %s -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s

// Tests that the wide unsigned types and bf16 map to u16/u32/u64/bf16 (the
// schema values appended after i16), with constants stored little-endian
// at their width.

// CHECK-LABEL: "name": "wide"
// CHECK: {"name": "big", "dtype": "u64", "shape": [1], "segment": 0, "offset": 0, "size": 8}
// CHECK-NEXT: {"name": "halfs", "dtype": "bf16", "shape": [2], "segment": 0, "offset": 64, "size": 4}
// CHECK: {"id": 0, "dtype": "u16", "shape": [4], "memory_id": 0, "offset": 0}
// CHECK-NEXT: {"id": 1, "dtype": "u32", "shape": [4], "memory_id": 0, "offset": 64}
// CHECK-NEXT: {"id": 2, "dtype": "u64", "shape": [1], "constant": 0}

exec.program @wide {
  exec.constant @big dense<18446744073709551615> : tensor<1xui64>
  exec.constant @halfs dense<[1.0, -2.0]> : tensor<2xbf16>
  exec.method @forward : (memref<4xui16>) -> () attributes {arena_sizes = array<i64: 128>} {
    %x = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xui16>
    %u = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xui32>
    %c = exec.constant_ref @big : memref<1xui64>
    exec.return
  }
}
