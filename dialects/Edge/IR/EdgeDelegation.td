//===- EdgeDelegation.td - calls into backend partitions ---*- tablegen -*-===//
//
// The op that hands a partition to the backend that claimed it.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_DELEGATION
#define STRATA_EDGE_DELEGATION

include "Edge/IR/EdgeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Edge_DelegateCallOp : Edge_Op<"delegate_call",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Runs a partition a backend claimed";
  let description = [{
    `callee` names a function marked `edge.delegate = "<backend>"`: the
    partition outlined from the caller (with its body, before the backend's
    preprocess step ran) or its compiled form (a declaration carrying
    `edge.processed` and the other products of preprocess, after).

    ```mlir
    %y = edge.delegate_call @onednn_0(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
    ```

    A partition with dynamic extents (docs/dynamic-shapes.md, "Delegates")
    takes them as `extents`: the index values of its extent slots, which the
    callee's trailing `index` arguments receive. Before the backend's
    preprocess step these are the index operands its ops read (a reshape's
    sizes); after it, one per slot the backend's graph refers to, and
    `result_extents` gives, per result, the slot of each dimension (-1:
    static), so that the call reifies its result shapes.

    ```mlir
    %y = edge.delegate_call @onednn_0(%x) extents [%n] {result_extents = [array<i64: 0, -1>]}
        : (tensor<?x8xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Edge_Tensor>:$inputs,
                       Variadic<Index>:$extents,
                       OptionalAttr<ArrayAttr>:$result_extents);
  let results = (outs Variadic<Edge_Tensor>:$outputs);
  let assemblyFormat = [{
    $callee `(` $inputs `)` (`extents` `[` $extents^ `]`)? attr-dict `:`
    functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_DELEGATION
