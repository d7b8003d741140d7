// RUN: not strata-opt %s --convert-edge-to-exec 2>&1 | FileCheck %s

// Tests that a fused post-op chain, which strata-edge-fuse writes inside
// delegated partitions only, never becomes a portable kernel call.

// CHECK: 'edge.add' op carries a fused post-op chain, which only a delegate runs
func.func @fused(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = edge.add %a, %a {post_ops = [#edge.post_op<relu>]} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
