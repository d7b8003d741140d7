//===- EdgeTensor.td - shapes and data movement ------------*- tablegen -*-===//
//
// Constants, reshapes, transposes, concatenation and slices, then the data
// movement ops whose indices are run-time operands.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_TENSOR
#define STRATA_EDGE_TENSOR

include "Edge/IR/EdgeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Edge_ConstantOp : Edge_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "Constant tensor";
  let description = [{
    ```mlir
    %c = edge.constant dense<0.5> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Edge_ReshapeOp : Edge_Op<"reshape",
    [Pure, Edge_KernelOpInterface,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Reshape to the result type (row-major order kept)";
  let description = [{
    Each dynamic (bounded) result extent is an index operand, in order, as
    `tensor.expand_shape`'s `output_shape`; a static reshape has none.

    ```mlir
    %y = edge.reshape %x : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
    %z = edge.reshape %a, %n : (tensor<?x4xf32>, index) -> tensor<?x2x2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Variadic<Index>:$dynamic_sizes);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input), [{
      build($_builder, $_state, output, input, ::mlir::ValueRange());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Edge_TransposeOp : Edge_Op<"transpose",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. Transposes of
    constants fold at compile time (weights of Gemm with `transB`, say).

    ```mlir
    %y = edge.transpose %x {permutation = array<i64: 1, 0>}
        : (tensor<10x64xf32>) -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Edge_ConcatOp : Edge_Op<"concat", [Pure, SameOperandsAndResultElementType,
                                       Edge_KernelOpInterface,
                                       InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Concatenate along a non-negative axis";
  let description = [{
    ```mlir
    %y = edge.concat %a, %b {axis = 1 : i64}
        : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Edge_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_SliceOp : Edge_Op<"slice", [Pure, Edge_KernelOpInterface,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Strided slice with explicit starts and steps";
  let description = [{
    Result element `i` along dimension `d` is input element
    `starts[d] + i * steps[d]`; the result shape gives the counts. Steps are
    non-zero and may be negative; every index read lies inside the input.
    A dynamic (bounded) result extent is an index operand, one per dynamic
    result dimension in order (the kernel checks its reads at run time).

    ```mlir
    %y = edge.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
        : (tensor<4x8xf32>) -> tensor<4x3xf32>
    %z = edge.slice %m, %n {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
        : (tensor<128x128xf32>, index) -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Variadic<Index>:$dynamic_sizes,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$steps);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$starts,
                   "::llvm::ArrayRef<int64_t>":$steps), [{
      build($_builder, $_state, output, input, ::mlir::ValueRange(),
            $_builder.getDenseI64ArrayAttr(starts),
            $_builder.getDenseI64ArrayAttr(steps));
    }]>
  ];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Data movement with run-time index operands
//
// The result shape is static, but the indices that produce it (pads, slice
// bounds, a scan axis) are operands: a constant when the model fixes them,
// otherwise values computed or fed at run time. The verifier checks what
// constants decide; the kernel checks the rest before touching memory and
// fails the call when the run-time values disagree with the compiled shape.
//===----------------------------------------------------------------------===//

def Edge_PadOp : Edge_Op<"pad",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Pad (or crop) with a constant, reflection, edge or wrap values";
  let description = [{
    `pads` holds `2 * rank` i64 values: the begin extents of every dimension,
    then the end extents (ONNX order); negative values crop. Result extent
    `d` is `input[d] + pads[d] + pads[rank + d]`. `mode` is `constant`
    (padding with the one-element `value`, zero when absent), `reflect`
    (mirror without repeating the border; needs extent >= 2 where padded),
    `edge` (repeat the border) or `wrap` (periodic).

    ```mlir
    %y = edge.pad %x, %pads {mode = "reflect"}
        : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$pads,
                       Optional<Edge_Tensor>:$value, StrAttr:$mode);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_DynamicSliceOp : Edge_Op<"dynamic_slice",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Strided slice with ONNX Slice semantics on run-time bounds";
  let description = [{
    `starts`, `ends`, `axes` and `steps` are 1-D i64 tensors of one length,
    read at run time with ONNX Slice semantics: negative values count from
    the end, bounds are clamped, unlisted axes are taken whole. The element
    counts they produce must equal the static result shape. With constant
    bounds the lowering emits `edge.slice` instead.

    ```mlir
    %y = edge.dynamic_slice %x, %starts, %ends, %axes, %steps
        : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>,
           tensor<1xi64>) -> tensor<3x10xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$starts,
                       Edge_IndexTensor:$ends, Edge_IndexTensor:$axes,
                       Edge_IndexTensor:$steps);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_CumSumOp : Edge_Op<"cum_sum",
    [Pure, AllTypesMatch<["input", "output"]>, Edge_KernelOpInterface]> {
  let summary = "Cumulative sum along an axis given as a one-element operand";
  let description = [{
    `axis` is a one-element i64 tensor (negative counts from the end). With
    `exclusive` element `i` sums the elements before `i`, otherwise up to and
    including it; with `reverse` the sums run from the end of the axis.

    ```mlir
    %y = edge.cum_sum %x, %axis {exclusive = false, reverse = true}
        : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$axis,
                       BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_FillOp : Edge_Op<"fill", [Pure, Edge_KernelOpInterface,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "A tensor holding one value, of extents known at run time";
  let description = [{
    Every element is `value` (an integer for integer and boolean results,
    a float for float ones). Each dynamic result extent is an index
    operand, in order (ONNX ConstantOfShape of a shape read at run time);
    a static fill is a constant instead.

    ```mlir
    %y = edge.fill sizes(%n) {value = 90 : i64} : tensor<?xi64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       AnyAttrOf<[I64Attr, F64Attr]>:$value);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
}

def Edge_ShapeOfOp : Edge_Op<"shape_of", [Pure, Edge_KernelOpInterface]> {
  let summary = "The input's extents at run time, as i64";
  let description = [{
    ONNX Shape of a value with dynamic (bounded) extents, for what reads
    the shape as data; the extents that reshapes and ranges take are
    derived at compile time instead (docs/dynamic-shapes.md). Folds to a
    constant for a static input. The input's data is not read.

    ```mlir
    %s = edge.shape_of %x : (tensor<?x?x64xf32>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs StaticShapeTensorOf<[I64]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Edge_RangeOp : Edge_Op<"range", [Pure, Edge_KernelOpInterface,
    AllTypesMatch<["start", "limit", "delta"]>,
    AllElementTypesMatch<["start", "output"]>,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>,
    DeclareOpInterfaceMethods<Edge_ValueDependentExtentOpInterface,
        ["deriveExtentBound", "isValueDependentDim", "reifyOtherExtents"]>]> {
  let summary = "Arithmetic sequence of a compiled length, checked at run time";
  let description = [{
    `output[i] = start + i * delta`. The operands are one-element run-time
    values; the result's extent is the length the program was compiled for
    (static, or the index operand `length` for a dynamic result, which the
    compiler derives from the extents the operands come from), and the
    kernel fails the call when `max(ceil((limit - start) / delta), 0)`
    differs from it (or `delta` is 0). ONNX Range with operands that are not
    constants lowers to it. Where no length can be derived (a limit read
    from the data), the length is value-dependent: the result is `?`
    without a `length`, bounded by the user's `max_extent` (strata-compile
    --max-extent NODE=N), and the kernel reports it.

    ```mlir
    %y = edge.range %start, %limit, %delta
        : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$start, Edge_Tensor:$limit,
                       Edge_Tensor:$delta, Optional<Index>:$length,
                       OptionalAttr<I64Attr>:$max_extent);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$start,
                   "::mlir::Value":$limit, "::mlir::Value":$delta), [{
      build($_builder, $_state, output, start, limit, delta, ::mlir::Value(),
            ::mlir::IntegerAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$start,
                   "::mlir::Value":$limit, "::mlir::Value":$delta,
                   "::mlir::Value":$length), [{
      build($_builder, $_state, output, start, limit, delta, length,
            ::mlir::IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_TENSOR
