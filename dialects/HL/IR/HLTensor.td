//===- HLTensor.td - hl tensor and shape operations ------*- tablegen -*-===//
//
// Constants, shape queries and shape-level data movement (reshape,
// transpose, concat, split, slice, squeeze, expand, tile, pad, ...). Shape-computing ops fold on static shapes so
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

def HL_FlattenOp : HL_Op<"flatten", [Pure, SameOperandsAndResultElementType,
    HL_InferShape]> {
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
    AllElementTypesMatch<["data", "output"]>, HL_InferShape]> {
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
  let hasFolder = 1;
}

def HL_ShapeOp : HL_Op<"shape", [Pure, HL_InferShape]> {
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

def HL_SizeOp : HL_Op<"size", [Pure, HL_InferShape]> {
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
    SameOperandsAndResultElementType, HL_InferShape]> {
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
  let hasFolder = 1;
}

def HL_ConcatOp : HL_Op<"concat", [Pure, SameOperandsAndResultElementType,
    HL_InferShape]> {
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
    extent is divided evenly among the results. Folds on constant data
    when every result type is static (tf2onnx writes Pad's pads as
    `Concat(Split(constant))`).

    ```mlir
    %a, %b = hl.split %x {axis = 0 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    ```
  }];
  let arguments = (ins HL_Tensor:$input, Optional<HL_I64Tensor>:$split,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Variadic<HL_Tensor>:$outputs);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_SliceOp : HL_Op<"slice", [Pure, AllElementTypesMatch<["data", "output"]>,
    HL_InferShape]> {
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

def HL_SqueezeOp : HL_Op<"squeeze", [Pure,
    AllElementTypesMatch<["data", "output"]>, HL_InferShape]> {
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
    AllElementTypesMatch<["data", "output"]>, HL_InferShape]> {
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
    AllElementTypesMatch<["input", "output"]>, HL_InferShape]> {
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
  let hasFolder = 1;
}

def HL_TileOp : HL_Op<"tile", [Pure, AllElementTypesMatch<["input", "output"]>,
    HL_InferShape]> {
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

def HL_PadOp : HL_Op<"pad", [Pure, AllElementTypesMatch<["data", "output"]>,
    HL_InferShape]> {
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
  let hasFolder = 1;
}

def HL_ConstantOfShapeOp : HL_Op<"constant_of_shape", [Pure, HL_InferShape]> {
  let summary = "Tensor of a given shape filled with one value (ONNX ConstantOfShape)";
  let description = [{
    `value` is a one-element tensor giving the fill value and element type.
    Folds to a splat constant once the result type is static.

    ```mlir
    %y = hl.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins HL_I64Tensor:$input, ElementsAttr:$value);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HL_RangeOp : HL_Op<"range", [Pure, AllTypesMatch<["start", "limit", "delta"]>,
    HL_InferShape]> {
  let summary = "Arithmetic sequence (ONNX Range)";
  let description = [{
    `start + i * delta` for `i` in `[0, max(ceil((limit - start) / delta), 0))`.
    Folds to a constant when all three operands are constants and the result
    type is static.

    ```mlir
    %y = hl.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$start, HL_Tensor:$limit, HL_Tensor:$delta);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

/// DepthToSpace / SpaceToDepth.

#endif // STRATA_HL_TENSOR
