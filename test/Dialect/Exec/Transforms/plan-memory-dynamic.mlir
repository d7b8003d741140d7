// RUN: strata-opt --strata-exec-plan-memory='report=true' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: strata-opt --strata-exec-plan-memory %s | FileCheck %s

// Tests that buffers with dynamic dimensions are planned at their bounds:
// a product of two symbols by interval arithmetic (affine constraints cannot
// hold it), a difference that cancels by MLIR's ValueBoundsConstraintSet
// (intervals alone would give 9 rows), and affine.min.

// batch <= 8, seq <= 6 (bytes 64-aligned):
//   %x     batch x seq = 48 f32                   192
//   %prod  batch * seq = 48 f32                   192
//   %diff  (batch + 2) - batch = 2 rows of 16 f32 128 (intervals: 9 rows, 576)
//   %small min(batch, 3) = 3 f32                   64
// naive 576 (1024 with the interval bound of %diff); %x and %prod are live
// at the kernel, the returned %diff and %small from their definition on.
// REPORT: memory plan: arena 384 bytes, lower bound 384 bytes, naive 576 bytes
// CHECK: exec.method @forward
// CHECK-SAME: arena_sizes = array<i64: 384>

exec.program @bounds {
  exec.method @forward : (memref<?x?xf32>) -> (memref<?xf32>, memref<?x16xf32>, memref<?xf32>) {
    %batch = exec.dim_symbol "batch" bounds 1 to 8
    %seq = exec.dim_symbol "seq" bounds 1 to 6
    %x = exec.input 0 (%batch, %seq) : memref<?x?xf32>
    %n = affine.apply affine_map<()[s0, s1] -> (s0 * s1)>()[%batch, %seq]
    %prod = exec.alloc (%n) : memref<?xf32>
    %plus = affine.apply affine_map<()[s0] -> (s0 + 2)>()[%batch]
    %two = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%plus, %batch]
    %diff = exec.alloc (%two) : memref<?x16xf32>
    %three = affine.min affine_map<()[s0] -> (s0, 3)>()[%batch]
    %small = exec.alloc (%three) : memref<?xf32>
    exec.kernel "reshape" ins(%x : memref<?x?xf32>) outs(%prod : memref<?xf32>)
    exec.return %prod, %diff, %small : memref<?xf32>, memref<?x16xf32>, memref<?xf32>
  }
}
