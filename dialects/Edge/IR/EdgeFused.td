//===- EdgeFused.td - fused forms without an anchor op -----*- tablegen -*-===//
//
// Activations and normalizations exporters spell out in several ops, as
// one op: what strata-edge-fuse forms in a delegated partition whose
// backend runs them as one step, where no producer takes the chain as a
// post-op (EdgePostOps.td). The portable kernels never see these ops.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_FUSED
#define STRATA_EDGE_FUSED

include "Edge/IR/EdgeBase.td"

def Edge_ActivationOp : Edge_Op<"activation",
    [Pure, SameOperandsAndResultType,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "GELU (erf form), SiLU, hardswish or LeakyRelu as one op "
                "(delegates only)";
  let description = [{
    `kind` is one of the activation post-op steps (`gelu_erf`, `swish`,
    `hardswish`, `relu`): x * 0.5 * (1 + erf(x / sqrt(2))), x * sigmoid(x),
    x * clip(x / 6 + 1 / 2, 0, 1), or max(x, 0) + alpha * min(x, 0). strata-edge-fuse forms it from the chain
    of edge ops (EdgeActivationChains.h) inside a delegated partition.

    ```mlir
    %y = edge.activation %x {kind = #edge.post_op<gelu_erf, 0.000000e+00, 0.000000e+00>}
        : tensor<1x16xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input, Edge_PostOpAttr:$kind);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Edge_LayerNormOp : Edge_Op<"layer_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "output"]>,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Layer normalization over the last axis (delegates only)";
  let description = [{
    `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + epsilon)` over the last
    axis, times `gamma` and plus `beta` (constant vectors of the last
    axis' extent) where present. strata-edge-fuse forms it from the
    nine-op chain exporters write before opset 17.

    ```mlir
    %y = edge.layer_norm %x, %gamma, %beta {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>)
        -> tensor<1x8x16xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input,
                       Optional<Edge_F32Tensor>:$gamma,
                       Optional<Edge_F32Tensor>:$beta, F32Attr:$epsilon);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = [{
    $input (`gamma` `(` $gamma^ `)`)? (`beta` `(` $beta^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_FUSED
