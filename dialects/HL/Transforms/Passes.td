//===- Passes.td - hl transformation passes --------------*- tablegen -*-===//
#ifndef STRATA_HL_PASSES
#define STRATA_HL_PASSES

include "mlir/Pass/PassBase.td"

def RefineShapes : Pass<"strata-hl-refine-shapes", "mlir::func::FuncOp"> {
  let summary = "Make hl result types static where operands determine them";
  let description = [{
    Exporters and expanded ONNX function bodies compute shapes at run time
    (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape,
    Range over sizes). Once the inputs have static shapes, such chains are
    constant, but the ops downstream still carry the dynamic types the
    importer gave them. This pass alternates, until nothing changes:

    - folding (the hl folders turn shape arithmetic on static shapes and
      constants into `hl.constant`s), and
    - refinement: an op whose result type is not static gets the static type
      its operands imply, as the op's InferShapedTypeOpInterface rule gives
      it (Reshape/Expand/Tile/ConstantOfShape/Range/Slice/... with constant
      shape operands, elementwise and broadcasting ops with static operands,
      reductions with constant axes).
    - inlining: an `hl.if` whose condition folded is replaced by the branch
      it takes (PyTorch's squeeze of a maybe-unit extent, `If(shape[d] ==
      1)`, folds once refinement makes that extent static).

    Ops whose 1-d result length comes from run-time scalars and whose
    lowering checks that length at run time (`hl.range`, which becomes
    `edge.range`, and the window generators, which lower through it) may
    stay dynamic after that. When their uses demand a length (a static type
    reached through elementwise, cast and broadcasting ops, or the declared
    type of the graph output they feed), the pass assumes it and refines
    again: the compiled program then rejects operands that give another
    length, with an error naming both lengths.

    Refinement only makes types more static: an inferred shape that
    contradicts a static extent already in the IR is an error. Returned
    values that became static update the function's result types when the
    declared ones are not static; a declared static result type is never
    changed (a refined value that disagrees with it is an error).

    Precondition: hl ops in a function. Postcondition: every result whose
    shape is determined by static operands has a static type.

    Before:
    ```mlir
    %s = hl.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
    %d = hl.gather %s, %c0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
    %u = hl.unsqueeze %d, %c0a : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
    %t = hl.concat %u, %m1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %y = hl.reshape %x, %t : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
    After:
    ```mlir
    %t = hl.constant dense<[2, -1]> : tensor<2xi64>
    %y = hl.reshape %x, %t : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
    ```
  }];
  let dependentDialects = ["strata::hl::HLDialect"];
  let statistics = [
    Statistic<"numRefined", "num-refined", "Results whose type was refined">,
    Statistic<"numAssumed", "num-assumed",
              "Checked-length results given the length their uses demand">,
  ];
}

def PromoteHalf : Pass<"strata-hl-promote-half", "mlir::func::FuncOp"> {
  let summary = "Compute float16 and bfloat16 models in float32";
  let description = [{
    Strata's kernels and delegates compute in float32; models exported in
    float16 (or bfloat16) are common. This pass gives every f16/bf16 tensor
    inside the function (op results, region arguments, constants and
    constant attributes) the f32 element type, casts the function's f16
    arguments to f32 where they enter, and casts the returned values back,
    so the program keeps the model's signature. Casts to f16 that the model
    itself makes become f32 identities and fold away: values are no longer
    rounded to half precision in between, so results are at least as
    accurate as a half-precision run. The function gets
    `hl.promoted_half = [values, boundary casts]` for the report.

    Precondition: hl ops in a function. A function without f16/bf16 tensors
    is left untouched.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
      %y = hl.sigmoid %x : tensor<4xf16>
      return %y : tensor<4xf16>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> attributes {hl.promoted_half = [1, 2]} {
      %0 = hl.cast %x : (tensor<4xf16>) -> tensor<4xf32>
      %y = hl.sigmoid %0 : tensor<4xf32>
      %1 = hl.cast %y : (tensor<4xf32>) -> tensor<4xf16>
      return %1 : tensor<4xf16>
    }
    ```
  }];
  let dependentDialects = ["strata::hl::HLDialect"];
}

def FoldConstantData : Pass<"strata-hl-fold-constant-data", "mlir::func::FuncOp"> {
  let summary = "Fold data movement on constants into constants, any size";
  let description = [{
    Exporters leave data movement on initializers in the graph: PyTorch's
    LSTM and GRU exports reorder the gates of every weight with Slice and
    Concat, others transpose or reshape weights. The hl folders fold only
    small constants (shape arithmetic, a few thousand elements); this pass
    folds `hl.slice`, `hl.concat`, `hl.transpose`, `hl.reshape`,
    `hl.squeeze`, `hl.unsqueeze` and `hl.flatten` whose operands are all
    constants, whatever their size (up to 256 MiB a result), on the
    constants' bytes, into one `dense_resource` constant, repeating until
    nothing folds. The program then stores the rearranged weights instead
    of moving them on every call. Values are copied, never computed: the
    results are the same bits.

    Precondition: hl ops in a function. Postcondition: no op of those kinds
    has only constant operands.

    Before:
    ```mlir
    %w = hl.constant dense_resource<w> : tensor<512x128xf32>
    %a = hl.slice %w, %s0, %e0, %ax, %st : (...) -> tensor<128x128xf32>
    %b = hl.slice %w, %s1, %e1, %ax, %st : (...) -> tensor<384x128xf32>
    %r = hl.concat %b, %a {axis = 0 : i64} : (...) -> tensor<512x128xf32>
    ```
    After:
    ```mlir
    %r = hl.constant dense_resource<folded> : tensor<512x128xf32>
    ```
  }];
  let dependentDialects = ["strata::hl::HLDialect"];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Ops folded into constants">,
  ];
}

#endif // STRATA_HL_PASSES
