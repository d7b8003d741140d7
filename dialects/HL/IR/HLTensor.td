//===- HLTensor.td - hl tensor and shape operations ------*- tablegen -*-===//
//
// Constants, shape queries, data movement (reshape, transpose, slice,
// gather, scatter, pad, ...). Shape-computing ops fold on static shapes so
// that Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains become
// constants.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_TENSOR
#define STRATA_HL_TENSOR

include "HL/IR/HLBase.td"

def HL_ConstantOp : HL_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "Constant tensor (ONNX Constant and initializers)";
  let description = [{
    A constant tensor. The importer turns graph initializers and `Constant`
    nodes into this op; large weights are `dense_resource` blobs.

    ```mlir
    %c = hl.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def HL_FlattenOp : HL_Op<"flatten", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Flatten to a matrix at an axis (ONNX Flatten)";
  let description = [{
    Dimensions before `axis` form the first result dimension, the rest the
    second. `axis` lies in `[-r, r]`.

    ```mlir
    %y = hl.flatten %x {axis = 1 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, DefaultValuedAttr<SI64Attr, "1">:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ReshapeOp : HL_Op<"reshape", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Reshape to a shape given as a tensor (ONNX Reshape)";
  let description = [{
    The target shape is a 1-D `i64` operand (opset 5 and later form; older
    attribute forms are normalised to it at import). A `0` copies the input
    extent unless `allowzero` is 1; one `-1` is inferred.

    ```mlir
    %y = hl.reshape %x, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ShapeOp : HL_Op<"shape", [Pure]> {
  let summary = "Shape of a tensor as a 1-D i64 tensor (ONNX Shape)";
  let description = [{
    Extents `[start, end)` of the input's shape (negative bounds count from
    the end, clamped as ONNX says). Folds when those extents are static.

    ```mlir
    %s = hl.shape %x : (tensor<1x3x8x8xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs HL_I64Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_SizeOp : HL_Op<"size", [Pure]> {
  let summary = "Number of elements as an i64 scalar (ONNX Size)";
  let description = [{
    ```mlir
    %n = hl.size %x : (tensor<3x4xf32>) -> tensor<i64>
    ```
  }];
  let arguments = (ins HL_Tensor:$data);
  let results = (outs 0DTensorOf<[I64]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def HL_TransposeOp : HL_Op<"transpose", [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Permutation of dimensions (ONNX Transpose)";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`; without `perm` the
    dimensions are reversed.

    ```mlir
    %y = hl.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x2x3xf32>) -> tensor<1x3x2xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ConcatOp : HL_Op<"concat", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Concatenation along an axis (ONNX Concat)";
  let description = [{
    All operands have one rank and equal extents except at `axis`. Folds when
    every operand is a constant.

    ```mlir
    %y = hl.concat %a, %b {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x3xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Variadic<HL_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_SplitOp : HL_Op<"split", [Pure]> {
  let summary = "Split along an axis (ONNX Split, opset 13 form)";
  let description = [{
    The optional `split` operand lists the result extents; without it the
    extent is divided evenly among the results.

    ```mlir
    %a, %b = hl.split %x {axis = 0 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    ```
  }];
  let arguments = (ins HL_Tensor:$input, Optional<HL_I64Tensor>:$split,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Variadic<HL_Tensor>:$outputs);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_SliceOp : HL_Op<"slice", [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Strided slice (ONNX Slice, opset 10 form)";
  let description = [{
    `starts`, `ends`, `axes` and `steps` are 1-D index tensors of one length
    (absent `axes`/`steps` are materialised as constants at import, and
    opset-1 attribute forms become operands). Folds on constant data.

    ```mlir
    %y = hl.slice %x, %s, %e, %a, %st
        : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_IndexTensor:$starts,
                       HL_IndexTensor:$ends, HL_IndexTensor:$axes,
                       HL_IndexTensor:$steps);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_GatherOp : HL_Op<"gather", [Pure, AllElementTypesMatch<["data", "output"]>]> {
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
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Gather slices by index tuples (ONNX GatherND)";
  let description = [{
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
    AllElementTypesMatch<["data", "updates"]>]> {
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
}

def HL_ScatterNDOp : HL_Op<"scatter_nd", [Pure,
    AllTypesMatch<["data", "output"]>,
    AllElementTypesMatch<["data", "updates"]>]> {
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
}

def HL_SqueezeOp : HL_Op<"squeeze", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Remove extent-1 dimensions (ONNX Squeeze, opset 13 form)";
  let description = [{
    `axes` is an optional 1-D i64 operand (the opset-1 attribute form is
    normalised to it); without it every extent-1 dimension goes.

    ```mlir
    %y = hl.squeeze %x, %a : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, Optional<HL_I64Tensor>:$axes);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_UnsqueezeOp : HL_Op<"unsqueeze", [Pure,
    AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Insert extent-1 dimensions (ONNX Unsqueeze, opset 13 form)";
  let description = [{
    `axes` (a 1-D i64 operand) indexes the result's dimensions. Folds on
    constant data.

    ```mlir
    %y = hl.unsqueeze %x, %a : (tensor<3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_I64Tensor:$axes);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_ExpandOp : HL_Op<"expand", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Broadcast to a shape (ONNX Expand)";
  let description = [{
    ```mlir
    %y = hl.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_I64Tensor:$shape);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_TileOp : HL_Op<"tile", [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Repeat a tensor along each dimension (ONNX Tile)";
  let description = [{
    ```mlir
    %y = hl.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_I64Tensor:$repeats);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_PadOp : HL_Op<"pad", [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "Pad with a constant, reflection or edge values (ONNX Pad)";
  let description = [{
    `pads` is a 1-D i64 operand (all begin extents, then all end extents; the
    opset-2 attribute form is normalised to it); `constant_value` an optional
    scalar.

    ```mlir
    %y = hl.pad %x, %p {mode = "reflect"} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, HL_I64Tensor:$pads,
                       Optional<HL_Tensor>:$constant_value,
                       DefaultValuedStrAttr<StrAttr, "constant">:$mode);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ConstantOfShapeOp : HL_Op<"constant_of_shape", [Pure]> {
  let summary = "Tensor of a given shape filled with one value (ONNX ConstantOfShape)";
  let description = [{
    `value` is a one-element tensor giving the fill value and element type.

    ```mlir
    %y = hl.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins HL_I64Tensor:$input, ElementsAttr:$value);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_RangeOp : HL_Op<"range", [Pure, AllTypesMatch<["start", "limit", "delta"]>]> {
  let summary = "Arithmetic sequence (ONNX Range)";
  let description = [{
    ```mlir
    %y = hl.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$start, HL_Tensor:$limit, HL_Tensor:$delta);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

/// DepthToSpace / SpaceToDepth.
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

def HL_TriluOp : HL_Op<"trilu", [Pure, AllTypesMatch<["input", "output"]>]> {
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
    AllTypesMatch<["input", "output"]>]> {
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
}

def HL_EyeLikeOp : HL_Op<"eye_like", [Pure, SameOperandsAndResultShape]> {
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
}

def HL_TopKOp : HL_Op<"top_k", [Pure, AllElementTypesMatch<["input", "values"]>]> {
  let summary = "The k largest or smallest elements along an axis (ONNX TopK)";
  let description = [{
    `k` is a one-element i64 operand (the opset-1 attribute is normalised to
    it).

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

def HL_CumSumOp : HL_Op<"cum_sum", [Pure, AllTypesMatch<["input", "output"]>]> {
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
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Resize by interpolation (ONNX Resize, opset 13 form)";
  let description = [{
    One of `scales` (f32, one per dimension) or `sizes` (i64) gives the
    result shape; `roi` is used with `coordinate_transformation_mode =
    "tf_crop_and_resize"`. `Upsample` is normalised to this op.

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
                       DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = [{
    $input (`roi` $roi^)? (`scales` $scales^)? (`sizes` $sizes^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // STRATA_HL_TENSOR
