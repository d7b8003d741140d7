//===- Passes.td - partitioning and to_backend -------------*- tablegen -*-===//
#ifndef STRATA_DELEGATION_PASSES
#define STRATA_DELEGATION_PASSES

include "mlir/Pass/PassBase.td"

def Partition : Pass<"strata-partition", "mlir::ModuleOp"> {
  let summary = "Outline the edge ops a backend claims into delegate partitions";
  let description = [{
    The backend's partitioner marks the edge ops its delegate supports (by
    default: every op its per-op support check accepts, which looks at the
    op's kind, shapes, element types and attributes). Marked ops are grouped
    in program order; an op joins a partition of one of its producers only
    when no path leaves that partition and comes back through an unmarked
    op, so partitions never form a cycle with the rest of the program.
    Each partition becomes a private function marked
    `edge.delegate = "<backend>"`, called through `edge.delegate_call`;
    constants it reads are cloned into it. Unmarked ops stay for the
    portable kernels.

    With `cost=builtin` (what strata-compile uses) or `cost=FILE`, each
    group is priced both ways by the calibrated cost model
    (strata/Delegation/CostModel.h): its ops' work, the delegate call and
    the conversion of the tensors crossing its boundary, against its ops on
    the portable kernels. A group cheaper on the portable kernels is left
    there.

    Before (`backend=onednn`, `edge.foo` unsupported):
    ```mlir
    %0 = edge.conv2d %x, %w : ...
    %1 = edge.relu %0 : ...
    %2 = edge.foo %1 : ...
    ```
    After:
    ```mlir
    %1 = edge.delegate_call @onednn_0(%x) : ...
    %2 = edge.foo %1 : ...
    func.func private @onednn_0(%x: ...) -> ... attributes {edge.delegate = "onednn"}
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", [{"onednn"}],
           "Backend whose partitioner claims ops">,
    Option<"cost", "cost", "std::string", [{"none"}],
           "Cost model pricing each group: 'none' (every group delegated), "
           "'builtin' (the backend's calibration) or a calibration file">,
  ];
  let dependentDialects = ["strata::edge::EdgeDialect",
                           "mlir::func::FuncDialect"];
}

def ToBackend : Pass<"strata-to-backend", "mlir::ModuleOp"> {
  let summary = "Compile each outlined partition with its backend's preprocess";
  let description = [{
    For every function marked `edge.delegate = "<backend>"` with a body,
    calls the backend's preprocess step with the compile specs and replaces
    the body by its products, as attributes of the now external function:
    `edge.processed` (the blob), `edge.named_data` (key -> bytes,
    stored as separate segments), `edge.scratch_bytes`,
    `edge.debug_handles` and `edge.compile_specs`.
  }];
  let options = [
    ListOption<"specs", "specs", "std::string",
               "Compile specs as key=value">,
  ];
}

#endif // STRATA_DELEGATION_PASSES
