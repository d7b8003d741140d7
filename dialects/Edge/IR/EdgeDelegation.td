//===- EdgeDelegation.td - calls into backend partitions ---*- tablegen -*-===//
//
// The op that hands a partition to the backend that claimed it.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_DELEGATION
#define STRATA_EDGE_DELEGATION

include "Edge/IR/EdgeBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Edge_DelegateCallOp : Edge_Op<"delegate_call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a partition a backend claimed";
  let description = [{
    `callee` names a function marked `edge.delegate = "<backend>"`: the
    partition outlined from the caller (with its body, before the backend's
    preprocess step ran) or its compiled form (a declaration carrying
    `edge.processed` and the other products of preprocess, after).

    ```mlir
    %y = edge.delegate_call @onednn_0(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Edge_Tensor>:$inputs);
  let results = (outs Variadic<Edge_Tensor>:$outputs);
  let assemblyFormat = [{
    $callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
}

#endif // STRATA_EDGE_DELEGATION
