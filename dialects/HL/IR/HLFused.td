//===- HLFused.td - hl fused groups -------------------------*- tablegen -*-===//
//
// `hl.fused`: a group of hl ops that a backend's fusion pattern claimed,
// kept as a region so the group is numerically exact and can be inlined.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_FUSED
#define STRATA_HL_FUSED

include "HL/IR/HLBase.td"

def HL_FusedOp : HL_Op<"fused", [IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "A group of ops claimed by one fusion pattern";
  let description = [{
    The body holds the original ops of the group, unchanged: running the
    body is running the group, so fusing is numerically exact and inlining
    the body undoes it. `kind` names what the group computes
    (`conv_bn_relu`, `conv_bn_add_relu`, `linear`, `layer_norm`, ...), so a
    backend or the lowering can recognise it without looking inside; a
    group with no dedicated lowering is inlined. The operands are every
    value the group reads (activations and weights alike), in the order the
    group first uses them; the body's arguments stand for them one to one.
    A quantized pattern that claims the group records where quantize /
    dequantize pairs go in `qdq_points`, by operand index.

    ```mlir
    %y = hl.fused "conv_bn_relu" (%x, %w, %s, %b, %m, %v)
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>,
           tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32> {
    ^bb0(%a: tensor<1x3x8x8xf32>, %aw: tensor<4x3x3x3xf32>, ...):
      %c = hl.conv %a, %aw : ...
      %n = hl.batch_normalization %c, %as, %ab, %am, %av : ...
      %r = hl.relu %n : tensor<1x4x6x6xf32>
      hl.yield %r : tensor<1x4x6x6xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<AnyType>:$inputs,
                       OptionalAttr<ArrayAttr>:$qdq_points);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
    $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The hl.yield ending the body.
    YieldOp getYield();
  }];
}

#endif // STRATA_HL_FUSED
