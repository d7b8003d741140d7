//===- HLIndexing.td - hl gather, scatter and rearrangement -*- tablegen -*-===//
//
// Index-driven data movement (gather, scatter, one-hot, top-k, cumulative
// sums), block rearrangements, einsum and resize.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_INDEXING
#define STRATA_HL_INDEXING

include "HL/IR/HLBase.td"

def HL_GatherOp : HL_Op<"gather", [Pure, AllElementTypesMatch<["data", "output"]>,
    HL_InferShape]> {
  let summary = "Gather slices along an axis (ONNX Gather)";
  let description = [{
    Result shape: `data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    Negative indices count from the end. Folds on constant operands.

    ```mlir
    %y = hl.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_GatherElementsOp : HL_Op<"gather_elements", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Gather single elements along an axis (ONNX GatherElements)";
  let description = [{
    ```mlir
    %y = hl.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_GatherNDOp : HL_Op<"gather_nd", [Pure,
    AllElementTypesMatch<["data", "output"]>, HL_InferShape]> {
  let summary = "Gather slices by index tuples (ONNX GatherND)";
  let description = [{
    Result shape: `indices.shape[:-1] + data.shape[batch_dims + k:]` with
    `k = indices.shape[-1]`; index rows read at run time (NonZero's) keep
    their count open.

    ```mlir
    %y = hl.gather_nd %x, %i : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, TensorOf<[I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ScatterElementsOp : HL_Op<"scatter_elements", [Pure,
    AllTypesMatch<["data", "output"]>,
    AllElementTypesMatch<["data", "updates"]>, HL_InferShape]> {
  let summary = "Scatter single elements along an axis (ONNX ScatterElements)";
  let description = [{
    The deprecated `Scatter` is normalised to this op at import.
    `reduction` is `none`, `add` or `mul`.

    ```mlir
    %y = hl.scatter_elements %x, %i, %u {axis = 1 : i64}
        : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_IndexTensor:$indices,
                       HL_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_ScatterNDOp : HL_Op<"scatter_nd", [Pure,
    AllTypesMatch<["data", "output"]>,
    AllElementTypesMatch<["data", "updates"]>, HL_InferShape]> {
  let summary = "Scatter slices by index tuples (ONNX ScatterND)";
  let description = [{
    ```mlir
    %y = hl.scatter_nd %x, %i, %u : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, TensorOf<[I64]>:$indices,
                       HL_Tensor:$updates,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

class HL_BlockOp<string mnemonic, string onnxName> : HL_Op<mnemonic, [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Move data between depth and blocks of space (ONNX " # onnxName # ")";
  let description = [{
    Input and result have rank 4 (`[N, C, H, W]`); `blocksize` is positive.

    ```mlir
    %y = hl.}] # mnemonic # [{ %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    ```
  }];
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_DepthToSpaceOp : HL_BlockOp<"depth_to_space", "DepthToSpace"> {
  let arguments = (ins HL_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
}

def HL_SpaceToDepthOp : HL_BlockOp<"space_to_depth", "SpaceToDepth"> {
  let arguments = (ins HL_Tensor:$input, I64Attr:$blocksize);
}

def HL_TriluOp : HL_Op<"trilu", [Pure, AllTypesMatch<["input", "output"]>,
    HL_InferShape]> {
  let summary = "Upper or lower triangle of matrices (ONNX Trilu)";
  let description = [{
    ```mlir
    %y = hl.trilu %x, %k {upper = 0 : i64} : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, Optional<0DTensorOf<[I64]>>:$k,
                       DefaultValuedAttr<I64Attr, "1">:$upper);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_OneHotOp : HL_Op<"one_hot", [Pure,
    AllElementTypesMatch<["values", "output"]>]> {
  let summary = "One-hot encoding (ONNX OneHot)";
  let description = [{
    ```mlir
    %y = hl.one_hot %i, %d, %v {axis = -1 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x10xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$indices, HL_Tensor:$depth,
                       HL_Tensor:$values, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_NonZeroOp : HL_Op<"non_zero", [Pure]> {
  let summary = "Indices of non-zero elements (ONNX NonZero)";
  let description = [{
    ```mlir
    %y = hl.non_zero %x : (tensor<2x2xi1>) -> tensor<2x?xi64>
    ```
  }];
  let arguments = (ins HL_Tensor:$input);
  let results = (outs 2DTensorOf<[I64]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def HL_CompressOp : HL_Op<"compress", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Select slices by a boolean mask (ONNX Compress)";
  let description = [{
    ```mlir
    %y = hl.compress %x, %c {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3xi1>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, 1DTensorOf<[I1]>:$condition,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def HL_ReverseSequenceOp : HL_Op<"reverse_sequence", [Pure,
    AllTypesMatch<["input", "output"]>, HL_InferShape]> {
  let summary = "Reverse batch sequences up to their lengths (ONNX ReverseSequence)";
  let description = [{
    ```mlir
    %y = hl.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64}
        : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, 1DTensorOf<[I64]>:$sequence_lens,
                       DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                       DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_EyeLikeOp : HL_Op<"eye_like", [Pure, SameOperandsAndResultShape,
    HL_InferShape]> {
  let summary = "Identity-like 2-D matrix of the input's shape (ONNX EyeLike)";
  let description = [{
    Ones on the diagonal shifted by `k`; the element type is the result's.

    ```mlir
    %y = hl.eye_like %x {k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xi32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[AnyType]>:$input,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_TopKOp : HL_Op<"top_k", [Pure, AllElementTypesMatch<["input", "values"]>,
    HL_InferShape]> {
  let summary = "The k largest or smallest elements along an axis (ONNX TopK)";
  let description = [{
    `k` is a one-element i64 operand (the opset-1 attribute is normalised to
    it). Both results have the input's shape with `k` along the axis (open
    when `k` is read at run time).

    ```mlir
    %v, %i = hl.top_k %x, %k {axis = 1 : i64}
        : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_I64Tensor:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$largest,
                       DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs HL_Tensor:$values, HL_I64Tensor:$indices);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_CumSumOp : HL_Op<"cum_sum", [Pure, AllTypesMatch<["input", "output"]>,
    HL_InferShape]> {
  let summary = "Cumulative sum along an axis (ONNX CumSum)";
  let description = [{
    ```mlir
    %y = hl.cum_sum %x, %a {exclusive = 1 : i64} : (tensor<5xf32>, tensor<i32>) -> tensor<5xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_IndexTensor:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$exclusive,
                       DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_SameShapeRule;
}

def HL_EinsumOp : HL_Op<"einsum", [Pure]> {
  let summary = "Einstein summation (ONNX Einsum)";
  let description = [{
    ```mlir
    %y = hl.einsum %a, %b {equation = "ij,jk->ik"}
        : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<HL_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ResizeOp : HL_Op<"resize", [Pure, AttrSizedOperandSegments,
    AllElementTypesMatch<["input", "output"]>, HL_InferShape]> {
  let summary = "Resize by interpolation (ONNX Resize, opset 19 form)";
  let description = [{
    One of `scales` (f32) or `sizes` (i64) gives the result shape, one entry
    per dimension or, with `axes`, per listed axis; `roi` is used with
    `coordinate_transformation_mode = "tf_crop_and_resize"`.
    `keep_aspect_ratio_policy` (stretch, not_larger, not_smaller) applies to
    `sizes`; `antialias` widens linear/cubic filters when downsampling.
    Older opsets and `Upsample` are normalised to this op.

    ```mlir
    %y = hl.resize %x scales %s {mode = "nearest"}
        : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, Optional<HL_FloatTensor>:$roi,
                       Optional<HL_FloatTensor>:$scales,
                       Optional<HL_I64Tensor>:$sizes,
                       DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
                       DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
                       DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
                       DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
                       DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode,
                       DefaultValuedAttr<I64Attr, "0">:$antialias,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       DefaultValuedStrAttr<StrAttr, "stretch">:$keep_aspect_ratio_policy);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = [{
    $input (`roi` $roi^)? (`scales` $scales^)? (`sizes` $sizes^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_HL_INDEXING
