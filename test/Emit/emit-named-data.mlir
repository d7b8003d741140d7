// RUN: strata-translate --emit-program %s -o %t.strata
// RUN: strata-dump %t.strata | FileCheck %s

// Tests that a delegate's named data with equal bytes shares one segment
// (a backend that keeps plain weights beside packed ones whose layout is
// the plain one stores them once), and that other bytes get their own.

// CHECK: named data:
// CHECK-NEXT: d/packed segment [[SAME:[0-9]+]] (4 bytes)
// CHECK-NEXT: d/plain segment [[SAME]] (4 bytes)
// CHECK-NEXT: d/scale segment [[OTHER:[0-9]+]] (4 bytes)
// CHECK-NOT: segment [[SAME]]

exec.program @shared {
  exec.delegate @d {backend = "npu9000", processed = dense<[1, 2]> : tensor<2xui8>, named_data = {"d/plain" = dense<[1, 2, 3, 4]> : tensor<4xui8>, "d/packed" = dense<[1, 2, 3, 4]> : tensor<4xui8>, "d/scale" = dense<[1, 2, 3, 5]> : tensor<4xui8>}}
  exec.method @forward : () -> () attributes {arena_sizes = array<i64>} {
    exec.return
  }
}
