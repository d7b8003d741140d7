// RUN: strata-translate --emit-program %s -o %t.strata
// RUN: strata-dump --json %t.strata | FileCheck %s

// Tests that storage element types map to the format's dtypes (signless
// and signed i8 both as i8) and that splat and bool constants are
// expanded to one byte per element.

// CHECK-LABEL: "name": "dtypes"
// CHECK: {"name": "flags", "dtype": "bool", "shape": [3], "segment": 0, "offset": 0, "size": 3}
// CHECK-NEXT: {"name": "splat", "dtype": "i32", "shape": [2, 2], "segment": 0, "offset": 64, "size": 16}
// CHECK-NEXT: {"name": "ids", "dtype": "i64", "shape": [2], "segment": 0, "offset": 128, "size": 16}
// CHECK-NEXT: {"name": "bytes", "dtype": "u8", "shape": [2], "segment": 0, "offset": 192, "size": 2}
// CHECK: {"id": 0, "dtype": "i8", "shape": [4], "memory_id": 0, "offset": 0}
// CHECK-NEXT: {"id": 1, "dtype": "u8", "shape": [4], "memory_id": 0, "offset": 64}
// CHECK-NEXT: {"id": 2, "dtype": "i8", "shape": [4], "memory_id": 0, "offset": 128}
// CHECK-NEXT: {"id": 3, "dtype": "bool", "shape": [3], "constant": 0}

exec.program @dtypes {
  exec.constant @flags dense<[true, false, true]> : tensor<3xi1>
  exec.constant @splat dense<7> : tensor<2x2xi32>
  exec.constant @ids dense<[1, -1]> : tensor<2xi64>
  exec.constant @bytes dense<[255, 1]> : tensor<2xui8>
  exec.method @forward : (memref<4xi8>) -> () attributes {arena_sizes = array<i64: 192>} {
    %x = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xi8>
    %u = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<4xui8>
    %s = exec.alloc {memory_id = 0 : i64, offset = 128 : i64} : memref<4xsi8>
    %f = exec.constant_ref @flags : memref<3xi1>
    exec.return
  }
}
